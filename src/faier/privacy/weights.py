"""Exact weights of data models: Fractions, or sympy expressions of parameters.

A correlated data model multiplies and adds many probabilities; most are plain
rationals and stay Fractions (fast), and only those that mention a parameter
become sympy expressions.  Conditioning divides by the secret's probability,
which is where rational functions are cancelled, once per outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, TypeAlias

from faier.errors import SpecError

if TYPE_CHECKING:
    import sympy

Weight: TypeAlias = "Fraction | sympy.Expr"


def weight(value: object, *, where: str = "") -> Weight:
    """A probability given as a number, a Fraction, text (``1-p``) or a sympy expression."""
    if isinstance(value, bool):
        raise SpecError(f"{value!r} is not a probability", where=where or None)
    if isinstance(value, Fraction | int):
        return Fraction(value)
    if isinstance(value, str | float):
        from faier.model.probability import parse_probability

        names = _names_in(value) if isinstance(value, str) else ()
        return weight(parse_probability(value, names, where=where).value, where=where)
    import sympy

    if isinstance(value, sympy.Expr):
        if not value.free_symbols:
            if not value.is_Rational:
                raise SpecError(f"{value} is not a rational number", where=where or None)
            return Fraction(int(value.p), int(value.q))
        return value
    raise SpecError(f"{value!r} is not a probability", where=where or None)


def _names_in(text: str) -> tuple[str, ...]:
    import re

    return tuple(dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)))


def is_symbolic(w: Weight) -> bool:
    return not isinstance(w, Fraction)


def is_zero(w: Weight) -> bool:
    """Identically zero (for an expression: for every parameter value)."""
    if isinstance(w, Fraction):
        return w == 0
    import sympy

    return bool(sympy.expand(w) == 0)


def total(weights: Iterable[Weight]) -> Weight:
    """The sum, staying a Fraction while every term is one."""
    out: Weight = Fraction(0)
    for w in weights:
        out = out + w
    return out


def simplified(w: Weight) -> Weight:
    """A cancelled, factored rational function, or a Fraction once parameter-free."""
    if isinstance(w, Fraction):
        return w
    import sympy

    return weight(sympy.factor(sympy.cancel(w)))


def expanded(w: Weight) -> Weight:
    """An expanded sum of terms: cheap to add and multiply further (sums in variable
    elimination and forward passes); cancelling waits for the final division."""
    if isinstance(w, Fraction):
        return w
    import sympy

    return weight(sympy.expand(w))


def divided(w: Weight, mass: Weight) -> Weight:
    """w / mass, simplified."""
    if isinstance(w, Fraction) and isinstance(mass, Fraction):
        return w / mass
    return simplified(w / mass)


def names(weights: Iterable[Weight]) -> set[str]:
    """The parameters the weights mention."""
    return {str(s) for w in weights if not isinstance(w, Fraction) for s in w.free_symbols}


def sympified(w: Weight) -> sympy.Expr:
    """The weight as a sympy expression (what the SMT engine reads)."""
    import sympy

    if isinstance(w, Fraction):
        return sympy.Rational(w.numerator, w.denominator)
    return w
