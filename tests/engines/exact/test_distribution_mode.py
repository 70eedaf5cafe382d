"""Distribution mode against brute force and the FAIER papers' and Noisy Max notes' numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest

import reference as ref
from faier import api
from faier.core.problem import Problem
from faier.engines.exact import epsilon, verify
from faier.mechanisms.library.geometric import truncated_geometric_mechanism
from faier.mechanisms.library.noisy_max import noisy_max
from faier.mechanisms.library.randomized_response import randomized_response
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Verdict

HALF = Fraction(1, 2)


def brute_noisy_max(n: int, ties: str, neighbours: str = "every") -> Fraction | None:
    grid = ref.grid_inputs(n, 2) if hasattr(ref, "grid_inputs") else None
    import itertools

    inputs = grid or list(itertools.product(range(3), repeat=n))
    relation = ref.every_query_neighbours() if neighbours == "every" else ref.one_query_neighbours()
    return ref.dp_epsilon_ratio(lambda x: ref.noisy_max_distribution(x, ties), inputs, relation)


@pytest.mark.parametrize(
    ("n", "ratio"),
    [(2, Fraction(12, 5)), (3, Fraction(24, 7)), (4, Fraction(432, 113))],
)
def test_noisy_max_uniform_matches_papers_and_brute_force(n: int, ratio: Fraction) -> None:
    result = epsilon(Problem("nm", noisy_max(n, "uniform"), DifferentialPrivacy()))
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == ratio == brute_noisy_max(n, "uniform")


def test_noisy_max_uniform_n5_witness() -> None:
    result = epsilon(Problem("nm", noisy_max(5, "uniform"), DifferentialPrivacy()))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == Fraction(288, 73)
    assert abs(result.epsilon_star.value - 1.3725) < 1e-4
    w = result.witness
    assert w is not None
    assert (w.left_value, w.right_value) == ([1, 1, 1, 1, 1], [0, 2, 2, 2, 2])
    assert w.output == ("index 1",)
    assert (w.p, w.q) == (Fraction(1, 5), Fraction(73, 1440))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_noisy_max_first_is_n_ln2(n: int) -> None:
    result = epsilon(Problem("nm", noisy_max(n, "first"), DifferentialPrivacy()))
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == 2**n == brute_noisy_max(n, "first")


def test_noisy_max_value_one_query_is_ln2_dp() -> None:
    problem = Problem("nm", noisy_max(5, "value"), DifferentialPrivacy(OneQuery(1)))
    result = verify(problem, Epsilon.parse("ln(2)"))
    assert result.verdict is Verdict.HOLDS
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 2


def test_noisy_max_value_every_query_grows() -> None:
    result = epsilon(Problem("nm", noisy_max(3, "value"), DifferentialPrivacy(EveryQuery(1))))
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == 8 == brute_noisy_max(3, "value")


def test_geometric_is_ln_inverse_alpha() -> None:
    for alpha, m in [(HALF, 2), (Fraction(1, 3), 4), (Fraction(2, 3), 1)]:
        result = epsilon(
            Problem("g", truncated_geometric_mechanism(alpha, m), DifferentialPrivacy())
        )
        assert result.epsilon_star is not None and result.epsilon_star.ratio == 1 / alpha


def test_randomized_response_is_ln3() -> None:
    result = epsilon(Problem("rr", randomized_response(), DifferentialPrivacy()))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 3


def test_boundary_ratio_equal_to_exp_epsilon_holds() -> None:
    problem = Problem("nm", noisy_max(4, "first"), DifferentialPrivacy())
    assert verify(problem, Epsilon.parse("4*ln(2)")).verdict is Verdict.HOLDS
    assert verify(problem, Epsilon.parse("2.77")).verdict is Verdict.VIOLATED
    assert verify(problem, Epsilon.parse("2.78")).verdict is Verdict.HOLDS


def test_decimal_epsilon_around_noisy_max_n5() -> None:
    problem = Problem("nm", noisy_max(5, "uniform"), DifferentialPrivacy())
    assert verify(problem, Epsilon.parse("1.372")).verdict is Verdict.VIOLATED
    assert verify(problem, Epsilon.parse("1.373")).verdict is Verdict.HOLDS
    assert verify(problem, Epsilon.parse("ln(288/73)")).verdict is Verdict.HOLDS


def test_pufferfish_geometric_scenarios() -> None:
    contagious = api.epsilon("geometric", settings={"scenario": "contagious"})
    assert contagious.epsilon_star is not None and contagious.epsilon_star.ratio == 4
    violated = api.verify("geometric", "ln(2)", settings={"scenario": "contagious"})
    assert violated.verdict is Verdict.VIOLATED
    for p in ["1/10", "1/3", "1/2", "9/10"]:
        result = api.verify("geometric", "ln(2)", settings={"scenario": "independent", "p": p})
        assert result.verdict is Verdict.HOLDS
        expected = ref.pufferfish_ratio(
            lambda x: ref.truncated_geometric_row(HALF, 2, x),
            ref.two_person_count_prior(True, Fraction(p), False),
            ref.two_person_count_prior(False, Fraction(p), False),
        )
        assert result.epsilon_star is not None and result.epsilon_star.ratio == expected == 2


def test_delta_verdicts_match_hockey_stick() -> None:
    problem = Problem("g", truncated_geometric_mechanism(HALF, 2), DifferentialPrivacy())
    rows = {i: ref.truncated_geometric_row(HALF, 2, i) for i in range(3)}
    worst = max(
        ref.hockey_stick(rows[i], rows[j], Fraction(3, 2))
        for i in range(3)
        for j in range(3)
        if abs(i - j) == 1
    )
    eps = Epsilon.parse("ln(3/2)")
    exact = verify(problem, eps, delta=worst)
    assert exact.verdict is Verdict.HOLDS and exact.delta_star == worst
    below = verify(problem, eps, delta=worst - Fraction(1, 10**9))
    assert below.verdict is Verdict.VIOLATED


def test_epsilon_for_delta_is_least_and_exact() -> None:
    problem = Problem("nm", noisy_max(3, "uniform"), DifferentialPrivacy())
    for delta in [Fraction(0), Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)]:
        result = epsilon(problem, delta=delta)
        assert result.epsilon_star is not None and result.epsilon_star.ratio is not None
        e_star = result.epsilon_star.ratio
        at = verify(problem, Epsilon.from_ratio(e_star), delta=delta)
        assert at.verdict is Verdict.HOLDS
        if e_star > 1:
            below = verify(problem, Epsilon.from_ratio(e_star - Fraction(1, 10**6)), delta=delta)
            assert below.verdict is Verdict.VIOLATED
    pure = epsilon(problem, delta=Fraction(0))
    assert pure.epsilon_star is not None and pure.epsilon_star.ratio == Fraction(24, 7)
