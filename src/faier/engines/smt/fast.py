"""Deciding ε-privacy with the fast encoding, outcome by outcome.

For each comparison and outcome one query asks for parameters where
Pr(ω|π) > e^ε·Pr(ω|τ).  unsat for all of them proves privacy for every
parameter value in the domain; the first sat gives a witness, kept only
after its exact recheck.  A decimal ε (transcendental e^ε) is bracketed by
rationals lo < e^ε < hi, of relative width and checked exactly: unsat at lo
proves, sat at hi refutes, and the bracket is tightened when neither settles it.
"""

from __future__ import annotations

import decimal
import functools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.engines.smt import smtlib
from faier.engines.smt.encode import (
    Signs,
    feasible_query,
    nonzero,
    space_assertions,
    violation_polynomial,
    violation_query,
)
from faier.engines.smt.question import Question
from faier.engines.smt.session import Session
from faier.engines.smt.smtlib import Query
from faier.engines.smt.solvers import ModelValue
from faier.engines.smt.tables import Outcome, Table
from faier.engines.smt.witness import Checked, candidates, describe, evaluate
from faier.errors import InternalError
from faier.privacy.budget import Epsilon
from faier.results import ParameterValue

if TYPE_CHECKING:
    pass

BRACKET_DIGITS = (15, 40, 80)
"""Relative widths 10^-digits of the successive brackets around an irrational e^ε."""
_GUARD_DIGITS = 10
"""Extra significant digits of the approximation, so the bracket rarely needs recomputing."""
_BRACKET_TRIES = 4


def _magnitude(value: Fraction) -> int:
    """floor(log10(value)) for value > 0, exactly (from bit lengths: no huge int→str)."""
    bits = value.numerator.bit_length() - value.denominator.bit_length()
    guess = math.floor(bits * math.log10(2))
    while Fraction(10) ** guess > value:
        guess -= 1
    while Fraction(10) ** (guess + 1) <= value:
        guess += 1
    return guess


def _approximate_exp(eps: Epsilon, digits: int) -> Fraction:
    """e^ε to about ``digits`` significant digits: a guess, checked by the caller."""
    if eps.rational is not None:
        with decimal.localcontext() as context:
            context.prec = digits
            context.Emax = decimal.MAX_EMAX
            context.Emin = decimal.MIN_EMIN
            exponent = decimal.Decimal(eps.rational.numerator) / eps.rational.denominator
            return Fraction(exponent.exp())
    import sympy

    approx = sympy.Rational(sympy.exp(eps.expr).evalf(digits))
    return Fraction(int(approx.p), int(approx.q))


def _widen(centre: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """centre ∓ about centre·10^-digits, rounded outwards to digits + 3 significant digits."""
    unit = Fraction(10) ** (_magnitude(centre) - digits)
    step = unit / 100
    low = math.floor((centre - unit) / step) * step
    high = math.ceil((centre + unit) / step) * step
    return low, high


@functools.lru_cache(maxsize=32)
def ratio_bounds(eps: Epsilon, digits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < e^ε < hi about e^ε·10^-digits apart (lo = hi = e^ε when rational).

    The width is relative: an absolute 10^-digits is narrower than the error of
    any digits-accurate approximation once e^ε passes 10^10, and an unsat at a
    lo above e^ε proved a false "holds" (issue 11).  Only a bracket that
    :meth:`Epsilon.compare_ratio` confirms exactly is returned; otherwise e^ε is
    recomputed with twice the working precision.
    """
    if eps.exp_ratio is not None:
        return eps.exp_ratio, eps.exp_ratio
    working = digits + _GUARD_DIGITS
    for _ in range(_BRACKET_TRIES):
        low, high = _widen(_approximate_exp(eps, working), digits)
        if eps.compare_ratio(low) < 0 < eps.compare_ratio(high):
            return low, high
        working *= 2
    raise InternalError(f"no rational bracket of e^{eps} at {digits} digits could be confirmed")


@dataclass(frozen=True)
class Found:
    """A violating outcome, recomputed exactly at a point of the space."""

    table: Table
    outcome: Outcome
    checked: Checked
    values: tuple[ParameterValue, ...]


@dataclass(frozen=True)
class Decision:
    """What one outcome query settled: 'unsat', 'sat' (with a checked point) or 'unknown'."""

    status: str
    found: Found | None = None
    reason: str = ""


class FastSearch:
    """The outcome queries of one question, sharing signs and feasible points."""

    def __init__(self, question: Question, tables: list[Table], session: Session) -> None:
        self.question = question
        self.tables = tables
        self.session = session
        self.signs = Signs(question.space, session.ask)
        self._feasible: dict[int, tuple[str, Mapping[str, ModelValue], str]] = {}

    def outcomes(self) -> Iterator[tuple[Table, Outcome]]:
        for table in self.tables:
            for outcome in table.outcomes:
                yield table, outcome

    def confirm(
        self,
        table: Table,
        outcome: Outcome,
        model: Mapping[str, ModelValue],
        accept: Callable[[Checked], bool],
    ) -> Decision:
        for point in candidates(model, self.question.space):
            checked = evaluate(self.question, table, outcome, point)
            if checked is not None and accept(checked):
                values = describe(point, model, self.question.space)
                return Decision("sat", Found(table, outcome, checked, values))
        return Decision("unknown", reason="the solver's witness did not survive the exact recheck")

    def feasible(self, table: Table) -> tuple[str, Mapping[str, ModelValue], str]:
        """A point of the space where the comparison is defined (cached per table)."""
        key = id(table)
        if key not in self._feasible:
            if not self.question.variables:
                self._feasible[key] = ("sat", {}, "")
            else:
                answer = self.session.ask(feasible_query(table, self.question.space))
                status = answer.status if answer.definitive else "unknown"
                self._feasible[key] = (status, answer.model, answer.explain())
        return self._feasible[key]

    def exceeds(
        self, table: Table, outcome: Outcome, ratio: Fraction, accept: Callable[[Checked], bool]
    ) -> Decision:
        """Is there a point with Pr(ω|π) > ratio·Pr(ω|τ)?  sat points must pass ``accept``."""
        poly = violation_polynomial(table, outcome, ratio, self.signs)
        if poly.is_constant():
            if poly.constant_value() <= 0:
                return Decision("unsat")
            status, model, reason = self.feasible(table)
            if status != "sat":
                return Decision(status, reason=reason)
            return self.confirm(table, outcome, model, accept)
        answer = self.session.ask(violation_query(table, outcome, ratio, self.signs))
        if answer.status == "unsat":
            return Decision("unsat")
        if answer.status != "sat":
            return Decision("unknown", reason=answer.explain())
        return self.confirm(table, outcome, answer.model, accept)

    def decide(self, table: Table, outcome: Outcome, eps: Epsilon) -> Decision:
        """Does this outcome violate ε for some parameter value?"""

        def violates(checked: Checked) -> bool:
            return eps.exceeded_by(None if checked.q == 0 else checked.p / checked.q)

        last = Decision("unknown")
        for digits in BRACKET_DIGITS:
            low, high = ratio_bounds(eps, digits)
            below = self.exceeds(table, outcome, low, violates)
            if below.status in ("unsat", "sat") or low == high:
                return below
            above = self.exceeds(table, outcome, high, violates)
            if above.status == "sat":
                return above
            last = Decision("unknown", reason=below.reason or above.reason)
            if above.status != "unsat":
                return last
        return Decision("unknown", reason=last.reason or "ε is too close to the loss to separate")


@dataclass(frozen=True)
class SearchResult:
    """The fast search's answer ('holds', 'violated', 'unknown') before it becomes a Result."""

    status: str
    found: Found | None = None
    reason: str = ""


def search(fast: FastSearch, eps: Epsilon) -> SearchResult:
    """Query outcome by outcome; stop at the first exactly confirmed violation."""
    undecided = ""
    for table, outcome in fast.outcomes():
        if fast.session.out_of_time():
            timeout = f"timeout of {fast.session.options.timeout:g} s reached"
            return SearchResult("unknown", reason=undecided or timeout)
        decision = fast.decide(table, outcome, eps)
        if decision.status == "sat":
            return SearchResult("violated", decision.found)
        if decision.status == "unknown" and not undecided:
            label = " ".join(outcome.label)
            comparison = table.comparison
            undecided = (
                f"{comparison.left_name} vs {comparison.right_name}, outcome {label}: "
                f"{decision.reason}"
            )
    if undecided:
        return SearchResult("unknown", reason=undecided)
    return SearchResult("holds")


def region_query(fast: FastSearch, ratio: Fraction) -> Query:
    """Is there a parameter value where no outcome of any comparison exceeds ``ratio``?"""
    clauses = []
    for table in fast.tables:
        polys = [violation_polynomial(table, o, ratio, fast.signs) for o in table.outcomes]
        inner = [f"(<= {smtlib.polynomial(p)} 0)" for p in polys if not p.is_constant()]
        if any(p.is_constant() and p.constant_value() > 0 for p in polys):
            inner = ["false"]
        defined = [
            nonzero(p) for p in (table.left, table.right, table.shared) if not p.is_constant()
        ]
        body = f"(and {' '.join([*defined, *inner])})" if defined or inner else "true"
        if table.conditions:
            zero = " ".join(f"(= {smtlib.polynomial(c)} 0)" for c in table.conditions)
            body = f"(or {zero} {body})"
        clauses.append(body)
    assertions = (*space_assertions(fast.question.space), *clauses)
    return Query(
        "region",
        "QF_NRA",
        fast.question.variables,
        tuple(assertions),
        (f"is there a parameter value where every loss ratio is at most {ratio}?",),
    )
