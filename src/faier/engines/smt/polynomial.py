"""Sparse multivariate polynomials with exact rational coefficients.

The fast encoding builds one polynomial per observation sequence and side;
sympy's general expressions are slow for that and print SMT-LIB that solvers
reject (``pow``, ``-13``).  This small type is expanded by construction,
evaluates exactly at rational points and prints integer-coefficient SMT-LIB.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.model.rational import exact_fraction

if TYPE_CHECKING:
    import sympy


Monomial = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Polynomial:
    """Σ c·x^e over ``variables``; zero coefficients are never stored."""

    variables: tuple[str, ...]
    terms: dict[Monomial, Fraction] = field(default_factory=dict)

    @classmethod
    def constant(cls, variables: tuple[str, ...], value: Fraction | int) -> Polynomial:
        value = Fraction(value)
        return cls(variables, {(0,) * len(variables): value} if value else {})

    @classmethod
    def variable(cls, variables: tuple[str, ...], name: str) -> Polynomial:
        exponent = tuple(int(v == name) for v in variables)
        return cls(variables, {exponent: Fraction(1)})

    @classmethod
    def from_sympy(cls, expr: sympy.Expr, variables: tuple[str, ...]) -> Polynomial:
        """Expand a polynomial sympy expression (raises ValueError if it is not one)."""
        import sympy

        symbols = [sympy.Symbol(v, real=True) for v in variables]
        expr = sympy.sympify(expr).subs(
            {s: symbols[variables.index(str(s))] for s in expr.free_symbols if str(s) in variables}
        )
        unknown = {str(s) for s in expr.free_symbols} - set(variables)
        if unknown:
            raise ValueError(f"unknown names {sorted(unknown)} in {expr}")
        if not variables:
            value = sympy.cancel(expr)
            if not value.is_Rational:
                raise ValueError(f"{expr} is not a rational number")
            return cls.constant(variables, exact_fraction(value))
        poly = sympy.Poly(expr, *symbols, domain="QQ")
        terms = {
            tuple(int(e) for e in monomial): exact_fraction(c)
            for monomial, c in poly.terms()
            if c != 0
        }
        return cls(variables, terms)

    def to_sympy(self) -> sympy.Expr:
        import sympy

        symbols = [sympy.Symbol(v, real=True) for v in self.variables]
        total = sympy.Integer(0)
        for monomial, c in self.terms.items():
            term = sympy.Rational(c.numerator, c.denominator)
            for s, e in zip(symbols, monomial, strict=True):
                if e:
                    term *= s**e
            total += term
        return total

    def is_zero(self) -> bool:
        return not self.terms

    def is_constant(self) -> bool:
        return all(not any(m) for m in self.terms)

    def constant_value(self) -> Fraction:
        """The value of a constant polynomial."""
        return self.terms.get((0,) * len(self.variables), Fraction(0))

    def degree(self) -> int:
        return max((sum(m) for m in self.terms), default=0)

    def __add__(self, other: Polynomial) -> Polynomial:
        terms = dict(self.terms)
        for m, c in other.terms.items():
            value = terms.get(m, Fraction(0)) + c
            if value:
                terms[m] = value
            else:
                terms.pop(m, None)
        return Polynomial(self.variables, terms)

    def __neg__(self) -> Polynomial:
        return Polynomial(self.variables, {m: -c for m, c in self.terms.items()})

    def __sub__(self, other: Polynomial) -> Polynomial:
        return self + (-other)

    def scale(self, factor: Fraction | int) -> Polynomial:
        if not factor:
            return Polynomial(self.variables)
        return Polynomial(self.variables, {m: c * factor for m, c in self.terms.items()})

    def __mul__(self, other: Polynomial) -> Polynomial:
        if other.is_constant():
            return self.scale(other.constant_value())
        if self.is_constant():
            return other.scale(self.constant_value())
        terms: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = tuple(a + b for a, b in zip(m1, m2, strict=True))
                terms[m] = terms.get(m, Fraction(0)) + c1 * c2
        return Polynomial(self.variables, {m: c for m, c in terms.items() if c})

    def add_scaled(self, other: Polynomial, factor: Fraction) -> Polynomial:
        """self + factor·other without building the intermediate product."""
        if not factor:
            return self
        terms = dict(self.terms)
        for m, c in other.terms.items():
            value = terms.get(m, Fraction(0)) + c * factor
            if value:
                terms[m] = value
            else:
                terms.pop(m, None)
        return Polynomial(self.variables, terms)

    def evaluate(self, point: Mapping[str, Fraction]) -> Fraction:
        """Exact value at a rational point (every variable must be given)."""
        values = [point[v] for v in self.variables]
        total = Fraction(0)
        for monomial, c in self.terms.items():
            term = c
            for x, e in zip(values, monomial, strict=True):
                if e:
                    term *= x**e
            total += term
        return total

    def integer_terms(self) -> list[tuple[Monomial, int]]:
        """The terms times the lcm of the coefficient denominators (sign and order kept)."""
        scale = math.lcm(*(c.denominator for c in self.terms.values())) if self.terms else 1
        return [(m, int(c * scale)) for m, c in sorted(self.terms.items(), reverse=True)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polynomial):
            return NotImplemented
        return self.variables == other.variables and self.terms == other.terms

    def __hash__(self) -> int:
        return hash((self.variables, frozenset(self.terms.items())))

    def __str__(self) -> str:
        return str(self.to_sympy()).replace("**", "^")
