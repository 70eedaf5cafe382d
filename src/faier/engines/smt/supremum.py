"""ε* over a parameter domain: its supremum, to a requested precision, and whether attained.

sup_θ max_ω Pr(ω|π_θ)/Pr(ω|τ_θ) is approached outcome by outcome.  A lower
bound is always an exact ratio at a point of the domain (a sat model,
rechecked), an upper bound always an unsat proof.  An outcome that cannot
beat the best lower bound so far costs one query; the others are bisected
(after doubling to find an upper bound) until ln(hi/lo) ≤ precision.  Then
the simplest rational r in [lo, hi] is tried as the exact supremum: sup ≤ r
by unsat, and sup ≥ r by a rational point on the closure of the domain where
the (cancelled, continuous) ratio is ≥ r.  Such a point outside the domain
with no point inside reaching r means the supremum is a limit, not attained.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from faier.engines.smt import smtlib
from faier.engines.smt.bernstein import negative_inside, nonpositive, strict_sign
from faier.engines.smt.encode import (
    nonzero,
    positive_polynomial,
    space_assertions,
    violation_polynomial,
    violation_query,
)
from faier.engines.smt.fast import FastSearch, Found
from faier.engines.smt.smtlib import Query
from faier.engines.smt.solvers import ModelValue
from faier.engines.smt.tables import Outcome, Table
from faier.engines.smt.witness import Checked, candidates, describe, evaluate
from faier.model.parameters import Interval
from faier.results import ParameterValue

MAX_DOUBLINGS = 64
SNAP = Fraction(1, 64)
"""How far a coordinate may move when rounding a near-optimal point to the boundary."""
MAX_ROUNDED = 64
ATTAINMENT_LIMIT = 5.0
"""Seconds for a solver to decide attainment (after Bernstein bounds were inconclusive)."""
MAX_GUESSES = 3
MAX_FALLBACK_DOUBLINGS = 24
"""Doublings tried for an upper bound by Bernstein bounds alone (up to 2^24 · lower)."""
"""Boundary candidates tried per outcome before plain bisection."""
MAX_SAMPLES = 2000
"""Points of the domain whose exact losses seed the lower bound."""


def simplest_between(low: Fraction, high: Fraction) -> Fraction:
    """The rational of smallest denominator in [low, high] (Stern–Brocot), low ≤ high."""
    ceiling = math.ceil(low)
    if ceiling <= high:
        return Fraction(ceiling)
    whole = math.floor(low)
    return whole + 1 / simplest_between(1 / (high - whole), 1 / (low - whole))


def _ratio(checked: Checked) -> Fraction | None:
    return None if checked.q == 0 else checked.p / checked.q


@dataclass
class Supremum:
    """What the search established about sup ε*: bounds, exact value, attainment."""

    lower: Fraction | None = None
    found: Found | None = None
    upper: Fraction | None = None
    infinite: bool = False
    exact: Fraction | None = None
    attained: bool | None = None
    limit: tuple[ParameterValue, ...] = ()
    reason: str = ""
    bounds: dict[int, Fraction] = field(default_factory=dict)
    bernstein: int = 0
    """Upper bounds proved by Bernstein bounds instead of a solver's unsat."""


class SupremumSearch:
    """Bisection on e^ε with exact lower bounds and solver upper bounds."""

    def __init__(self, fast: FastSearch, precision: Fraction) -> None:
        self.fast = fast
        self.precision = float(precision)
        self.result = Supremum()
        self._tried: dict[int, set[Fraction]] = {}

    def _raise(self, decision_found: Found) -> None:
        ratio = _ratio(decision_found.checked)
        result = self.result
        if ratio is None:
            result.infinite = True
            result.found = decision_found
            return
        if result.lower is None or ratio > result.lower:
            result.lower, result.found = ratio, decision_found

    def _exceeds(self, table: Table, outcome: Outcome, ratio: Fraction) -> str:
        space = self.fast.question.space
        if space.parameters:  # the domain lies in its box, constraints or not
            poly = violation_polynomial(table, outcome, ratio, self.fast.signs)
            if nonpositive(poly, [p.domain for p in space.parameters]):
                self.result.bernstein += 1
                return "unsat"
        decision = self.fast.exceeds(table, outcome, ratio, lambda checked: True)
        if decision.status == "sat":
            assert decision.found is not None
            self._raise(decision.found)
        elif decision.status == "unknown":
            self.result.reason = self.result.reason or decision.reason
        return decision.status

    def _start(self) -> bool:
        """A first lower bound: every outcome's exact ratio at one feasible point."""
        space = self.fast.question.space
        for table in self.fast.tables:
            status, model, _ = self.fast.feasible(table)
            if status != "sat":
                continue
            for point in candidates(model, space):
                for outcome in table.outcomes:
                    checked = evaluate(self.fast.question, table, outcome, point)
                    if checked is not None and checked.p > 0:
                        self._raise(Found(table, outcome, checked, describe(point, model, space)))
                if self.result.lower is not None or self.result.infinite:
                    return True
        self.result.reason = self.result.reason or "no comparison is defined anywhere in the domain"
        return False

    def _infinite(self, table: Table, outcome: Outcome, *, closure: bool = False) -> bool:
        """Can Pr(ω|τ) be 0 while Pr(ω|π) > 0?  Then ε* = ∞: at that point of the
        domain, or (``closure``) as a limit at a point of the closed domain."""
        space = self.fast.question.space
        p, q = positive_polynomial(table, outcome, self.fast.signs)
        if (q.is_constant() and q.constant_value() != 0) or (closure and space.constraints):
            return False
        if not space.variables:
            if closure or q.constant_value() != 0 or p.constant_value() <= 0:
                return False
            found = self.fast.confirm(table, outcome, {}, lambda c: c.q == 0 and c.p > 0).found
            if found is not None:
                self._raise(found)
            return found is not None
        domains = [
            Interval(d.lower, d.upper, False, False) if closure else d
            for d in (parameter.domain for parameter in space.parameters)
        ]
        if strict_sign(q, domains) is not None:  # Pr(ω|τ) never 0 on the (closed) domain
            return False
        conditions = (
            [nonzero(d) for d in (table.left, table.right, table.shared) if not d.is_constant()]
            if closure
            else [nonzero(c) for c in table.conditions]
        )
        assertions = [
            *space_assertions(space, closure=closure),
            *conditions,
            f"(= {smtlib.polynomial(q)} 0)",
            f"(> {smtlib.polynomial(p)} 0)",
        ]
        query = Query(
            "infinite",
            "QF_NRA",
            self.fast.question.variables,
            tuple(assertions),
            (f"can {' '.join(outcome.label)} be impossible on the right only?",),
        )
        answer = self.fast.session.ask(query)
        if answer.status != "sat":
            return False
        if closure:
            return self._infinite_limit(table, outcome, answer.model)
        decision = self.fast.confirm(table, outcome, answer.model, lambda c: c.q == 0 and c.p > 0)
        if decision.found is not None:
            self._raise(decision.found)
            return True
        return False

    def _infinite_limit(
        self, table: Table, outcome: Outcome, model: Mapping[str, ModelValue]
    ) -> bool:
        """Check a closure point exactly: Pr(ω|τ) = 0 < Pr(ω|π) there, so the ratio → ∞."""
        space = self.fast.question.space
        for point in candidates(model, space):
            inside = all(
                p.domain.lower <= point[p.name] <= p.domain.upper for p in space.parameters
            )
            denominators = (table.left, table.right, table.shared)
            if not inside or any(d.evaluate(point) == 0 for d in denominators):
                continue
            p, q = table.probabilities(outcome, point)
            if q == 0 and p > 0:
                self.result.infinite = True
                self.result.attained = False
                self.result.limit = describe(point, model, space)
                return True
        return False

    def _boundary_guess(self, high: Fraction | None, tried: set[Fraction]) -> Fraction | None:
        """The largest ratio at the best point rounded onto the boundary, if it could be
        the supremum: suprema often sit where a parameter reaches an end of its domain,
        and one unsat query then proves it exactly, without bisecting to precision.
        Only a few are tried per outcome, each clearly above the lower bound, so that
        creeping sat answers cannot stall the search."""
        result = self.result
        if result.found is None or result.lower is None or self.fast.question.space.constraints:
            return None
        if len(tried) >= MAX_GUESSES:
            return None
        floor = result.lower * Fraction(math.exp(self.precision / 2))
        ratios = [
            r
            for _, r in self._rounded(result.found.checked.point)
            if floor < r and (high is None or r < high) and r not in tried
        ]
        return max(ratios, default=None)

    def run(self) -> Supremum:
        """Both bounds as soon as possible, then narrowed until the precision or the timeout.

        A sampled lower bound (points of the domain and points approaching its
        ends) comes first, so that the solver is only asked about values that
        make progress; then each outcome gets an upper bound (unsat), and the
        outcome holding the largest bound is bisected in turn.  A timeout
        keeps both bounds found so far.
        """
        result = self.result
        items = list(self.fast.outcomes())
        for table, outcome in items:
            if self._infinite(table, outcome):
                result.attained = True
                return result
        if not self._start():
            return result
        if result.infinite:
            result.attained = True
            return result
        self._explore(items)
        for key, (table, outcome) in enumerate(items):
            if self._stopped() or not self._bound(key, table, outcome):
                self._fallback(items)
                return result
            if result.infinite:
                if result.attained is None:
                    result.attained = True
                return result
        self._update_upper()
        while not self._close_enough():
            if self._stopped():
                return result
            key = max(result.bounds, key=lambda k: result.bounds[k])
            table, outcome = items[key]
            if not self._narrow(key, table, outcome):
                return result
            self._update_upper()
        self._snap(items)
        return result

    def _stopped(self) -> bool:
        if not self.fast.session.out_of_time():
            return False
        timeout = self.fast.session.options.timeout
        self.result.reason = self.result.reason or f"timeout of {timeout:g} s reached"
        return True

    def _update_upper(self) -> None:
        result = self.result
        assert result.lower is not None
        result.upper = max([result.lower, *result.bounds.values()])

    def _close_enough(self) -> bool:
        result = self.result
        assert result.lower is not None and result.upper is not None
        return result.lower >= result.upper or math.log(result.upper / result.lower) <= (
            self.precision
        )

    def _above(self, ratio: Fraction) -> Fraction:
        """A simple rational a little above ``ratio`` (within an eighth of the precision):
        solver queries about simple numbers are much cheaper than about exact ratios at
        points with long denominators."""
        return simplest_between(ratio, ratio * Fraction(math.exp(self.precision / 8)))

    def _explore(self, items: list[tuple[Table, Outcome]]) -> None:
        """Raise the lower bound from a sample of points, many of them close to the domain's
        ends (suprema of Pufferfish losses usually sit there, as a parameter → 0 or 1)."""
        space = self.fast.question.space
        axes = []
        size = len(space.parameters)
        depths = (2, 5, 10, 20, 40) if size <= 2 else (3, 12, 30) if size <= 3 else (4, 30)
        for parameter in space.parameters:
            low, high = parameter.domain.lower, parameter.domain.upper
            width = high - low
            values = {low + width * Fraction(k, 4) for k in (1, 2, 3)}
            for depth in depths:
                values.update((low + width / 2**depth, high - width / 2**depth))
            values.update(
                end
                for end, is_open in (
                    (low, parameter.domain.lower_open),
                    (high, parameter.domain.upper_open),
                )
                if not is_open
            )
            axes.append(sorted(values))
        best: tuple[Fraction, int, dict[str, Fraction]] | None = None
        if math.prod(len(axis) for axis in axes) <= MAX_SAMPLES:
            points: Iterable[tuple[Fraction, ...]] = itertools.product(*axes)
        else:  # a seeded sample, so that no axis is stuck at its first values
            chooser = random.Random(len(axes))
            points = [tuple(chooser.choice(axis) for axis in axes) for _ in range(MAX_SAMPLES)]
        for combination in points:
            point = {p.name: v for p, v in zip(space.parameters, combination, strict=True)}
            if not space.contains(point):
                continue
            for key, (table, outcome) in enumerate(items):
                if not table.conditions_hold(point):
                    continue
                p, q = table.probabilities(outcome, point)
                if q > 0 and (best is None or p / q > best[0]):
                    best = (p / q, key, point)
        if best is None or (self.result.lower is not None and best[0] <= self.result.lower):
            return
        table, outcome = items[best[1]]
        checked = evaluate(self.fast.question, table, outcome, best[2])
        if checked is not None:
            self._raise(Found(table, outcome, checked, describe(best[2], {}, space)))

    def _bound(self, key: int, table: Table, outcome: Outcome) -> bool:
        """An upper bound (unsat) for one outcome; False on a solver failure."""
        result = self.result
        assert result.lower is not None
        status = self._exceeds(table, outcome, self._above(result.lower))
        if status == "unsat":
            result.bounds[key] = self._above(result.lower)
            return True
        if status != "sat" or result.infinite:
            return status == "sat"
        if self._infinite(table, outcome, closure=True):
            return True
        tried: set[Fraction] = set()
        guess = self._boundary_guess(None, tried)
        if guess is not None:
            tried.add(guess)
            status = self._exceeds(table, outcome, guess)
            if status == "unsat":
                result.bounds[key] = guess
                return True
            if status != "sat":
                return False
        for _ in range(MAX_DOUBLINGS):
            assert result.lower is not None
            candidate = self._above(result.lower * 2 if result.lower > 0 else Fraction(1))
            status = self._exceeds(table, outcome, candidate)
            if status == "unsat":
                result.bounds[key] = candidate
                return True
            if status != "sat" or result.infinite:
                return status == "sat"
        result.reason = result.reason or "no upper bound found: the loss may be unbounded"
        return False

    def _fallback(self, items: list[tuple[Table, Outcome]]) -> None:
        """Upper bounds without a solver for the outcomes still unbounded when the time ran
        out or a solver gave up: doubling from the lower bound until Bernstein bounds on
        the domain box prove it, so that a stopped search still reports both bounds."""
        result = self.result
        space = self.fast.question.space
        if result.lower is None or result.infinite or not space.parameters:
            return
        box = [p.domain for p in space.parameters]
        for key, (table, outcome) in enumerate(items):
            if key in result.bounds:
                continue
            candidate = self._above(max(result.lower, Fraction(1)))
            for _ in range(MAX_FALLBACK_DOUBLINGS):
                poly = violation_polynomial(table, outcome, candidate, self.fast.signs)
                if nonpositive(poly, box):
                    result.bounds[key] = candidate
                    result.bernstein += 1
                    break
                candidate = self._above(candidate * 2)
            else:
                return
        self._update_upper()

    def _narrow(self, key: int, table: Table, outcome: Outcome) -> bool:
        """One step for the outcome with the largest bound: a boundary candidate, or the
        middle third of [lower, bound] in simple rationals; False on a solver failure."""
        result = self.result
        assert result.lower is not None
        high = result.bounds[key]
        guess = self._boundary_guess(high, self._tried.setdefault(key, set()))
        if guess is not None:
            self._tried[key].add(guess)
        else:
            low = result.lower
            guess = simplest_between(low + (high - low) / 3, high - (high - low) / 3)
        status = self._exceeds(table, outcome, guess)
        if status == "unsat":
            result.bounds[key] = guess
        return status in ("sat", "unsat")

    def _closure_point(
        self, guess: Fraction
    ) -> tuple[dict[str, Fraction], Fraction, tuple[ParameterValue, ...]] | None:
        """A rational point of the closed domain where the best outcome's ratio is ≥ guess."""
        best = self.result.found
        assert best is not None
        query = violation_query(
            best.table, best.outcome, guess, self.fast.signs, strict=False, closure=True
        )
        answer = self.fast.session.ask(query)
        if answer.status != "sat":
            return None
        for point in candidates(answer.model, self.fast.question.space):
            denominators = (best.table.left, best.table.right, best.table.shared)
            if any(p.evaluate(point) == 0 for p in denominators):
                continue
            p, q = best.table.probabilities(best.outcome, point)
            if q > 0 and p / q >= guess:
                return point, p / q, describe(point, answer.model, self.fast.question.space)
        return None

    def _bounded_by(self, items: list[tuple[Table, Outcome]], guess: Fraction) -> bool:
        """sup ≤ guess: no outcome exceeds it anywhere in the domain (unsat each)."""
        for key, (table, outcome) in enumerate(items):
            if self.result.bounds.get(key, guess) <= guess:
                continue
            if self._exceeds(table, outcome, guess) != "unsat":
                return False
            self.result.bounds[key] = guess
        return True

    def _snap(self, items: list[tuple[Table, Outcome]]) -> None:
        """Find the exact supremum: a closure point's ratio, or the simplest rational in range.

        A candidate r is the supremum when nothing exceeds it (unsat) and a point
        of the closed domain has ratio ≥ r (the cancelled ratio is continuous
        there, so points of the domain come arbitrarily close).  Limits need the
        closure of the domain to be the closed box: only without constraints.
        """
        result = self.result
        assert result.lower is not None and result.upper is not None
        if result.lower == result.upper:
            result.exact, result.attained = result.lower, True
            return
        if self.fast.question.space.constraints:
            return
        closure = self._closure_point(result.lower)
        points: list[dict[str, Fraction]] = [closure[0]] if closure is not None else []
        assert result.found is not None
        points.append(result.found.checked.point)
        guesses: dict[Fraction, dict[str, Fraction] | None] = {}
        for point in points:
            for rounded, ratio in self._rounded(point):
                if result.lower <= ratio <= result.upper and ratio not in guesses:
                    guesses[ratio] = rounded
        ordered: list[tuple[Fraction, dict[str, Fraction] | None]] = []
        if guesses:
            ordered.append(max(guesses.items()))
        simplest = simplest_between(result.lower, result.upper)
        if simplest not in guesses:
            ordered.append((simplest, None))
        for guess, where in ordered:
            if not self._bounded_by(items, guess):
                continue
            result.upper = guess
            if guess == result.lower:
                result.exact, result.attained = guess, True
                return
            space = self.fast.question.space
            limit = (
                (where, guess, describe(where, {}, space))
                if where is not None
                else self._closure_point(guess)
            )
            if limit is None:
                return
            result.exact, result.limit = guess, limit[2]
            self._attainment(items, guess)
            if result.attained is False:
                self._approach(limit[0], guess)
            return

    def _approach(self, limit: dict[str, Fraction], supremum: Fraction) -> None:
        """A point of the domain within the precision of a supremum that is only a limit:
        step from the limit point into the domain until the exact ratio is close enough."""
        result = self.result
        best = result.found
        assert best is not None
        space = self.fast.question.space
        target = supremum * Fraction(math.exp(-self.precision))
        step = Fraction(1, 16)
        while step > Fraction(1, 2**64):
            point = {}
            for p in space.parameters:
                x, width = limit[p.name], p.domain.upper - p.domain.lower
                if x == p.domain.lower:
                    x += step * width
                elif x == p.domain.upper:
                    x -= step * width
                point[p.name] = x
            checked = evaluate(self.fast.question, best.table, best.outcome, point)
            ratio = _ratio(checked) if checked is not None else None
            if checked is not None and ratio is not None and ratio >= target:
                if result.lower is None or ratio > result.lower:
                    result.lower = ratio
                    result.found = Found(
                        best.table, best.outcome, checked, describe(point, {}, space)
                    )
                return
            step /= 16

    def _rounded(self, point: dict[str, Fraction]) -> list[tuple[dict[str, Fraction], Fraction]]:
        """The best outcome's ratio at the point with coordinates snapped to nearby
        domain ends or simple rationals (suprema often sit on the boundary)."""
        best = self.result.found
        assert best is not None
        parameters = self.fast.question.space.parameters
        options = []
        for parameter in parameters:
            x = point[parameter.name]
            low, high = parameter.domain.lower, parameter.domain.upper
            near = {x, simplest_between(x - SNAP, x + SNAP)}
            near.update(end for end in (low, high) if abs(x - end) <= SNAP)
            options.append(sorted(v for v in near if low <= v <= high))
        out = []
        denominators = (best.table.left, best.table.right, best.table.shared)
        for combination in itertools.islice(itertools.product(*options), MAX_ROUNDED):
            rounded = {p.name: v for p, v in zip(parameters, combination, strict=True)}
            if any(d.evaluate(rounded) == 0 for d in denominators):
                continue
            p_left, q_right = best.table.probabilities(best.outcome, rounded)
            if q_right > 0:
                out.append((rounded, p_left / q_right))
        return out

    def _attainment(self, items: list[tuple[Table, Outcome]], guess: Fraction) -> None:
        """Is the supremum reached inside the domain?  No point anywhere: a limit.

        Per outcome, Bernstein coefficients first (a proof without a solver that
        the ratio stays below ``guess`` inside a box domain), then the solver,
        whose query here is the hardest of the search, with a short limit: an
        unanswered query leaves attainment open instead of spending the budget.
        """
        result = self.result
        space = self.fast.question.space
        domains = [p.domain for p in space.parameters]
        # Bernstein bounds prove negativity in the open box: enough when no domain end
        # is closed (constraints only shrink the domain inside it)
        all_open = all(d.lower_open and d.upper_open for d in domains)
        for table, outcome in items:
            poly = violation_polynomial(table, outcome, guess, self.fast.signs)
            if all_open and negative_inside(poly, domains):
                continue
            query = violation_query(table, outcome, guess, self.fast.signs, strict=False)
            answer = self.fast.session.ask(query, limit=ATTAINMENT_LIMIT)
            if answer.status == "unsat":
                continue
            if answer.status != "sat":
                return
            decision = self.fast.confirm(table, outcome, answer.model, lambda c: _ratio(c) == guess)
            if decision.found is not None:
                result.attained = True
                result.lower, result.found = guess, decision.found
            return
        result.attained = False
