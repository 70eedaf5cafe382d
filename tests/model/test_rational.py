"""Other libraries' rationals become Fractions of Python ints, exactly."""

from fractions import Fraction

import flint
import gmpy2
import sympy
from hypothesis import given
from hypothesis import strategies as st

from faier.model.rational import exact_fraction

rationals = st.fractions(max_denominator=10**30)


@given(rationals)
def test_each_library_rational_keeps_its_value_and_becomes_python_ints(value: Fraction) -> None:
    for other in (
        gmpy2.mpq(value.numerator, value.denominator),
        sympy.Rational(value.numerator, value.denominator),
        flint.fmpq(value.numerator, value.denominator),
        value,
    ):
        converted = exact_fraction(other)
        assert converted == value
        assert type(converted) is Fraction
        assert type(converted.numerator) is int and type(converted.denominator) is int


def test_an_int_is_a_fraction_too() -> None:
    assert exact_fraction(7) == Fraction(7)
