"""Privacy budgets ε and δ as exact values.

``ln(2)``, ``4*ln(2)``, ``ln(24/7)`` keep e^ε rational (2, 16, 24/7) so a
loss ratio is compared with e^ε in exact rational arithmetic, boundary cases
included.  Decimal budgets such as ``1.372`` make e^ε transcendental; a
rational ratio then never equals it (Lindemann), so comparing with enough
digits of precision decides exactly.
"""

from __future__ import annotations

import decimal
import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.errors import SpecError
from faier.model.expressions import ExpressionError, parse_expression
from faier.model.probability import MAX_DECIMAL_EXPONENT, NumberOutOfRange, parse_number
from faier.results import natural_log

if TYPE_CHECKING:
    import sympy

_PRECISION_STEPS = (30, 60, 120, 240, 480)


_NUMBER = r"\d+(?:\.\d+)?(?:\s*/\s*\d+)?"
_DECIMAL = re.compile(r"^\s*\d+(?:\.\d*)?(?:[eE][+-]?\d+)?\s*$")
_FRACTION = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")
_DECIMAL_DIGITS = (40, 80, 160, 320, 640, 1280, 2560, 5120, 10240)
"""Working precisions (significant digits) for deciding ratio vs e^ε with a decimal ε."""
_HUGE_EPSILON = 100_000
"""Past this ε a ratio is compared through its bit length (ratio < 2^bits < e^(0.7·bits))."""
_LN2_ABOVE = decimal.Decimal("0.7")
_LOG_FORM = re.compile(rf"^\s*(?:(\d+)\s*\*\s*)?(?:ln|log)\(\s*({_NUMBER})\s*\)\s*$")


def _rational(value: Fraction) -> sympy.Rational:
    import sympy

    return sympy.Rational(value.numerator, value.denominator)


def _read(raw: str) -> sympy.Expr:
    """The exact real number ``raw`` stands for, or a SpecError saying why not."""
    import sympy

    try:
        expr = parse_expression(
            raw,
            names={"e": sympy.E},
            functions={"ln": sympy.log, "log": sympy.log, "exp": sympy.exp},
        )
    except ExpressionError as exc:
        raise SpecError(
            f"cannot read ε = {raw!r}: {exc}",
            fix="write a number like 1.372 or a log form like ln(2), 4*ln(2), ln(24/7)",
        ) from exc
    if not isinstance(expr, sympy.Expr) or expr.free_symbols or not expr.is_real:
        raise SpecError(f"ε = {raw!r} is not a real number", fix="write e.g. ln(2)")
    if expr.is_negative:
        raise SpecError(f"ε = {raw!r} is negative", fix="ε must be at least 0")
    return expr


def _log_form_ratio(raw: str) -> Fraction | None:
    """e^ε for ``k*ln(r)`` with whole k and rational r ≥ 1, read without sympy."""
    match = _LOG_FORM.match(raw)
    if match is None:
        return None
    try:
        ratio = parse_number(match.group(2))[0]
    except ValueError:
        return None
    if ratio < 1:
        return None
    return ratio ** int(match.group(1) or 1)


def _decimal_value(raw: str) -> Fraction | None:
    """ε itself for a plain decimal (``1.372``, ``60.25``, ``1e-3``), read without sympy."""
    if _DECIMAL.match(raw) is None:
        return None
    value = decimal.Decimal(raw.strip())
    if value and abs(value.adjusted()) > MAX_DECIMAL_EXPONENT:
        raise SpecError(
            f"ε = {raw.strip()} is out of range",
            fix=f"faier reads ε from 1e-{MAX_DECIMAL_EXPONENT} to 1e{MAX_DECIMAL_EXPONENT}",
        )
    return Fraction(value)


def _fraction_value(raw: str) -> Fraction | None:
    """ε itself for a plain fraction (``7/10``), read without sympy (None: not one)."""
    match = _FRACTION.match(raw)
    if match is None or int(match.group(2)) == 0:
        return None
    return Fraction(int(match.group(1)), int(match.group(2)))


def _shown(ratio: Fraction) -> str:
    """A ratio for an error message; a huge one by its size (int→str stops at 4300 digits)."""
    bits = max(ratio.numerator.bit_length(), ratio.denominator.bit_length())
    return str(ratio) if bits <= 3000 else f"of {bits} bits"


def _exp_bracket(exponent: decimal.Decimal, digits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < e^exponent < hi, from a correctly rounded ``decimal`` exponential.

    ``Decimal.exp`` rounds correctly (error at most half a unit in the last
    place), so widening by one whole unit on each side brackets the true value.
    """
    with decimal.localcontext() as context:
        context.prec = digits
        context.Emax = decimal.MAX_EMAX
        context.Emin = decimal.MIN_EMIN
        context.rounding = decimal.ROUND_HALF_EVEN
        approx = exponent.exp()
    unit = Fraction(10) ** (approx.adjusted() - digits + 1)
    return Fraction(approx) - unit, Fraction(approx) + unit


def _decimal_bounds(value: Fraction, digits: int) -> tuple[decimal.Decimal, decimal.Decimal]:
    """Decimals lo ≤ value ≤ hi at ``digits`` significant digits (both exact for 1.372)."""
    bounds = []
    for rounding in (decimal.ROUND_FLOOR, decimal.ROUND_CEILING):
        with decimal.localcontext() as context:
            context.prec = digits
            context.rounding = rounding
            bounds.append(decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator))
    return bounds[0], bounds[1]


def _compare_with_exp(ratio: Fraction, exponent: Fraction, text: str) -> int:
    """Sign of ratio − e^ε for a rational ε > 0 (``1.372``, ``7/10``), exactly.

    e^ε is irrational for rational ε ≠ 0 (Lindemann), so brackets at
    increasing precision separate it from any rational ratio; ε between two
    decimals brackets e^ε between their exponentials (e^x is increasing).
    """
    if exponent > _HUGE_EPSILON:
        if ratio.numerator.bit_length() * Fraction(_LN2_ABOVE) < exponent:
            return -1
        raise SpecError(
            f"cannot compare the ratio {_shown(ratio)} with e^{text}", fix="give a smaller ε"
        )
    for digits in _DECIMAL_DIGITS:
        low, high = _decimal_bounds(exponent, digits)
        lo = _exp_bracket(low, digits)[0]
        hi = _exp_bracket(high, digits)[1]
        if ratio <= lo:
            return -1
        if ratio >= hi:
            return 1
    raise SpecError(f"cannot separate the ratio {_shown(ratio)} from e^{text} numerically")


@dataclass(frozen=True)
class Epsilon:
    r"""A non-negative ε; ``exp_ratio`` is e^ε when that is rational.

    The sympy form (``expr``) is built on first use: the common log forms and
    every ε\* the engines report are handled in rationals, so a plain run
    never pays for loading sympy.
    """

    text: str
    exp_ratio: Fraction | None
    rational: Fraction | None = None
    """ε itself when it is a rational number (``1.372``, ``7/10``, ``1/2 + 1/5``); then
    e^ε is irrational unless ε = 0 and comparisons need no sympy.  ``text`` keeps how
    it was written (the claim is shown as written)."""

    @classmethod
    def parse(cls, text: str | float | int | Fraction) -> Epsilon:
        """Read ``ln(2)``, ``4*ln(2)``, ``ln(24/7)``, ``log(3)``, ``1.372``, ``7/10``."""
        raw = str(text).strip()
        fast = _log_form_ratio(raw)
        if fast is not None:
            return cls(raw, fast)
        plain = _decimal_value(raw)
        if plain is None:
            plain = _fraction_value(raw)
        if plain is not None:
            return cls(raw, Fraction(1) if plain == 0 else None, plain)
        import sympy

        expr = _read(raw)
        if expr.is_Rational:
            value = Fraction(int(expr.p), int(expr.q))
            return cls(raw, Fraction(1) if value == 0 else None, value)
        exp_value = sympy.simplify(sympy.exp(expr))
        exp_ratio = Fraction(int(exp_value.p), int(exp_value.q)) if exp_value.is_Rational else None
        return cls(raw, exp_ratio)

    @classmethod
    def from_ratio(cls, ratio: Fraction) -> Epsilon:
        """ε = ln(ratio) for a rational ratio ≥ 1."""
        return cls(f"ln({ratio})", ratio)

    @functools.cached_property
    def expr(self) -> sympy.Expr:
        """ε as an exact sympy number."""
        return _read(self.text)

    @property
    def value(self) -> float:
        """ε as a float, for display only."""
        if self.exp_ratio is not None:
            return natural_log(self.exp_ratio)
        if self.rational is not None:
            return float(self.rational)
        return float(self.expr)

    def compare_ratio(self, ratio: Fraction | None) -> int:
        """Sign of ratio − e^ε, decided exactly (None is an infinite ratio)."""
        if ratio is None:
            return 1
        if self.exp_ratio is not None:
            return (ratio > self.exp_ratio) - (ratio < self.exp_ratio)
        if self.rational is not None:
            return _compare_with_exp(ratio, self.rational, self.text)
        import sympy

        difference = _rational(ratio) - sympy.exp(self.expr)
        for digits in _PRECISION_STEPS:
            try:
                approx = difference.evalf(digits, strict=True)
            except sympy.core.evalf.PrecisionExhausted:
                continue
            if approx != 0:
                return 1 if approx > 0 else -1
        raise SpecError(f"cannot separate the ratio {_shown(ratio)} from e^{self.text} numerically")

    def exceeded_by(self, ratio: Fraction | None) -> bool:
        """True iff ratio > e^ε: the comparison violates ε-privacy."""
        return self.compare_ratio(ratio) > 0

    def __str__(self) -> str:
        return self.text


def parse_delta(text: str | float | Fraction) -> Fraction:
    """δ as an exact rational in [0, 1]."""
    try:
        value = parse_number(text)[0]
    except NumberOutOfRange as exc:
        raise SpecError(f"δ = {text}: {exc}", fix="δ is a probability, e.g. 1e-9") from None
    except ValueError as exc:
        raise SpecError(
            f"cannot read δ = {text!r}", fix="write a number like 0.01 or 1/100"
        ) from exc
    if not 0 <= value <= 1:
        raise SpecError(f"δ = {text} is not in [0, 1]", fix="δ is a probability")
    return value
