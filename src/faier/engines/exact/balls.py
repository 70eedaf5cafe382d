"""Certified balls (python-flint's ``arb``) for the float frontier's decisions.

A ball is a midpoint and a radius that FLINT guarantees to contain the true
real number: every input here is an exact rational (the priors and the step
matrices) rounded outward to a ball, and every operation widens the radius
to cover its rounding.  So "ball x lies wholly above ball y" proves x > y,
and a record or a prune decided that way rests on a proof, not on a float
guess.  Only when two balls overlap does the decision go to a higher
precision and then to exact integers (:mod:`integer_vectors`); exact ties
always overlap, so ties are decided exactly and in the same order as the
exact search, which keeps every witness the same.

Zero is exact in balls: an entry of a forward vector is an exact zero ball
when every term of its sum is, so supports (and infinite losses, q = 0)
come out exact.  A ball that contains zero without being zero decides
nothing.  python-flint is the ``fast`` extra; without it every decision is
exact, as before.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from faier.engines.exact.sequence_mode import (
    Rows,
    SequenceSystem,
    SparseVector,
    _flint,
    _integer_rows,
)

PRECISIONS = (128, 512)
"""Working precision in bits, then one raise, before a decision goes exact."""

INFINITE = "∞"
UNDECIDED = "?"
Ball = Any
"""An ``arb``, :data:`INFINITE`, or :data:`UNDECIDED` (the ball straddles zero)."""


def available() -> bool:
    return _flint() is not None


@contextmanager
def precision(bits: int) -> Iterator[Any]:
    """FLINT's working precision set to ``bits`` (restored after: other code shares it)."""
    flint = _flint()
    saved = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield flint
    finally:
        flint.ctx.prec = saved


def ball(x: Fraction) -> Any:
    """The exact rational as a ball at the current precision."""
    flint = _flint()
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def ratio(p: Any, q: Any, factor: Fraction | None = None) -> Ball:
    """p/q·factor as a ball; ∞ when q is exactly 0 < p; undecided when either straddles 0."""
    if q.is_zero():
        return INFINITE if _positive(p) else UNDECIDED
    if not (_positive(q) and (p.is_zero() or _positive(p))):
        return UNDECIDED
    out = p / q
    return out if factor is None else out * ball(factor)


def _positive(x: Any) -> bool:
    return bool(x > 0)


def exceeds(x: Ball, y: Ball) -> bool | None:
    """x > y proved (True), x ≤ y proved (False), or undecided (None)."""
    if x is UNDECIDED or y is UNDECIDED:
        return None
    if x is INFINITE:
        return y is not INFINITE
    if y is INFINITE:
        return False
    if x > y:
        return True
    if x <= y:
        return False
    return None


def smaller(x: Ball, y: Ball) -> Ball:
    """min(x, y) as a ball (undecided if either is)."""
    if x is UNDECIDED or y is UNDECIDED:
        return UNDECIDED
    if x is INFINITE:
        return y
    if y is INFINITE:
        return x
    return x.min(y)


def of_loss(value: Fraction | None) -> Ball:
    """An exact loss (None: infinite) as a ball at the current precision."""
    return INFINITE if value is None else ball(value)


_SPARSE_FROM = 64
"""From this many states, matrices with under a quarter non-zero multiply entry by entry."""

_systems: dict[tuple[int, int], tuple[SequenceSystem, BallSystem]] = {}


def ball_system(system: SequenceSystem, bits: int) -> BallSystem:
    """The ball matrices of a system at ``bits``, shared by every pass over it."""
    hit = _systems.get((id(system), bits))
    if hit is None or hit[0] is not system:
        if any(held is not system for held, _ in _systems.values()):
            _systems.clear()  # one system at a time: a 500-state one holds ~70 MB of balls
        hit = (system, BallSystem(system, bits))
        _systems[(id(system), bits)] = hit
    return hit[1]


class BallSystem:
    """The step matrices of a system as ball matrices at one precision, converted once each."""

    def __init__(self, system: SequenceSystem, bits: int) -> None:
        self.system, self.bits = system, bits
        self._matrices: dict[int, Any] = {}
        self._sums: dict[int, Any] = {}
        self._sparse: dict[int, list[list[tuple[int, Any]]]] = {}

    def matrix(self, rows: Rows) -> Any:
        key = id(rows)
        if key not in self._matrices:
            flint, n = _flint(), self.system.size
            entries: list[Any] = [0] * (n * n)
            for s, row in enumerate(rows):
                for t, p in row:
                    entries[s * n + t] = flint.fmpq(p.numerator, p.denominator)
            self._matrices[key] = flint.arb_mat(flint.fmpq_mat(n, n, entries))
        return self._matrices[key]

    def row_sums(self, rows: Rows) -> Any:
        """The exact row sums of a matrix as a ball column (for masses one step on)."""
        key = id(rows)
        if key not in self._sums:
            flint, integer = _flint(), _integer_rows(rows)
            column = [
                flint.fmpq(total * scale, integer.den)
                for total, scale in zip(integer.row_sums, integer.scale, strict=True)
            ]
            self._sums[key] = flint.arb_mat(flint.fmpq_mat(len(rows), 1, column))
        return self._sums[key]

    def vector(self, vector: SparseVector) -> Any:
        """An exact sparse vector as a ball row."""
        flint, n = _flint(), self.system.size
        entries: list[Any] = [0] * n
        for s, x in vector.items():
            entries[s] = flint.fmpq(x.numerator, x.denominator)
        return flint.arb_mat(flint.fmpq_mat(1, n, entries))

    def sparse_rows(self, rows: Rows) -> list[list[tuple[int, Any]]]:
        """A sparse matrix's non-zero entries as balls, row by row."""
        key = id(rows)
        if key not in self._sparse:
            flint = _flint()
            self._sparse[key] = [
                [(t, flint.arb(flint.fmpq(p.numerator, p.denominator))) for t, p in row]
                for row in rows
            ]
        return self._sparse[key]

    def times(self, row: Any, rows: Rows) -> Any:
        """row·rows; a sparse matrix entry by entry (a dense ball matrix of a sparse
        1000-state system cost 0.2 s to convert and 40 ms a product)."""
        n = self.system.size
        if n < _SPARSE_FROM or 4 * sum(len(r) for r in rows) >= n * n:
            return row * self.matrix(rows)
        flint = _flint()
        sums: list[Any] = [flint.arb(0)] * n
        for s, x in enumerate(row.entries()):
            if x.is_zero():
                continue
            for t, p in self.sparse_rows(rows)[s]:
                sums[t] = sums[t] + x * p
        return flint.arb_mat(1, n, sums)

    def mass_after(self, row: Any, rows: Rows) -> Any:
        """|row·rows| without the product: row times the row sums."""
        return (row * self.row_sums(rows))[0, 0]


def mass(row: Any) -> Any:
    flint = _flint()
    return sum(row.entries(), flint.arb(0))


def contains(x: Ball, value: Fraction | None) -> bool:
    """Whether the ball holds the exact value (None: infinite), decided exactly."""
    if x is UNDECIDED:
        return True
    if x is INFINITE or value is None:
        return x is INFINITE and value is None
    return _exact(x.lower()) <= value <= _exact(x.upper())


def _exact(endpoint: Any) -> Fraction:
    man, exp = endpoint.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def log_interval(x: Ball) -> tuple[float, float] | None:
    """Outward float bounds on log x (None when x is infinite or undecided)."""
    if x is INFINITE or x is UNDECIDED or not _positive(x):
        return None
    logged = x.log()
    return (
        math.nextafter(float(logged.lower()), -math.inf),
        math.nextafter(float(logged.upper()), math.inf),
    )
