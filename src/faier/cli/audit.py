"""``faier audit FILE.py:FUNCTION``: run real code on neighbouring datasets, noise intercepted.

Exit codes: 1 violated (with a witness), 0 no violation found (never "holds"
from a search), 3 unknown, 2 bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from faier.cli.common import (
    ClusterOption,
    DeltaOption,
    JsonOption,
    SeedOption,
    TimeoutOption,
    WorkersOption,
    app,
    err,
    options_from,
)
from faier.cli.exits import bad_input_exits, check_report_path, emit
from faier.cli.report import ReportOption


@app.command()
def audit(
    target: Annotated[
        str,
        typer.Argument(
            help="FILE.py:FUNCTION or module:function, called as function(data, **args)"
        ),
    ],
    epsilon: Annotated[
        str, typer.Option("--epsilon", "-e", help="the claimed ε (e.g. 1, 0.5, ln(3))")
    ],
    data: Annotated[
        Path, typer.Option("--data", help="the dataset: .csv (header row), .npy or .json")
    ],
    delta: DeltaOption = None,
    neighbours: Annotated[
        str, typer.Option("--neighbours", "--neighbors", help="add-remove or replace-one")
    ] = "add-remove",
    arg: Annotated[
        list[str] | None,
        typer.Option("--arg", help="an argument NAME=VALUE for the function (repeatable)"),
    ] = None,
    seed: SeedOption = None,
    budget: Annotated[
        int | None,
        typer.Option("--budget", help="the most neighbouring pairs to try (default 100)"),
    ] = None,
    bounds: Annotated[
        list[str] | None,
        typer.Option(
            "--bounds",
            help="record values LOW:HIGH or COLUMN=LOW:HIGH (repeatable); default: the data's",
        ),
    ] = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    timeout: TimeoutOption = None,
    test_samples: Annotated[
        int | None,
        typer.Option(
            "--test-samples",
            help="also run the statistical tester on undecided pairs with this many samples "
            "(evidence, not a verdict)",
        ),
    ] = None,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """Audit a real function: exact ε* of the worst neighbouring pair found, with the line."""
    from faier import api
    from faier.auditing.target import read_arguments

    check_report_path(html)
    with bad_input_exits():
        given = {"seed": seed, "workers": workers, "cluster": cluster, "timeout": timeout}
        options = options_from(given)
        report = api.audit(
            target,
            data,
            epsilon=epsilon,
            delta=delta,
            neighbours=neighbours,
            args=read_arguments(arg),
            seed=options.seed,
            budget=budget,
            bounds=bounds,
            progress=_progress(),
            workers=options.workers,
            cluster=options.cluster,
            timeout=options.timeout,
            test_samples=test_samples,
        )
    from faier.report.audit import render_audit

    emit(report, "audit", as_json, lambda console: render_audit(report, console), html_report=html)


def _progress() -> Callable[[int, int], None] | None:
    """A counter on stderr (terminals only)."""
    if not err.is_terminal:
        return None

    def show(done: int, total: int) -> None:
        err.print(f"\rpairs {done}/{total}", end="", highlight=False)
        if done == total:
            err.print("\r" + " " * 24 + "\r", end="")

    return show
