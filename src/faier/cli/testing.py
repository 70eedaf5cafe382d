"""``faier test``, ``faier certify`` and ``faier bound``: statistical testing and its exact checks.

Parses options, calls :mod:`faier.testing`, prints.  Exit codes: ``test`` 0
(p-values are evidence, not a verdict); ``certify`` 1 when a candidate
violates the claim exactly (or certified), else 3; ``bound`` 0 with an exact
ε* or a certified interval, else 3;
2 for bad input; 130 when interrupted (what was finished is printed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from faier.cli.common import (
    ClusterOption,
    JsonOption,
    NameOption,
    NeighboursOption,
    SeedOption,
    SetOption,
    TimeoutOption,
    WorkersOption,
    app,
    err,
    flag,
    options_from,
)
from faier.cli.exits import bad_input_exits, check_report_path, emit, error_line
from faier.cli.report import ReportOption
from faier.errors import BudgetExceeded, InputError
from faier.mechanisms.library.suite_names import SUITE_NAMES
from faier.results import ExitCode

if TYPE_CHECKING:
    from faier.engines.statistical.reports import EpsilonPoint, StatReport

R = TypeVar("R")

TestTarget = Annotated[
    str,
    typer.Argument(
        help="built-in example, continuous suite name ("
        + ", ".join(SUITE_NAMES)
        + ") or mechanism file (.py)"
    ),
]
Claimed = Annotated[
    str, typer.Option("--claimed", "--epsilon", help="the ε₀ the mechanism claims, e.g. 0.7")
]
MechanismEpsilon = Annotated[str | None, flag("mechanism_epsilon")]
Epsilons = Annotated[str, flag("epsilons")]
Samples = Annotated[int, flag("samples")]
Selection = Annotated[int, flag("selection_samples")]
Alpha = Annotated[float, flag("alpha")]
Thinnings = Annotated[int, flag("thinnings")]
Lengths = Annotated[
    str | None, typer.Option("--lengths", help="input lengths of the patterns, e.g. 5,10")
]
Pairs = Annotated[
    list[str] | None, typer.Option("--pair", help="an input pair D1;D2, e.g. 1,1,1;0,2,2")
]
AllPairs = Annotated[bool, flag("all_pairs")]
PerSample = Annotated[bool, flag("per_sample")]
Plot = Annotated[Path | None, typer.Option("--plot", help="write the p-value curve (.png/.svg)")]


class _Bar:
    """Progress on stderr: one bar per stage, a line per finished ε."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: Any = None

    def stage(self, description: str, total: int) -> None:
        if self.task is not None:
            self.progress.remove_task(self.task)
        self.task = self.progress.add_task(description, total=total)

    def advance(self) -> None:
        self.progress.advance(self.task)

    def point(self, point: EpsilonPoint) -> None:
        self.progress.console.print(
            f"ε = {point.epsilon:g}: p = {point.p_value:.4f}", highlight=False
        )


def _run(action: Callable[[Any], R]) -> R:
    """Run with a progress bar when stderr is a terminal; bad input becomes exit 2."""
    try:
        with bad_input_exits(reraise=(BudgetExceeded,)):
            if not err.is_terminal:
                return action(None)
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
            with Progress(*columns, TimeElapsedColumn(), console=err, transient=True) as bar:
                return action(_Bar(bar))
    except KeyboardInterrupt:
        error_line("interrupted before a result was ready")
        raise typer.Exit(ExitCode.INTERRUPTED) from None
    except BudgetExceeded as stop:
        error_line(f"unknown: {stop.reason} before the test could start")
        raise typer.Exit(ExitCode.UNKNOWN) from None


def _plot(report: StatReport, plot: Path | None) -> None:
    if plot is None:
        return
    from faier.report.statistical import plot_pvalues

    try:
        plot_pvalues([report], plot)
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None


@app.command()
def test(
    target: TestTarget,
    claimed: Annotated[
        str | None,
        typer.Option(
            "--claimed",
            "--epsilon",
            help="the ε₀ the mechanism claims, e.g. 0.7 (default: the ε a wrapped library "
            "object states)",
        ),
    ] = None,
    mechanism_epsilon: MechanismEpsilon = None,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    settings: SetOption = None,
    neighbours: NeighboursOption = None,
    name: NameOption = None,
    per_sample: PerSample = False,
    timeout: TimeoutOption = None,
    plot: Plot = None,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """Look for statistical evidence that TARGET is not ε-DP, over a grid of ε (StatDP)."""
    from faier import testing
    from faier.report.statistical import render_test

    given = locals()
    check_report_path(html)
    report = _run(
        lambda progress: testing.statistical_test(
            target,
            claimed=claimed,
            lengths=lengths,
            pairs=pair or (),
            options=options_from(given),
            progress=progress,
        )
    )
    _plot(report, plot)
    emit(report, "test", as_json, lambda console: render_test(report, console), html_report=html)


@app.command()
def certify(
    target: TestTarget,
    claimed: Claimed,
    mechanism_epsilon: MechanismEpsilon = None,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    settings: SetOption = None,
    neighbours: NeighboursOption = None,
    name: NameOption = None,
    timeout: TimeoutOption = None,
    plot: Plot = None,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """Test, then compute each candidate counterexample exactly (or certified, for continuous
    noise): real or spurious per ε."""
    from faier import testing
    from faier.report.statistical import render_certify

    given = locals()
    check_report_path(html)
    report = _run(
        lambda progress: testing.certify(
            target,
            claimed=claimed,
            lengths=lengths,
            pairs=pair or (),
            options=options_from(given),
            progress=progress,
        )
    )
    _plot(report.test, plot)
    emit(
        report,
        "certify",
        as_json,
        lambda console: render_certify(report, console),
        html_report=html,
    )


@app.command()
def bound(
    target: TestTarget,
    claimed: Annotated[
        str | None,
        typer.Option("--claimed", "--epsilon", help="ε₀ (sets the noise of sampled mechanisms)"),
    ] = None,
    mechanism_epsilon: MechanismEpsilon = None,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: SeedOption = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    settings: SetOption = None,
    neighbours: NeighboursOption = None,
    name: NameOption = None,
    bisect: Annotated[
        bool, typer.Option("--bisect", help="also bisect the tester's interval with exact verdicts")
    ] = False,
    bisection_precision: Annotated[
        float, typer.Option("--precision", help="bisection precision")
    ] = 1e-3,
    timeout: TimeoutOption = None,
    plot: Plot = None,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """A lower bound on ε*: the tester's interval, then exact ε* or a statistical bound."""
    from faier import testing
    from faier.report.statistical import render_bound

    given = locals()
    check_report_path(html)
    report = _run(
        lambda progress: testing.bound(
            target,
            claimed=claimed,
            lengths=lengths,
            pairs=pair or (),
            bisection=bisect,
            precision=bisection_precision,
            options=options_from(given),
            progress=progress,
        )
    )
    _plot(report.test, plot)
    emit(report, "bound", as_json, lambda console: render_bound(report, console), html_report=html)
