"""Shared pieces of the ``faier`` command: the app, consoles, options, runners.

Each command module (``cli/main.py`` for the foundation commands, one module per
further engine) imports ``app`` from here and registers its commands on it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Optional

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

from faier.errors import FaierError, InputError
from faier.report.terminal import render
from faier.results import Result

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Exact verification of differential and Pufferfish privacy for discrete mechanisms.",
)
out = Console()
err = Console(stderr=True)

Target = Annotated[
    str, typer.Argument(help="built-in example, model file (.yaml/.json) or mechanism file (.py)")
]
SetOption = Annotated[
    list[str] | None, typer.Option("--set", help="example or model parameter NAME=VALUE")
]
HorizonOption = Annotated[
    int | None,
    typer.Option("--horizon", help="length of observation sequences / number of queries"),
]
NeighboursOption = Annotated[
    str | None,
    typer.Option(
        "--neighbors", "--neighbours", help="every-query[:Δ], one-query[:Δ] or add-remove"
    ),
]
DeltaOption = Annotated[Optional[str], typer.Option("--delta", help="δ for (ε, δ)-DP")]  # noqa: UP045
JsonOption = Annotated[bool, typer.Option("--json", help="print machine-readable JSON")]
TimeoutOption = Annotated[
    float | None, typer.Option("--timeout", help="seconds before answering 'unknown'")
]
StatesOption = Annotated[
    int | None, typer.Option("--max-states", help="state budget before answering 'unknown'")
]
ArithmeticOption = Annotated[
    str,
    typer.Option(
        "--arithmetic",
        help="sequence search: 'float' (float64 frontier, exact at the margin) or 'exact'",
    ),
]
NameOption = Annotated[str | None, typer.Option("--name", help="which mechanism of a Python file")]


def parse_settings(pairs: list[str] | None) -> dict[str, str]:
    settings: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--set needs NAME=VALUE, got {pair!r}", fix="e.g. --set n=5")
        settings[name.strip()] = value.strip()
    return settings


def error_line(message: str) -> None:
    """One unwrapped line on stderr; ``[a, b]`` in a message is text, not rich markup."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


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
def bad_input_exits(*also: type[Exception]) -> Iterator[None]:
    """Bad input, faier's own refusals (and ``also``) become one stderr line and exit 2."""
    refusals: tuple[type[Exception], ...] = (FaierError, *also)
    try:
        yield
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None
    except refusals as problem:
        error_line(str(problem))
        raise typer.Exit(2) from None


def run_result(action: Callable[[], Result], as_json: bool) -> None:
    """Run an API call; bad input becomes one message and exit 2."""
    with bad_input_exits():
        progress.start()
        try:
            result = action()
        finally:
            progress.stop()
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        render(result, out)
    raise typer.Exit(result.exit_code)
