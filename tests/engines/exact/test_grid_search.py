"""Grid search (float64 screen, exact rechecks) against brute force and the pair-by-pair search.

The pair-by-pair search is the foundation's distribution mode: every ordered
neighbour pair compared in exact arithmetic.  The grid search must give the
same exact ε* and the same witness (first input, then neighbour, then output
in pair-search order), for the library's evaluators and for random tables.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import distribution_mode, epsilon
from faier.engines.exact.grid_search import Grid, GridSearch, grid_of, neighbour_minimum
from faier.engines.exact.losses import worst_outcome
from faier.errors import MechanismError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.library.histogram import histogram
from faier.mechanisms.library.noisy_max import noisy_max
from faier.mechanisms.program import Program
from faier.model.distribution import Distribution
from faier.privacy.neighbours import EveryQuery, OneQuery, neighbour_pairs
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Loss, Result

F = Fraction
UNIFORM = {
    2: F(12, 5),
    3: F(24, 7),
    4: F(432, 113),
    5: F(288, 73),
    6: F(15552, 3905),
    7: F(31104, 7787),
    8: F(559872, 140033),
    9: F(1119744, 279979),
    10: F(20155392, 5039105),
    11: F(4478976, 1119763),
    12: F(725594112, 181399553),
}

Seen = tuple[Loss | None, tuple[Any, ...] | None]


def _plain(x: Hashable) -> Any:
    return list(x) if isinstance(x, tuple) else x


def pair_search(mechanism: Any, relation: EveryQuery | OneQuery) -> Seen:
    """The foundation's distribution mode: every ordered neighbour pair, exactly."""
    comparisons = DifferentialPrivacy(relation).comparisons(mechanism.inputs.values)
    best: Loss | None = None
    witness = None
    for compared in distribution_mode.compare_outputs(mechanism, comparisons, Budget()):
        worst = worst_outcome((o, p, q) for o, (p, q) in compared.outcomes.items())
        if worst is not None and (best is None or worst.loss.exceeds(best)):
            best = worst.loss
            left, right = (
                compared.comparison.left.items[0][0],
                compared.comparison.right.items[0][0],
            )
            output = mechanism.output_name(worst.outcome)
            witness = (_plain(left), _plain(right), output, worst.p, worst.q)
    return best, witness


def seen(result: Result) -> Seen:
    w = result.witness
    assert w is not None
    return result.epsilon_star, (w.left_value, w.right_value, w.show_output(), w.p, w.q)


EVERY = EveryQuery(1)


def without_symmetry(mechanism: Any) -> Any:
    """The same mechanism without its declared query symmetry: the plain grid search.

    The search over orbits has its own tests (test_orbit_search.py).
    """
    return dataclasses.replace(mechanism, symmetry=None)


def grid_result(mechanism: Any, relation: EveryQuery | OneQuery = EVERY) -> Result:
    mechanism = without_symmetry(mechanism)
    result = epsilon(Problem("grid", mechanism, DifferentialPrivacy(relation)))
    assert result.method.startswith("exact: grid search"), result.method
    return result


def ratio_of(result: Result) -> Fraction | None:
    assert result.epsilon_star is not None
    return result.epsilon_star.ratio


# --- Noisy Max -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_noisy_max_uniform_matches_brute_force(n: int) -> None:
    inputs = list(itertools.product(range(3), repeat=n))
    brute = ref.dp_epsilon_ratio(
        lambda x: ref.noisy_max_distribution(x, "uniform"), inputs, ref.every_query_neighbours()
    )
    assert ratio_of(grid_result(noisy_max(n, "uniform"))) == UNIFORM[n] == brute


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_noisy_max_uniform_matches_pair_search(n: int) -> None:
    mechanism = noisy_max(n, "uniform")
    result = grid_result(mechanism)
    assert seen(result) == pair_search(noisy_max(n, "uniform"), EveryQuery(1))
    assert ratio_of(result) == UNIFORM[n]
    assert f"{n} candidates rechecked exactly" in result.method


def test_noisy_max_uniform_n7_and_its_witness() -> None:
    result = grid_result(noisy_max(7, "uniform"))
    ones, other = [1] * 7, [0] + [2] * 6
    assert seen(result) == (Loss(UNIFORM[7]), (ones, other, "index 1", F(1, 7), F(7787, 217728)))


@pytest.mark.parametrize("n", [8, 9, 10, 11, 12])
def test_noisy_max_uniform_up_to_twelve_queries(n: int) -> None:
    """The issue's range n = 2..12; the witness is all ones against (0, 2, …, 2)."""
    result = grid_result(noisy_max(n, "uniform"))
    assert ratio_of(result) == UNIFORM[n]
    w = result.witness
    assert w is not None
    assert (w.left_value, w.right_value, w.show_output()) == (
        [1] * n,
        [0] + [2] * (n - 1),
        "index 1",
    )
    assert w.p == F(1, n)
    if n <= 9:  # brute force over 3^n noise vectors, independent of the closed forms
        assert w.q == ref.noisy_max_distribution(tuple(w.right_value), "uniform")[1]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_noisy_max_first_is_n_ln2(n: int) -> None:
    result = grid_result(noisy_max(n, "first"))
    assert ratio_of(result) == 2**n
    if n <= 4:
        assert seen(result) == pair_search(noisy_max(n, "first"), EveryQuery(1))


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_noisy_max_value_one_query_is_ln2(n: int) -> None:
    result = grid_result(noisy_max(n, "value"), OneQuery(1))
    assert ratio_of(result) == 2
    if n <= 4:
        assert seen(result) == pair_search(noisy_max(n, "value"), OneQuery(1))


def test_noisy_max_value_every_query_and_wider_neighbours() -> None:
    assert ratio_of(grid_result(noisy_max(3, "value"))) == 8
    for relation in (EveryQuery(2), OneQuery(2)):
        result = grid_result(noisy_max(3, "uniform", m=3), relation)
        assert seen(result) == pair_search(noisy_max(3, "uniform", m=3), relation)


@pytest.mark.parametrize("ties", ["first", "uniform", "value"])
@pytest.mark.parametrize(("n", "m", "alpha"), [(1, 2, F(1, 2)), (3, 1, F(1, 3)), (4, 3, F(2, 3))])
def test_noisy_max_tables_are_the_exact_distributions(
    ties: str, n: int, m: int, alpha: Fraction
) -> None:
    mechanism = noisy_max(n, ties, alpha, m)
    outputs = mechanism.grid_outputs()
    table = mechanism.grid_table()
    assert table is not None and table.shape == (len(outputs), *(m + 1,) * n)
    flat = table.reshape(len(outputs), -1)
    for column, x in enumerate(mechanism.inputs.values):
        exact = mechanism.output_distribution(x)
        assert set(exact.support()) <= set(outputs)
        expected = [float(exact.prob(o)) for o in outputs]
        assert np.allclose(flat[:, column], expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize("ties", ["first", "uniform", "value"])
@pytest.mark.parametrize(("n", "m", "alpha"), [(1, 2, F(1, 2)), (3, 1, F(1, 3)), (4, 3, F(2, 3))])
def test_noisy_max_exact_columns_are_the_brute_force_distributions(
    ties: str, n: int, m: int, alpha: Fraction
) -> None:
    mechanism = noisy_max(n, ties, alpha, m)
    for x in mechanism.inputs.values:
        expected = ref.noisy_max_distribution(x, ties, alpha, m)
        assert mechanism.grid_column(x) == {o: p for o, p in expected.items() if p}


def test_ties_everywhere_are_rechecked_from_exact_columns() -> None:
    """ties=value, one-query: every candidate ties at ratio 2; all are rechecked exactly."""
    problem = Problem("nm", noisy_max(6, "value"), DifferentialPrivacy(OneQuery(1)))
    result = epsilon(problem)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 2
    assert "candidates rechecked" in result.method
    w = result.witness
    assert w is not None
    expected = ref.noisy_max_distribution(tuple(w.left_value), "value")
    assert w.p == expected[int(w.output[0].rstrip("~"))]


def test_uniform_table_with_a_wide_answer_range() -> None:
    """Multisets of 1 answer in 0..70: codes must not overflow (2^71 would)."""
    mechanism = noisy_max(2, "uniform", F(9, 10), 70)
    table = mechanism.grid_table()
    assert table is not None
    for x in [(0, 0), (0, 70), (35, 34), (70, 69), (12, 12)]:
        exact = mechanism.output_distribution(x)
        expected = [float(exact.prob(i)) for i in (1, 2)]
        assert np.allclose(table[(slice(None), *x)], expected, rtol=1e-14, atol=0)


# --- Histogram -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bins", "alpha", "m"), [(1, F(1, 2), 2), (2, F(1, 3), 3), (3, F(1, 2), 2)]
)
@pytest.mark.parametrize("every_query", [False, True])
def test_histogram(bins: int, alpha: Fraction, m: int, every_query: bool) -> None:
    relation = EveryQuery(1) if every_query else OneQuery(1)
    result = grid_result(histogram(bins, alpha, m), relation)
    assert ratio_of(result) == (1 / alpha) ** (bins if every_query else 1)
    assert seen(result) == pair_search(histogram(bins, alpha, m), relation)


def test_histogram_table_is_the_exact_distribution() -> None:
    mechanism = histogram(2, F(1, 3), 3)
    table = mechanism.grid_table()
    assert table is not None
    flat = table.reshape(16, 16)
    for column, x in enumerate(mechanism.inputs.values):
        exact = mechanism.output_distribution(x)
        expected = [float(exact.prob(o)) for o in mechanism.grid_outputs()]
        assert np.allclose(flat[:, column], expected, rtol=1e-14, atol=0)


# --- Random grid mechanisms ------------------------------------------------------------------


@dataclass(frozen=True)
class TableMechanism(Program[int]):
    """A mechanism given by one exact row of output probabilities per grid input."""

    rows: tuple[tuple[Fraction, ...], ...] = ()
    shape: tuple[int, ...] = ()
    lie: bool = False

    def grid_outputs(self) -> tuple[int, ...]:
        return tuple(range(len(self.rows[0])))

    def grid_table(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        table = np.array([[float(p) for p in row] for row in self.rows]).T
        if self.lie:
            table[:, 0] = table[::-1, 0]
        return table.reshape((len(self.rows[0]), *self.shape))


def table_mechanism(
    shape: tuple[int, ...],
    rows: tuple[tuple[Fraction, ...], ...],
    *,
    evaluator: bool = True,
    scalar: bool = False,
    lie: bool = False,
) -> Program[int]:
    values: tuple[Hashable, ...] = tuple(itertools.product(*(range(s) for s in shape)))
    if scalar:
        values = tuple(range(shape[0]))
    dists = {x: Distribution.of(dict(enumerate(row))) for x, row in zip(values, rows, strict=True)}

    def body(x: Hashable, ctx: Context) -> int:
        return ctx.draw(dists[x])

    inputs = InputSpace(values, "random grid")
    if evaluator:
        return TableMechanism("table", body, inputs, rows=rows, shape=shape, lie=lie)
    return Program("table", body, inputs)


@st.composite
def grid_mechanisms(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[tuple[Fraction, ...], ...]]:
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
    if np.prod(shape) < 2:
        shape = (*shape[:-1], 2)
    outputs = draw(st.integers(1, 3))
    rows = []
    for _ in range(int(np.prod(shape))):
        weights = draw(st.lists(st.integers(0, 3), min_size=outputs, max_size=outputs))
        if sum(weights) == 0:
            weights[0] = 1
        rows.append(tuple(F(w, sum(weights)) for w in weights))
    return shape, tuple(rows)


relations = st.sampled_from([EveryQuery(1), EveryQuery(2), OneQuery(1), OneQuery(2)])


@settings(max_examples=150, deadline=None)
@given(grid_mechanisms(), relations, st.booleans(), st.booleans())
def test_random_grids_match_the_pair_search(
    case: tuple[tuple[int, ...], tuple[tuple[Fraction, ...], ...]],
    relation: EveryQuery | OneQuery,
    evaluator: bool,
    scalar: bool,
) -> None:
    shape, rows = case
    scalar = scalar and len(shape) == 1
    mechanism = table_mechanism(shape, rows, evaluator=evaluator, scalar=scalar)
    expected = pair_search(table_mechanism(shape, rows, scalar=scalar), relation)
    assert seen(grid_result(mechanism, relation)) == expected


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.integers(1, 2),
    relations,
    st.randoms(use_true_random=False),
)
def test_neighbour_minimum_is_the_minimum_over_neighbours(
    shape: list[int], outputs: int, relation: EveryQuery | OneQuery, rng: Any
) -> None:
    table = np.array([rng.random() for _ in range(outputs * int(np.prod(shape)))])
    table = table.reshape((outputs, *shape))
    lowest = neighbour_minimum(table, relation)
    points = list(itertools.product(*(range(s) for s in shape)))
    for k in range(outputs):
        for x in points:
            near = [table[(k, *y)] for y in points if relation.related(x, y)]
            assert lowest[(k, *x)] == min(near, default=np.inf)


def test_ties_between_neighbours_go_to_the_first_in_pair_order() -> None:
    """At (1, 1) the neighbours (2, 1) and (1, 0) tie; the relations order them differently."""
    x, y, other = (F(3, 5), F(1, 5), F(1, 5)), (F(1, 5), F(2, 5), F(2, 5)), (F(1, 3),) * 3
    special: dict[tuple[int, ...], tuple[Fraction, ...]] = {(1, 1): x, (2, 1): y, (1, 0): y}
    rows = tuple(special.get(p, other) for p in itertools.product(range(3), repeat=2))
    for relation, first in ((OneQuery(1), [2, 1]), (EveryQuery(1), [1, 0])):
        result = grid_result(table_mechanism((3, 3), rows), relation)
        assert seen(result) == pair_search(table_mechanism((3, 3), rows), relation)
        assert seen(result)[1] == ([1, 1], first, "0", F(3, 5), F(1, 5))


def test_grid_counts_the_pairs_a_pair_search_compares() -> None:
    for shape in [(3,), (2, 3), (3, 3, 2), (4, 1)]:
        values = list(itertools.product(*(range(s) for s in shape)))
        for relation in (EveryQuery(1), EveryQuery(2), OneQuery(1), OneQuery(3)):
            expected = len(list(neighbour_pairs(relation, values)))
            assert Grid(shape).comparisons(relation) == expected


def test_only_grids_in_product_order_are_grids() -> None:
    assert grid_of(((0, 0), (0, 1), (1, 0), (1, 1))) == Grid((2, 2))
    assert grid_of((0, 1, 2)) == Grid((3,))
    assert grid_of(((0, 0), (1, 0), (0, 1), (1, 1))) is None
    assert grid_of(((0, 0), (0, 1), (1, 1))) is None
    assert grid_of(((1, 1),)) is None
    assert grid_of((False, True)) is None
    assert grid_of(("a", "b")) is None
    assert grid_of(()) is None


# --- Soundness guards ------------------------------------------------------------------------


def test_infinite_loss_is_found_exactly() -> None:
    rows = ((F(1), F(0)), (F(1, 2), F(1, 2)), (F(0), F(1)))
    result = grid_result(table_mechanism((3,), rows), EveryQuery(1))
    assert seen(result) == pair_search(table_mechanism((3,), rows), EveryQuery(1))
    assert result.epsilon_star == Loss(None)


def test_the_margin_keeps_a_maximum_that_rounds_below_another() -> None:
    """3/7 + 10^-25 over 1/7 exceeds 3/17 over 1/17, yet its float ratio is the smaller."""
    p1, q1, q2, p2 = F(3, 7) + F(1, 10**25), F(1, 7), F(1, 17), F(3, 17)
    assert float(p1) / float(q1) < float(p2) / float(q2)
    rows = tuple((p, 1 - p) for p in (p1, q1, q2, p2))
    result = grid_result(table_mechanism((4,), rows), EveryQuery(1))
    assert seen(result) == (Loss(p1 / q1), ([0], [1], "0", p1, q1))
    assert "2 candidates rechecked exactly" in result.method


def test_a_users_table_that_disagrees_with_the_exact_distribution_is_bad_input() -> None:
    rows = ((F(1, 3), F(2, 3)), (F(2, 3), F(1, 3)))
    with pytest.raises(MechanismError, match=r"'table'.*grid table.*input \(0,\)"):
        epsilon(Problem("lie", table_mechanism((2,), rows, lie=True), DifferentialPrivacy()))


def test_tiny_probabilities_use_the_pair_search() -> None:
    tiny = F(1, 10**250)
    rows = ((tiny, 1 - tiny), (2 * tiny, 1 - 2 * tiny))
    for evaluator in (True, False):
        mechanism = table_mechanism((2,), rows, evaluator=evaluator)
        result = epsilon(Problem("tiny", mechanism, DifferentialPrivacy()))
        assert result.method.startswith("exact: distribution mode"), result.method
        assert ratio_of(result) == 2


def test_delta_and_other_relations_keep_the_pair_search() -> None:
    problem = Problem("nm", noisy_max(3, "uniform"), DifferentialPrivacy())
    assert epsilon(problem, delta=F(0)).method.startswith("exact: distribution mode")
    plain = without_symmetry(noisy_max(3, "uniform"))
    search = distribution_mode.grid_search(plain, DifferentialPrivacy())
    assert isinstance(search, GridSearch)


def test_a_state_budget_ends_in_unknown() -> None:
    problem = Problem("nm", without_symmetry(noisy_max(5, "uniform")), DifferentialPrivacy())
    result = epsilon(problem, budget=Budget(max_states=100))
    assert result.epsilon_star is None
    assert result.reason is not None and "budget" in result.reason
