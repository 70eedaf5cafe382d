"""Symbolic execution over integer noise: a window of values, two symbolic tails.

Each draw of discrete Laplace or Gaussian noise branches three ways: the
left tail k ≤ loc − W − 1, every value of the window [loc − W, loc + W] as a
plain int, and the right tail k ≥ loc + W + 1.  A tail draw returns a
:class:`Tail`, an affine expression in integer variables that each carry an
integer interval.  A comparison of one tail variable with a number refines
its interval exactly (``>`` and ``≥`` differ on the integers, and are kept
apart), so clamping, thresholds and ``abs`` are followed into the tails and
the tails' mass is computed, not dropped.  What cannot be followed — two tail
variables compared, a tail variable next to continuous noise, ``int()`` or
``%`` of it, a released tail number on an unbounded interval — makes the
path *unresolved*: its probability is only known to lie in [0, its mass],
and a path that stops with an error has an unknown output.  The window W
only matters for those; the engine widens it while they leave a decision
open.

Each path ends as an output and a certified enclosure of its probability
(:mod:`.lattice` for the integer masses, :mod:`.integrate` for any continuous
noise constrained on the path, both as arb balls).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from faier.engines.certified import balls, lattice
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.integrate import Unsupported, probability
from faier.engines.certified.lattice_joint import (
    bound_minus,
    joint_mass,
    propagate,
    tighter_high,
    tighter_low,
)
from faier.engines.certified.symbolic import (
    Linear,
    NotLinear,
    _Run,
    frozen_output,
    has_number,
)
from faier.errors import BudgetExceeded
from faier.mechanisms.decisions import advance
from faier.mechanisms.discrete_noise import DiscreteNoise
from faier.model.rational import exact_fraction

EXPAND = 256
"""A released tail number whose interval holds at most this many integers is listed."""


class Unresolved(Exception):
    """A tail value used in a way whose outcome is not followed (the reason is the message)."""


def _number(value: Any) -> Fraction:
    if isinstance(value, bool):
        raise Unresolved("a truth value used as a number next to integer noise")
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))
    if isinstance(value, Linear):
        raise Unresolved("integer noise in the tail combined with continuous noise")
    if type(value).__name__ == "mpq":
        return exact_fraction(value)
    raise Unresolved(f"integer noise combined with {type(value).__name__}")


class Tail:
    """c + Σ aᵢ·Kᵢ over tail variables Kᵢ (integers in intervals), exact coefficients."""

    __slots__ = ("coefficients", "constant", "run")

    def __init__(
        self, coefficients: tuple[tuple[int, Fraction], ...], constant: Fraction, run: LatticeRun
    ) -> None:
        self.coefficients = coefficients
        self.constant = constant
        self.run = run

    def _combine(self, other: Any, sign: int) -> Tail:
        if isinstance(other, Tail):
            acc = dict(self.coefficients)
            for var, a in other.coefficients:
                acc[var] = acc.get(var, Fraction(0)) + sign * a
            coefficients = tuple(sorted((v, a) for v, a in acc.items() if a))
            return Tail(coefficients, self.constant + sign * other.constant, self.run)
        return Tail(self.coefficients, self.constant + sign * _number(other), self.run)

    def __add__(self, other: Any) -> Tail:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Tail:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Tail:
        return (-self)._combine(other, 1)

    def __neg__(self) -> Tail:
        return self * -1

    def __pos__(self) -> Tail:
        return self

    def __mul__(self, other: Any) -> Tail:
        if isinstance(other, Tail):
            raise Unresolved("a product of two noisy integers")
        k = _number(other)
        coefficients = tuple((v, a * k) for v, a in self.coefficients if a * k)
        return Tail(coefficients, self.constant * k, self.run)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Tail:
        k = _number(other) if not isinstance(other, Tail) else None
        if not k:
            raise Unresolved("a division by a noisy integer or by zero")
        return self * (1 / k)

    def __abs__(self) -> Tail:
        return self if self >= 0 else -self

    def _unsupported(self, *_: Any) -> Any:
        raise Unresolved("integer noise in the tail divided into, rounded or raised to a power")

    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = _unsupported
    __rtruediv__ = __divmod__ = __rdivmod__ = _unsupported
    __round__ = __floor__ = __ceil__ = __trunc__ = _unsupported

    def __int__(self) -> int:
        raise Unresolved("integer noise in the tail converted to int")

    def __index__(self) -> int:
        raise Unresolved("integer noise in the tail used as an index")

    def __float__(self) -> float:
        raise Unresolved("integer noise in the tail converted to float")

    def __bool__(self) -> bool:
        raise Unresolved("integer noise in the tail used as a truth value")

    def _difference(self, other: Any) -> Tail:
        return self - other if not isinstance(other, Tail) else self._combine(other, -1)

    def __ge__(self, other: Any) -> bool:
        return self.run.compare(self._difference(other), strict=False)

    def __gt__(self, other: Any) -> bool:
        return self.run.compare(self._difference(other), strict=True)

    def __le__(self, other: Any) -> bool:
        return self.run.compare(-self._difference(other), strict=False)

    def __lt__(self, other: Any) -> bool:
        return self.run.compare(-self._difference(other), strict=True)

    def __eq__(self, other: object) -> bool:
        return self.run.equal(self._difference(other))

    def __ne__(self, other: object) -> bool:
        return not self.run.equal(self._difference(other))

    def __hash__(self) -> int:
        return hash((self.coefficients, self.constant))

    def __repr__(self) -> str:
        parts = [f"{a}·K{v}" for v, a in self.coefficients]
        return " + ".join([*parts, str(self.constant)])


@dataclass
class TailVariable:
    """A tail draw: its distribution and the integer interval the path has confined it to."""

    dist: DiscreteNoise
    low: int | None
    high: int | None


@dataclass
class LatticeRun(_Run):
    """One replay: the continuous engine's run plus integer noise (window values, tails)."""

    width: int = 0
    points: list[tuple[DiscreteNoise, int]] = field(default_factory=list)
    tails: list[TailVariable] = field(default_factory=list)
    unresolved: str | None = None
    edges: dict[tuple[int, int], list[int | None]] = field(default_factory=dict)
    """(i, j), i < j: bounds [low, high] on K_i − K_j (:mod:`.lattice_joint`)."""
    components: dict[int, int] = field(default_factory=dict)
    """Tail variable → a representative of its tree of edges (to refuse cycles)."""

    def draw(self, dist: Any) -> Any:
        if not isinstance(dist, DiscreteNoise):
            return super().draw(dist)
        loc = int(dist.loc)
        choice = self.choose(2 * self.width + 3)
        if choice == 0:
            return self._tail(TailVariable(dist, None, loc - self.width - 1))
        if choice == 2 * self.width + 2:
            return self._tail(TailVariable(dist, loc + self.width + 1, None))
        value = loc - self.width + choice - 1
        self.points.append((dist, value))
        return value

    def _tail(self, variable: TailVariable) -> Tail:
        self.tails.append(variable)
        return Tail(((len(self.tails) - 1, Fraction(1)),), Fraction(0), self)

    def _fixed(self, difference: Tail) -> Tail:
        """The difference with every variable pinned to one value replaced by it."""
        kept, constant = [], difference.constant
        for var, a in difference.coefficients:
            variable = self.tails[var]
            if variable.low is not None and variable.low == variable.high:
                constant += a * variable.low
            else:
                kept.append((var, a))
        return Tail(tuple(kept), constant, self)

    def _pair(self, difference: Tail) -> _Difference | None:
        """a·(K_i − K_j) + c with i < j as an edge's test (None: another shape, or a cycle)."""
        if len(difference.coefficients) != 2:
            return None
        (i, a), (j, b) = difference.coefficients
        if a != -b:
            return None
        bounds = self._edge(i, j)
        if bounds is None:
            return None

        def narrow(low: int | None, high: int | None) -> None:
            self._bound(i, j, low, high)

        return _Difference(a, -difference.constant / a, bounds[0], bounds[1], narrow)

    def _single(self, difference: Tail) -> _Difference:
        """a·K + c on one tail variable as a test of K against −c/a on its interval."""
        ((var, a),) = difference.coefficients
        variable = self.tails[var]

        def narrow(low: int | None, high: int | None) -> None:
            if low is not None:
                variable.low = low
            if high is not None:
                variable.high = high

        return _Difference(a, -difference.constant / a, variable.low, variable.high, narrow)

    def _root(self, var: int) -> int:
        while self.components.get(var, var) != var:
            var = self.components[var]
        return var

    def _edge(self, i: int, j: int) -> list[int | None] | None:
        """The bounds on K_i − K_j, the intervals' implied ones included (None: a cycle)."""
        known = self.edges.get((i, j))
        if known is None and self._root(i) == self._root(j):
            return None
        vi, vj = self.tails[i], self.tails[j]
        low, high = bound_minus(vi.low, vj.high), bound_minus(vi.high, vj.low)
        if known is not None:
            low, high = tighter_low(low, known[0]), tighter_high(high, known[1])
        return [low, high]

    def _bound(self, i: int, j: int, low: int | None, high: int | None) -> None:
        edge = self.edges.setdefault((i, j), [None, None])
        edge[0], edge[1] = tighter_low(edge[0], low), tighter_high(edge[1], high)
        self.components[self._root(j)] = self._root(i)

    def compare(self, difference: Tail, *, strict: bool) -> bool:
        """``difference > 0`` (strict) or ``≥ 0``, exact on one variable's integer interval."""
        difference = self._fixed(difference)
        if not difference.coefficients:
            return difference.constant > 0 if strict else difference.constant >= 0
        if len(difference.coefficients) > 1:
            found = self._pair(difference)
            if found is not None:
                return self._side(found, strict)
            self.unresolved = "noisy integers in the tail compared in a cycle or a sum"
            return self.choose(2) == 0
        return self._side(self._single(difference), strict)

    def _side(self, test: _Difference, strict: bool) -> bool:
        """a·(X − value) > 0 or ≥ 0: X ≥ edge (a > 0) or X ≤ edge, decided on X's bounds or
        branched where they straddle the edge (the branch taken narrows them)."""
        low, high, narrow = test.low, test.high, test.narrow
        if test.a > 0:
            edge = math.floor(test.value) + 1 if strict else math.ceil(test.value)
            if low is not None and low >= edge:
                return True
            if high is not None and high < edge:
                return False
            taken = self.choose(2) == 0
            narrow(*((edge, None) if taken else (None, edge - 1)))  # X ≥ edge, or X ≤ edge − 1
            return taken
        edge = math.ceil(test.value) - 1 if strict else math.floor(test.value)
        if high is not None and high <= edge:
            return True
        if low is not None and low > edge:
            return False
        taken = self.choose(2) == 0
        narrow(*((None, edge) if taken else (edge + 1, None)))  # X ≤ edge, or X ≥ edge + 1
        return taken

    def equal(self, difference: Tail) -> bool:
        """``difference == 0``: one variable branches three ways (below, at, above the value)."""
        difference = self._fixed(difference)
        if not difference.coefficients:
            return difference.constant == 0
        if len(difference.coefficients) > 1:
            found = self._pair(difference)
            if found is not None:
                return self._equal_at(found)
            self.unresolved = "noisy integers in the tail compared for equality in a cycle"
            return self.choose(2) == 0
        return self._equal_at(self._single(difference))

    def _equal_at(self, test: _Difference) -> bool:
        """X == value: False off X's bounds or the integers, else three branches (below, at,
        above the value), each narrowing X's bounds."""
        value, low, high = test.value, test.low, test.high
        if (
            value.denominator != 1
            or (low is not None and value < low)
            or (high is not None and value > high)
        ):
            return False
        v = int(value)
        options = [
            option
            for option, possible in (
                ("below", low is None or low < v),
                ("at", True),
                ("above", high is None or high > v),
            )
            if possible
        ]
        option = options[self.choose(len(options))] if len(options) > 1 else "at"
        if option == "below":
            test.narrow(None, v - 1)
        elif option == "above":
            test.narrow(v + 1, None)
        else:
            test.narrow(v, v)
        return option == "at"


@dataclass(frozen=True)
class _Difference:
    """A test of a·(X − value) against 0, X one tail variable or an edge's K_i − K_j."""

    a: Fraction
    value: Fraction
    low: int | None
    high: int | None
    """X's bounds (None: unbounded)."""
    narrow: Callable[[int | None, int | None], None]
    """Records the bounds [low, high] that a branch learnt (None: that side unchanged)."""


@dataclass(frozen=True)
class LatticePath:
    """A path's output (None when it stopped unresolved) and its probability as a ball."""

    output: Hashable | None
    probability: Any
    exact: bool
    """False: the probability is only known to lie in [0, the path's mass]."""
    reason: str | None = None
    closed_form: tuple[ExpSum, tuple[Fraction, ...]] | None = None
    """The probability as numerator / Π(1 + e^{−1/t}) over the discrete Laplace scales t
    drawn (:func:`.lattice.exact_mass`), when every factor has a closed form."""


def _closed_form(
    run: LatticeRun, skip: frozenset[int] = frozenset()
) -> tuple[ExpSum, tuple[Fraction, ...]] | None:
    """The path's probability as an exact numerator and its denominator's scales, if any."""
    if run.unresolved or run.edges:
        return None
    value = ExpSum.rational(Fraction(run.weight))
    scales: list[Fraction] = []
    factors = [(d, k, k) for d, k in run.points] + [
        (v.dist, v.low, v.high) for i, v in enumerate(run.tails) if i not in skip
    ]
    for dist, low, high in factors:
        mass = lattice.exact_mass(dist, low, high)
        if mass is None:
            return None
        value = value * mass
        scales.append(dist.scale)
    if run.constraints:
        value = value * probability(run.noise, run.constraints)
    scales.extend(run.tails[i].dist.scale for i in skip)
    return value, tuple(sorted(scales))


def _drawn_mass(run: LatticeRun, bits: int, skip: Collection[int]) -> Any:
    """The mass of what the path drew (finite choices, window points, tail intervals, the
    edges' joint sum, continuous constraints), leaving out the tail variables in ``skip``."""
    value = balls.rational_ball(Fraction(run.weight))
    for dist, k in run.points:
        value *= lattice.point(dist, k, bits)
    for index, variable in enumerate(run.tails):
        if index not in skip:
            value *= lattice.mass(variable.dist, variable.low, variable.high, bits)
    if run.edges:
        value *= joint_mass(run.tails, run.edges, bits)
    if run.constraints:
        value *= balls.ball(probability(run.noise, run.constraints))
    return value


def _weight(run: LatticeRun, bits: int) -> Any:
    """The mass of everything the path drew (variables on edges summed jointly)."""
    return _drawn_mass(run, bits, {v for edge in run.edges for v in edge})


def _expand(run: LatticeRun, raw: Any, bits: int) -> list[tuple[Hashable, Any, Any]] | None:
    """A released tail number listed value by value when its interval is small; None if not."""
    used = sorted({v for t in _tails_in(raw) for v, _ in t.coefficients})
    sizes = []
    for v in used:
        variable = run.tails[v]
        if variable.low is None or variable.high is None:
            return None
        sizes.append(variable.high - variable.low + 1)
    if math.prod(sizes) > EXPAND:
        return None
    base = _drawn_mass(run, bits, used)  # never on edges: a path with edges is not listed
    found: list[tuple[Hashable, Any, Any]] = []
    exact = _closed_form(run, frozenset(used))

    def assign(index: int, values: dict[int, int], weight: Any, closed: Any) -> None:
        if index == len(used):
            found.append((frozen_output(_substitute(raw, values)), weight, closed))
            return
        variable = run.tails[used[index]]
        assert variable.low is not None and variable.high is not None
        for k in range(variable.low, variable.high + 1):
            mass = lattice.point(variable.dist, k, bits)
            numerator = lattice.exact_mass(variable.dist, k, k)
            following = None
            if closed is not None and numerator is not None:
                following = (closed[0] * numerator, closed[1])
            assign(index + 1, {**values, used[index]: k}, weight * mass, following)

    assign(0, {}, base, exact)
    return found


def _tails_in(value: Any) -> list[Tail]:
    if isinstance(value, Tail):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _tails_in(v)]
    return []


def _substitute(value: Any, values: dict[int, int]) -> Any:
    if isinstance(value, Tail):
        total = value.constant + sum(a * values[v] for v, a in value.coefficients)
        return int(total) if total.denominator == 1 else total
    if isinstance(value, list | tuple):
        return type(value)(_substitute(v, values) for v in value)
    return value


def lattice_paths(
    body: Callable[[Any], Any], width: int, bits: int, *, max_paths: int | None = None
) -> list[LatticePath]:
    """Every path of ``body(ctx)`` with a window of half-width ``width`` around each location."""
    prefix: list[int] = []
    found: list[LatticePath] = []
    while True:
        run = LatticeRun(prefix=prefix, width=width)
        try:
            raw = body(run)
        except (Unresolved, NotLinear) as exc:
            if isinstance(exc, NotLinear) and not run.tails:
                raise
            found.append(LatticePath(None, _weight(run, bits), False, str(exc)))
        else:
            found.extend(_finish(run, raw, bits))
        if max_paths is not None and len(found) > max_paths:
            raise BudgetExceeded(f"more than {max_paths} execution paths")
        if not advance(prefix, run):
            return found


def _finish(run: LatticeRun, raw: Any, bits: int) -> list[LatticePath]:
    if any(v.low is not None and v.high is not None and v.low > v.high for v in run.tails):
        return []
    if run.edges and not propagate(run.tails, run.edges):
        return []  # the edges and intervals admit no integer point: probability exactly 0
    if _tails_in(raw):
        listed = None if run.unresolved or run.edges else _expand(run, raw, bits)
        if listed is None:
            reason = (
                run.unresolved or "a noisy integer from the tail released on an unbounded range"
            )
            return [LatticePath(None, _weight(run, bits), False, reason)]
        return [LatticePath(o, weight, True, None, closed) for o, weight, closed in listed]
    output = frozen_output(raw)
    if has_number(output):
        raise Unsupported("a continuous noisy number released next to integer noise")
    weight = _weight(run, bits)
    if run.unresolved:
        import flint

        return [LatticePath(output, flint.arb(0).union(weight), False, run.unresolved)]
    return [LatticePath(output, weight, True, None, _closed_form(run))]
