"""Exact exponential polynomials: the closed forms of Laplace and exponential noise.

A Laplace or exponential density with rational location and scale is, piece
by piece between rational breakpoints, ``c·e^{λt}`` with rational c, λ.
Products, shifts by rationals, antiderivatives and evaluation at rational
points keep the form ``Σ q·t^k·e^{λt}·e^{r}`` (q, λ, r rational), so every
probability of a program over such noise is an exact :class:`ExpSum`
``Σ qᵢ·e^{rᵢ}``.  Distinct rational exponents give linearly independent
e^{rᵢ} over the algebraic numbers (Lindemann–Weierstrass), so an ExpSum in
canonical form (exponents distinct, coefficients non-zero) is zero exactly
when it is empty: zero probabilities and ties are decided exactly, and any
non-zero sign is decided by evaluating with enough precision.
"""

from __future__ import annotations

import bisect
import contextlib
import importlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.errors import InternalError

Q: Any = Fraction
with contextlib.suppress(ImportError):  # gmpy2's rationals: ~10× faster, same values
    Q = importlib.import_module("gmpy2").mpq

Key = tuple[int, Fraction, Fraction]
"""(k, λ, r) of the term q·t^k·e^{λt}·e^{r}."""
Piece = Mapping[Key, Fraction]
ZERO = Q(0)
ONE = Q(1)


@dataclass(frozen=True)
class ExpSum:
    """An exact real ``Σ q·e^{r}`` over distinct rational exponents r (canonical form)."""

    terms: tuple[tuple[Fraction, Fraction], ...]
    """(r, q) sorted by r, q ≠ 0."""

    @staticmethod
    def of(pairs: Iterable[tuple[Fraction, Fraction]]) -> ExpSum:
        acc: dict[Fraction, Fraction] = {}
        for r, q in pairs:
            acc[r] = acc.get(r, ZERO) + q
        return ExpSum(tuple(sorted((r, q) for r, q in acc.items() if q != 0)))

    @staticmethod
    def rational(q: Fraction | int) -> ExpSum:
        return ExpSum(((ZERO, Q(q)),) if q else ())

    @staticmethod
    def exp(r: Fraction) -> ExpSum:
        return ExpSum(((Q(r), ONE),))

    @property
    def is_zero(self) -> bool:
        return not self.terms

    def __add__(self, other: ExpSum) -> ExpSum:
        return ExpSum.of((*self.terms, *other.terms))

    def __sub__(self, other: ExpSum) -> ExpSum:
        return ExpSum.of((*self.terms, *((r, -q) for r, q in other.terms)))

    def __mul__(self, other: ExpSum) -> ExpSum:
        return ExpSum.of((r1 + r2, q1 * q2) for r1, q1 in self.terms for r2, q2 in other.terms)

    def scaled(self, factor: Fraction) -> ExpSum:
        return ExpSum.of((r, q * Q(factor)) for r, q in self.terms)

    def approx(self) -> float:
        """A float value (display and float screens only)."""
        return math.fsum(float(q) * math.exp(float(r)) for r, q in self.terms)

    def show(self, limit: int = 4) -> str:
        """``1/2 − 1/4·e^(−7/10)``, at most ``limit`` terms then ``+ …``."""
        if not self.terms:
            return "0"
        parts = []
        for r, q in sorted(self.terms, key=lambda t: -t[0])[:limit]:
            magnitude = abs(q)
            base = "" if r == 0 else f"e^({r})"
            if base and magnitude == 1:
                text = base
            elif base:
                text = f"{magnitude}·{base}"
            else:
                text = str(magnitude)
            parts.append(("− " if q < 0 else "+ ") + text)
        if len(self.terms) > limit:
            parts.append(f"+ … ({len(self.terms)} terms)")
        joined = " ".join(parts)
        return joined[2:] if joined.startswith("+ ") else "−" + joined[2:]


def _add(acc: dict[Key, Fraction], key: Key, q: Fraction) -> None:
    value = acc.get(key, ZERO) + q
    if value:
        acc[key] = value
    else:
        acc.pop(key, None)


def piece_mul(a: Piece, b: Piece) -> dict[Key, Fraction]:
    out: dict[Key, Fraction] = {}
    for (k1, l1, r1), q1 in a.items():
        for (k2, l2, r2), q2 in b.items():
            _add(out, (k1 + k2, l1 + l2, r1 + r2), q1 * q2)
    return out


def piece_shift(piece: Piece, c: Fraction) -> dict[Key, Fraction]:
    """t ↦ f(t + c): (t + c)^k·e^{λt}·e^{r + λc}, expanded."""
    out: dict[Key, Fraction] = {}
    for (k, lam, r), q in piece.items():
        for j in range(k + 1):
            _add(out, (j, lam, r + lam * c), q * math.comb(k, j) * c ** (k - j))
    return out


def piece_antiderivative(piece: Piece) -> dict[Key, Fraction]:
    """A formal antiderivative: t^k/(k+1) for λ = 0, else the usual repeated parts."""
    out: dict[Key, Fraction] = {}
    for (k, lam, r), q in piece.items():
        if lam == 0:
            _add(out, (k + 1, lam, r), q / (k + 1))
            continue
        # ∫ t^k e^{λt} = e^{λt} Σ_j (−1)^j k!/(k−j)! t^{k−j} / λ^{j+1}
        falling = 1
        for j in range(k + 1):
            _add(out, (k - j, lam, r), q * (-1) ** j * falling / lam ** (j + 1))
            falling *= k - j
    return out


def piece_at(piece: Piece, t: Fraction) -> ExpSum:
    return ExpSum.of((r + lam * t, q * t**k) for (k, lam, r), q in piece.items())


def piece_limit(piece: Piece, direction: int) -> ExpSum:
    """The limit at +∞ (direction 1) or −∞ (−1); every other term must decay there."""
    constant = []
    for (k, lam, r), q in piece.items():
        if k == 0 and lam == 0:
            constant.append((r, q))
        elif lam * direction >= 0:
            raise InternalError(
                f"a term t^{k}·e^({lam}t) does not vanish at {'+' if direction > 0 else '−'}∞"
            )
    return ExpSum.of(constant)


@dataclass(frozen=True)
class Piecewise:
    """A function on ℝ: pieces[j] holds on (breaks[j−1], breaks[j]) (open ends at ±∞)."""

    breaks: tuple[Fraction, ...]
    pieces: tuple[Piece, ...]

    @staticmethod
    def constant(q: Fraction) -> Piecewise:
        return Piecewise((), ({(0, ZERO, ZERO): Q(q)} if q else {},))

    @staticmethod
    def indicator(low: Fraction | None, high: Fraction | None) -> Piecewise:
        """1 on (low, high) (None: unbounded), 0 elsewhere; empty when low ≥ high."""
        one: Piece = {(0, ZERO, ZERO): ONE}
        if low is not None and high is not None and low >= high:
            return Piecewise((), ({},))
        breaks = tuple(Q(b) for b in (low, high) if b is not None)
        pieces: list[Piece] = []
        if low is not None:
            pieces.append({})
        pieces.append(one)
        if high is not None:
            pieces.append({})
        return Piecewise(breaks, tuple(pieces))

    def piece_index(self, left: Fraction | None) -> int:
        """The piece holding the interval that starts at ``left`` (None: −∞)."""
        return 0 if left is None else bisect.bisect_right(self.breaks, left)

    def _aligned(self, other: Piecewise) -> tuple[tuple[Fraction, ...], list[tuple[Piece, Piece]]]:
        """Both functions' breaks merged, and on each interval between them both pieces."""
        breaks = tuple(sorted(set(self.breaks) | set(other.breaks)))
        pairs = []
        for j in range(len(breaks) + 1):
            left = None if j == 0 else breaks[j - 1]
            a, b = self.pieces[self.piece_index(left)], other.pieces[other.piece_index(left)]
            pairs.append((a, b))
        return breaks, pairs

    def combine(self, other: Piecewise) -> Piecewise:
        """The pointwise product."""
        breaks, pairs = self._aligned(other)
        pieces = tuple(piece_mul(a, b) if a and b else {} for a, b in pairs)
        return Piecewise(breaks, pieces).simplified()

    def shift(self, c: Fraction) -> Piecewise:
        """t ↦ f(t + c)."""
        c = Q(c)
        return Piecewise(
            tuple(b - c for b in self.breaks), tuple(piece_shift(p, c) for p in self.pieces)
        )

    def stretched(self, s: Fraction) -> Piecewise:
        """t ↦ f(s·t) for s ≠ 0: (s·t)^k·e^{λst}; the pieces reversed when s < 0."""
        s = Q(s)
        pieces = tuple(
            {(k, lam * s, r): q * s**k for (k, lam, r), q in p.items()} for p in self.pieces
        )
        breaks = tuple(b / s for b in self.breaks)
        if s < 0:
            return Piecewise(breaks[::-1], pieces[::-1])
        return Piecewise(breaks, pieces)

    def plus(self, other: Piecewise) -> Piecewise:
        return self.minus(other.negated())

    def negated(self) -> Piecewise:
        return Piecewise(self.breaks, tuple({key: -q for key, q in p.items()} for p in self.pieces))

    def minus(self, other: Piecewise) -> Piecewise:
        breaks, pairs = self._aligned(other)
        pieces = []
        for a, b in pairs:
            out = dict(a)
            for key, q in b.items():
                _add(out, key, -q)
            pieces.append(out)
        return Piecewise(breaks, tuple(pieces)).simplified()

    def cumulative(self) -> Piecewise:
        """H(t) = ∫_{−∞}^t f, continuous, H(−∞) = 0."""
        pieces: list[Piece] = []
        below = ExpSum(())
        for j, piece in enumerate(self.pieces):
            anti = piece_antiderivative(piece)
            if j == 0:
                offset = piece_limit(anti, -1) if anti else ExpSum(())
                start = ExpSum(())
            else:
                offset = piece_at(anti, self.breaks[j - 1])
                start = below
            # H = anti − anti(left end) + H(left end)
            shifted = dict(anti)
            for r, q in (start - offset).terms:
                _add(shifted, (0, ZERO, r), q)
            pieces.append(shifted)
            if j < len(self.breaks):
                below = piece_at(shifted, self.breaks[j])
        return Piecewise(self.breaks, tuple(pieces))

    def total(self) -> ExpSum:
        """∫_ℝ f."""
        return piece_limit(self.cumulative().pieces[-1], 1)

    def at(self, t: Fraction) -> ExpSum:
        """f(t) for t not a breakpoint (the value on t's piece)."""
        return piece_at(self.pieces[self.piece_index(t)], t)

    def is_zero(self) -> bool:
        return all(not p for p in self.pieces)

    def simplified(self) -> Piecewise:
        """Adjacent equal pieces merged (fewer breakpoints downstream)."""
        if not self.breaks:
            return self
        breaks = []
        pieces = [self.pieces[0]]
        for b, piece in zip(self.breaks, self.pieces[1:], strict=True):
            if piece == pieces[-1]:
                continue
            breaks.append(b)
            pieces.append(piece)
        return Piecewise(tuple(breaks), tuple(pieces))


def density(kind: str, loc: Fraction, scale: Fraction) -> Piecewise:
    """The Laplace or exponential density as a piecewise exponential polynomial."""
    lam, loc = 1 / Q(scale), Q(loc)
    if kind == "laplace":
        half = lam / 2
        return Piecewise(
            (loc,),
            ({(0, lam, -loc * lam): half}, {(0, -lam, loc * lam): half}),
        )
    if kind == "exponential":
        return Piecewise((loc,), ({}, {(0, -lam, loc * lam): lam}))
    raise InternalError(f"no closed form for {kind} noise")
