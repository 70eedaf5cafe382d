"""Bad input that only shows over a whole parameter domain, caught before solving.

A file can check that ``1-p`` and ``p`` sum to 1, but not that every
probability stays in [0, 1] for every p in the domain, that constraints
leave any parameter value at all, or that a distribution written with
parameters sums to 1 only under the constraints.  Each is decided here:
by interval arithmetic over the domain box when that suffices, else by the
solver (sat gives the offending point), and reported as an InputError.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.engines.smt import smtlib
from faier.engines.smt.encode import Ask, space_assertions
from faier.engines.smt.polynomial import Polynomial
from faier.engines.smt.portfolio import Answer
from faier.engines.smt.question import Question, Space
from faier.engines.smt.smtlib import Query
from faier.engines.smt.tables import side
from faier.errors import ModelError, SpecError
from faier.model.probability import is_symbolic
from faier.privacy.symbolic import SymbolicDistribution

if TYPE_CHECKING:
    import sympy

Interval = tuple[Fraction, Fraction]


def _interval(expr: sympy.Expr, box: dict[str, Interval]) -> Interval | None:
    """Bounds of a rational expression over a closed box (None if unbounded there)."""
    if expr.is_Rational:
        v = Fraction(int(expr.p), int(expr.q))
        return v, v
    if expr.is_Symbol:
        return box.get(str(expr))
    if expr.is_Add or expr.is_Mul:
        parts = [_interval(a, box) for a in expr.args]
        if any(p is None for p in parts):
            return None
        low, high = parts[0]  # type: ignore[misc]
        for p_low, p_high in parts[1:]:  # type: ignore[misc]
            if expr.is_Add:
                low, high = low + p_low, high + p_high
            else:
                products = [low * p_low, low * p_high, high * p_low, high * p_high]
                low, high = min(products), max(products)
        return low, high
    if expr.is_Pow and expr.exp.is_Integer:
        base = _interval(expr.base, box)
        if base is None:
            return None
        e = int(expr.exp)
        low, high = base
        if e < 0:
            if low <= 0 <= high:
                return None
            low, high, e = 1 / high, 1 / low, -e
        values = [low**e, high**e]
        if e % 2 == 0 and low < 0 < high:
            return Fraction(0), max(values)
        return min(values), max(values)
    return None


def _box(space: Space) -> dict[str, Interval]:
    return {p.name: (p.domain.lower, p.domain.upper) for p in space.parameters}


def _point(answer: Answer, space: Space) -> str:
    shown = []
    for p in space.parameters:
        value = answer.model.get(p.name)
        if value is not None:
            shown.append(f"{p.name} = {value.exact if value.exact is not None else value.text}")
    return ", ".join(shown)


class Validator:
    """Checks a question's probabilities over its whole parameter space."""

    def __init__(self, question: Question, ask: Ask) -> None:
        self.question = question
        self.ask = ask
        self.space = question.space
        self.box = _box(question.space)
        self.assertions = space_assertions(question.space)

    def _query(self, assertion: str, comment: str) -> Answer:
        query = Query(
            "validation", "QF_NRA", self.space.variables, (*self.assertions, assertion), (comment,)
        )
        return self.ask(query)

    def run(self) -> None:
        self.nonempty()
        for where, expr in self._probabilities():
            self.probability(where, expr)
        for where, row in self._rows():
            self.sums_to_one(where, row)

    def nonempty(self) -> None:
        if not self.space.constraints:
            return
        answer = self._query("true", "is the parameter space non-empty?")
        if answer.status == "unsat":
            raise SpecError(
                "no parameter value satisfies the domains and constraints "
                f"({self.space.describe()})",
                where="--param",
                fix="relax a constraint or widen a domain",
            )

    def _probabilities(self) -> Iterator[tuple[str, sympy.Expr]]:
        hmm = self.question.hmm
        seen: set[sympy.Expr] = set()
        if hmm is not None:
            for kind, matrix, columns in (
                ("transitions", hmm.transition, hmm.states),
                ("emissions", hmm.emission, hmm.observations),
            ):
                for state, row in zip(hmm.states, matrix, strict=True):
                    for column, p in zip(columns, row, strict=True):
                        if is_symbolic(p) and p not in seen:
                            seen.add(p)
                            yield f"{kind}.{state}.{column}", p
        for comparison in self.question.comparisons:
            for name, dist in (
                (comparison.left_name, comparison.left),
                (comparison.right_name, comparison.right),
            ):
                for x, w in dist.items:
                    if w not in seen:
                        seen.add(w)
                        yield f"prior {name!r} at {x}", w

    def _rows(self) -> Iterator[tuple[str, list[sympy.Expr]]]:
        import sympy

        hmm = self.question.hmm
        if hmm is not None:
            for kind, matrix in (("transitions", hmm.transition), ("emissions", hmm.emission)):
                for state, row in zip(hmm.states, matrix, strict=True):
                    if any(is_symbolic(p) for p in row):
                        yield (
                            f"{kind}.{state}",
                            [
                                sympy.Rational(p.numerator, p.denominator)
                                if isinstance(p, Fraction)
                                else p
                                for p in row
                            ],
                        )
        done: set[str] = set()
        for comparison in self.question.comparisons:
            for name, dist in (
                (comparison.left_name, comparison.left),
                (comparison.right_name, comparison.right),
            ):
                if name not in done:
                    done.add(name)
                    yield f"prior {name!r}", [w for _, w in dist.items]

    def probability(self, where: str, expr: sympy.Expr) -> None:
        """expr ≥ 0 everywhere in the space, else a ModelError with a point.

        With every row summing to 1 (checked next), non-negative entries are
        also at most 1.
        """
        bounds = _interval(expr, self.box)
        if bounds is not None and bounds[0] >= 0:
            return
        answer = self._query(
            f"(< {smtlib.expression(expr)} 0)", f"can {where} = {expr} be negative?"
        )
        if answer.status == "sat":
            raise ModelError(
                f"the probability {str(expr).replace('**', '^')} is negative at "
                f"{_point(answer, self.space)} (domain {self.space.describe()})",
                where=where,
                fix="narrow the parameter domains (--param 'p in (0, 1)') so that every "
                "probability stays in [0, 1]",
            )

    def sums_to_one(self, where: str, row: list[sympy.Expr]) -> None:
        """Σ row = 1 for every point of the space (as polynomials, else by the solver)."""
        import sympy

        weights = SymbolicDistribution(tuple(enumerate(row)))
        parts = side(weights, self.space.variables)
        excess = Polynomial.constant(self.space.variables, 0)
        for numerator in parts.numerators.values():
            excess = excess + numerator
        excess = excess - parts.denominator
        if excess.is_zero():
            return
        total = sympy.cancel(sympy.Add(*row))
        if excess.is_constant():
            raise ModelError(f"probabilities sum to {total}, not 1", where=where)
        answer = self._query(
            f"(not (= {smtlib.polynomial(excess)} 0))", f"can {where} sum to other than 1?"
        )
        if answer.status == "sat":
            raise ModelError(
                f"probabilities sum to {str(total).replace('**', '^')}, "
                f"which is not 1 at {_point(answer, self.space)}",
                where=where,
                fix="make the row sum to 1 for every parameter value in the domain "
                "(e.g. 1-p and p), or add the constraint that makes it so",
            )


def validate(question: Question, ask: Callable[[Query], Answer]) -> None:
    """Raise an InputError if the question is malformed somewhere in its parameter space."""
    Validator(question, ask).run()
