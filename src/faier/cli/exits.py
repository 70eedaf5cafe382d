"""How the ``faier`` command ends: its output, its exit code and its error lines.

Neither typer nor rich is imported here at the start: rich is loaded when
something is printed through it (an error line, a text report), so the
typer-free front door (:mod:`faier.cli.entry`) shares every way out with the
typer commands (:mod:`faier.cli.common`) without paying for either.  Exit
codes are :class:`~faier.results.ExitCode`'s, raised as ``SystemExit`` (bad
input 2, a report its own code), which typer passes through as it passes
``typer.Exit``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn, TypeVar

from faier.errors import FaierError, InputError, InternalError
from faier.mechanisms import isolation
from faier.results import ExitCode, Report, envelope
from faier.version import VERSION

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

    from faier.report.html import Extras

A = TypeVar("A")

WIDTH = 200
"""Columns of the tables when stdout is not a terminal (long vectors stay on one line)."""

_debug = {"on": bool(os.environ.get("FAIER_DEBUG"))}
_consoles: dict[bool, Console] = {}


def set_debug(on: bool) -> None:
    """``--debug`` (or ``FAIER_DEBUG`` in the environment): crashes print their traceback."""
    _debug["on"] = on or bool(os.environ.get("FAIER_DEBUG"))


def console(stderr: bool = False) -> Console:
    """The one rich console on stdout (or stderr), made on first use."""
    if stderr not in _consoles:
        from rich.console import Console

        _consoles[stderr] = Console(stderr=stderr)
    return _consoles[stderr]


def error_line(message: str) -> None:
    """One unwrapped line on stderr; ``[a, b]`` in a message is text, not rich markup.

    Line breaks inside the message (a user's exception text, a YAML parser's
    note) become spaces, so it stays one line.
    """
    from rich.markup import escape

    line = " ".join(message.splitlines())
    shown = f"[bold red]error:[/] {escape(line)}"
    console(stderr=True).print(shown, highlight=False, soft_wrap=True)


def crash_exit(failure: BaseException) -> int:
    """Report faier's own failure: one line naming a log file with the traceback; exit 4."""
    import tempfile
    import traceback

    trace = "".join(traceback.format_exception(failure))
    handle, name = tempfile.mkstemp(prefix="faier-internal-error-", suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as log:
        log.write(f"faier {VERSION}\n{' '.join(sys.argv)}\n\n{trace}")
    if _debug["on"]:
        console(stderr=True).print(trace, highlight=False, markup=False, soft_wrap=True)
    error_line(
        f"internal error: faier failed ({type(failure).__name__}: {failure}); this is not a "
        f"verdict. Please report it with the traceback in {name} (or rerun with --debug)"
    )
    return int(ExitCode.INTERNAL_ERROR)


def ended_exit(ended: isolation.EndedWithoutResult) -> int:
    """The command's process ended without a result: exit 4, naming the user code it ran."""
    if ended.running is None:  # no user code was loaded: faier or a library it calls
        error_line(
            f"internal error: the process running the command ended without a result "
            f"({ended.how}); this is not a verdict. Please report it (rerun with --debug)"
        )
    else:
        error_line(
            f"internal error: the process running {ended.running} ended without a result "
            f"({ended.how}); this is not a verdict. User code must return or raise: os._exit, "
            "signals and crashes of the interpreter end the run"
        )
    return int(ExitCode.INTERNAL_ERROR)


def exit_code_of(command: Callable[[A], object], argument: A) -> int:
    """Run ``command(argument)`` in this process; its exit code, whatever way it ends.

    ``SystemExit`` carries the code (a text code is printed, exit 1), Ctrl-C
    is 130, and any other exception is faier's own failure (:func:`crash_exit`).
    """
    try:
        command(argument)
    except SystemExit as done:
        if done.code is None or isinstance(done.code, int):
            return done.code or 0
        console(stderr=True).print(str(done.code), highlight=False, markup=False)
        return 1
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)
    except Exception as failure:
        return crash_exit(failure)
    return 0


def run_command(run: Callable[[A], int], argument: A) -> int:
    """``run(argument)``'s exit code, computed in a forked child (``isolation``).

    User code that ends the process (``os._exit``, a signal, a crash) ends in
    exit 4 naming it.  With standard streams that are not files (a caller
    capturing them in memory) it runs in this process.

    The process is faier's command, whose product is exact numbers of any length:
    Python's limit on converting an int to or from decimal text (4300 digits, a
    guard against untrusted input) is lifted, so an answer such as brp's with
    N = 512 (11,357 digits) is printed whole instead of ending in exit 4.
    """
    sys.set_int_max_str_digits(0)
    if not isolation.can_isolate() or not _streams_are_files():
        return run(argument)
    try:
        return isolation.call_isolated(run, argument, forward_signals=True)
    except isolation.EndedWithoutResult as ended:
        return ended_exit(ended)
    except KeyboardInterrupt:
        return int(ExitCode.INTERRUPTED)


def _streams_are_files() -> bool:
    try:
        sys.stdout.fileno()
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return True


@contextmanager
def bad_input_exits(
    *also: type[Exception], reraise: tuple[type[Exception], ...] = ()
) -> Iterator[None]:
    """Bad input, faier's own refusals (and ``also``) become one stderr line and exit 2.

    Internal errors (and ``reraise``) pass through to their own handlers.  The
    stretch may run user code (:func:`~faier.mechanisms.isolation.user_code`):
    what it prints goes to stderr, so faier's own output, printed after it,
    stays clean.
    """
    refusals: tuple[type[Exception], ...] = (FaierError, *also)
    passing: tuple[type[Exception], ...] = (InternalError, *reraise)
    try:
        with isolation.user_code():
            yield
    except passing:
        raise
    except InputError as problem:
        error_line(problem.render())
        raise SystemExit(int(ExitCode.BAD_INPUT)) from None
    except refusals as problem:
        error_line(str(problem))
        raise SystemExit(int(ExitCode.BAD_INPUT)) from None


def emit(
    report: Report,
    command: str,
    as_json: bool,
    show: Callable[[Console], None],
    width: int | None = WIDTH,
    html_report: Path | None = None,
    extras: Callable[[], Extras] | None = None,
) -> NoReturn:
    """Print a report (the JSON envelope, or its one renderer) and exit with its code.

    ``width`` is the table width when stdout is not a terminal (None: rich's default).
    ``html_report``: also write the HTML page there (atomically), with ``extras``.
    """
    if html_report is not None:
        write_html(html_report, report, command, extras)
    if as_json:
        data = envelope(report, command)
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    else:
        out = console()
        if out.is_terminal or width is None:
            show(out)
        else:
            from rich.console import Console

            show(Console(width=width))
    raise SystemExit(int(report.exit_code))


def write_html(
    path: Path, report: Report, command: str, extras: Callable[[], Extras] | None = None
) -> None:
    """Write ``--report FILE.html``; a path that cannot be written is bad input (exit 2)."""
    from faier.cli.report import command_line
    from faier.report.html import page, write

    with bad_input_exits():
        shown = extras() if extras is not None else None
        write(path, page(report, command=command, extras=shown, command_line=command_line()))


def check_report_path(path: Path | None) -> None:
    """Refuse a ``--report`` path before any work is done."""
    if path is not None:
        from faier.report.html import check_path

        with bad_input_exits():
            check_path(path)
