"""Exact rationals read from text: ``3``, ``0.25``, ``1/6``, ``1e-3``.

Kept apart from :mod:`faier.model.probability` (which re-exports them): a formula's
or a PRISM file's numbers need neither probabilities' symbolic expressions nor
their classes.  Decimals are read exactly (``0.1`` is 1/10, never the binary double).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*(/\s*\d+\s*)?$")


def parse_number(text: str | int | float | Fraction) -> tuple[Fraction, bool]:
    """Read an exact rational from ``3``, ``0.25``, ``1/6`` or ``1e-3``; say if it was decimal."""
    if isinstance(text, bool):
        raise ValueError(f"expected a number, got the boolean {text}")
    if isinstance(text, Fraction | int):
        return Fraction(text), False
    if isinstance(text, float):
        return Fraction(Decimal(repr(text))), True
    s = str(text).strip()
    if not _NUMBER.match(s):
        raise ValueError(f"not a number: {text!r}")
    if "/" in s:
        num, den = s.split("/")
        numerator, is_decimal = parse_number(num)
        denominator = int(den)
        if denominator == 0:
            raise ValueError(f"division by zero in {text!r}")
        return numerator / denominator, is_decimal
    try:
        value = Decimal(s)
    except InvalidOperation as exc:  # pragma: no cover - the regex already guards this
        raise ValueError(f"not a number: {text!r}") from exc
    if value and abs(value.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise NumberOutOfRange(
            f"{s} is out of range: faier reads numbers from 1e-{MAX_DECIMAL_EXPONENT} "
            f"to 1e{MAX_DECIMAL_EXPONENT} exactly"
        )
    return Fraction(value), ("." in s or "e" in s.lower())


MAX_DECIMAL_EXPONENT = 1000
"""Decimal exponents past ±1000 are refused: 1e-999999999 would be a billion-digit fraction."""


class NumberOutOfRange(ValueError):
    """A number written with an absurd decimal exponent (a mistake, not a value to compute with)."""
