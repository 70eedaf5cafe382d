"""Closed forms: each outcome's probability under each prior as a rational function.

These are the FAIER papers' Table 1 (journal Ex. 4.5, conference Ex. 4: the
mechanism's output probabilities without and with John's record, as functions
of p), computed for any parametric question from the fast encoding's
polynomials.  For one outcome the loss ε*(θ) = ln max(P/Q, Q/P) is given as a
function too, and its supremum over the domain by the same search as ``faier epsilon``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.core.problem import Problem
from faier.engines.smt.fast import FastSearch
from faier.engines.smt.question import Space, build
from faier.engines.smt.session import Session, SolverSettings
from faier.engines.smt.supremum import Supremum, SupremumSearch
from faier.engines.smt.tables import Outcome, Table, build_tables
from faier.engines.smt.validation import validate
from faier.errors import SpecError

if TYPE_CHECKING:
    import sympy


def show(expr: sympy.Expr, space: Space) -> str:
    """``(p^2 - 4*p + 4)/6``: integer coefficients, a denominator positive on the domain."""
    import sympy

    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr)))
    symbols = sorted(expr.free_symbols, key=str)
    if not symbols:
        return str(sympy.cancel(expr))
    top = sympy.Poly(numerator, *symbols, domain="QQ")
    bottom = sympy.Poly(denominator, *symbols, domain="QQ")
    scale = math.lcm(*(int(sympy.Rational(c).q) for c in (*top.coeffs(), *bottom.coeffs())))
    top, bottom = top * scale, bottom * scale
    common = math.gcd(*(int(c) for c in (*top.coeffs(), *bottom.coeffs())))
    top, bottom = top.quo_ground(common), bottom.quo_ground(common)
    middle = {
        s: sympy.Rational(p.domain.lower + p.domain.upper, 2)
        for p in space.parameters
        for s in symbols
        if str(s) == p.name
    }
    if bottom.as_expr().subs(middle) < 0:
        top, bottom = -top, -bottom
    text_top = str(top.as_expr()).replace("**", "^")
    if bottom.is_ground and bottom.as_expr() == 1:
        return text_top
    text_bottom = str(bottom.as_expr()).replace("**", "^")
    wrap_top = f"({text_top})" if len(top.terms()) > 1 else text_top
    wrap_bottom = f"({text_bottom})" if len(bottom.terms()) > 1 else text_bottom
    return f"{wrap_top}/{wrap_bottom}"


@dataclass(frozen=True)
class Row:
    """One outcome of one pair: both probabilities as simplified rational functions."""

    outcome: tuple[str, ...]
    left: sympy.Expr
    right: sympy.Expr

    @property
    def ratio(self) -> sympy.Expr:
        import sympy

        return sympy.cancel(self.left / self.right) if self.right != 0 else sympy.oo


@dataclass(frozen=True)
class PairForms:
    """The closed forms of one discriminative pair (π, τ)."""

    left_name: str
    right_name: str
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class ClosedForms:
    """All pairs, the parameter space, and (for one outcome) its loss and supremum."""

    space: Space
    pairs: tuple[PairForms, ...]
    outcome: tuple[str, ...] | None = None
    supremum: Supremum | None = None
    summary: str = ""


def _expression(table: Table, outcome: Outcome, side: str) -> sympy.Expr:
    import sympy

    numerator = outcome.p if side == "left" else outcome.q
    denominator = (table.left if side == "left" else table.right) * table.shared
    return sympy.factor(sympy.cancel(numerator.to_sympy() / denominator.to_sympy()))


def closed_forms(
    problem: Problem, outcome: tuple[str, ...] | None = None, options: SolverSettings | None = None
) -> ClosedForms:
    """Every pair's probabilities per outcome; with ``outcome``, also sup ε* for it."""
    options = options or SolverSettings()
    question = build(problem)
    with Session(options, problem.name) as session:
        validate(question, session.ask)
        tables = build_tables(question, session.budget())
        pairs = []
        for table in tables[::2]:
            rows = tuple(
                Row(o.label, _expression(table, o, "left"), _expression(table, o, "right"))
                for o in table.outcomes
                if outcome is None or o.label == outcome
            )
            pairs.append(PairForms(table.comparison.left_name, table.comparison.right_name, rows))
        supremum = None
        if outcome is not None:
            known = {o.label for t in tables for o in t.outcomes}
            if outcome not in known:
                raise SpecError(
                    f"{' '.join(outcome)!r} is not an outcome of {problem.name}",
                    where="--output",
                    fix="outcomes: " + ", ".join(" ".join(k) for k in sorted(known)[:20]),
                )
            chosen = [
                Table(
                    t.comparison,
                    t.left,
                    t.right,
                    t.shared,
                    t.conditions,
                    tuple(o for o in t.outcomes if o.label == outcome),
                )
                for t in tables
            ]
            supremum = SupremumSearch(
                FastSearch(question, chosen, session), options.precision
            ).run()
        summary = session.summary()
    return ClosedForms(question.space, tuple(pairs), outcome, supremum, summary)


def ratio_text(value: Fraction | None) -> str:
    if value is None:
        return "∞"
    return f"ln({value}) ≈ {math.log(value):.6f}" if value > 0 else "-∞"
