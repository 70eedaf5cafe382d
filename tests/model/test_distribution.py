"""Exact finite distributions and the truncated geometric mechanism."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import reference as ref
from faier.errors import ModelError
from faier.model.distribution import Distribution, as_fraction, bernoulli, truncated_geometric


def test_decimals_are_exact() -> None:
    assert as_fraction("0.1") == Fraction(1, 10)
    assert as_fraction(0.1) == Fraction(1, 10)
    assert Distribution.of({"a": "0.1", "b": "0.9"}).prob("a") == Fraction(1, 10)


def test_validation() -> None:
    with pytest.raises(ModelError, match="not 1"):
        Distribution.of({"a": Fraction(1, 3)})
    with pytest.raises(ModelError, match="negative"):
        Distribution.of({"a": Fraction(-1, 3), "b": Fraction(4, 3)})
    with pytest.raises(ModelError):
        bernoulli(2)
    assert Distribution.of({"a": 0, "b": 1}).support() == ("b",)
    assert Distribution.uniform("aab").as_dict() == {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    assert Distribution.point(3).map(lambda x: x % 2).as_dict() == {1: Fraction(1)}


@given(
    st.fractions(min_value=Fraction(1, 20), max_value=Fraction(19, 20)),
    st.integers(0, 6),
    st.data(),
)
def test_truncated_geometric_matches_the_papers_formula(
    alpha: Fraction, m: int, data: st.DataObject
) -> None:
    centre = data.draw(st.integers(0, m))
    assert truncated_geometric(alpha, m, centre).as_dict() == {
        j: p for j, p in ref.truncated_geometric_row(alpha, m, centre).items() if p
    }
