"""Sequence-mode benchmark: merged, pruned search against the exhaustive baseline.

Prints, per case: the size (horizon), seconds and prefixes explored for the
foundation's exhaustive depth-first search (the baseline, skipped where it
would take too long) and for the merged search, and the exact ε*.  Run with
``.venv/bin/python benchmarks/sequence_mode.py``.
"""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from fractions import Fraction

from faier.engines.budget import Budget
from faier.engines.exact import engine, sequence_mode
from faier.engines.problem import Problem
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.privacy.specs import InteractiveDP
from faier.results import Loss

BASELINE_SECONDS = 15.0
"""The exhaustive baseline grows like (answer pairs)^k; skip it once a horizon took this long."""


def exhaustive(mechanism: Interactive, horizon: int) -> tuple[float, int, Loss | None]:
    """The foundation engine: depth-first over every transcript."""
    started = time.perf_counter()
    budget = Budget()
    problem = Problem("baseline", mechanism, InteractiveDP(1), horizon)
    system, comparisons, _, _ = engine._sequence_setup(problem, budget)
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    sequence_mode.search(system, comparisons, horizon, budget, state)
    records = sequence_mode.cumulative(state)
    loss = records[-1].loss if records and records[-1] else None
    return time.perf_counter() - started, budget.explored, loss


def merged(mechanism: Interactive, horizon: int) -> tuple[float, int, Loss | None]:
    started = time.perf_counter()
    result = engine.epsilon(Problem("merged", mechanism, InteractiveDP(1), horizon))
    return time.perf_counter() - started, result.statistics.explored, result.epsilon_star


def show(loss: Loss | None) -> str:
    if loss is None:
        return "-"
    return (
        "∞"
        if loss.ratio is None
        else f"{loss.ratio}"
        if loss.ratio < 10**6
        else f"2^{loss.ratio.numerator.bit_length() - 1}"
    )


def main() -> None:
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    cases: list[tuple[str, Callable[[], Interactive], list[int]]] = [
        ("above threshold", above_threshold, [4, 5, 6, 20, 50, 100]),
        ("svt (N=1)", lambda: sparse_vector("svt"), [4, 5, 6, 20, 50]),
        ("isvt2 (never halts)", lambda: sparse_vector("isvt2"), [3, 4, 5, 20, 40]),
        ("isvt4 (N=2)", lambda: sparse_vector("isvt4", cutoff=2), [3, 4, 5, 20]),
    ]
    header = (
        f"{'case':22} {'k':>4} {'baseline s':>11} {'explored':>9} {'merged s':>9} "
        f"{'explored':>9}  ε*(k) ratio"
    )
    print(header)
    print("-" * len(header))
    for name, build, horizons in cases:
        baseline_on = True
        for k in horizons:
            mechanism = build()
            if baseline_on:
                base_s, base_n, base_loss = exhaustive(mechanism, k)
                base = f"{base_s:11.3f} {base_n:9d}"
                baseline_on = base_s < BASELINE_SECONDS / 10
            else:
                base_loss, base = None, f"{'—':>11} {'—':>9}"
            fast_s, fast_n, fast_loss = merged(mechanism, k)
            if base_loss is not None and base_loss != fast_loss:
                raise SystemExit(f"disagreement on {name} k={k}: {base_loss} vs {fast_loss}")
            print(f"{name:22} {k:4d} {base} {fast_s:9.3f} {fast_n:9d}  {show(fast_loss)}")
    started = time.perf_counter()
    result = engine.epsilon(Problem("at", above_threshold(), InteractiveDP(1), 100))
    assert all(row.loss.ratio == Fraction(2) ** row.k for row in result.horizons)
    print(
        f"\nabove threshold, every horizon 1..100 in one run: "
        f"{time.perf_counter() - started:.2f} s (ε*(K) = K·ln 2 for all K)"
    )
    started = time.perf_counter()
    result = engine.epsilon(Problem("at", above_threshold(), InteractiveDP(1)))
    print(
        f"above threshold, no horizon: ε* = {show(result.epsilon_star)} with a certificate "
        f"in {time.perf_counter() - started:.2f} s"
    )


if __name__ == "__main__":
    main()
