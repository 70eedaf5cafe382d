"""The fast encoding: one small polynomial query per comparison and outcome.

Pr(ω|π) > c·Pr(ω|τ) is a comparison of rational functions.  Clearing the
denominators is sound only with their signs known, so they are determined
once per irreducible factor over the parameter space: by interval arithmetic
on the domain box, else by asking the solver whether the factor can be ≤ 0
(or ≥ 0).  With S = d_π·d_τ·D of known sign s the query asserts
s·(b·p·d_τ − a·q·d_π) > 0 (c = a/b); if some factor changes sign it asserts
(b·p·d_τ − a·q·d_π)·S > 0, which also excludes S = 0.  The Pufferfish
condition Pr(secret | θ) ≠ 0 is asserted for both secrets.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.engines.smt import smtlib
from faier.engines.smt.bernstein import strict_sign
from faier.engines.smt.polynomial import Polynomial
from faier.engines.smt.portfolio import Answer
from faier.engines.smt.question import Space
from faier.engines.smt.smtlib import Query
from faier.engines.smt.tables import Outcome, Table

if TYPE_CHECKING:
    pass

Ask = Callable[[Query], Answer]


def space_assertions(space: Space, *, decimal: bool = False, closure: bool = False) -> list[str]:
    """Domains and constraints (``closure``: closed domains, constraints left out)."""
    import sympy

    out = [
        smtlib.closed_domain(p) if closure else smtlib.domain(p, decimal=decimal)
        for p in space.parameters
    ]
    if closure:
        return out
    for c in space.constraints:
        out.append(smtlib.constraint(c, decimal=decimal))
        denominator = sympy.fraction(sympy.together(c.lhs - c.rhs))[1]
        if denominator.free_symbols:
            out.append(f"(not (= {smtlib.expression(denominator, decimal=decimal)} 0))")
    return out


def nonzero(poly: Polynomial) -> str:
    return f"(not (= {smtlib.polynomial(poly)} 0))"


def _box(space: Space) -> dict[str, tuple[Fraction, Fraction]]:
    return {p.name: (p.domain.lower, p.domain.upper) for p in space.parameters}


def _power(low: Fraction, high: Fraction, e: int) -> tuple[Fraction, Fraction]:
    values = [low**e, high**e]
    if e % 2 == 0 and low < 0 < high:
        return Fraction(0), max(values)
    return min(values), max(values)


def interval(
    poly: Polynomial, box: dict[str, tuple[Fraction, Fraction]]
) -> tuple[Fraction, Fraction]:
    """Bounds of a polynomial over a closed box, by interval arithmetic (sound, not tight)."""
    low = high = Fraction(0)
    for monomial, c in poly.terms.items():
        t_low, t_high = Fraction(1), Fraction(1)
        for name, e in zip(poly.variables, monomial, strict=True):
            if e:
                x_low, x_high = _power(*box[name], e)
                products = [t_low * x_low, t_low * x_high, t_high * x_low, t_high * x_high]
                t_low, t_high = min(products), max(products)
        terms = sorted((c * t_low, c * t_high))
        low, high = low + terms[0], high + terms[1]
    return low, high


class Signs:
    """The sign of each denominator factor over the parameter space, cached."""

    def __init__(self, space: Space, ask: Ask) -> None:
        self.space = space
        self.ask = ask
        self.box = _box(space)
        self.cache: dict[Polynomial, int | None] = {}
        self.assertions = space_assertions(space)

    def factor(self, poly: Polynomial) -> int | None:
        """+1 or −1 if the polynomial keeps that strict sign on the space, else None."""
        if poly in self.cache:
            return self.cache[poly]
        low, high = interval(poly, self.box)
        sign: int | None = None
        if low > 0:
            sign = 1
        elif high < 0:
            sign = -1
        elif (found := strict_sign(poly, [p.domain for p in self.space.parameters])) is not None:
            sign = found
        else:
            for candidate, relation in ((1, "<="), (-1, ">=")):
                query = Query(
                    "sign",
                    "QF_NRA",
                    self.space.variables,
                    (*self.assertions, f"({relation} {smtlib.polynomial(poly)} 0)"),
                    (f"can the denominator factor {poly} be {relation} 0?",),
                )
                if self.ask(query).status == "unsat":
                    sign = candidate
                    break
        self.cache[poly] = sign
        return sign

    def product(self, polys: list[Polynomial]) -> int | None:
        """Sign of a product of polynomials, factor by factor (None if undetermined)."""
        import sympy

        sign = 1
        for poly in polys:
            if poly.is_constant():
                sign *= 1 if poly.constant_value() > 0 else -1
                continue
            symbols = [sympy.Symbol(v, real=True) for v in poly.variables]
            constant, factors = sympy.factor_list(poly.to_sympy(), *symbols)
            sign *= 1 if constant > 0 else -1
            for factor, multiplicity in factors:
                if multiplicity % 2 == 0:
                    continue
                s = self.factor(Polynomial.from_sympy(factor, poly.variables))
                if s is None:
                    return None
                sign *= s
        return sign


def violation_polynomial(
    table: Table, outcome: Outcome, ratio: Fraction, signs: Signs
) -> Polynomial:
    """A polynomial that is > 0 exactly where Pr(ω|π) > ratio·Pr(ω|τ) (and S ≠ 0)."""
    difference = table.difference(outcome, ratio)
    sign = signs.product([table.left, table.right, table.shared])
    if sign is None:
        return difference * table.left * table.right * table.shared
    return difference if sign > 0 else -difference


def positive_polynomial(
    table: Table, outcome: Outcome, signs: Signs
) -> tuple[Polynomial, Polynomial]:
    """Polynomials whose signs are those of Pr(ω|π) and Pr(ω|τ) (for the infinite case)."""
    shared = signs.product([table.shared])
    left = signs.product([table.left])
    right = signs.product([table.right])
    p, q = outcome.p, outcome.q
    if shared is None or left is None:
        p = p * table.left * table.shared
    elif shared * left < 0:
        p = -p
    if shared is None or right is None:
        q = q * table.right * table.shared
    elif shared * right < 0:
        q = -q
    return p, q


def violation_query(
    table: Table,
    outcome: Outcome,
    ratio: Fraction,
    signs: Signs,
    *,
    strict: bool = True,
    closure: bool = False,
) -> Query:
    """Is there θ with Pr(ω|π) > ratio·Pr(ω|τ)?  (``strict=False``: ≥, with Pr(ω|τ) > 0.)"""
    poly = violation_polynomial(table, outcome, ratio, signs)
    relation = ">" if strict else ">="
    assertions = space_assertions(signs.space, closure=closure)
    if closure:
        assertions.extend(
            nonzero(p) for p in (table.left, table.right, table.shared) if not p.is_constant()
        )
    else:
        assertions.extend(nonzero(c) for c in table.conditions)
    assertions.append(f"({relation} {smtlib.polynomial(poly)} 0)")
    if not strict:
        _, q = positive_polynomial(table, outcome, signs)
        assertions.append(f"(> {smtlib.polynomial(q)} 0)")
    comparison = table.comparison
    return Query(
        "violation",
        "QF_NRA",
        signs.space.variables,
        tuple(assertions),
        (
            f"comparison: {comparison.left_name} vs {comparison.right_name}",
            f"outcome: {' '.join(outcome.label)}",
            f"asks: Pr(outcome | left) {relation} {ratio} * Pr(outcome | right)"
            + (" on the closure of the domain" if closure else ""),
            f"denominators: left {table.left}, right {table.right}, mechanism {table.shared}",
        ),
    )


def feasible_query(table: Table, space: Space) -> Query:
    """Any point of the space where both secrets have non-zero probability."""
    assertions = [*space_assertions(space), *(nonzero(c) for c in table.conditions)]
    return Query("feasible", "QF_NRA", space.variables, tuple(assertions), ("a feasible point",))
