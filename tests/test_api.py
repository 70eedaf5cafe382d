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
    both = faier.verify(coin, "ln(3)", neighbors="every-query:2")
    assert both.verdict is Verdict.HOLDS and "every query ±2" in both.privacy
    assert faier.assert_private(coin, claimed="ln(3)", neighbors="every-query").method == "exact"
    with pytest.raises(SpecError, match="given twice"):
        faier.verify(coin, "ln(3)", eps="ln(3)")
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
