"""Certified balls decide the float frontier's comparisons without changing any answer.

The float search decides records, prunes and merges by python-flint ``arb``
balls and goes exact only where they overlap; here, on random small HMMs,
it must give the same exact ε*(k) as exact arithmetic and as exhaustive
enumeration, and the very same witnesses (comparison, transcript, both
probabilities) as the float search that decides everything exactly.  A
tiny working precision forces the overlaps, the raise and the exact
fallback.  The gain bound (κ^j, used where emissions have full support) is
checked against every continuation directly.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.budget import Budget
from faier.engines.exact import balls, branch_and_bound, float_frontier, sequence_mode
from faier.engines.exact.integer_vectors import (
    integer_times,
    integer_vector,
    mass_after,
    same_direction,
)
from faier.engines.exact.pruning import gain_bounds
from faier.model.hmm import HMM

pytestmark = pytest.mark.skipif(not balls.available(), reason="python-flint is not installed")

Case = tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison], int]
Record = tuple[Fraction | None, int, tuple[int, ...], Fraction, Fraction] | None


@st.composite
def rows(
    draw: st.DrawFn, count: int, width: int, low: int, top: int
) -> tuple[tuple[Fraction, ...], ...]:
    out = []
    for _ in range(count):
        weights = [draw(st.integers(low, top)) for _ in range(width)]
        if not any(weights):
            weights[draw(st.integers(0, width - 1))] = 1
        out.append(tuple(Fraction(w, sum(weights)) for w in weights))
    return tuple(out)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    """Small HMMs; weights from 0 make zeros (infinite losses, ties), from 1 a finite κ."""
    n, k = draw(st.integers(2, 6)), draw(st.integers(2, 3))
    low, top = draw(st.sampled_from([(0, 2), (0, 9), (1, 3), (1, 9)]))
    hmm = HMM(
        tuple(f"s{i}" for i in range(n)),
        tuple(f"o{i}" for i in range(k)),
        draw(rows(n, n, 0, top)),
        draw(rows(n, k, low, top)),
        {},
    )
    starts = [{s: p for s, p in enumerate(row) if p} for row in draw(rows(3, n, 0, top))]
    comparisons = [
        sequence_mode.SequenceComparison(starts[i], starts[j], None)  # type: ignore[arg-type]
        for i, j in itertools.permutations(range(3), 2)
    ]
    return sequence_mode.hmm_system(hmm), comparisons, draw(st.integers(1, 5))


def records(case: Case, arithmetic: str) -> list[Record]:
    system, comparisons, horizon = case
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    branch_and_bound.merged_search(
        system, comparisons, horizon, Budget(), state, arithmetic=arithmetic
    )
    return [
        None if r is None else (r.loss.ratio, r.comparison, r.path, r.p, r.q)
        for r in sequence_mode.cumulative(state)
    ]


def exhaustive(case: Case) -> list[Fraction | None]:
    system, comparisons, horizon = case
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    sequence_mode.search(system, comparisons, horizon, Budget(), state)
    return [None if r is None else r.loss.ratio for r in sequence_mode.cumulative(state)]


def without_balls(case: Case) -> list[Record]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(balls, "available", lambda: False)
        return records(case, "float")


def ratios(found: list[Record]) -> list[Fraction | None]:
    return [None if r is None else r[0] for r in found]


@settings(max_examples=40, deadline=None)
@given(cases())
def test_ball_decisions_give_the_exact_answer_and_the_same_witnesses(case: Case) -> None:
    by_balls = records(case, "float")
    assert by_balls == without_balls(case)
    assert ratios(by_balls) == ratios(records(case, "exact")) == exhaustive(case)
    system, comparisons, _ = case
    for record in by_balls:
        if record is not None:
            _, index, path, p, q = record
            assert sequence_mode.recompute(system, comparisons[index], path) == (p, q)


@settings(max_examples=30, deadline=None)
@given(cases())
def test_a_tiny_precision_falls_back_to_exact_with_the_same_answer(case: Case) -> None:
    """At 4 and 8 bits most balls overlap: the raise and the exact fallback decide."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(balls, "PRECISIONS", (4, 8))
        coarse = records(case, "float")
    assert coarse == without_balls(case)
    assert ratios(coarse) == exhaustive(case)


@settings(max_examples=30, deadline=None)
@given(cases())
def test_deciding_every_prune_by_balls_changes_nothing(case: Case) -> None:
    """With the float band wide open every prune goes to the balls (and is audited)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(float_frontier, "BAND", 1e12)
        wide = records(case, "float")
    assert ratios(wide) == exhaustive(case)


@settings(max_examples=40, deadline=None)
@given(cases(), st.integers(0, 2**32))
def test_the_gain_bound_holds_for_every_continuation(case: Case, seed: int) -> None:
    """|a·M_w| / |b·M_w| ≤ |a|/|b|·κ^j for every w of length j, from a random prefix."""
    system, comparisons, horizon = case
    gains = gain_bounds(system, horizon)
    if gains[-1].infinite:
        return
    rng = random.Random(seed)
    comparison = rng.choice(comparisons)
    a, b = dict(comparison.a0), dict(comparison.b0)
    for _ in range(rng.randrange(3)):
        sym = rng.randrange(len(system.symbols))
        a, b = sequence_mode._times(a, system.left[sym]), sequence_mode._times(b, system.right[sym])
    pa, pb = sum(a.values(), Fraction(0)), sum(b.values(), Fraction(0))
    if not pa or not pb:
        return
    start = sequence_mode.SequenceComparison(a, b, None)  # type: ignore[arg-type]
    for j in range(1, min(horizon, 3) + 1):
        kappa_j = gains[j].ratio
        assert kappa_j is not None
        for w in itertools.product(range(len(system.symbols)), repeat=j):
            qa, qb = sequence_mode.recompute(system, start, w)
            if qa:
                assert qb and qa / qb <= pa / pb * kappa_j


def test_ball_comparisons_prove_or_abstain() -> None:
    with balls.precision(64):
        third, half = balls.ball(Fraction(1, 3)), balls.ball(Fraction(1, 2))
        assert balls.exceeds(half, third) is True
        assert balls.exceeds(third, half) is False
        assert balls.exceeds(third, balls.ball(Fraction(1, 3))) is None  # a tie never decides
        assert balls.exceeds(balls.INFINITE, half) is True
        assert balls.exceeds(balls.INFINITE, balls.INFINITE) is False
        assert balls.exceeds(half, balls.UNDECIDED) is None
        zero = balls.ball(Fraction(0))
        assert balls.ratio(half, zero) is balls.INFINITE
        assert balls.ratio(zero, zero) is balls.UNDECIDED
        assert balls.contains(third, Fraction(1, 3))
        assert not balls.contains(third, Fraction(1, 3) + Fraction(1, 10**10))
        assert balls.smaller(balls.INFINITE, half) is half


@settings(max_examples=30, deadline=None)
@given(cases())
def test_float_matrices_from_integers_are_the_rounded_fractions(case: Case) -> None:
    """The float matrices, dense (small systems) or CSR, hold float(p) for every entry p."""
    system, _, _ = case
    dense_floats = float_frontier.float_system(system)
    with patch.object(float_frontier, "DENSE_UP_TO", 0):
        sparse_floats = float_frontier.float_system(system)
    for rows, small, large in zip(system.left, dense_floats.left, sparse_floats.left, strict=True):
        assert isinstance(small, np.ndarray)
        assert not isinstance(large, np.ndarray)
        for dense in (small, large.toarray()):
            for s, row in enumerate(rows):
                assert [dense[s, t] for t, _ in row] == [float(p) for _, p in row]
                assert np.count_nonzero(dense[s]) == len(row)


@pytest.mark.parametrize("n", [5, 40])
def test_integer_vectors_agree_with_fractions(n: int) -> None:
    """Sparse (Python integers) and dense (FLINT) matrices, unreduced, against Fractions."""
    rng = random.Random(n)

    def row() -> tuple[tuple[int, Fraction], ...]:
        weights = [rng.randint(0, 9) for _ in range(n)]
        weights[rng.randrange(n)] += 1
        return tuple((t, Fraction(w, sum(weights))) for t, w in enumerate(weights) if w)

    rows = tuple(row() for _ in range(n))
    vector = {s: Fraction(rng.randint(1, 50), rng.randint(1, 50)) for s in range(0, n, 2)}
    exact, integer = vector, integer_vector(vector)
    for _ in range(4):
        assert mass_after(integer, rows) == sum(sequence_mode._times(exact, rows).values())
        exact, integer = sequence_mode._times(exact, rows), integer_times(integer, rows)
        assert integer.to_sparse() == exact
    assert same_direction(integer, integer_vector({s: 3 * x for s, x in exact.items()}))
    changed = dict(exact)
    changed[0] = changed.get(0, Fraction(0)) + 1
    assert not same_direction(integer, integer_vector(changed))
