"""ε and δ parsing, and exact comparison of ratios with e^ε."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.errors import SpecError
from faier.privacy.budget import Epsilon, parse_delta


@pytest.mark.parametrize(
    ("text", "exp_ratio"),
    [
        ("ln(2)", Fraction(2)),
        ("4*ln(2)", Fraction(16)),
        ("ln(24/7)", Fraction(24, 7)),
        ("log(3)", Fraction(3)),
        ("2*ln(3/2)", Fraction(9, 4)),
        ("0", Fraction(1)),
        ("1.372", None),
        ("ln(2)/2", None),
    ],
)
def test_log_forms_keep_exp_epsilon_rational(text: str, exp_ratio: Fraction | None) -> None:
    assert Epsilon.parse(text).exp_ratio == exp_ratio


def test_boundaries_are_exact() -> None:
    assert Epsilon.parse("4*ln(2)").compare_ratio(Fraction(16)) == 0
    assert not Epsilon.parse("4*ln(2)").exceeded_by(Fraction(16))
    assert Epsilon.parse("ln(24/7)").exceeded_by(Fraction(24, 7) + Fraction(1, 10**30))
    assert Epsilon.parse("1.372").exceeded_by(Fraction(288, 73))
    assert not Epsilon.parse("1.373").exceeded_by(Fraction(288, 73))
    assert Epsilon.parse("ln(2)/2").compare_ratio(Fraction(141421356, 10**8)) == -1
    assert Epsilon.parse("ln(2)/2").compare_ratio(Fraction(141421357, 10**8)) == 1
    assert Epsilon.parse("5").exceeded_by(None)


@pytest.mark.parametrize("text", ["ln(two)", "-1", "", "ln(2", "import os", "x", "ln(-2)"])
def test_bad_epsilon_is_a_spec_error(text: str) -> None:
    with pytest.raises(SpecError):
        Epsilon.parse(text)


def test_delta() -> None:
    assert parse_delta("0.01") == Fraction(1, 100)
    assert parse_delta("1/3") == Fraction(1, 3)
    for bad in ["2", "-0.1", "abc"]:
        with pytest.raises(SpecError):
            parse_delta(bad)


@pytest.mark.parametrize(
    ("text", "ratio"),
    [("ln(2)", Fraction(2)), ("3*ln(2)", Fraction(8)), ("ln(1.5)", Fraction(3, 2))],
)
def test_log_forms_read_without_sympy_agree_with_sympy(text: str, ratio: Fraction) -> None:
    import sympy

    eps = Epsilon.parse(text)
    assert eps.exp_ratio == ratio
    assert (
        sympy.simplify(sympy.exp(eps.expr) - sympy.Rational(ratio.numerator, ratio.denominator))
        == 0
    )
    assert eps.value == pytest.approx(
        float(sympy.log(sympy.Rational(ratio.numerator, ratio.denominator)))
    )


def test_reported_epsilon_keeps_its_exact_form() -> None:
    eps = Epsilon.from_ratio(Fraction(288, 73))
    assert eps.text == "ln(288/73)"
    assert eps.value == pytest.approx(1.3725, abs=1e-4)
    assert eps == Epsilon.parse("ln(288/73)")


@settings(max_examples=200, deadline=None)
@given(
    whole=st.integers(min_value=0, max_value=700),
    digits=st.integers(min_value=0, max_value=999),
    nudge=st.integers(min_value=3, max_value=60),
    above=st.booleans(),
)
def test_decimal_epsilon_comparisons_agree_with_sympy(
    whole: int, digits: int, nudge: int, above: bool
) -> None:
    """A ratio a relative 10^-nudge away from e^ε is put on the right side, for ε up to 700."""
    import sympy

    text = f"{whole}.{digits:03d}"
    exact = sympy.exp(sympy.Rational(text))
    near = Fraction(str(exact.evalf(nudge + 30)))
    ratio = near * (1 + Fraction(1 if above else -1, 10**nudge))
    eps = Epsilon.parse(text)
    assert eps.rational == Fraction(text)
    assert (eps.exp_ratio is None) is (whole + digits > 0)
    assert eps.compare_ratio(ratio) == (1 if above else -1)
    assert eps.exceeded_by(ratio) is above


@pytest.mark.parametrize("text", ["1e-999999999", "1e999999", "1e2000"])
def test_absurd_decimal_exponents_are_refused_at_once(text: str) -> None:
    """1e-999999999 would be a billion-digit fraction: refused before it is built."""
    with pytest.raises(SpecError, match="out of range"):
        Epsilon.parse(text)
    with pytest.raises(SpecError, match="out of range"):
        parse_delta(text)


@settings(max_examples=40, deadline=None)
@given(
    numerator=st.integers(min_value=0, max_value=5000),
    denominator=st.integers(min_value=1, max_value=997),
    nudge=st.integers(min_value=3, max_value=60),
    above=st.booleans(),
)
def test_fraction_epsilon_is_rational_and_compared_exactly(
    numerator: int, denominator: int, nudge: int, above: bool
) -> None:
    """``7/10`` is as rational as ``0.7``: shown as written, compared like sympy's e^(p/q)."""
    import sympy

    text = f"{numerator}/{denominator}"
    eps = Epsilon.parse(text)
    assert eps.rational == Fraction(numerator, denominator)
    assert str(eps) == text
    assert (eps.exp_ratio is None) is (numerator > 0)
    if numerator == 0:
        return
    exact = sympy.exp(sympy.Rational(numerator, denominator))
    near = Fraction(str(exact.evalf(nudge + 30)))
    ratio = near * (1 + Fraction(1 if above else -1, 10**nudge))
    assert eps.compare_ratio(ratio) == (1 if above else -1)


@pytest.mark.parametrize(
    ("text", "value"),
    [("7/10", Fraction(7, 10)), (" 1 / 3 ", Fraction(1, 3)), ("1/2 + 1/5", Fraction(7, 10))],
)
def test_rational_forms_are_marked_rational(text: str, value: Fraction) -> None:
    eps = Epsilon.parse(text)
    assert eps.rational == value and eps.exp_ratio is None
    assert eps.value == float(value)
