"""``faier test``, ``faier certify`` and ``faier bound``: statistical testing and its exact checks.

Parses options, calls :mod:`faier.testing`, prints.  Exit codes: ``test`` 0
(p-values are evidence, not a verdict); ``certify`` 1 when a candidate
violates the claim exactly, else 3; ``bound`` 0 with an exact ε*, else 3;
2 for bad input; 130 when interrupted (what was finished is printed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from faier import testing
from faier.cli.common import (
    JsonOption,
    NameOption,
    NeighboursOption,
    SetOption,
    app,
    bad_input_exits,
    err,
    error_line,
    out,
    parse_settings,
)
from faier.engines.statistical.reports import EpsilonPoint, StatReport
from faier.errors import InputError
from faier.report.statistical import plot_pvalues, render_bound, render_certify, render_test

R = TypeVar("R")

WIDTH = 200
"""Columns of the tables when stdout is not a terminal (long input vectors stay on one line)."""

TestTarget = Annotated[
    str,
    typer.Argument(
        help="built-in example, continuous suite name ("
        + ", ".join(testing.SUITE_NAMES)
        + ") or mechanism file (.py)"
    ),
]
Claimed = Annotated[str, typer.Option("--claimed", help="the ε₀ the mechanism claims, e.g. 0.7")]
Epsilons = Annotated[
    str, typer.Option("--epsilons", help="test ε grid: START:STOP:STEP or a comma list")
]
Samples = Annotated[int, typer.Option("--samples", help="runs per input for the test")]
Selection = Annotated[
    int, typer.Option("--selection-samples", help="runs per input for event selection")
]
Seed = Annotated[int | None, typer.Option("--seed", help="seed for a reproducible run")]
Workers = Annotated[
    int | None, typer.Option("--workers", help="worker processes (default: all cores)")
]
Alpha = Annotated[float, typer.Option("--alpha", help="significance level α")]
Thinnings = Annotated[int, typer.Option("--thinnings", help="thinnings averaged per p-value")]
Lengths = Annotated[
    str | None, typer.Option("--lengths", help="input lengths of the patterns, e.g. 5,10")
]
Pairs = Annotated[
    list[str] | None, typer.Option("--pair", help="an input pair D1;D2, e.g. 1,1,1;0,2,2")
]
AllPairs = Annotated[
    bool, typer.Option("--all-pairs", help="every neighbour pair of a small input space")
]
PerSample = Annotated[
    bool, typer.Option("--per-sample", help="one run per sample (no tables, no vectorising)")
]
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
        with bad_input_exits():
            if not err.is_terminal:
                return action(None)
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
            with Progress(*columns, TimeElapsedColumn(), console=err, transient=True) as bar:
                return action(_Bar(bar))
    except KeyboardInterrupt:
        error_line("interrupted before a result was ready")
        raise typer.Exit(130) from None


def _common(
    set_: list[str] | None,
    neighbors: str | None,
    name: str | None,
    lengths: str | None,
    pair: list[str] | None,
    all_pairs: bool,
) -> dict[str, Any]:
    return {
        "settings": parse_settings(set_),
        "neighbours": neighbors,
        "name": name,
        "lengths": testing.parse_lengths(lengths) if lengths else None,
        "pairs": [testing.parse_pair(p) for p in pair or []],
        "all_pairs": all_pairs,
    }


def _finish(
    data: dict[str, Any], as_json: bool, show: Callable[[Console], None], code: int
) -> None:
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n")
    else:
        show(out if out.is_terminal else Console(width=WIDTH))
    raise typer.Exit(code)


def _plot(report: StatReport, plot: Path | None) -> None:
    if plot is None:
        return
    try:
        plot_pvalues([report], plot)
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None


@app.command()
def test(
    target: TestTarget,
    claimed: Claimed,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: Seed = None,
    workers: Workers = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    set_: SetOption = None,
    neighbors: NeighboursOption = None,
    name: NameOption = None,
    per_sample: PerSample = False,
    plot: Plot = None,
    as_json: JsonOption = False,
) -> None:
    """Look for statistical evidence that TARGET is not ε-DP, over a grid of ε (StatDP)."""
    report = _run(
        lambda progress: testing.statistical_test(
            target,
            claimed=claimed,
            epsilons=epsilons,
            samples=samples,
            selection_samples=selection_samples,
            seed=seed,
            workers=workers,
            alpha=alpha,
            thinnings=thinnings,
            per_sample=per_sample,
            progress=progress,
            **_common(set_, neighbors, name, lengths, pair, all_pairs),
        )
    )
    _plot(report, plot)
    _finish(
        report.to_json(), as_json, lambda console: render_test(report, console), report.exit_code
    )


@app.command()
def certify(
    target: TestTarget,
    claimed: Claimed,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: Seed = None,
    workers: Workers = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    set_: SetOption = None,
    neighbors: NeighboursOption = None,
    name: NameOption = None,
    plot: Plot = None,
    as_json: JsonOption = False,
) -> None:
    """Test, then compute each candidate counterexample exactly: real or spurious per ε."""
    report = _run(
        lambda progress: testing.certify(
            target,
            claimed=claimed,
            epsilons=epsilons,
            samples=samples,
            selection_samples=selection_samples,
            seed=seed,
            workers=workers,
            alpha=alpha,
            thinnings=thinnings,
            progress=progress,
            **_common(set_, neighbors, name, lengths, pair, all_pairs),
        )
    )
    _plot(report.test, plot)
    _finish(
        report.to_json(), as_json, lambda console: render_certify(report, console), report.exit_code
    )


@app.command()
def bound(
    target: TestTarget,
    claimed: Annotated[
        str | None, typer.Option("--claimed", help="ε₀ (sets the noise of sampled mechanisms)")
    ] = None,
    epsilons: Epsilons = "0:2.2:0.1",
    samples: Samples = 500_000,
    selection_samples: Selection = 100_000,
    seed: Seed = None,
    workers: Workers = None,
    alpha: Alpha = 0.05,
    thinnings: Thinnings = 200,
    lengths: Lengths = None,
    pair: Pairs = None,
    all_pairs: AllPairs = False,
    set_: SetOption = None,
    neighbors: NeighboursOption = None,
    name: NameOption = None,
    bisect: Annotated[
        bool, typer.Option("--bisect", help="also bisect the tester's interval with exact verdicts")
    ] = False,
    precision: Annotated[float, typer.Option("--precision", help="bisection precision")] = 1e-3,
    plot: Plot = None,
    as_json: JsonOption = False,
) -> None:
    """A lower bound on ε*: the tester's interval, then exact ε* or a statistical bound."""
    report = _run(
        lambda progress: testing.bound(
            target,
            claimed=claimed,
            epsilons=epsilons,
            samples=samples,
            selection_samples=selection_samples,
            seed=seed,
            workers=workers,
            alpha=alpha,
            thinnings=thinnings,
            bisection=bisect,
            precision=precision,
            progress=progress,
            **_common(set_, neighbors, name, lengths, pair, all_pairs),
        )
    )
    _plot(report.test, plot)
    _finish(
        report.to_json(), as_json, lambda console: render_bound(report, console), report.exit_code
    )
