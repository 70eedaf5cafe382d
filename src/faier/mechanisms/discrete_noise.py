"""Discrete Laplace and discrete Gaussian noise on the integers, as OpenDP draws them.

``faier.discrete_laplace(loc, scale)`` has P(k) ∝ e^{−|k−loc|/scale} and
``faier.discrete_gaussian(loc, sigma)`` has P(k) ∝ e^{−(k−loc)²/(2σ²)}, both
on the integers k (Canonne–Kamath–Steinke 2020, Definitions 1 and 26 of the
discrete Gaussian paper; OpenDP samples them for ``make_laplace`` and
``make_gaussian`` on integer domains).  The location is an integer and the
scale an exact rational, so the certified engine
(``engines/certified/discrete_noise.py``) can weigh every k exactly and
bound the mass of the tails it does not enumerate.

Sampling is exact, as in OpenDP: Canonne–Kamath–Steinke's Algorithms 1–3
(Bernoulli(e^{−γ}) for rational γ, discrete Laplace by a geometric number of
Bernoulli trials, discrete Gaussian by rejection from a discrete Laplace),
driven by exact uniform integers (Python's generator, seeded from numpy's),
so a seed replays a run and no float rounding enters a draw.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from faier.errors import MechanismError
from faier.mechanisms.continuous import Continuous, Number, _exact

KINDS = ("discrete_laplace", "discrete_gaussian")


@dataclass(frozen=True)
class DiscreteNoise(Continuous):
    """Integer-valued noise drawn by ``ctx.draw``: a family, an integer location and a scale.

    A subclass of :class:`Continuous` only so that every place that recognises
    noise (the engines' probes, the sampling context) recognises it too; its
    support is the integers, its ``scale`` is the discrete Laplace's t or the
    discrete Gaussian's σ.
    """

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise MechanismError(f"unknown discrete noise {self.kind!r}")
        if self.loc.denominator != 1:
            raise MechanismError(
                f"the location of {self.kind.replace('_', ' ')} noise must be an integer, "
                f"got {self.loc}",
                fix="add the noise to a whole number: x + ctx.draw(faier.discrete_laplace(0, t))",
            )
        if self.scale <= 0:
            raise MechanismError(
                f"the scale of {self.kind.replace('_', ' ')} noise must be positive, "
                f"got {self.scale}",
                fix="t = Δ/ε for the discrete Laplace, σ > 0 for the discrete Gaussian",
            )

    def sample(self, rng: np.random.Generator) -> int:
        """One exact draw (an int), Canonne–Kamath–Steinke's Algorithm 2 or 3."""
        if self.kind == "discrete_laplace":
            return int(self.loc) + _laplace(self.scale, rng)
        return int(self.loc) + _gaussian(self.scale, rng)

    def describe(self) -> str:
        name = "DLap" if self.kind == "discrete_laplace" else "N_Z"
        return f"{name}({self.loc}, {self.scale})"


def discrete_laplace(loc: Number = 0, scale: Number = 1) -> DiscreteNoise:
    """Discrete Laplace noise on the integers: P(k) ∝ e^{−|k−loc|/scale} (t = Δ/ε)."""
    return DiscreteNoise(
        "discrete_laplace", _exact(loc, "the location"), _exact(scale, "the scale")
    )


def discrete_gaussian(loc: Number = 0, sigma: Number = 1) -> DiscreteNoise:
    """Discrete Gaussian noise on the integers: P(k) ∝ e^{−(k−loc)²/(2σ²)}."""
    return DiscreteNoise("discrete_gaussian", _exact(loc, "the mean"), _exact(sigma, "the σ"))


def is_discrete_noise(dist: object) -> bool:
    """Whether ``ctx.draw`` was given discrete Laplace or Gaussian noise."""
    return isinstance(dist, DiscreteNoise)


_SOURCE: list[tuple[np.random.Generator, random.Random]] = []
"""The last generator seen and the exact uniform-integer source seeded from it."""


def _source(rng: np.random.Generator) -> random.Random:
    """Python's Mersenne Twister seeded once from ``rng``: exact ``randrange`` at any size,
    ten times cheaper per call than numpy's, and replayed by the same seed."""
    if not _SOURCE or _SOURCE[0][0] is not rng:
        _SOURCE[:] = [(rng, random.Random(int(rng.integers(2**63))))]
    return _SOURCE[0][1]


def _bernoulli_exp(num: int, den: int, draw: random.Random) -> bool:
    """Bernoulli(e^{−num/den}) for num ≥ 0 (Canonne–Kamath–Steinke Algorithm 1)."""
    for _ in range(num // den):
        if not _bernoulli_exp_unit(1, 1, draw):
            return False
    return _bernoulli_exp_unit(num % den, den, draw)


def _bernoulli_exp_unit(num: int, den: int, draw: random.Random) -> bool:
    """Bernoulli(e^{−γ}) for γ = num/den ∈ [0, 1]: count Bernoulli(γ/k) successes."""
    k = 1
    while draw.randrange(den * k) < num:
        k += 1
    return k % 2 == 1


def _laplace(scale: Fraction, rng: np.random.Generator) -> int:
    """DLap(t) with t = scale = t/s (Canonne–Kamath–Steinke Algorithm 2)."""
    draw = _source(rng)
    t, s = scale.numerator, scale.denominator
    while True:
        u = draw.randrange(t)
        if not _bernoulli_exp(u, t, draw):
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, draw):
            v += 1
        y = (u + t * v) // s
        negative = draw.randrange(2) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _gaussian(sigma: Fraction, rng: np.random.Generator) -> int:
    """N_Z(0, σ²) by rejection from DLap(⌊σ⌋ + 1) (Canonne–Kamath–Steinke Algorithm 3)."""
    t = math.floor(sigma) + 1
    a, b = (sigma * sigma).numerator, (sigma * sigma).denominator  # σ² = a/b
    scale = Fraction(t)
    while True:
        y = _laplace(scale, rng)
        # γ = (|y| − σ²/t)²/(2σ²) = (|y|·t·b − a)²/(2·a·b·t²), in integers
        if _bernoulli_exp((abs(y) * t * b - a) ** 2, 2 * a * b * t * t, _source(rng)):
            return y
