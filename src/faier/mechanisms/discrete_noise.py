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
driven by uniform integers from numpy's generator, so a seed replays a run
and no float rounding enters a draw.
"""

from __future__ import annotations

import math
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


def _below(n: int, rng: np.random.Generator) -> int:
    """A uniform integer in [0, n) of any size, by rejection on whole bytes."""
    if n < 2**62:
        return int(rng.integers(0, n))
    width = (n.bit_length() + 7) // 8
    while True:
        value = int.from_bytes(rng.bytes(width), "little") >> (8 * width - n.bit_length())
        if value < n:
            return value


def _bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    return _below(p.denominator, rng) < p.numerator


def _bernoulli_exp(gamma: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(e^{−γ}) for rational γ ≥ 0 (Canonne–Kamath–Steinke Algorithm 1)."""
    whole = math.floor(gamma)
    for _ in range(whole):
        if not _bernoulli_exp_unit(Fraction(1), rng):
            return False
    return _bernoulli_exp_unit(gamma - whole, rng)


def _bernoulli_exp_unit(gamma: Fraction, rng: np.random.Generator) -> bool:
    k = 1
    while _bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def _laplace(scale: Fraction, rng: np.random.Generator) -> int:
    """DLap(t) with t = scale = t/s (Canonne–Kamath–Steinke Algorithm 2)."""
    t, s = scale.numerator, scale.denominator
    while True:
        u = _below(t, rng)
        if not _bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while _bernoulli_exp(Fraction(1), rng):
            v += 1
        y = (u + t * v) // s
        negative = _below(2, rng) == 1
        if negative and y == 0:
            continue
        return -y if negative else y


def _gaussian(sigma: Fraction, rng: np.random.Generator) -> int:
    """N_Z(0, σ²) by rejection from DLap(⌊σ⌋ + 1) (Canonne–Kamath–Steinke Algorithm 3)."""
    t = math.floor(sigma) + 1
    variance = sigma * sigma
    while True:
        y = _laplace(Fraction(t), rng)
        gamma = (abs(y) - variance / t) ** 2 / (2 * variance)
        if _bernoulli_exp(gamma, rng):
            return y
