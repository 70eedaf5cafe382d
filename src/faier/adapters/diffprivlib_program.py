"""diffprivlib's geometric mechanisms, rewritten as faier programs and decided.

diffprivlib's ``Geometric(epsilon, sensitivity)`` is meant to add two-sided
geometric noise P(k) ∝ e^{−ε·|k|/Δ}, the discrete Laplace with scale Δ/ε
(Ghosh, Roughgarden and Sundararajan 2012), and ``GeometricTruncated`` clamps
the result to [lower, upper].  faier decides that distribution exactly
(``faier.discrete_laplace(0, Δ/ε)`` with ε and Δ read exactly from the
object's floats): the answer is about the mechanism diffprivlib means to
sample.  Its sampler inverts the geometric CDF in floats, so whether the
samples follow that distribution is for the statistical tester
(``faier test``), which wraps the same object.  ``GeometricFolded`` (folded
at the bounds) and the other mechanisms are only tested.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from faier.adapters.opendp_program import MAX_RANGE, Decidable, _problem
from faier.mechanisms.discrete_noise import DiscreteNoise, discrete_laplace
from faier.mechanisms.inputs import InputSpace
from faier.privacy.neighbours import EveryQuery


def _shifted(noise: DiscreteNoise) -> Any:
    def body(x: Any, ctx: Any) -> Any:
        return x + ctx.draw(noise)

    return body


def _clamped(noise: DiscreteNoise, low: int, high: int) -> Any:
    def body(x: Any, ctx: Any) -> Any:
        return min(max(x + ctx.draw(noise), low), high)

    return body


def decidable(mechanism: Any, *, d_in: int | None = None) -> Decidable | None:
    """``Geometric``/``GeometricTruncated`` as a faier problem (None for other mechanisms)."""
    kind = type(mechanism).__name__
    if kind not in ("Geometric", "GeometricTruncated"):
        return None
    epsilon, sensitivity = float(mechanism.epsilon), mechanism.sensitivity
    if epsilon <= 0 or sensitivity <= 0 or float(sensitivity) != int(sensitivity):
        return None
    delta = int(sensitivity) if d_in is None else d_in
    noise = discrete_laplace(0, Fraction(sensitivity) / Fraction(epsilon))
    name = f"diffprivlib {kind}(epsilon={epsilon!r}, sensitivity={sensitivity!r})"
    if kind == "Geometric":
        inputs = InputSpace(tuple(range(delta + 1)), f"{{0..{delta}}}")
        doc = f"x + {noise.describe()}, the two-sided geometric diffprivlib samples"
        problem = _problem(name, _shifted(noise), inputs, EveryQuery(delta), doc)
        return Decidable(problem, f"{kind}: x + {noise.describe()}", epsilon * delta / sensitivity)
    low, high = int(mechanism.lower), int(mechanism.upper)
    if high < low or high - low + 1 > MAX_RANGE:
        return None
    inputs = InputSpace(tuple(range(low, high + 1)), f"{{{low}..{high}}}")
    doc = f"x + {noise.describe()} clamped to [{low}, {high}], as diffprivlib truncates"
    problem = _problem(name, _clamped(noise, low, high), inputs, EveryQuery(delta), doc)
    shape = f"{kind}: clamp(x + {noise.describe()}, {low}, {high})"
    return Decidable(problem, shape, epsilon * delta / sensitivity)
