"""Integer noise in certified arithmetic: masses of the discrete Laplace and Gaussian.

A draw of ``faier.discrete_laplace(loc, t)`` or ``faier.discrete_gaussian(loc,
σ)`` is weighed here, as arb balls guaranteed to contain the true value:

* a point k: (1 − α)/(1 + α)·α^{|k−loc|} with α = e^{−1/t} (the discrete
  Laplace's normaliser Σ_k α^{|k|} = (1 + α)/(1 − α) in closed form), or
  e^{−(k−loc)²/(2σ²)}/Z with the theta sum Z = Σ_k e^{−k²/(2σ²)};
* an integer interval [lo, hi] (either end may be ∞): for the discrete
  Laplace a geometric series in closed form, for the discrete Gaussian the
  terms summed until they fall below the working precision and the rest
  bounded by a geometric series, since for j ≥ J the ratio of consecutive
  terms is e^{−(2j+1)/(2σ²)} ≤ e^{−(2J+1)/(2σ²)}: Σ_{j≥J} g(j) ≤
  g(J)/(1 − e^{−(2J+1)/(2σ²)}).  The remainder enters the ball as [0, bound],
  so every mass and Z itself are certified enclosures, not truncations.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from typing import Any

from faier.engines.certified.balls import rational_ball
from faier.engines.certified.exppoly import ExpSum
from faier.mechanisms.discrete_noise import DiscreteNoise

DIRECT = 4096
"""Finite Gaussian intervals up to this many terms are summed term by term."""


def _gaussian_term(sigma: Fraction, j: int) -> Any:
    return (-rational_ball(Fraction(j * j) / (2 * sigma * sigma))).exp()


def _gaussian_ratio_bound(sigma: Fraction, j: int) -> Any:
    """e^{−(2j+1)/(2σ²)}: the ratio g(j+1)/g(j), decreasing in j."""
    return (-rational_ball(Fraction(2 * j + 1) / (2 * sigma * sigma))).exp()


def _gaussian_tail(sigma: Fraction, start: int, bits: int) -> Any:
    """Σ_{j ≥ start} e^{−j²/(2σ²)} for start ≥ 0, certified (terms, then a geometric bound)."""
    import flint

    variance = sigma * sigma
    # the terms fall below 2^-(bits + 30) of the first beyond this point
    span = math.isqrt(start * start + math.ceil(2 * float(variance) * (bits + 30) * 0.7)) + 2
    total = flint.arb(0)
    for j in range(start, span):
        total += _gaussian_term(sigma, j)
    bound = _gaussian_term(sigma, span) / (1 - _gaussian_ratio_bound(sigma, span))
    return total + flint.arb(0).union(bound)


def _half_sum(dist: DiscreteNoise, a: int, b: int | None, bits: int) -> Any:
    """Σ_{j=a}^{b} w(j) for 0 ≤ a (b None: to ∞), w(j) = α^j or e^{−j²/(2σ²)}."""
    import flint

    if b is not None and b < a:
        return flint.arb(0)
    if dist.kind == "discrete_laplace":
        alpha = _alpha(dist.scale)
        head = alpha**a
        if b is None:
            return head / (1 - alpha)
        return head * (1 - alpha ** (b - a + 1)) / (1 - alpha)
    if b is not None and b - a < DIRECT:
        total = flint.arb(0)
        for j in range(a, b + 1):
            total += _gaussian_term(dist.scale, j)
        return total
    tail = _gaussian_tail(dist.scale, a, bits)
    return tail if b is None else tail - _gaussian_tail(dist.scale, b + 1, bits)


def _alpha(scale: Fraction) -> Any:
    return (-rational_ball(1 / Fraction(scale))).exp()


def _offset_sum(dist: DiscreteNoise, low: int | None, high: int | None, bits: int) -> Any:
    """Σ w(|j|) over integer offsets j ∈ [low, high] (None: unbounded)."""
    import flint

    if low is not None and high is not None and low > high:
        return flint.arb(0)
    total = flint.arb(0)
    for start, stop in _magnitudes(low, high):
        total += _half_sum(dist, start, stop, bits)
    return total


def _magnitudes(low: int | None, high: int | None) -> list[tuple[int, int | None]]:
    """The offsets j ∈ [low, high] (low ≤ high) as ranges [start, stop] of |j|, the offsets
    j ≥ 0 first, then j < 0 mirrored to −j ≥ 1 (None: unbounded), since w depends on |j|."""
    ranges: list[tuple[int, int | None]] = []
    if high is None or high >= 0:
        ranges.append((max(low, 0) if low is not None else 0, high))
    if low is None or low < 0:
        ranges.append((max(-high, 1) if high is not None else 1, -low if low is not None else None))
    return ranges


def normaliser(dist: DiscreteNoise, bits: int) -> Any:
    """Σ_k w(|k − loc|): (1 + α)/(1 − α) for the discrete Laplace, the theta sum for σ."""
    return _normaliser(dist.kind, dist.scale, bits)


@cache
def _normaliser(kind: str, scale: Fraction, bits: int) -> Any:
    from faier.engines.certified.balls import precision

    with precision(bits):
        if kind == "discrete_laplace":
            alpha = _alpha(scale)
            return (1 + alpha) / (1 - alpha)
        return 1 + 2 * _gaussian_tail(scale, 1, bits)


def mass(dist: DiscreteNoise, low: int | None, high: int | None, bits: int) -> Any:
    """Pr[low ≤ K ≤ high] for K drawn from ``dist`` (None: unbounded), as an arb ball."""
    from faier.engines.certified.balls import precision

    loc = int(dist.loc)
    offsets = (None if low is None else low - loc, None if high is None else high - loc)
    with precision(bits):
        return _offset_sum(dist, *offsets, bits) / normaliser(dist, bits)


@cache
def point(dist: DiscreteNoise, k: int, bits: int) -> Any:
    """Pr[K = k], as an arb ball (remembered: paths and sums meet the same points)."""
    return mass(dist, k, k, bits)


def exact_mass(dist: DiscreteNoise, low: int | None, high: int | None) -> ExpSum | None:
    """(1 + α)·Pr[low ≤ K ≤ high] for the discrete Laplace, an exact ExpSum (None: Gaussian).

    Σ_{j=a}^{b} (1 − α)·α^j = α^a − α^{b+1} with α = e^{−1/t}, so every mass of
    the discrete Laplace is an ExpSum over the common denominator 1 + α, and
    ties between probabilities are decided exactly (Lindemann–Weierstrass).
    """
    if dist.kind != "discrete_laplace":
        return None
    loc = int(dist.loc)
    a = None if low is None else low - loc
    b = None if high is None else high - loc
    if a is not None and b is not None and a > b:
        return ExpSum(())
    rate = -1 / Fraction(dist.scale)

    def power(n: int | None) -> ExpSum:  # α^n, 0 at n = ∞
        return ExpSum(()) if n is None else ExpSum.exp(rate * n)

    total = ExpSum(())
    for start, stop in _magnitudes(a, b):
        total = total + power(start) - power(None if stop is None else stop + 1)
    return total
