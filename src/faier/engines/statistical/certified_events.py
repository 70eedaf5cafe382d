"""A tester's candidate on a program with continuous noise, certified: Pr[M(x) ∈ E] enclosed.

The tester's event E is a conjunction of conditions on features of the
output (``events.py``): counts, lengths and Hamming distances of categories,
and intervals on a released number, its list position, the average, the
minimum or the maximum of the numbers.  The certified engine's symbolic
execution (``engines/certified/symbolic.py``) gives every path of the
program on x with its branch constraints and its output, where each noisy
number is an affine expression in the noise.  On one path a categorical
condition is simply true or false; an interval on a noisy number L becomes
two more constraints ``L ≥ low`` and ``high − L ≥ 0`` (boundaries have
probability zero); the minimum and maximum split into differences of
conjunctions (``[low ≤ min < high] = [min ≥ low] − [min ≥ high]`` and
``[min ≥ a] = ∧ᵢ [Lᵢ ≥ a]``).  Pr[path ∧ E] is then the probability of a
path with more constraints, which the certified engine integrates in closed
form (:func:`faier.engines.certified.integrate.probability`): for Laplace
and exponential noise an exact ``Σ qᵢ·e^{rᵢ}``, for a released number the
integral of its exact piecewise density over the interval.

Distributions without a closed form supply *enclosures* instead: a function
registered with :func:`register_path_enclosure` maps (noise, constraints,
bits) to an arb ball that contains the path's probability.  Nothing else
needs to change for a new distribution: sums, signs and verdicts work on
balls with rising precision, and a candidate whose balls overlap e^ε·q after
the largest precision is "unknown", never real or spurious.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.engines.certified import balls
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.integrate import Unsupported, probability
from faier.engines.certified.symbolic import Constraint, Output, Path, paths
from faier.engines.statistical.events import (
    AVG,
    COUNT,
    HAMMING,
    LENGTH,
    MAX,
    MIN,
    VALUE,
    Condition,
    Event,
)
from faier.errors import InternalError
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.handlers import guarded
from faier.mechanisms.program import Program
from faier.model.rational import exact_fraction
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.results import Enclosure

PathEnclosure = Callable[[Sequence[Continuous], Sequence[Constraint], int], Any]
"""(noise, constraints, bits) → an arb ball containing Pr[every constraint holds], or None."""

_ENCLOSURES: list[PathEnclosure] = []


def register_path_enclosure(enclose: PathEnclosure) -> None:
    """Let a distribution without closed forms take part: its paths get enclosed, not solved."""
    if enclose not in _ENCLOSURES:
        _ENCLOSURES.append(enclose)


Terms = list[tuple[int, tuple[Constraint, ...]]]
"""A path's share of an event as a signed sum of conjunctions of extra constraints."""
ALWAYS: Terms = [(1, ())]
NEVER: Terms = []


@dataclass(frozen=True)
class Measure:
    """A probability: an exact closed form plus paths that only have enclosures.

    ``closed`` sums the terms with closed forms; each entry of ``enclosed`` is
    (coefficient, noise, constraints) of a path probability that a registered
    :data:`PathEnclosure` encloses at any working precision.
    """

    closed: ExpSum
    enclosed: tuple[tuple[Fraction, tuple[Continuous, ...], tuple[Constraint, ...]], ...] = ()
    balls_at: Callable[[int], Any] | None = None
    """A further term given only as a ball at a working precision (integer noise)."""

    @property
    def exact(self) -> ExpSum | None:
        """The closed form, when every path has one."""
        return self.closed if not self.enclosed and self.balls_at is None else None

    @property
    def is_zero(self) -> bool:
        return self.closed.is_zero and not self.enclosed and self.balls_at is None

    def ball(self, bits: int) -> Any:
        """An arb ball containing the probability, at ``bits`` of working precision."""
        with balls.precision(bits):
            total = balls.ball(self.closed)
            for coefficient, noise, constraints in self.enclosed:
                total += balls.ball(ExpSum.rational(coefficient)) * _enclose(
                    noise, constraints, bits
                )
            if self.balls_at is not None:
                total += self.balls_at(bits)
            return total

    def enclosure(self) -> Enclosure:
        """Certified float bounds (closed form shown where there is one)."""
        if self.exact is not None:
            return balls.enclose(self.exact)
        with balls.precision(balls.PRECISIONS[0]):
            low, high = balls.floats(self.ball(balls.PRECISIONS[0]))
        return Enclosure(max(low, 0.0), min(high, 1.0))

    def show(self) -> str:
        return self.enclosure().show()


def _enclose(noise: Sequence[Continuous], constraints: Sequence[Constraint], bits: int) -> Any:
    for enclose in _ENCLOSURES:
        found = enclose(noise, constraints, bits)
        if found is not None:
            return found
    raise Unsupported("a path has neither a closed form nor an enclosure")


def _enclosable(noise: Sequence[Continuous], constraints: Sequence[Constraint]) -> bool:
    try:
        return any(e(noise, constraints, balls.PRECISIONS[0]) is not None for e in _ENCLOSURES)
    except Unsupported:
        return False


def gaussian_path(noise: Sequence[Continuous], constraints: Sequence[Constraint], bits: int) -> Any:
    """A Gaussian path whose constraint graph is a forest of stars, enclosed by rigorous
    integration (``engines/certified/gaussian.py``: a centre's density times its leaves'
    normal CDF differences); None for other paths or where that module is absent."""
    if not any(d.kind == "gaussian" for d in noise):
        return None
    try:
        from faier.engines.certified import gaussian
    except ImportError:
        return None
    try:
        return gaussian.path_probability(noise, constraints, bits)
    except Unsupported:
        return None


register_path_enclosure(gaussian_path)


# ------------------------------------------------------------- events on one path


def _number(value: Any) -> Output | None:
    """A slot's number as an affine expression (a constant one without noise), else None."""
    if isinstance(value, Output):
        return value
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Fraction):
        return Output((), Fraction(value))
    try:  # gmpy2 rationals from the symbolic execution's arithmetic
        return Output((), exact_fraction(value))
    except (AttributeError, TypeError, ValueError):
        return None


def _slots(output: Hashable) -> tuple[list[Any], bool]:
    """The output's slots (numbers as :class:`Output`, categories as they are) and is-list."""
    if isinstance(output, tuple):
        return [(_number(v) or v) for v in output], True
    return [_number(output) or output], False


def _bound(x: float) -> Fraction:
    """An event bound read by its decimal text, as faier reads every float (0.3 is 3/10)."""
    return Fraction(repr(float(x)))


def _at_least(number: Output, a: float) -> bool | Constraint:
    """number ≥ a: a constraint on the noise, or decided when the number has none."""
    if not number.coefficients:
        return number.constant >= _bound(a)
    return Constraint(number.coefficients, number.constant - _bound(a))


def _below(number: Output, a: float) -> bool | Constraint:
    """number < a (equality has probability zero under continuous noise)."""
    if not number.coefficients:
        return number.constant < _bound(a)
    return Constraint(tuple((v, -c) for v, c in number.coefficients), _bound(a) - number.constant)


def _all(atoms: Sequence[bool | Constraint]) -> Terms:
    if any(a is False for a in atoms):
        return NEVER
    return [(1, tuple(a for a in atoms if isinstance(a, Constraint)))]


def _minus(a: Terms, b: Terms) -> Terms:
    return [*a, *((-s, c) for s, c in b)]


def _and(a: Terms, b: Terms) -> Terms:
    return [(s * t, (*c, *d)) for s, c in a for t, d in b]


def _interval(number: Output, condition: Condition) -> Terms:
    """low ≤ number < high (or number = low) for one affine number."""
    if condition.equals:
        if number.coefficients:
            return NEVER  # a continuous number takes one value with probability zero
        return ALWAYS if number.constant == _bound(condition.low) else NEVER
    atoms: list[bool | Constraint] = []
    if not math.isinf(condition.low):
        atoms.append(_at_least(number, condition.low))
    if not math.isinf(condition.high):
        atoms.append(_below(number, condition.high))
    return _all(atoms)


def _extreme(numbers: Sequence[Output], condition: Condition, kind: str) -> Terms:
    """low ≤ min(numbers) < high (or max) as a signed sum of conjunctions."""
    if condition.equals:
        if all(not n.coefficients for n in numbers):
            pick = min if kind == MIN else max
            value = _bound(condition.low)
            return ALWAYS if pick(n.constant for n in numbers) == value else NEVER
        if any(not n.coefficients and n.constant == _bound(condition.low) for n in numbers):
            raise Unsupported(
                f"an equality event on the {kind} of noisy and fixed numbers has no closed form"
            )
        return NEVER
    low, high = condition.low, condition.high
    if kind == MIN:

        def at_least(a: float) -> Terms:  # [min ≥ a]
            if a == -math.inf:
                return ALWAYS
            if a == math.inf:
                return NEVER
            return _all([_at_least(n, a) for n in numbers])

        return _minus(at_least(low), at_least(high))

    def below(a: float) -> Terms:  # [max < a]
        if a == math.inf:
            return ALWAYS
        if a == -math.inf:
            return NEVER
        return _all([_below(n, a) for n in numbers])

    return _minus(below(high), below(low))


def _average(numbers: Sequence[Output]) -> Output:
    acc: dict[int, Fraction] = {}
    constant = Fraction(0)
    for n in numbers:
        constant += n.constant
        for v, c in n.coefficients:
            acc[v] = acc.get(v, Fraction(0)) + c
    k = len(numbers)
    return Output(tuple(sorted((v, c / k) for v, c in acc.items() if c)), constant / k)


def _same_category(a: Any, b: Any) -> bool:
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _same_number(mine: Output, theirs: Any) -> bool:
    """A slot's number equals a reference number (a noisy one almost surely does not)."""
    if not isinstance(theirs, int | float) or isinstance(theirs, bool) or mine.coefficients:
        return False
    return float(mine.constant) == float(theirs)


def _hamming(slots: Sequence[Any], reference: tuple[Any, ...]) -> float:
    """Positions where the output differs from the reference (a noisy number always does)."""
    width = max(len(slots), len(reference))
    differ = 0
    for j in range(width):
        mine = slots[j] if j < len(slots) else None
        theirs = reference[j] if j < len(reference) else None
        their_number = isinstance(theirs, int | float) and not isinstance(theirs, bool)
        if isinstance(mine, Output):
            differ += not _same_number(mine, theirs)
        elif mine is None or theirs is None:
            differ += (mine is None) != (theirs is None)
        elif their_number or not _same_category(mine, theirs):
            differ += 1
    return float(differ)


def _categorical(value: float, condition: Condition) -> Terms:
    if condition.equals:
        return ALWAYS if value == condition.low else NEVER
    return ALWAYS if condition.low <= value < condition.high else NEVER


def condition_terms(output: Hashable, condition: Condition) -> Terms:
    """One condition of an event on one path's output."""
    slots, is_list = _slots(output)
    feature = condition.feature
    numbers = [s for s in slots if isinstance(s, Output)]
    if feature.kind == COUNT:
        count = sum(
            1 for s in slots if not isinstance(s, Output) and _same_category(s, feature.category)
        )
        return _categorical(float(count), condition)
    if feature.kind == LENGTH:
        return _categorical(float(len(slots) if is_list else 1), condition)
    if feature.kind == HAMMING:
        assert feature.reference is not None
        return _categorical(_hamming(slots, feature.reference.value), condition)
    if feature.kind == VALUE:
        if feature.index >= len(slots) or not isinstance(slots[feature.index], Output):
            return NEVER  # no number there: the feature is undefined, the event misses
        return _interval(slots[feature.index], condition)
    if not numbers:
        return NEVER
    if feature.kind == AVG:
        return _interval(_average(numbers), condition)
    if feature.kind in (MIN, MAX):
        return _extreme(numbers, condition, feature.kind)
    raise Unsupported(f"the feature {feature.describe()} has no certified form")


def event_terms(output: Hashable, event: Event) -> Terms:
    """The whole event (a conjunction of conditions) on one path's output."""
    terms = ALWAYS
    for condition in event.conditions:
        terms = _and(terms, condition_terms(output, condition))
        if not terms:
            return NEVER
    return terms


# ------------------------------------------------------------- probabilities


class EventMeasurer:
    """Pr[M(x) ∈ E] for one program, its paths per input and path integrals memoised."""

    def __init__(self, mechanism: Program[Any]) -> None:
        self.mechanism = mechanism
        self.paths: dict[Hashable, list[Path]] = {}
        self.memo: dict[tuple[tuple[Continuous, ...], tuple[Constraint, ...]], ExpSum | None] = {}
        self.integrals = 0

    def runs(self, x: Hashable) -> list[Path]:
        found = self.paths.get(x)
        if found is None:
            body = self.mechanism.body
            found = guarded(self.mechanism.name, lambda: list(paths(lambda ctx: body(x, ctx))))
            self.paths[x] = found
            if not _integer_noise(found):
                self._check_total(x, found)
        return found

    def _path(self, noise: tuple[Continuous, ...], constraints: tuple[Constraint, ...]) -> Any:
        """The closed form of one path probability, None when only an enclosure exists."""
        key = (noise, constraints)
        if key in self.memo:
            return self.memo[key]
        self.integrals += 1
        try:
            value: ExpSum | None = probability(noise, constraints)
        except Unsupported:
            if not _enclosable(noise, constraints):
                raise
            value = None
        self.memo[key] = value
        return value

    def _check_total(self, x: Hashable, found: list[Path]) -> None:
        """The paths' probabilities sum to exactly 1 (where every path has a closed form)."""
        total = ExpSum(())
        for path in found:
            value = self._path(path.noise, path.constraints)
            if value is None:
                return
            total = total + value.scaled(path.weight)
        if total != ExpSum.rational(1):
            raise InternalError(
                f"the paths of {self.mechanism.name} on {show_input(x)} have total probability "
                f"{total.show()}, not 1"
            )

    def measure(self, x: Hashable, event: Event) -> Measure:
        """Pr[M(x) ∈ E] as an exact closed form, or with enclosed paths."""
        if _integer_noise(self.runs(x)):
            return Measure(ExpSum(()), (), _LatticeEvent(self.mechanism, x, event))
        closed = ExpSum(())
        enclosed = []
        for path in self.runs(x):
            for sign, extra in event_terms(path.output, event):
                constraints = (*path.constraints, *extra)
                coefficient = path.weight * sign
                value = self._path(path.noise, constraints)
                if value is None:
                    enclosed.append((coefficient, path.noise, constraints))
                elif not value.is_zero:
                    closed = closed + value.scaled(coefficient)
        return Measure(closed, tuple(enclosed))


def _integer_noise(found: Sequence[Path]) -> bool:
    """Whether a path draws integer noise (discrete Laplace/Gaussian): ties have mass there,
    so its paths are followed by the lattice execution instead."""
    from faier.mechanisms.discrete_noise import DiscreteNoise

    return any(isinstance(d, DiscreteNoise) for path in found for d in path.noise)


class _LatticeEvent:
    """Pr[M(x) ∈ E] for a program drawing integer noise: the certified engine's window of
    integer values with symbolic tails (``engines/certified/lattice_paths.py``), each path
    a ball; paths it cannot follow add [0, their mass].  The window widens while such mass
    remains and the paths stay affordable."""

    def __init__(self, mechanism: Program[Any], x: Hashable, event: Event) -> None:
        self.mechanism, self.x, self.event = mechanism, x, event
        self.cache: dict[int, Any] = {}

    def __call__(self, bits: int) -> Any:
        if bits not in self.cache:
            self.cache[bits] = self._ball(bits)
        return self.cache[bits]

    def _ball(self, bits: int) -> Any:
        import flint

        from faier.engines.certified import discrete_window
        from faier.engines.certified.lattice_paths import lattice_paths
        from faier.errors import BudgetExceeded

        body, x = self.mechanism.body, self.x
        best: Any = None
        for width in discrete_window.WIDTHS:
            try:
                found = guarded(
                    self.mechanism.name,
                    lambda width=width: lattice_paths(
                        lambda ctx: body(x, ctx), width, bits, max_paths=discrete_window.MAX_PATHS
                    ),
                )
            except BudgetExceeded:
                break
            with balls.precision(bits):
                inside, lost = flint.arb(0), flint.arb(0)
                for path in found:
                    if path.output is None:
                        lost += path.probability
                    elif self._hit(path.output):
                        inside += path.probability
                best = inside + flint.arb(0).union(lost)
            if lost == 0:
                break
        if best is None:
            raise Unsupported("the integer noise's paths exceed the path budget")
        return best

    def _hit(self, output: Hashable) -> bool:
        terms = event_terms(output, self.event)
        if any(extra for _, extra in terms):
            raise Unsupported("an event on a continuous number beside integer noise")
        return sum(sign for sign, _ in terms) == 1


# ------------------------------------------------------------- the certified candidate


@dataclass(frozen=True)
class CertifiedEvent:
    """Both probabilities of a candidate's event as certified enclosures, and its loss."""

    p_measure: Measure
    q_measure: Measure

    @property
    def p(self) -> Enclosure:
        return self.p_measure.enclosure()

    @property
    def q(self) -> Enclosure:
        return self.q_measure.enclosure()

    @property
    def loss_enclosure(self) -> Enclosure:
        """ln(p/q) enclosed: ∞ when q is exactly 0 < p, −∞ when p is exactly 0."""
        if self.p_measure.is_zero:
            return Enclosure(-math.inf, -math.inf)
        if self.q_measure.is_zero:
            return Enclosure(math.inf, math.inf, "∞")
        for bits in balls.PRECISIONS:
            with balls.precision(bits):
                p, q = self.p_measure.ball(bits), self.q_measure.ball(bits)
                if p > 0 and q > 0:
                    return Enclosure(*balls.floats((p / q).log()))
        return Enclosure(-math.inf, math.inf)

    @property
    def lower(self) -> float:
        """The certified lower bound of the event's loss (−∞ when p is 0)."""
        return self.loss_enclosure.lower

    def exceeds(self, eps: Epsilon) -> bool | None:
        """p > e^ε·q, decided exactly or by balls with rising precision (None: undecided)."""
        if self.p_measure.is_zero:
            return False
        if self.q_measure.is_zero:
            return True
        p, q = self.p_measure.exact, self.q_measure.exact
        exact = None if p is None or q is None else (p, q)
        return balls.exceeds(eps, self.p_measure.ball, self.q_measure.ball, exact)

    def show_p(self) -> str:
        return _short(self.p)

    def show_q(self) -> str:
        return _short(self.q)

    def show_loss(self) -> str:
        loss = self.loss_enclosure
        if math.isinf(loss.lower) and math.isinf(loss.upper) and loss.lower == loss.upper:
            return "∞" if loss.lower > 0 else "-∞"
        return f"[{loss.lower:.6g}, {loss.upper:.6g}]"

    def to_json(self) -> dict[str, Any]:
        """As the exact rows (``p``, ``q``, ``loss``) plus the enclosures (fields added)."""
        p, q, loss = self.p, self.q, self.loss_enclosure
        return {
            "p": p.closed_form,
            "q": q.closed_form,
            "loss": {
                "ratio": None,
                "value": _json_float(loss.middle),
                "lower": _json_float(loss.lower),
                "upper": _json_float(loss.upper),
            },
            "p_enclosure": p.to_json(),
            "q_enclosure": q.to_json(),
            "certified": True,
        }


def _short(value: Enclosure) -> str:
    """A table cell: a short closed form and the enclosure's middle (JSON has both ends)."""
    middle = f"{value.middle:.10g}"
    form = value.closed_form
    if form is not None and len(form) <= 24:
        return form if form == middle else f"{form} ≈ {middle}"
    return f"≈ {middle}"


def _json_float(x: float) -> float | str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x
