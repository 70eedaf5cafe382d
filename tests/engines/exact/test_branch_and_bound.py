"""Merged and pruned search against the exhaustive search on random small systems."""

from __future__ import annotations

import time
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import pruning, sequence_mode
from faier.engines.exact.engine import epsilon
from faier.mechanisms.interactive import HALTED, Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.model.distribution import Distribution
from faier.privacy.specs import InteractiveDP


@st.composite
def interactive_mechanisms(draw: st.DrawFn) -> Interactive:
    """Random automata: states 0..n-1, answers 0..2, observations a/b, some halting moves."""
    n = draw(st.integers(1, 3))
    table = {}
    for s in range(n):
        for x in range(3):
            outcomes = [(t, o) for t in [*range(n), -1] for o in "ab"]
            weights = [draw(st.integers(0, 3)) for _ in outcomes]
            if sum(weights) == 0:
                weights[0] = 1
            total = sum(weights)
            table[(s, x)] = Distribution.of(
                {
                    outcome: Fraction(w, total)
                    for outcome, w in zip(outcomes, weights, strict=True)
                    if w
                }
            )

    def step(state: int, answer: int, ctx):  # type: ignore[no-untyped-def]
        nxt, obs = ctx.draw(table[(state, answer)])
        return (HALTED if nxt == -1 else nxt), obs

    starts = {f"start {s}": s for s in range(draw(st.integers(1, n)))}
    return Interactive("random", (0, 1, 2), starts, step)


def exhaustive(mechanism: Interactive, horizon: int) -> list[Fraction | None]:
    system, starts = sequence_mode.interactive_system(mechanism)
    from faier.privacy.specs import Comparison

    comparisons = [
        sequence_mode.SequenceComparison(
            {i: Fraction(1)},
            {i: Fraction(1)},
            Comparison(Distribution.point(k), Distribution.point(k), k, k),
        )
        for k, i in starts.items()
    ]
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    sequence_mode.search(system, comparisons, horizon, Budget(), state)
    return [None if r is None else r.loss.ratio for r in sequence_mode.cumulative(state)]


@settings(max_examples=60, deadline=None)
@given(interactive_mechanisms(), st.integers(1, 4))
def test_merged_search_equals_exhaustive_on_interactive(
    mechanism: Interactive, horizon: int
) -> None:
    result = epsilon(Problem("r", mechanism, InteractiveDP(1), horizon))
    expected = exhaustive(mechanism, horizon)
    got = {row.k: row.loss.ratio for row in result.horizons}
    assert got == {k: r for k, r in enumerate(expected, start=1) if r is not None or k in got}


def test_above_threshold_to_a_hundred_queries() -> None:
    started = time.perf_counter()
    result = epsilon(Problem("at", above_threshold(), InteractiveDP(1), 100))
    assert [row.loss.ratio for row in result.horizons] == [2**k for k in range(1, 101)]
    assert result.statistics.pruned > 0
    assert time.perf_counter() - started < 120  # generous: a hang guard, not a benchmark


def test_growth_bounds_of_above_threshold_double_per_step() -> None:
    system, _ = sequence_mode.interactive_system(above_threshold())
    bounds = pruning.growth_bounds(system, 3)
    assert max(b.ratio for b in bounds[3] if b.ratio is not None) >= 8
