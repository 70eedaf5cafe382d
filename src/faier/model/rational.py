"""Other libraries' exact rationals as Python Fractions.

gmpy2's ``mpq`` (the symbolic runs' arithmetic), python-flint's ``fmpq`` and
sympy's ``Rational`` all expose ``numerator`` and ``denominator``, but as their
own integer types, which ``Fraction`` does not take; every exact value faier
keeps or prints is a Fraction of Python ints.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def exact_fraction(value: Any) -> Fraction:
    """``value`` (any rational with a numerator and a denominator) as a Fraction of ints."""
    if isinstance(value, Fraction):
        return value
    return Fraction(int(value.numerator), int(value.denominator))
