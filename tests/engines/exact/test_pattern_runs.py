"""The pattern runs' shortcut: a child that is only recorded costs no product.

Its masses come from the matrices' row sums and its halting from the rows'
supports (``integer_vectors.step_masses``); the per-horizon results must be
those of the full products, on the float frontier and in exact arithmetic
alike, and each witness's probabilities those of an independent forward sum.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest

import reference as ref
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import branch_and_bound, engine, incumbents, sequence_mode
from faier.engines.exact.integer_vectors import (
    IntegerVector,
    integer_times,
    integer_vector,
    mass_numerator,
    step_masses,
)
from faier.engines.exact.pruning import SearchCounts
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.privacy.specs import InteractiveDP
from faier.results import Result


def rows(result: Result) -> list[tuple[object, ...]]:
    return [
        (h.k, h.loss, h.witness.left, h.witness.right, h.witness.output, h.witness.p, h.witness.q)
        for h in result.horizons
        if h.witness is not None
    ]


def transcript_probability(threshold: int, answers: list[int], output: tuple[str, ...]) -> Fraction:
    """Pr[output | answers] of Above Threshold (defaults), summed over the noisy threshold:
    every ⊥ needs its noisy answer below it, the final ⊤ one at or above it."""
    noise_t = ref.truncated_geometric_row(Fraction(1, 4), 2, threshold)
    total = Fraction(0)
    for noisy_t, p in noise_t.items():
        for answer, seen in zip(answers, output, strict=True):
            row = ref.truncated_geometric_row(Fraction(1, 2), 2, answer)
            p *= sum(q for z, q in row.items() if (z >= noisy_t) == (seen == "⊤"))
        total += p
    return total


def test_above_threshold_to_sixty_queries_float_and_exact_agree_with_a_forward_sum() -> None:
    problem = Problem("at", above_threshold(), InteractiveDP(1), 60)
    fast = engine.epsilon(problem)
    exact = engine.epsilon(problem, arithmetic="exact")
    assert rows(fast) == rows(exact)
    assert [h.loss.ratio for h in fast.horizons] == [2**k for k in range(1, 61)]
    for h in fast.horizons:
        w = h.witness
        assert w is not None and len(w.output) == h.k
        threshold = int(w.left.split(",")[0].removeprefix("threshold "))
        assert w.p == transcript_probability(threshold, list(w.left_value), w.output)
        assert w.q == transcript_probability(threshold, list(w.right_value), w.output)


@pytest.mark.parametrize(
    "mechanism",
    [sparse_vector("svt"), sparse_vector("isvt2"), sparse_vector("isvt4", cutoff=2)],
    ids=["svt", "isvt2", "isvt4"],
)
def test_sparse_vector_float_and_exact_give_the_same_horizons(mechanism: Interactive) -> None:
    problem = Problem("svt", mechanism, InteractiveDP(1), 8)
    assert rows(engine.epsilon(problem)) == rows(engine.epsilon(problem, arithmetic="exact"))


def test_masses_and_halting_from_the_rows_equal_the_full_product() -> None:
    rng = random.Random(5)
    for mechanism in (above_threshold(), sparse_vector("isvt4", cutoff=2)):
        system, _ = sequence_mode.interactive_system(mechanism)
        for _ in range(200):
            support = rng.sample(range(system.size), rng.randint(1, system.size))
            vector = IntegerVector({s: rng.randint(1, 2**200) for s in support}, 3**50)
            for matrix in system.left:
                product = integer_times(vector, matrix)
                top, den = mass_numerator(vector, matrix)
                assert Fraction(top, den) == product.mass()
                if system.halted is not None:
                    into = step_masses(matrix, system.halted)[2]
                    halts = all(into[s] for s in support)
                    assert halts == product.within(system.halted)


Records = list[tuple[object, ...] | None]


def records(state: sequence_mode.SearchState) -> Records:
    return [None if r is None else (r.loss, r.p, r.q, r.comparison, r.path) for r in state.best]


def start_of(comparisons: list[sequence_mode.SequenceComparison]) -> branch_and_bound.Frontier:
    return {
        (index, -1): branch_and_bound._Node(
            integer_vector(c.a0), integer_vector(c.b0), 1, 1, index, ()
        )
        for index, c in enumerate(comparisons)
    }


def extender(
    system: sequence_mode.SequenceSystem, horizon: int, state: sequence_mode.SearchState
) -> Callable[[branch_and_bound.Frontier, int, Sequence[int]], branch_and_bound.Frontier]:
    def extend(
        frontier: branch_and_bound.Frontier, depth: int, symbols: Sequence[int]
    ) -> branch_and_bound.Frontier:
        return branch_and_bound._extend(
            system,
            frontier,
            depth,
            horizon,
            Budget(),
            state,
            SearchCounts(),
            branch_and_bound._keep_all,
            symbols,
        )

    return extend


@pytest.mark.parametrize(
    ("mechanism", "horizon"),
    [(above_threshold(), 40), (sparse_vector("isvt4", cutoff=2), 9), (sparse_vector("svt"), 9)],
    ids=["at", "isvt4", "svt"],
)
def test_runs_sharing_a_prefix_leave_the_records_of_independent_runs(
    mechanism: Interactive, horizon: int
) -> None:
    """Starting a run from an earlier run's frontier changes no record, path or witness."""
    problem = Problem("m", mechanism, InteractiveDP(1), horizon)
    system, comparisons, _, _ = engine._sequence_setup(problem, Budget())
    runs = list(incumbents.answer_runs(system, horizon))
    branches = incumbents.shared_prefixes(runs)
    assert max(b.depth for b in branches) == horizon - horizon // 2  # "half half", "all below"
    for run, branch in zip(runs, branches, strict=True):
        if branch.source >= 0:
            earlier = runs[branch.source].answers
            assert run.answers[: branch.depth] == earlier[: branch.depth]
            assert run.answers[branch.depth] != earlier[branch.depth]
            assert branches[branch.source].depth <= branch.depth
    shared = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    found = incumbents.seed_incumbents(
        system, horizon, start_of(comparisons), extender(system, horizon, shared), dict
    )
    assert found == len(runs)
    alone = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    extend = extender(system, horizon, alone)
    for run in runs:
        frontier = start_of(comparisons)
        allowed = incumbents.symbols_following(system, run)
        for depth in range(1, horizon + 1):
            frontier = extend(frontier, depth, allowed(depth))
            if not frontier:
                break
    assert records(shared) == records(alone)
    assert all(record is not None for record in records(shared)[1:])


def test_proportional_vectors_share_a_fingerprint() -> None:
    rng = random.Random(3)
    for _ in range(200):
        entries = {s: rng.randrange(1, 10**40) for s in rng.sample(range(8), rng.randint(1, 8))}
        scale = rng.randrange(1, 10**30)
        u = IntegerVector(entries, rng.randrange(1, 10**20))
        v = IntegerVector({s: x * scale for s, x in entries.items()}, rng.randrange(1, 10**20))
        assert u.fingerprint() == v.fingerprint() or u.fingerprint() is None
        assert u.direction() == v.direction()
