"""Shared pieces of the ``faier`` command: the app, consoles, options, runners.

Each command module (``cli/main.py`` for the foundation commands, one module per
further engine) imports ``app`` from here and registers its commands on it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from faier.core.options import SPECS, Options
from faier.errors import FaierError, InputError, InternalError
from faier.mechanisms.isolation import EndedWithoutResult, user_code
from faier.report.terminal import render
from faier.results import ExitCode, Report, Result, envelope
from faier.version import VERSION

if TYPE_CHECKING:
    from faier.report.html import Extras

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Exact verification of differential and Pufferfish privacy of mechanisms with discrete, "
    "Laplace, Gaussian and exponential noise; statistical testing of black boxes.",
)

_debug = {"on": bool(os.environ.get("FAIER_DEBUG"))}


def _print_version(asked: bool) -> None:
    if asked:
        out.print(f"faier {VERSION}", highlight=False)
        raise typer.Exit()


@app.callback()
def _global_options(
    debug: Annotated[
        bool,
        typer.Option("--debug", help="print the traceback when faier fails (exit code 4)"),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="print faier's version and exit",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """Exit codes: 0 holds (or the figure was computed), 1 violated, 2 bad input, 3 unknown,
    4 internal error."""
    _debug["on"] = debug or bool(os.environ.get("FAIER_DEBUG"))


def crash_exit(failure: BaseException) -> int:
    """Report faier's own failure: one line naming a log file with the traceback; exit 4."""
    trace = "".join(traceback.format_exception(failure))
    handle, name = tempfile.mkstemp(prefix="faier-internal-error-", suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as log:
        log.write(f"faier {VERSION}\n{' '.join(sys.argv)}\n\n{trace}")
    if _debug["on"]:
        err.print(trace, highlight=False, markup=False, soft_wrap=True)
    error_line(
        f"internal error: faier failed ({type(failure).__name__}: {failure}); this is not a "
        f"verdict. Please report it with the traceback in {name} (or rerun with --debug)"
    )
    return int(ExitCode.INTERNAL_ERROR)


def ended_exit(ended: EndedWithoutResult) -> int:
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


out = Console()
err = Console(stderr=True)

WIDTH = 200
"""Columns of the tables when stdout is not a terminal (long vectors stay on one line)."""


def flag(name: str) -> Any:
    """The typer option for an option declared in :data:`faier.core.options.SPECS`."""
    spec = SPECS[name]
    return typer.Option(*spec.flags, help=spec.help)


Target = Annotated[
    str, typer.Argument(help="built-in example, model file (.yaml/.json) or mechanism file (.py)")
]
SetOption = Annotated[list[str] | None, flag("settings")]
HorizonOption = Annotated[int | None, flag("horizon")]
NeighboursOption = Annotated[str | None, flag("neighbours")]
DeltaOption = Annotated[Optional[str], flag("delta")]  # noqa: UP045
JsonOption = Annotated[bool, typer.Option("--json", help="print machine-readable JSON")]
TimeoutOption = Annotated[float | None, flag("timeout")]
StatesOption = Annotated[int | None, flag("max_states")]
ArithmeticOption = Annotated[str, flag("arithmetic")]
NameOption = Annotated[str | None, flag("name")]
EngineOption = Annotated[str, flag("engine")]
ParamOption = Annotated[list[str] | None, flag("params")]
SolverOption = Annotated[str | None, flag("solver")]
EncodingOption = Annotated[str | None, flag("encoding")]
EmitOption = Annotated[str | None, flag("emit_smt2")]
PrecisionOption = Annotated[str | None, flag("precision")]
SeedOption = Annotated[int | None, flag("seed")]
WorkersOption = Annotated[int | None, flag("workers")]
ClusterOption = Annotated[str | None, flag("cluster")]


def options_from(arguments: Mapping[str, Any]) -> Options:
    """The run's options from a command's arguments (named as the options are).

    A command passes ``locals()``: every argument whose name is an option
    is read by that option's own reader, so flags, parsing and messages are
    declared once, in :data:`faier.core.options.SPECS`.
    """
    return Options.parse(**{k: v for k, v in arguments.items() if k in SPECS})


def error_line(message: str) -> None:
    """One unwrapped line on stderr; ``[a, b]`` in a message is text, not rich markup.

    Line breaks inside the message (a user's exception text, a YAML parser's
    note) become spaces, so it stays one line.
    """
    line = " ".join(message.splitlines())
    err.print(f"[bold red]error:[/] {escape(line)}", highlight=False, soft_wrap=True)


class SearchProgress:
    """A progress bar on stderr (terminals only): prefix length of the horizon, and the counts.

    The sequence search goes level by level towards the horizon, so the bar
    is the length reached; the counts say how much merging and pruning saved.
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def start(self) -> None:
        console = self.console or err
        if not console.is_terminal:
            return
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task("computing", total=None, counts="")

    def __call__(self, counts: Any) -> None:
        if self.bar is None or self.task is None:
            return
        self.bar.update(
            self.task,
            description=counts.phase,
            completed=counts.depth,
            total=counts.horizon or None,
            counts=f"{counts.explored} explored · {counts.pruned} pruned · "
            f"{counts.merged} merged · {counts.frontier} in the frontier",
        )

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        self.bar = self.task = None


progress = SearchProgress()
"""Pass ``progress=progress`` to an API call run through :func:`run_result`."""


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
        with user_code():
            yield
    except passing:
        raise
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None
    except refusals as problem:
        error_line(str(problem))
        raise typer.Exit(2) from None


def emit(
    report: Report,
    command: str,
    as_json: bool,
    show: Callable[[Console], None],
    width: int | None = WIDTH,
    html_report: Path | None = None,
    extras: Callable[[], Extras] | None = None,
) -> None:
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
        show(out if out.is_terminal or width is None else Console(width=width))
    raise typer.Exit(report.exit_code)


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


def run_result(
    command: str,
    action: Callable[[], Result],
    as_json: bool,
    html_report: Path | None = None,
    extras: Callable[[Result], Extras] | None = None,
) -> None:
    """Run an API call with the progress bar; bad input becomes one message and exit 2."""
    check_report_path(html_report)
    with bad_input_exits():
        progress.start()
        try:
            result = action()
        finally:
            progress.stop()
    emit(
        result,
        command,
        as_json,
        lambda console: render(result, console),
        width=None,
        html_report=html_report,
        extras=None if extras is None else (lambda: extras(result)),
    )
