"""The Python API as library authors meet it: the same targets and keywords everywhere."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

import faier
from faier.errors import SpecError
from faier.results import Verdict


@faier.program(inputs=faier.scalars(2))
def coin(x: Any, ctx: Any) -> Any:
    """Randomized response on whether x > 0 with probability 3/4 of the truth: ε* = ln 3."""
    truth = x > 0
    keep = ctx.draw(faier.bernoulli(Fraction(3, 4)))
    return truth if keep else not truth


def test_verify_and_epsilon_accept_a_program_object() -> None:
    assert faier.epsilon(coin).epsilon_star.ratio == 3  # type: ignore[union-attr]
    assert faier.verify(coin, "ln(3)").verdict is Verdict.HOLDS
    assert faier.verify(coin, epsilon="1").verdict is Verdict.VIOLATED
    assert faier.assert_private(coin, "ln(3)").verdict == "holds"


def test_one_keyword_per_option_with_the_other_spelling_accepted() -> None:
    assert faier.verify(coin, eps="ln(3)").verdict is Verdict.HOLDS  # the former name
    assert faier.verify(coin, claimed="1").verdict is Verdict.VIOLATED  # the tester's name
    both = faier.verify(coin, "ln(3)", neighbors="every-query:2")
    assert both.verdict is Verdict.HOLDS and "every query ±2" in both.privacy
    assert faier.assert_private(coin, claimed="ln(3)", neighbors="every-query").method == "exact"
    with pytest.raises(SpecError, match="given twice"):
        faier.verify(coin, "ln(3)", eps="ln(3)")
    with pytest.raises(SpecError, match="given twice"):
        faier.verify(coin, "ln(3)", claimed="ln(3)")
    with pytest.raises(SpecError, match="given twice"):
        faier.verify(coin, "ln(3)", neighbours="every-query", neighbors="one-query")
    with pytest.raises(SpecError, match="given twice"):
        faier.assert_private(coin, "ln(3)", inputs=[(0, 1)], pairs=[(0, 1)])


def test_mechanism_epsilon_is_refused_where_it_would_change_nothing() -> None:
    with pytest.raises(SpecError, match="would change nothing") as caught:
        faier.assert_private(coin, "ln(3)", mechanism_epsilon=1)
    assert caught.value.where == "mechanism_epsilon"
    with pytest.raises(SpecError, match="would change nothing"):
        faier.testing.statistical_test("noisy-max", epsilon="1", mechanism_epsilon=1)


@faier.program(inputs=faier.scalars(1))
def nearly_fair(x: Any, ctx: Any) -> Any:
    """Randomized response telling the truth with probability 1/2 + 1e-20: ε* ≈ 4e-20."""
    keep = ctx.draw(faier.bernoulli(Fraction(1, 2) + Fraction(1, 10**20)))
    return (x > 0) == keep


def test_an_epsilon_below_1e16_is_shown_and_serialised_not_rounded_to_zero() -> None:
    result = faier.epsilon(nearly_fair)
    star = result.epsilon_star
    assert star is not None and star.ratio == Fraction(10**20 + 2, 10**20 - 2)
    assert star.value == pytest.approx(4e-20, rel=1e-12)
    assert star.show().endswith("≈ 4e-20")
    assert result.to_json()["epsilon_star"]["value"] == pytest.approx(4e-20, rel=1e-12)
    assert faier.verify(nearly_fair, "1e-20").verdict is Verdict.VIOLATED
    assert faier.verify(nearly_fair, "1e-19").verdict is Verdict.HOLDS


@faier.program(inputs=faier.scalars(1))
def laplace_count(x: Any, ctx: Any) -> Any:
    """A count with Laplace noise of scale 2: ε* = 1/2 (continuous, certified)."""
    return x + ctx.draw(faier.laplace(0, 2))


def test_a_certified_result_has_epsilon_star_not_only_an_enclosure() -> None:
    result = faier.epsilon(laplace_count)
    assert result.enclosure is not None and result.epsilon_star is result.enclosure
    assert result.epsilon_star.value == pytest.approx(0.5)
    assert result.enclosure.lower <= 0.5 <= result.enclosure.upper


def test_verify_refuses_mechanism_epsilon_and_the_tester_takes_inputs() -> None:
    with pytest.raises(SpecError, match="would change nothing"):
        faier.verify(coin, "ln(3)", mechanism_epsilon=1)
    with pytest.raises(SpecError, match="would change nothing"):
        faier.epsilon(coin, mechanism_epsilon=1)
    with pytest.raises(SpecError, match="given twice"):
        faier.testing.statistical_test(coin, epsilon="1", pairs=[(0, 1)], inputs=[(0, 1)])
