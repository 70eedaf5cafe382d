"""The lookahead bound (exact futures of the last steps) against brute force over every word.

A pruning bug is a soundness bug: the bound must be exactly the best loss of
the words of each length (not more: it must prune; never less: it would lose
a record), in exact integers and, within the margin, in float64; and the searches that prune with it must keep every answer of the
exhaustive one, on HMMs (both sides share the matrices) and on systems whose
two sides step differently.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, sequence_mode
from faier.engines.exact.float_frontier import float_system
from faier.engines.exact.integer_vectors import integer_vector
from faier.engines.exact.lookahead import Lookahead, lookahead_depth
from faier.engines.exact.sequence_mode import Rows, SequenceSystem, StepSymbol
from faier.results import Loss, loss_of


@st.composite
def matrices(draw: st.DrawFn, n: int, symbols: int) -> tuple[Rows, ...]:
    """Sub-stochastic step matrices whose sum over symbols is stochastic, with zeros."""
    weights = [
        [[draw(st.integers(0, 4)) for _ in range(n)] for _ in range(symbols)] for _ in range(n)
    ]
    out: list[list[tuple[tuple[int, Fraction], ...]]] = [[] for _ in range(symbols)]
    for s in range(n):
        total = sum(sum(row) for row in weights[s])
        if total == 0:
            weights[s][0][s], total = 1, 1
        for sym in range(symbols):
            out[sym].append(
                tuple((t, Fraction(w, total)) for t, w in enumerate(weights[s][sym]) if w)
            )
    return tuple(tuple(rows) for rows in out)


@st.composite
def systems(
    draw: st.DrawFn,
) -> tuple[SequenceSystem, list[sequence_mode.SequenceComparison], int]:
    """Random systems, both sides the same (HMM-like) or not, and three start pairs."""
    n, symbols = draw(st.integers(1, 5)), draw(st.integers(2, 3))
    left = draw(matrices(n, symbols))
    right = left if draw(st.booleans()) else draw(matrices(n, symbols))
    system = SequenceSystem(
        n, tuple(StepSymbol(f"o{i}") for i in range(symbols)), left, right, None, ()
    )
    comparisons = []
    for _ in range(3):
        vectors = []
        for _side in range(2):
            weights = [draw(st.integers(0, 3)) for _ in range(n)]
            if not any(weights):
                weights[0] = 1
            vectors.append({s: Fraction(w, sum(weights)) for s, w in enumerate(weights) if w})
        comparisons.append(sequence_mode.SequenceComparison(vectors[0], vectors[1], None))  # type: ignore[arg-type]
    return system, comparisons, draw(st.integers(1, 6))


def brute_force(
    system: SequenceSystem, comparison: sequence_mode.SequenceComparison, length: int
) -> Loss:
    """max over every word of this length of its loss from the comparison's start (0: none)."""
    best = Loss(Fraction(0))
    for word in itertools.product(range(len(system.symbols)), repeat=length):
        p, q = sequence_mode.recompute(system, comparison, word)
        if p and loss_of(p, q).exceeds(best):
            best = loss_of(p, q)
    return best


@settings(max_examples=60, deadline=None)
@given(systems())
def test_the_bound_is_the_best_word_in_integers_and_floats(
    case: tuple[SequenceSystem, list[sequence_mode.SequenceComparison], int],
) -> None:
    system, comparisons, _ = case
    lookahead = Lookahead(system, 3)
    floats = float_system(system)
    for comparison, length in itertools.product(comparisons, (1, 2, 3)):
        expected = brute_force(system, comparison, length)
        a, b = integer_vector(comparison.a0), integer_vector(comparison.b0)
        assert lookahead.exact_bound(a, b, length) == expected
        left, right = lookahead.float_columns(length, floats.left, floats.right)
        a_float = np.array([float(comparison.a0.get(s, 0)) for s in range(system.size)])
        b_float = np.array([float(comparison.b0.get(s, 0)) for s in range(system.size)])
        tops, bottoms = a_float @ left, b_float @ right
        with np.errstate(divide="ignore"):
            logs = [
                math.log(t) - math.log(u) if u else math.inf
                for t, u in zip(tops, bottoms, strict=True)
                if t
            ]
        guess = max(logs, default=-math.inf)
        if expected.ratio is None:
            assert guess == math.inf
        elif expected.ratio == 0:
            assert guess == -math.inf
        else:
            exact = math.log(expected.ratio.numerator) - math.log(expected.ratio.denominator)
            assert abs(guess - exact) <= 1e-12


@settings(max_examples=80, deadline=None)
@given(systems(), st.sampled_from(["float", "exact"]))
def test_searches_pruning_with_it_keep_every_answer(
    case: tuple[SequenceSystem, list[sequence_mode.SequenceComparison], int], arithmetic: str
) -> None:
    system, comparisons, horizon = case
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    branch_and_bound.merged_search(
        system, comparisons, horizon, Budget(), state, arithmetic=arithmetic
    )
    expected = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    sequence_mode.search(system, comparisons, horizon, Budget(), expected)
    got = [None if r is None else r.loss for r in sequence_mode.cumulative(state)]
    assert got == [None if r is None else r.loss for r in sequence_mode.cumulative(expected)]
    for record in sequence_mode.cumulative(state):
        if record is not None:
            p, q = sequence_mode.recompute(system, comparisons[record.comparison], record.path)
            assert (p, q) == (record.p, record.q)


@pytest.mark.parametrize(
    ("symbols", "horizon", "depth"),
    [(2, 10, 6), (3, 10, 4), (3, 3, 3), (4, 10, 3), (10, 10, 2), (11, 10, 0), (3, 1, 0)],
)
def test_lookahead_depth_counts_the_words(symbols: int, horizon: int, depth: int) -> None:
    system = SequenceSystem(
        1, tuple(StepSymbol(f"o{i}") for i in range(symbols)), ((),) * symbols, ((),) * symbols
    )
    assert lookahead_depth(system, horizon) == depth


def test_large_dense_systems_get_no_lookahead() -> None:
    n = 64
    dense = tuple(tuple((t, Fraction(1, 2 * n)) for t in range(n)) for _ in range(n))
    sparse = tuple(((s, Fraction(1, 2)),) for s in range(n))
    system = SequenceSystem(n, (StepSymbol("x"), StepSymbol("y")), (dense, dense), (dense, dense))
    assert lookahead_depth(system, 10) == 0
    system = SequenceSystem(n, (StepSymbol("x"), StepSymbol("y")), (sparse,) * 2, (sparse,) * 2)
    assert lookahead_depth(system, 10) == 6
