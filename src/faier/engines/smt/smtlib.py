"""SMT-LIB 2 text for every query: what the solvers run and what ``--emit-smt2`` writes.

Queries are text rather than solver API objects so that z3 and cvc5 answer
the very same question in separate processes, and a user can re-check any
answer with another solver.  Polynomials are printed expanded with integer
coefficients (``(* (- 13) pA pB pB)``): cvc5 needs expanded terms, and both
solvers reject sympy's ``pow`` and ``-13``.  In the faithful encoding the
observation variables are Int, and there real constants are written as
decimals (``1.0``) because mixing Int numerals into Real terms is a sort
error for cvc5.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.engines.smt.polynomial import Polynomial
from faier.model.constraints import Constraint
from faier.model.parameters import Parameter

if TYPE_CHECKING:
    import sympy


def integer(value: int) -> str:
    return str(value) if value >= 0 else f"(- {-value})"


def real(value: Fraction, *, decimal: bool = False) -> str:
    """An exact rational constant; ``decimal`` writes ``1.0`` (needed beside Int terms)."""
    suffix = ".0" if decimal else ""
    magnitude = abs(value)
    if magnitude.denominator == 1:
        text = f"{magnitude.numerator}{suffix}"
    else:
        text = f"(/ {magnitude.numerator}{suffix} {magnitude.denominator}{suffix})"
    return text if value >= 0 else f"(- {text})"


def _monomial(variables: tuple[str, ...], exponents: tuple[int, ...]) -> list[str]:
    factors = []
    for name, e in zip(variables, exponents, strict=True):
        factors.extend([name] * e)
    return factors


def polynomial(poly: Polynomial, *, scale_to_integers: bool = True) -> str:
    """An expanded polynomial; with ``scale_to_integers`` it is multiplied by a positive
    constant (the lcm of the coefficient denominators), which keeps every sign."""
    if poly.is_zero():
        return "0"
    if scale_to_integers:
        terms = [(m, integer(c)) for m, c in poly.integer_terms()]
    else:
        terms = [(m, real(c)) for m, c in sorted(poly.terms.items(), reverse=True)]
    printed = []
    for monomial, coefficient in terms:
        factors = _monomial(poly.variables, monomial)
        if not factors:
            printed.append(coefficient)
        elif coefficient == "1":
            printed.append(factors[0] if len(factors) == 1 else f"(* {' '.join(factors)})")
        else:
            printed.append(f"(* {coefficient} {' '.join(factors)})")
    return printed[0] if len(printed) == 1 else f"(+ {' '.join(printed)})"


def expression(expr: sympy.Expr, *, decimal: bool = False) -> str:
    """A rational function of parameters (sympy) as an SMT-LIB Real term."""
    import sympy

    expr = sympy.sympify(expr)
    if expr.is_Rational:
        return real(Fraction(int(expr.p), int(expr.q)), decimal=decimal)
    if expr.is_Symbol:
        return str(expr)
    if expr.is_Add:
        return f"(+ {' '.join(expression(a, decimal=decimal) for a in expr.args)})"
    if expr.is_Mul:
        numerator, denominator = sympy.fraction(expr)
        if denominator != 1:
            top = expression(numerator, decimal=decimal)
            return f"(/ {top} {expression(denominator, decimal=decimal)})"
        return f"(* {' '.join(expression(a, decimal=decimal) for a in expr.args)})"
    if expr.is_Pow and expr.exp.is_Integer:
        base = expression(expr.base, decimal=decimal)
        power = int(expr.exp)
        if power > 0:
            return base if power == 1 else f"(* {' '.join([base] * power)})"
        one = real(Fraction(1), decimal=decimal)
        inverse = base if power == -1 else f"(* {' '.join([base] * -power)})"
        return f"(/ {one} {inverse})"
    raise ValueError(f"cannot write {expr} in SMT-LIB (only rational functions)")


def domain(parameter: Parameter, *, decimal: bool = False) -> str:
    """``(and (< 0 p) (< p 1))`` for p ∈ (0, 1); closed ends use <=."""
    d = parameter.domain
    lower = "<" if d.lower_open else "<="
    upper = "<" if d.upper_open else "<="
    low, high = real(d.lower, decimal=decimal), real(d.upper, decimal=decimal)
    name = parameter.name
    return f"(and ({lower} {low} {name}) ({upper} {name} {high}))"


def closed_domain(parameter: Parameter) -> str:
    """The closure of a parameter's domain (limits of the supremum live there)."""
    d = parameter.domain
    return f"(and (<= {real(d.lower)} {parameter.name}) (<= {parameter.name} {real(d.upper)}))"


_RELATION = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "="}


def constraint(c: Constraint, *, decimal: bool = False) -> str:
    lhs, rhs = expression(c.lhs, decimal=decimal), expression(c.rhs, decimal=decimal)
    if c.relation == "!=":
        return f"(not (= {lhs} {rhs}))"
    return f"({_RELATION[c.relation]} {lhs} {rhs})"


@dataclass(frozen=True)
class Query:
    """One satisfiability question: declarations, assertions, and what it asks."""

    name: str
    logic: str
    reals: tuple[str, ...]
    assertions: tuple[str, ...]
    comments: tuple[str, ...] = ()
    integers: tuple[str, ...] = ()
    definitions: tuple[str, ...] = field(default=(), repr=False)

    def text(self, *, check_sat: bool = False, header: Iterable[str] = ()) -> str:
        """The SMT-LIB script; ``check_sat`` adds the final command for standalone use."""
        lines = [f"; {line}" for line in (*header, *self.comments)]
        lines.append(f"(set-logic {self.logic})")
        lines.extend(f"(declare-const {name} Int)" for name in self.integers)
        lines.extend(f"(declare-const {name} Real)" for name in self.reals)
        lines.extend(self.definitions)
        lines.extend(f"(assert {a})" for a in self.assertions)
        if check_sat:
            lines.append("(check-sat)")
        return "\n".join(lines) + "\n"
