"""Continuous noise for ``ctx.draw``: Laplace, exponential and Gaussian with exact parameters.

A mechanism draws ``ctx.draw(faier.laplace(0, Fraction(20, 7)))`` the same way
it draws from a finite :class:`~faier.model.distribution.Distribution`.  The
parameters are kept as exact rationals because the certified engine
(``engines/certified``) integrates the densities in closed form: a Laplace
or exponential density with rational location and scale is an exponential
polynomial with rational exponents, so every probability it computes is an
exact sum ``Σ qᵢ·e^{rᵢ}``.  Sampling (``Program.sample``, the tester) uses
numpy with the same parameters as floats.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from faier.errors import MechanismError
from faier.model.probability import parse_number

Number = Fraction | int | str | float


def _exact(value: Number, what: str) -> Fraction:
    """An exact rational parameter; a float is read by its decimal text (0.7 is 7/10)."""
    if isinstance(value, bool):
        raise MechanismError(f"{what} must be a number, got {value!r}")
    if isinstance(value, Fraction | int):
        return Fraction(value)
    try:
        return parse_number(repr(value) if isinstance(value, float) else value)[0]
    except (ValueError, TypeError) as exc:
        raise MechanismError(
            f"{what} must be an exact number, got {value!r}",
            fix="write it as a Fraction, an int or decimal text such as '0.7'",
        ) from exc


@dataclass(frozen=True)
class Continuous:
    """A continuous distribution drawn by ``ctx.draw``: a family name, location and scale.

    ``kind`` is ``laplace`` (density e^{−|t−loc|/scale}/(2·scale)),
    ``exponential`` (density e^{−(t−loc)/scale}/scale for t ≥ loc) or
    ``gaussian`` (mean ``loc``, standard deviation ``scale``).
    """

    kind: str
    loc: Fraction
    scale: Fraction

    def __post_init__(self) -> None:
        if self.kind not in ("laplace", "exponential", "gaussian"):
            raise MechanismError(f"unknown continuous distribution {self.kind!r}")
        if self.scale <= 0:
            raise MechanismError(
                f"the scale of {self.kind} noise must be positive, got {self.scale}",
                fix="a scale b > 0 (Laplace b = Δ/ε)",
            )

    def sample(self, rng: np.random.Generator) -> float:
        """One draw as a float (for sampling only, never for proofs)."""
        loc, scale = float(self.loc), float(self.scale)
        if self.kind == "laplace":
            return float(rng.laplace(loc, scale))
        if self.kind == "exponential":
            return loc + float(rng.exponential(scale))
        return float(rng.normal(loc, scale))

    def describe(self) -> str:
        names = {"laplace": "Lap", "exponential": "Exp", "gaussian": "N"}
        return f"{names[self.kind]}({self.loc}, {self.scale})"


def laplace(loc: Number = 0, scale: Number = 1) -> Continuous:
    """Laplace noise Lap(loc, scale); scale b = Δ/ε gives ε-DP for sensitivity Δ."""
    return Continuous("laplace", _exact(loc, "the location"), _exact(scale, "the scale"))


def exponential(scale: Number = 1, loc: Number = 0) -> Continuous:
    """Exponential noise with mean ``scale`` added to ``loc`` (StatDP's Noisy Max, Alg. 6)."""
    return Continuous("exponential", _exact(loc, "the location"), _exact(scale, "the scale"))


def gaussian(loc: Number = 0, sigma: Number = 1) -> Continuous:
    """Gaussian noise N(loc, σ²) with standard deviation ``sigma``."""
    return Continuous("gaussian", _exact(loc, "the mean"), _exact(sigma, "the deviation"))


def is_continuous(dist: Any) -> bool:
    """Whether ``ctx.draw`` was given continuous noise."""
    return isinstance(dist, Continuous)
