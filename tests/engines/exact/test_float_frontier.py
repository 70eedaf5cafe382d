"""The float64 frontier gives the exact answers of the rational search."""

from __future__ import annotations

import itertools
from fractions import Fraction
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import (
    branch_and_bound,
    epsilon,
    float_frontier,
    integer_vectors,
    sequence_mode,
)
from faier.engines.exact.float_frontier import FloatRangeError, float_system
from faier.engines.exact.integer_vectors import integer_vector
from faier.engines.exact.pruning import SearchCounts
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.model.hmm import HMM
from faier.privacy.specs import InteractiveDP
from faier.results import loss_of


@st.composite
def rows(draw: st.DrawFn, count: int, width: int) -> tuple[tuple[Fraction, ...], ...]:
    out = []
    for _ in range(count):
        weights = [draw(st.integers(0, 5)) for _ in range(width)]
        if not any(weights):
            weights[draw(st.integers(0, width - 1))] = 1
        out.append(tuple(Fraction(w, sum(weights)) for w in weights))
    return tuple(out)


@st.composite
def systems(
    draw: st.DrawFn,
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison], int]:
    n, k = draw(st.integers(2, 6)), draw(st.integers(2, 3))
    hmm = HMM(
        tuple(f"s{i}" for i in range(n)),
        tuple(f"o{i}" for i in range(k)),
        draw(rows(n, n)),
        draw(rows(n, k)),
        {},
    )
    starts = draw(rows(3, n))
    vectors = [{s: p for s, p in enumerate(row) if p} for row in starts]
    comparisons = [
        sequence_mode.SequenceComparison(vectors[i], vectors[j], None)  # type: ignore[arg-type]
        for i, j in itertools.permutations(range(3), 2)
    ]
    return sequence_mode.hmm_system(hmm), comparisons, draw(st.integers(1, 5))


def best_per_length(
    system: sequence_mode.SequenceSystem,
    comparisons: list[sequence_mode.SequenceComparison],
    horizon: int,
    arithmetic: str,
) -> tuple[list[Fraction | None], branch_and_bound.SearchCounts, sequence_mode.SearchState]:
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    counts = branch_and_bound.merged_search(
        system, comparisons, horizon, Budget(), state, arithmetic=arithmetic
    )
    records = sequence_mode.cumulative(state)
    return [None if r is None else r.loss.ratio for r in records], counts, state


def exhaustive(
    system: sequence_mode.SequenceSystem,
    comparisons: list[sequence_mode.SequenceComparison],
    horizon: int,
) -> list[Fraction | None]:
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    sequence_mode.search(system, comparisons, horizon, Budget(), state)
    return [None if r is None else r.loss.ratio for r in sequence_mode.cumulative(state)]


@settings(max_examples=80, deadline=None)
@given(systems())
def test_float_frontier_equals_exact_search_and_brute_force(
    case: tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison], int],
) -> None:
    system, comparisons, horizon = case
    floats, _, state = best_per_length(system, comparisons, horizon, "float")
    assert floats == best_per_length(system, comparisons, horizon, "exact")[0]
    assert floats == exhaustive(system, comparisons, horizon)
    with patch.object(float_frontier, "DENSE_UP_TO", 0):  # CSR matrices, as for large systems
        assert best_per_length(system, comparisons, horizon, "float")[0] == floats
    for record in sequence_mode.cumulative(state):
        if record is not None:
            comparison = comparisons[record.comparison]
            assert sequence_mode.recompute(system, comparison, record.path) == (
                record.p,
                record.q,
            )


@pytest.mark.parametrize(
    "mechanism",
    [above_threshold(), above_threshold(m=4)]
    + [sparse_vector(variant) for variant in ("svt", "isvt1", "isvt2", "isvt3", "isvt4")],
    ids=["at", "at-m4", "svt", "isvt1", "isvt2", "isvt3", "isvt4"],
)
def test_interactive_mechanisms_agree_in_both_arithmetics(mechanism: object) -> None:
    problem = Problem("m", mechanism, InteractiveDP(1), 7)  # type: ignore[arg-type]
    floats = epsilon(problem, arithmetic="float")
    exact = epsilon(problem, arithmetic="exact")
    assert [row.loss for row in floats.horizons] == [row.loss for row in exact.horizons]
    assert floats.witness is not None and exact.witness is not None
    assert loss_of(floats.witness.p, floats.witness.q) == loss_of(exact.witness.p, exact.witness.q)
    assert "float64 frontier" in floats.method and "float64" not in exact.method


def test_merge_keys_that_collide_are_told_apart_exactly() -> None:
    """(1, 2) and (1, 7) share a fingerprint modulo 5 but not a direction: both stay."""
    one = Fraction(1)
    hmm = HMM(("s0", "s1"), ("o",), ((one, Fraction(0)), (Fraction(0), one)), ((one,), (one,)), {})
    system = sequence_mode.hmm_system(hmm)
    vectors = [integer_vector({0: one, 1: Fraction(k)}) for k in (2, 7, 12)]
    frontier: branch_and_bound.Frontier = {
        (i, -1): branch_and_bound._Node(v, v, 1, 1, 0, ()) for i, v in enumerate(vectors)
    }
    state = sequence_mode.SearchState(2, [None] * 3)
    counts = SearchCounts()
    with patch.object(integer_vectors, "_PRIME", 5):
        assert len({v.fingerprint() for v in vectors}) == 1
        following = branch_and_bound._extend(
            system, frontier, 1, 2, Budget(), state, counts, branch_and_bound._keep_all, [0]
        )
    assert len(following) == 3 and counts.merged == 0
    twice = {**frontier, (3, -1): branch_and_bound._Node(vectors[1], vectors[1], 1, 2, 0, ())}
    with patch.object(integer_vectors, "_PRIME", 5):
        following = branch_and_bound._extend(
            system, twice, 1, 2, Budget(), state, counts, branch_and_bound._keep_all, [0]
        )
    assert len(following) == 3 and counts.merged == 1


def decaying_hmm(rate: Fraction) -> HMM:
    """State s1 keeps its mass at `rate` per step relative to s0: it underflows in floats."""
    half = Fraction(1, 2)
    return HMM(
        ("s0", "s1"),
        ("x", "y"),
        ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))),
        ((half, half), (rate, 1 - rate)),
        {},
    )


def test_too_small_probabilities_are_left_to_exact_arithmetic() -> None:
    system = sequence_mode.hmm_system(decaying_hmm(Fraction(1, 10**30)))
    with pytest.raises(FloatRangeError):
        float_system(system)
    comparisons = [
        sequence_mode.SequenceComparison(
            {0: Fraction(1, 2), 1: Fraction(1, 2)},
            {0: Fraction(1)},
            None,  # type: ignore[arg-type]
        )
    ]
    floats, counts, _ = best_per_length(system, comparisons, 3, "float")
    assert "too small" in counts.fell_back
    assert floats == best_per_length(system, comparisons, 3, "exact")[0]


def test_underflow_during_the_search_hands_back_to_exact_arithmetic() -> None:
    system = sequence_mode.hmm_system(decaying_hmm(Fraction(1, 10**15)))
    comparisons = [
        sequence_mode.SequenceComparison(
            {0: Fraction(1, 2), 1: Fraction(1, 2)},
            {0: Fraction(1, 3), 1: Fraction(2, 3)},
            None,  # type: ignore[arg-type]
        )
    ]
    floats, counts, _ = best_per_length(system, comparisons, 22, "float")
    assert "underflow" in counts.fell_back
    assert floats == best_per_length(system, comparisons, 22, "exact")[0]
