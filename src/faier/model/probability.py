"""Exact probabilities: rationals, or sympy expressions of declared parameters.

Probabilities are written as ``1/6``, ``0.25``, ``2/3*p`` or ``1-p``.  Decimals
are read exactly (``0.1`` is 1/10, never the binary double).  An expression that
mentions a declared parameter stays symbolic until the parameter is fixed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from faier.errors import ModelError
from faier.model.expressions import ExpressionError, parse_expression
from faier.model.numbers import MAX_DECIMAL_EXPONENT as MAX_DECIMAL_EXPONENT
from faier.model.numbers import NumberOutOfRange as NumberOutOfRange
from faier.model.numbers import parse_number as parse_number

if TYPE_CHECKING:
    import sympy

Probability: TypeAlias = "Fraction | sympy.Expr"

_SAFE_EXPR = re.compile(r"^[\sA-Za-z0-9_.+\-*/()^]*$")


@dataclass(frozen=True)
class ParsedProbability:
    """A parsed probability, remembering whether it was written as a decimal."""

    value: Probability
    decimal: bool


def parse_probability(
    text: str | int | float | Fraction, parameters: Iterable[str] = (), *, where: str = ""
) -> ParsedProbability:
    """Read one probability; symbolic only if it uses a declared parameter."""
    try:
        value, is_decimal = parse_number(text)
        return ParsedProbability(value, is_decimal)
    except NumberOutOfRange as exc:
        raise ModelError(str(exc), where=where, fix="write a probability such as 1e-9") from None
    except ValueError:
        pass
    import sympy

    s = str(text).strip()
    names = tuple(parameters)
    if not s or not _SAFE_EXPR.match(s):
        raise ModelError(
            f"{text!r} is not a probability",
            where=where,
            fix="write a fraction like 1/6, a decimal like 0.25, "
            "or an expression of declared parameters",
        )
    symbols = {name: sympy.Symbol(name, real=True) for name in names}
    try:
        expr = parse_expression(s, names=symbols)
    except ExpressionError as exc:
        unknown_name = str(exc).startswith("unknown name")
        raise ModelError(
            f"{exc} in probability {text!r}"
            if unknown_name
            else f"cannot parse the probability {text!r}: {exc}",
            where=where,
            fix=f"declare it under 'parameters' (declared: {', '.join(names) or 'none'})"
            if unknown_name
            else "use +, -, *, /, ^ and parentheses over numbers and declared parameters "
            f"(declared: {', '.join(names) or 'none'})",
        ) from exc
    unknown = sorted(str(sym) for sym in expr.free_symbols if str(sym) not in symbols)
    if unknown:
        raise ModelError(
            f"unknown name {unknown[0]!r} in probability {text!r}",
            where=where,
            fix=f"declare it under 'parameters' (declared: {', '.join(names) or 'none'})",
        )
    if expr.free_symbols:
        if expr.has(sympy.zoo, sympy.nan) or not expr.is_rational_function(*expr.free_symbols):
            raise ModelError(
                f"{text!r} is not a polynomial or a fraction of polynomials in the parameters",
                where=where,
                fix="use +, -, *, /, ^ with whole-number exponents, and never divide by 0",
            )
        return ParsedProbability(expr, "." in s)
    if not expr.is_Rational:
        raise ModelError(f"{text!r} is not a rational number", where=where)
    return ParsedProbability(Fraction(int(expr.p), int(expr.q)), "." in s)


def is_symbolic(p: Probability) -> bool:
    """True for a probability that still depends on parameters."""
    return not isinstance(p, Fraction)


def substitute(p: Probability, values: Mapping[str, Fraction]) -> Probability:
    """Fix some parameters; returns a Fraction once no parameter remains."""
    if isinstance(p, Fraction):
        return p
    import sympy

    subs = {
        sym: sympy.Rational(values[str(sym)].numerator, values[str(sym)].denominator)
        for sym in p.free_symbols
        if str(sym) in values
    }
    out = sympy.cancel(p.subs(subs)) if subs else p
    if out.free_symbols:
        return sympy.simplify(out)
    if not out.is_Rational:
        raise ModelError(f"expression {p} does not evaluate to a rational number")
    return Fraction(int(out.p), int(out.q))


def format_probability(p: Probability) -> str:
    """``1/6`` for rationals, sympy's text for expressions."""
    if isinstance(p, Fraction):
        return str(p)
    return str(p).replace("**", "^")


DECIMAL_TOLERANCE = Fraction(1, 10**6)


def check_row(row: Mapping[str, ParsedProbability], *, where: str) -> dict[str, Probability]:
    """Validate one distribution: non-negative entries summing to one.

    Fractions must sum to exactly 1.  Rows that use decimals may miss 1 by at
    most 1e-6 (a rounded 0.333333) and are then rescaled exactly so every
    later computation stays exact.
    """
    values: dict[str, Probability] = {}
    any_decimal = False
    for key, parsed in row.items():
        value = parsed.value
        if isinstance(value, Fraction) and value < 0:
            raise ModelError(
                f"probability of {key!r} is negative ({value})",
                where=where,
                fix="probabilities lie in [0, 1]",
            )
        if isinstance(value, Fraction) and value > 1:
            raise ModelError(
                f"probability of {key!r} is {value}, above 1",
                where=where,
                fix="probabilities lie in [0, 1]",
            )
        values[key] = value
        any_decimal = any_decimal or parsed.decimal
    if not values:
        raise ModelError("empty distribution", where=where, fix="give at least one outcome")
    if any(is_symbolic(v) for v in values.values()):
        import sympy

        total = sympy.simplify(sum(values.values()) - 1)
        if total != 0:
            raise ModelError(
                f"probabilities sum to {sympy.simplify(total + 1)}, not 1",
                where=where,
                fix="make the row sum to exactly 1 for every parameter value",
            )
        return values
    total_fraction = sum((v for v in values.values() if isinstance(v, Fraction)), Fraction(0))
    if total_fraction == 1:
        return values
    if any_decimal and abs(total_fraction - 1) <= DECIMAL_TOLERANCE and total_fraction > 0:
        return {k: Fraction(v) / total_fraction for k, v in values.items()}
    raise ModelError(
        f"probabilities sum to {total_fraction} ({float(total_fraction):.6g}), not 1",
        where=where,
        fix="fractions must sum to exactly 1; decimals to within 1e-6",
    )
