"""Sequence mode: Above Threshold horizons, HMM forward vectors, budgets."""

from __future__ import annotations

from fractions import Fraction

import pytest
import reference as ref

from faier.engines.budget import Budget
from faier.engines.exact import epsilon, verify
from faier.engines.problem import Problem
from faier.mechanisms.library.above_threshold import above_threshold
from faier.privacy.budget import Epsilon
from faier.privacy.specs import InteractiveDP
from faier.results import Verdict


def at_problem(horizon: int | None) -> Problem:
    return Problem("at", above_threshold(), InteractiveDP(1), horizon)


def test_above_threshold_is_k_ln2_per_horizon() -> None:
    result = epsilon(at_problem(6))
    ratios = [row.loss.ratio for row in result.horizons]
    assert ratios == [2**k for k in range(1, 7)]
    assert ratios[:5] == [ref.above_threshold_ratio(k) for k in range(1, 6)]
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 64


def test_above_threshold_refutes_four_ln2_from_five_queries() -> None:
    assert verify(at_problem(4), Epsilon.parse("4*ln(2)")).verdict is Verdict.HOLDS
    result = verify(at_problem(5), Epsilon.parse("4*ln(2)"))
    assert result.verdict is Verdict.VIOLATED
    w = result.witness
    assert w is not None and w.output == ("⊥", "⊥", "⊥", "⊥", "⊤")
    assert w.p / w.q == 32


def test_no_horizon_gives_unknown_when_not_violated() -> None:
    result = verify(at_problem(None), Epsilon.parse("100"))
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason is not None and "unknown beyond" in result.reason
    assert verify(at_problem(None), Epsilon.parse("ln(4)")).verdict is Verdict.VIOLATED


def test_epsilon_without_horizon_is_a_lower_bound() -> None:
    result = epsilon(Problem("at", above_threshold(), InteractiveDP(1)))
    assert result.epsilon_star is None
    assert result.lower_bound is not None and result.lower_bound.ratio == 64
    assert result.exit_code == 3


def test_state_budget_ends_in_unknown_with_sound_bounds() -> None:
    result = verify(at_problem(6), Epsilon.parse("100"), budget=Budget(max_states=50))
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason is not None and "budget" in result.reason
    violated = verify(at_problem(6), Epsilon.parse("ln(2)/2"), budget=Budget(max_states=50))
    assert violated.verdict is Verdict.VIOLATED


@pytest.mark.parametrize("threshold", [0, 1, 2])
def test_public_threshold_is_shared(threshold: int) -> None:
    problem = Problem("at", above_threshold(threshold=threshold), InteractiveDP(1), 3)
    result = epsilon(problem)
    assert result.epsilon_star is not None
    assert result.witness is not None and result.witness.left.startswith(f"threshold {threshold}")
