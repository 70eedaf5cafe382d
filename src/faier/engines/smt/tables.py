"""Each comparison's two probabilities per output class or observation sequence.

This is the data of the fast encoding.  For every comparison (π, τ) and
every reachable outcome ω, Pr(ω | π) = p / (d_π · D) and Pr(ω | τ) =
q / (d_τ · D), where p, q are expanded polynomials in the unknown
parameters, d_π, d_τ are the priors' common denominators and D is the
denominator the mechanism itself contributes (1 unless an HMM probability is
a fraction of parameters).  Outcomes come from exact computation: a one-shot
program's output distribution per input, or an HMM's reachable observation
sequences of the horizon's length (a prefix never has a larger loss than its
best extension, because the rows of Σ_ω M_ω are stochastic).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.core.budget import Budget
from faier.engines.smt.polynomial import Polynomial
from faier.engines.smt.question import Question
from faier.model.hmm import HMM
from faier.model.probability import Probability, is_symbolic
from faier.privacy.symbolic import SymbolicComparison, SymbolicDistribution

if TYPE_CHECKING:
    import sympy


@dataclass(frozen=True)
class RationalFunction:
    """A rational function as two polynomials."""

    numerator: Polynomial
    denominator: Polynomial


def _walk(expr: sympy.Expr, variables: tuple[str, ...]) -> RationalFunction:
    """Expand a sympy rational expression bottom-up, without gcd computations."""
    one = Polynomial.constant(variables, 1)
    if expr.is_Rational:
        return RationalFunction(
            Polynomial.constant(variables, Fraction(int(expr.p), int(expr.q))), one
        )
    if expr.is_Symbol:
        if str(expr) not in variables:
            raise ValueError(f"unknown parameter {expr}")
        return RationalFunction(Polynomial.variable(variables, str(expr)), one)
    if expr.is_Add or expr.is_Mul:
        parts = [_walk(a, variables) for a in expr.args]
        total = parts[0]
        for part in parts[1:]:
            if expr.is_Mul:
                total = RationalFunction(
                    total.numerator * part.numerator, total.denominator * part.denominator
                )
            elif total.denominator == part.denominator:
                total = RationalFunction(total.numerator + part.numerator, total.denominator)
            else:
                total = RationalFunction(
                    total.numerator * part.denominator + part.numerator * total.denominator,
                    total.denominator * part.denominator,
                )
        return total
    if expr.is_Pow and expr.exp.is_Integer:
        base = _walk(expr.base, variables)
        power = int(expr.exp)
        numerator, denominator = (
            (base.numerator, base.denominator) if power > 0 else (base.denominator, base.numerator)
        )
        top, bottom = one, one
        for _ in range(abs(power)):
            top, bottom = top * numerator, bottom * denominator
        return RationalFunction(top, bottom)
    raise ValueError(f"{expr} is not a rational function of the parameters")


def rational_function(expr: sympy.Expr | Fraction, variables: tuple[str, ...]) -> RationalFunction:
    """Split a rational function of the parameters into expanded numerator and denominator."""
    import sympy

    if isinstance(expr, Fraction):
        one = Polynomial.constant(variables, 1)
        return RationalFunction(Polynomial.constant(variables, expr), one)
    f = _walk(sympy.sympify(expr), variables)
    if f.denominator.is_constant():
        scale = 1 / f.denominator.constant_value()
        return RationalFunction(f.numerator.scale(scale), Polynomial.constant(variables, 1))
    return f


def _lcm(polys: Sequence[Polynomial], variables: tuple[str, ...]) -> Polynomial:
    """The least common multiple (up to a constant) of polynomial denominators."""
    import sympy

    distinct = list({p: None for p in polys if not p.is_constant()})
    if not distinct:
        return Polynomial.constant(variables, Fraction(1))
    if len(distinct) == 1:
        return distinct[0]
    symbols = [sympy.Symbol(v, real=True) for v in variables]
    lcm = sympy.lcm_list([p.to_sympy() for p in distinct], *symbols)
    return Polynomial.from_sympy(lcm, variables)


def _quotient(a: Polynomial, b: Polynomial) -> Polynomial:
    """a / b for b dividing a exactly."""
    import sympy

    if b.is_constant():
        return a.scale(1 / b.constant_value())
    if a == b:
        return Polynomial.constant(a.variables, 1)
    quotient = sympy.cancel(a.to_sympy() / b.to_sympy())
    return Polynomial.from_sympy(quotient, a.variables)


@dataclass(frozen=True)
class Side:
    """A prior as polynomial numerators over one common denominator."""

    numerators: dict[Hashable, Polynomial]
    denominator: Polynomial


@functools.lru_cache(maxsize=4096)
def side(dist: SymbolicDistribution, variables: tuple[str, ...]) -> Side:
    """The prior's weights over their common denominator (cached: validation reuses it)."""
    parts = {x: rational_function(w, variables) for x, w in dist.items}
    common = _lcm([f.denominator for f in parts.values()], variables)
    numerators = {x: f.numerator * _quotient(common, f.denominator) for x, f in parts.items()}
    return Side(numerators, common)


@dataclass(frozen=True)
class Outcome:
    """One output class or observation sequence with both probability numerators."""

    label: tuple[str, ...]
    key: Hashable
    p: Polynomial
    q: Polynomial


@dataclass(frozen=True)
class Table:
    """Everything the fast encoding needs about one comparison."""

    comparison: SymbolicComparison
    left: Polynomial
    right: Polynomial
    shared: Polynomial
    conditions: tuple[Polynomial, ...]
    outcomes: tuple[Outcome, ...]

    def probabilities(
        self, outcome: Outcome, point: Mapping[str, Fraction]
    ) -> tuple[Fraction, Fraction]:
        """Both probabilities of an outcome, exactly, at a rational point."""
        shared = self.shared.evaluate(point)
        p = outcome.p.evaluate(point) / (self.left.evaluate(point) * shared)
        q = outcome.q.evaluate(point) / (self.right.evaluate(point) * shared)
        return p, q

    def conditions_hold(self, point: Mapping[str, Fraction]) -> bool:
        """Pufferfish: both secrets have non-zero probability; denominators are non-zero."""
        polys = (*self.conditions, self.left, self.right, self.shared)
        return all(c.evaluate(point) != 0 for c in polys)

    def difference(self, outcome: Outcome, ratio: Fraction) -> Polynomial:
        """b·p·d_τ − a·q·d_π for ratio = a/b: its sign times sign(d_π·d_τ·D) is that of
        Pr(ω|π) − ratio·Pr(ω|τ)."""
        left = outcome.p * self.right
        right = outcome.q * self.left
        return left.scale(ratio.denominator) - right.scale(ratio.numerator)


def _conditions(
    comparison: SymbolicComparison, variables: tuple[str, ...]
) -> tuple[Polynomial, ...]:
    out = []
    for mass in (comparison.left_mass, comparison.right_mass):
        f = rational_function(mass, variables)
        for poly in (f.numerator, f.denominator):
            if not poly.is_constant():
                out.append(poly)
    return tuple(out)


def _integers(rows: Sequence[Sequence[Probability]]) -> tuple[list[list[int]], int]:
    """A rational matrix as integers over one common denominator (fast exact forward)."""
    values = [[Fraction(p) for p in row] for row in rows]
    scale = math.lcm(*(p.denominator for row in values for p in row))
    return [[int(p * scale) for p in row] for row in values], scale


def _rational_sequences(
    hmm: HMM, starts: Sequence[int], horizon: int, budget: Budget
) -> dict[tuple[str, ...], dict[int, Fraction]]:
    """Pr(ω | start in s) for every reachable ω of length ``horizon``; exact, per start."""
    n = len(hmm.states)
    emission, e_scale = _integers(hmm.emission)
    transition, t_scale = _integers(hmm.transition)
    columns = [[emission[s][w] for s in range(n)] for w in range(len(hmm.observations))]
    moves = [{t: p for t, p in enumerate(transition[s]) if p} for s in range(n)]
    denominator = e_scale**horizon * t_scale ** (horizon - 1)
    table: dict[tuple[str, ...], dict[int, Fraction]] = {}
    for start in starts:
        stack: list[tuple[tuple[int, ...], dict[int, int]]] = []
        for w, column in enumerate(columns):
            if column[start]:
                stack.append(((w,), {start: column[start]}))
        while stack:
            path, alpha = stack.pop()
            budget.spend()
            if len(path) == horizon:
                label = tuple(hmm.observations[w] for w in path)
                table.setdefault(label, {})[start] = Fraction(sum(alpha.values()), denominator)
                continue
            predicted: dict[int, int] = {}
            for s, a in alpha.items():
                for t, p in moves[s].items():
                    predicted[t] = predicted.get(t, 0) + a * p
            for w, column in enumerate(columns):
                following = {t: a * column[t] for t, a in predicted.items() if column[t]}
                if following:
                    stack.append(((*path, w), following))
    return table


def _scaled(
    matrix: Sequence[Sequence[Probability]], variables: tuple[str, ...]
) -> tuple[list[list[Polynomial]], Polynomial]:
    """A matrix of rational functions as polynomial numerators over one denominator."""
    parts = [[rational_function(p, variables) for p in row] for row in matrix]
    common = _lcm([f.denominator for row in parts for f in row], variables)
    return [[f.numerator * _quotient(common, f.denominator) for f in row] for row in parts], common


def _symbolic_sequences(
    hmm: HMM, starts: Sequence[int], horizon: int, variables: tuple[str, ...], budget: Budget
) -> tuple[dict[tuple[str, ...], dict[int, Polynomial]], Polynomial]:
    """Like :func:`_rational_sequences` for parametric HMMs; also the shared denominator."""
    emission, e_den = _scaled(hmm.emission, variables)
    transition, t_den = _scaled(hmm.transition, variables)
    n = len(hmm.states)
    table: dict[tuple[str, ...], dict[int, Polynomial]] = {}
    for start in starts:
        stack: list[tuple[tuple[int, ...], dict[int, Polynomial]]] = []
        for w in range(len(hmm.observations)):
            if not emission[start][w].is_zero():
                stack.append(((w,), {start: emission[start][w]}))
        while stack:
            path, alpha = stack.pop()
            budget.spend()
            if len(path) == horizon:
                label = tuple(hmm.observations[w] for w in path)
                total = Polynomial.constant(variables, 0)
                for value in alpha.values():
                    total = total + value
                table.setdefault(label, {})[start] = total
                continue
            predicted: dict[int, Polynomial] = {}
            for s, a in alpha.items():
                for t in range(n):
                    if not transition[s][t].is_zero():
                        term = a * transition[s][t]
                        predicted[t] = predicted[t] + term if t in predicted else term
            for w in range(len(hmm.observations)):
                following = {
                    t: a * emission[t][w]
                    for t, a in predicted.items()
                    if not emission[t][w].is_zero() and not a.is_zero()
                }
                following = {t: a for t, a in following.items() if not a.is_zero()}
                if following:
                    stack.append(((*path, w), following))
    shared = Polynomial.constant(variables, 1)
    for _ in range(horizon):
        shared = shared * e_den
    for _ in range(horizon - 1):
        shared = shared * t_den
    return table, shared


def _order(hmm: HMM, label: tuple[str, ...]) -> tuple[int, ...]:
    """Sequences in the order of the model's observations (ω1 first, then ω2, …)."""
    return tuple(hmm.observations.index(o) for o in label)


def build_tables(question: Question, budget: Budget) -> list[Table]:
    """One table per comparison (both orders), outcomes in a fixed order."""
    variables = question.variables
    sides = [(side(c.left, variables), side(c.right, variables)) for c in question.comparisons]
    support: dict[Hashable, None] = {}
    for left, right in sides:
        support.update(dict.fromkeys(left.numerators))
        support.update(dict.fromkeys(right.numerators))
    per_outcome: dict[Hashable, dict[Hashable, Fraction | Polynomial]] = {}
    labels: dict[Hashable, tuple[str, ...]] = {}
    shared = Polynomial.constant(variables, 1)
    if question.program is not None:
        program = question.program
        for x in support:
            budget.check_time()
            for output, probability in program.output_distribution(x).items:
                per_outcome.setdefault(output, {})[x] = probability
                labels[output] = (program.output_name(output),)
    else:
        hmm = question.hmm
        assert hmm is not None
        index = {name: i for i, name in enumerate(hmm.states)}
        starts = [index[str(x)] for x in support]
        if any(is_symbolic(p) for row in (*hmm.transition, *hmm.emission) for p in row):
            symbolic, shared = _symbolic_sequences(hmm, starts, question.horizon, variables, budget)
            for label, polynomials in sorted(symbolic.items(), key=lambda i: _order(hmm, i[0])):
                per_outcome[label] = {hmm.states[s]: v for s, v in polynomials.items()}
                labels[label] = label
        else:
            exact = _rational_sequences(hmm, starts, question.horizon, budget)
            for label, values in sorted(exact.items(), key=lambda item: _order(hmm, item[0])):
                per_outcome[label] = {hmm.states[s]: v for s, v in values.items()}
                labels[label] = label
    tables = []
    for comparison, (left, right) in zip(question.comparisons, sides, strict=True):
        outcomes = []
        for key, column in per_outcome.items():
            p = _combine(left.numerators, column, variables)
            q = _combine(right.numerators, column, variables)
            if not p.is_zero() or not q.is_zero():
                outcomes.append(Outcome(labels[key], key, p, q))
        tables.append(
            Table(
                comparison,
                left.denominator,
                right.denominator,
                shared,
                _conditions(comparison, variables),
                tuple(outcomes),
            )
        )
    return tables


def _combine(
    weights: Mapping[Hashable, Polynomial],
    row: Mapping[Hashable, Fraction | Polynomial],
    variables: tuple[str, ...],
) -> Polynomial:
    total = Polynomial.constant(variables, 0)
    for x, weight in weights.items():
        value = row.get(x)
        if value is None:
            continue
        if isinstance(value, Fraction):
            total = total.add_scaled(weight, value)
        else:
            total = total + weight * value
    return total
