"""Shared pieces of the ``faier`` command: the app, consoles, options, runners.

Each command module (``cli/main.py`` for the foundation commands, one module per
further engine) imports ``app`` from here and registers its commands on it; how
a command ends (its output, exit code and error lines) is :mod:`faier.cli.exits`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from faier.cli.exits import bad_input_exits, check_report_path, console, emit, set_debug
from faier.core.options import SPECS, Options
from faier.report.terminal import render
from faier.results import Result
from faier.version import VERSION

if TYPE_CHECKING:
    from faier.report.html import Extras

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Exact verification of differential and Pufferfish privacy of mechanisms with discrete, "
    "Laplace, Gaussian and exponential noise; statistical testing of black boxes.",
)


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
    set_debug(debug)


out = console()
err = console(stderr=True)


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
