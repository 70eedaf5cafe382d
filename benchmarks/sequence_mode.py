"""Sequence-mode benchmark: merged, pruned search against the exhaustive baseline.

Prints, per case: the size (horizon), seconds and prefixes explored for the
foundation's exhaustive depth-first search (the baseline, skipped where it
would take too long) and for the merged search in exact rationals and on the
float64 frontier, and the exact ε*.  A second table does the same on random
HMMs with more states, where the arithmetic dominates.  Last, Above
Threshold at every horizon 1..1000 in one run (float, exact, and the
previous pattern step as baseline, all checked to agree), and the CLI
command's whole-process CPU time.  Run with
``.venv/bin/python benchmarks/sequence_mode.py`` (``--above-threshold``:
that last part alone).
"""

from __future__ import annotations

import itertools
import random
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from fractions import Fraction
from pathlib import Path
from unittest.mock import patch

import machine

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import branch_and_bound, engine, incumbents, sequence_mode
from faier.engines.exact.integer_vectors import IntegerVector
from faier.engines.exact.pruning import SearchCounts
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.model.hmm import HMM
from faier.privacy.specs import InteractiveDP
from faier.results import Loss, loss_of

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


def merged(mechanism: Interactive, horizon: int, arithmetic: str) -> tuple[float, int, Loss | None]:
    started = time.perf_counter()
    problem = Problem("merged", mechanism, InteractiveDP(1), horizon)
    result = engine.epsilon(problem, arithmetic=arithmetic)
    return time.perf_counter() - started, result.statistics.explored, result.exact_loss


def random_hmm_system(
    states: int, observations: int, seed: int = 1
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison]]:
    """A dense random HMM (weights 0..9) and every ordered pair of three random priors."""
    rng = random.Random(seed)

    def rows(count: int, width: int) -> tuple[tuple[Fraction, ...], ...]:
        out = []
        for _ in range(count):
            weights = [rng.randint(0, 9) for _ in range(width)]
            weights[rng.randrange(width)] += 1
            out.append(tuple(Fraction(w, sum(weights)) for w in weights))
        return tuple(out)

    hmm = HMM(
        tuple(f"s{i}" for i in range(states)),
        tuple(f"o{i}" for i in range(observations)),
        rows(states, states),
        rows(states, observations),
        {},
    )
    priors = [{s: p for s, p in enumerate(row) if p} for row in rows(3, states)]
    comparisons = [
        sequence_mode.SequenceComparison(priors[i], priors[j], None)  # type: ignore[arg-type]
        for i, j in itertools.permutations(range(3), 2)
    ]
    return sequence_mode.hmm_system(hmm), comparisons


def search_random(states: int, horizon: int, how: str) -> tuple[float, int, Fraction | None]:
    """One random-HMM search: 'exhaustive', or the merged search in 'exact'/'float'."""
    system, comparisons = random_hmm_system(states, 3)
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    budget = Budget()
    started = time.perf_counter()
    if how == "exhaustive":
        sequence_mode.search(system, comparisons, horizon, budget, state)
    else:
        branch_and_bound.merged_search(system, comparisons, horizon, budget, state, arithmetic=how)
    record = sequence_mode.cumulative(state)[-1]
    assert record is not None
    return time.perf_counter() - started, budget.explored, record.loss.ratio


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
    print(f"machine: {machine.describe()}")
    if "--above-threshold" in sys.argv[1:]:
        above_threshold_long()  # the target alone
        return
    cases: list[tuple[str, Callable[[], Interactive], list[int]]] = [
        ("above threshold", above_threshold, [4, 5, 6, 20, 50, 100]),
        ("svt (N=1)", lambda: sparse_vector("svt"), [4, 5, 6, 20, 50]),
        ("isvt2 (never halts)", lambda: sparse_vector("isvt2"), [3, 4, 5, 20, 40]),
        ("isvt4 (N=2)", lambda: sparse_vector("isvt4", cutoff=2), [3, 4, 5, 20]),
    ]
    header = (
        f"{'case':22} {'k':>4} {'baseline s':>11} {'explored':>9} {'exact s':>8} "
        f"{'float s':>8} {'explored':>9}  ε*(k) ratio"
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
            exact_s, _, exact_loss = merged(mechanism, k, "exact")
            fast_s, fast_n, fast_loss = merged(mechanism, k, "float")
            if fast_loss != exact_loss or base_loss not in (None, fast_loss):
                raise SystemExit(f"disagreement on {name} k={k}: {base_loss} vs {fast_loss}")
            print(
                f"{name:22} {k:4d} {base} {exact_s:8.3f} {fast_s:8.3f} {fast_n:9d}  "
                f"{show(fast_loss)}"
            )
    random_hmms()
    above_threshold_long()


def above_threshold_long() -> None:
    """Every horizon in one run: 1..100, then 1..1000 beside the previous pattern step."""
    started = time.perf_counter()
    result = engine.epsilon(Problem("at", above_threshold(), InteractiveDP(1), 100))
    assert all(row.loss.ratio == Fraction(2) ** row.k for row in result.horizons)
    print(
        f"\nabove threshold, every horizon 1..100 in one run: "
        f"{time.perf_counter() - started:.2f} s (ε*(K) = K·ln 2 for all K)"
    )
    horizons: dict[str, list[tuple[object, ...]]] = {}
    for arithmetic, extend, shared in (
        ("float", branch_and_bound._extend, True),
        ("exact", branch_and_bound._extend, True),
        ("float, runs from the start, merged by gcd directions (previous)", None, False),
        ("float, every child's product (earlier)", previous_extend, False),
    ):
        started, cpu = time.perf_counter(), time.process_time()
        problem = Problem("at", above_threshold(), InteractiveDP(1), 1000)
        with ExitStack() as undo:
            if extend is not None:
                undo.enter_context(patch.object(branch_and_bound, "_extend", extend))
            if not shared:
                undo.enter_context(patch.object(incumbents, "shared_prefixes", runs_alone))
                undo.enter_context(patch.object(branch_and_bound, "_merge_key", gcd_key))
            result = engine.epsilon(problem, arithmetic=arithmetic.split(",")[0])
        assert result.exact_loss is not None
        assert result.exact_loss.ratio == Fraction(2) ** 1000
        horizons[arithmetic] = [
            (h.k, h.loss, h.witness.output, h.witness.p, h.witness.q)
            for h in result.horizons
            if h.witness is not None
        ]
        print(
            f"above threshold, every horizon 1..1000 in one run ({arithmetic}): "
            f"{time.perf_counter() - started:.2f} s, {time.process_time() - cpu:.2f} s of CPU"
        )
    if len({str(rows) for rows in horizons.values()}) != 1:
        raise SystemExit("above threshold 1..1000: the runs disagree on a horizon")
    whole_process()
    started = time.perf_counter()
    result = engine.epsilon(Problem("at", above_threshold(), InteractiveDP(1)))
    print(
        f"above threshold, no horizon: ε* = {show(result.exact_loss)} with a certificate "
        f"in {time.perf_counter() - started:.2f} s"
    )


def whole_process() -> None:
    """The issue's figure: the CLI command, interpreter start and printing included."""
    command = [str(Path(sys.executable).with_name("faier")), "epsilon", "above-threshold"]
    for extra in ((), ("--json",)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([*command, "--horizon", "1000", *extra], check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(
            f"faier epsilon above-threshold --horizon 1000 {' '.join(extra)}: "
            f"{time.perf_counter() - started:.2f} s, {cpu:.2f} s of CPU whole process"
        )


def runs_alone(runs: Sequence[incumbents.AnswerRun]) -> list[incumbents.Branch]:
    """The previous pattern runs: each from the start, no prefix shared."""
    return [incumbents.Branch(-1, 0)] * len(runs)


def gcd_key(a: IntegerVector, b: IntegerVector) -> branch_and_bound.MergeKey:
    """The previous merge key: both primitive directions (a gcd of every entry)."""
    return (a.direction(), b.direction())


def previous_extend(
    system: sequence_mode.SequenceSystem,
    frontier: branch_and_bound.Frontier,
    depth: int,
    horizon: int,
    budget: Budget,
    state: sequence_mode.SearchState,
    counts: SearchCounts,
    keep: branch_and_bound.Keep,
    symbols: Iterable[int],
    products: branch_and_bound.Products | None = None,
    memo: branch_and_bound.StepsMemo | None = None,
) -> branch_and_bound.Frontier:
    """The pattern runs' step before recorded-only children skipped their products."""
    halted = system.halted
    following: branch_and_bound.Frontier = {}
    chosen = tuple(symbols)
    for node in frontier.values():
        budget.spend()
        counts.explored += 1
        for sym in chosen:
            a2 = branch_and_bound._times(products, node.a, system.left[sym])
            top = a2.total()
            if top == 0:
                continue
            b2 = branch_and_bound._times(products, node.b, system.right[sym])
            bottom = b2.total()
            path = (*node.path, sym)
            record = state.best[depth]
            if record is None or branch_and_bound._beats(top, a2.den, bottom, b2.den, record.loss):
                pa, pb = Fraction(top, a2.den), Fraction(bottom, b2.den)
                state.best[depth] = sequence_mode.DepthRecord(
                    loss_of(pa, pb), pa, pb, node.comparison, path
                )
            if bottom == 0 or (halted is not None and a2.within(halted) and b2.within(halted)):
                continue
            if depth == horizon:
                counts.cut = True
                continue
            if not keep(a2, b2, depth):
                counts.pruned += 1
                counts.cut = True
                continue
            key = (a2.direction(), b2.direction())
            scale_top, scale_bottom = top * b2.den, bottom * a2.den
            existing = following.get(key)
            if existing is not None:
                counts.merged += 1
                if scale_top * existing.bottom <= existing.top * scale_bottom:
                    continue
            following[key] = branch_and_bound._Node(
                a2, b2, scale_top, scale_bottom, node.comparison, path
            )
    return following


def random_hmms() -> None:
    """Random dense HMMs, 3 observations, 6 prior pairs: where float64 pays."""
    header = (
        f"\n{'random HMM states':22} {'k':>4} {'baseline s':>11} {'exact s':>8} "
        f"{'float s':>8} {'speed-up':>8}  ε*(k)"
    )
    print(header)
    print("-" * (len(header) - 1))
    for states, horizon in ((10, 6), (20, 7), (40, 7), (80, 7)):
        base = f"{'—':>11}"
        if states <= 10:
            base_s, _, base_ratio = search_random(states, horizon, "exhaustive")
            base = f"{base_s:11.3f}"
        exact_s, _, exact_ratio = search_random(states, horizon, "exact")
        float_s, _, float_ratio = search_random(states, horizon, "float")
        if float_ratio != exact_ratio or (states <= 10 and base_ratio != exact_ratio):
            raise SystemExit(f"disagreement on a random HMM with {states} states")
        shown = "∞" if float_ratio is None else f"{float(float_ratio):.6f}"
        print(
            f"{states:22d} {horizon:4d} {base} {exact_s:8.3f} {float_s:8.3f} "
            f"{exact_s / float_s:7.1f}×  {shown}"
        )


if __name__ == "__main__":
    main()
