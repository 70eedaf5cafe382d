"""Certificates that a looping mechanism has no finite ε.

A certificate is a prefix transcript, a block of steps that can be repeated,
and a state s such that after the prefix the π side is in s with mass a(s),
the block returns π's mass from s to s with probability λ each time, and on
the τ side the block multiplies the total mass by at most μ < λ (μ is the
largest row sum of the block's τ-side matrix over every state the τ side can
reach).  Then for every k

    Pr[prefix·block^k | π] / Pr[prefix·block^k | τ]  ≥  (a(s)/|b|)·(λ/μ)^k,

which exceeds every bound.  λ, μ and the constant are exact rationals, and
the transcript for any given ε is recomputed exactly before it is reported.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from faier.engines.exact.sequence_mode import (
    Rows,
    SequenceComparison,
    SequenceSystem,
    SparseVector,
    _times,
)
from faier.privacy.budget import Epsilon

MAX_SUPPORT_PAIRS = 5_000
MAX_BLOCK = 2

Matrix = dict[int, dict[int, Fraction]]


@dataclass(frozen=True)
class Certificate:
    """Prefix, repeatable block, state, π-side rate λ and τ-side bound μ < λ."""

    comparison: int
    prefix: tuple[int, ...]
    block: tuple[int, ...]
    state: int
    constant: Fraction
    pi_rate: Fraction
    tau_rate: Fraction

    @property
    def growth(self) -> Fraction | None:
        """λ/μ per block (None: the τ side vanishes, the loss is infinite)."""
        return None if self.tau_rate == 0 else self.pi_rate / self.tau_rate

    def repetitions_for(self, eps: Epsilon) -> int:
        """The least k with constant·(λ/μ)^k > e^ε (k ≥ 1 when μ = 0)."""
        growth = self.growth
        if growth is None:
            return 1
        k, bound = 0, self.constant
        while not eps.exceeded_by(bound):
            k += 1
            bound *= growth
        return k

    def path(self, repetitions: int) -> tuple[int, ...]:
        """The transcript prefix · block^repetitions (symbol indices)."""
        return self.prefix + self.block * repetitions


def _as_matrix(rows: Rows) -> Matrix:
    return {s: dict(row) for s, row in enumerate(rows) if row}


def _multiply(x: Matrix, y: Rows) -> Matrix:
    out: Matrix = {}
    for s, row in x.items():
        acc: dict[int, Fraction] = {}
        for t, p in row.items():
            for u, q in y[t]:
                acc[u] = acc.get(u, Fraction(0)) + p * q
        if acc:
            out[s] = acc
    return out


def _blocks(system: SequenceSystem) -> list[tuple[tuple[int, ...], Matrix, Matrix]]:
    singles: list[tuple[tuple[int, ...], Matrix, Matrix]] = [
        ((sym,), _as_matrix(system.left[sym]), _as_matrix(system.right[sym]))
        for sym in range(len(system.symbols))
        if any(system.left[sym])
    ]
    out: list[tuple[tuple[int, ...], Matrix, Matrix]] = list(singles)
    if MAX_BLOCK >= 2:
        for first, left, right in singles:
            for sym in range(len(system.symbols)):
                if any(system.left[sym]):
                    out.append(
                        (
                            (*first, sym),
                            _multiply(left, system.left[sym]),
                            _multiply(right, system.right[sym]),
                        )
                    )
    return out


def _tau_rate(right: Matrix, support: set[int]) -> Fraction:
    """Largest row sum of the block's τ matrix over every state reachable from ``support``."""
    closure = set(support)
    frontier = list(support)
    while frontier:
        s = frontier.pop()
        for t in right.get(s, {}):
            if t not in closure:
                closure.add(t)
                frontier.append(t)
    return max((sum(right.get(s, {}).values(), Fraction(0)) for s in closure), default=Fraction(0))


def _reachable(
    system: SequenceSystem, comparisons: Sequence[SequenceComparison], depth: int
) -> list[tuple[int, tuple[int, ...], SparseVector, SparseVector]]:
    """Prefixes reaching each distinct pair of supports (breadth first, exact vectors)."""
    seen: set[tuple[frozenset[int], frozenset[int]]] = set()
    found: list[tuple[int, tuple[int, ...], SparseVector, SparseVector]] = []
    layer: list[tuple[int, tuple[int, ...], SparseVector, SparseVector]] = [
        (i, (), dict(c.a0), dict(c.b0)) for i, c in enumerate(comparisons)
    ]
    for _ in range(depth + 1):
        following: list[tuple[int, tuple[int, ...], SparseVector, SparseVector]] = []
        for index, path, a, b in layer:
            key = (frozenset(s for s, x in a.items() if x), frozenset(s for s, x in b.items() if x))
            if key in seen or len(seen) >= MAX_SUPPORT_PAIRS:
                continue
            seen.add(key)
            found.append((index, path, a, b))
            for sym in range(len(system.symbols)):
                a2 = _times(a, system.left[sym])
                if any(a2.values()):
                    following.append((index, (*path, sym), a2, _times(b, system.right[sym])))
        layer = following
    return found


def find_certificate(
    system: SequenceSystem, comparisons: Sequence[SequenceComparison]
) -> Certificate | None:
    """The certificate with the fastest growth λ/μ, if the blocks tried give one."""
    best: Certificate | None = None
    prefixes = _reachable(system, comparisons, depth=2 * system.size)
    for block, left, right in _blocks(system):
        for index, path, a, b in prefixes:
            mass_b = sum(b.values(), Fraction(0))
            if mass_b == 0:
                continue
            mu = _tau_rate(right, {s for s, x in b.items() if x})
            for s, x in a.items():
                lam = left.get(s, {}).get(s, Fraction(0))
                if x == 0 or lam <= mu:
                    continue
                candidate = Certificate(index, path, block, s, x / mass_b, lam, mu)
                if best is None or _faster(candidate, best):
                    best = candidate
    return best


def _faster(x: Certificate, y: Certificate) -> bool:
    gx, gy = x.growth, y.growth
    if gx is None or gy is None:
        return gx is None and gy is not None
    per_step_x = gx ** len(y.block)
    per_step_y = gy ** len(x.block)
    if per_step_x != per_step_y:
        return per_step_x > per_step_y
    return len(x.prefix) + len(x.block) < len(y.prefix) + len(y.block)
