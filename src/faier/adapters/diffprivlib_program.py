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

from dataclasses import replace
from fractions import Fraction
from secrets import SystemRandom
from typing import Any

import numpy as np

from faier.adapters.opendp_program import MAX_RANGE, Decidable, _problem
from faier.adapters.own_code import OwnCode, check_own_code, library_class
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


PATHS = {
    "Geometric": ("randomise", "_check_all", "_check_sensitivity", "_check_epsilon_delta"),
    "GeometricTruncated": (
        "randomise",
        "_check_all",
        "_check_sensitivity",
        "_check_epsilon_delta",
        "_check_bounds",
        "_truncate",
    ),
}
"""What ``randomise`` resolves to on each decided class (diffprivlib 0.6): checked on the object."""


def own_code(mechanism: Any) -> OwnCode | None:
    """The check of a decided class's sampling path on ``mechanism`` (None: not such a class)."""
    base = library_class(mechanism, "diffprivlib")
    if base is None or base.__name__ not in PATHS:
        return None
    return check_own_code(mechanism, "diffprivlib", PATHS[base.__name__])


def state_departure(mechanism: Any) -> str | None:
    """What in the object's state the sampler reads but its parameters do not say, if any:
    a random source of its own, or a ``_scale`` that is not −ε/Δ (set after construction)."""
    source = getattr(mechanism, "_rng", None)
    if type(source) not in (SystemRandom, np.random.RandomState):
        return f"its random source _rng is a {type(source).__name__}, not the library's"
    epsilon, sensitivity = mechanism.epsilon, mechanism.sensitivity
    expected = -epsilon / sensitivity if sensitivity > 0 else -float("inf")
    if getattr(mechanism, "_scale", None) != expected:
        return "its _scale (what randomise reads) is not −epsilon/sensitivity"
    return None


def decidable(mechanism: Any, *, d_in: int | None = None) -> Decidable | None:
    """``Geometric``/``GeometricTruncated`` (or a subclass that overrides nothing on the
    sampling path) as a faier problem; None for anything else, which is tested instead."""
    check = own_code(mechanism)
    if check is None or not check.own or state_departure(mechanism) is not None:
        return None
    assert check.library_class is not None
    kind = check.library_class.__name__
    epsilon, sensitivity = float(mechanism.epsilon), mechanism.sensitivity
    if epsilon <= 0 or sensitivity <= 0 or float(sensitivity) != int(sensitivity):
        return None
    delta = int(sensitivity) if d_in is None else d_in
    noise = discrete_laplace(0, Fraction(sensitivity) / Fraction(epsilon))
    own = type(mechanism).__name__
    called = kind if own == kind else f"{own} (a {kind})"
    name = f"diffprivlib {called}(epsilon={epsilon!r}, sensitivity={sensitivity!r})"
    assumptions = (
        check.checked(),
        "checked: its random source (_rng) is diffprivlib's and the _scale randomise "
        "reads is −epsilon/sensitivity",
        f"assumed: diffprivlib's {kind}.randomise samples the two-sided geometric its "
        "epsilon and sensitivity define (its float inversion of the CDF is not checked; "
        "faier test samples it)",
    )
    if kind == "Geometric":
        inputs = InputSpace(tuple(range(delta + 1)), f"{{0..{delta}}}")
        doc = f"x + {noise.describe()}, the two-sided geometric diffprivlib samples"
        problem = _problem(name, _shifted(noise), inputs, EveryQuery(delta), doc)
        problem = replace(problem, assumptions=assumptions)
        return Decidable(
            problem,
            f"{kind}: x + {noise.describe()}",
            epsilon * delta / sensitivity,
            assumptions=assumptions,
        )
    low, high = int(mechanism.lower), int(mechanism.upper)
    if high < low or high - low + 1 > MAX_RANGE:
        return None
    inputs = InputSpace(tuple(range(low, high + 1)), f"{{{low}..{high}}}")
    doc = f"x + {noise.describe()} clamped to [{low}, {high}], as diffprivlib truncates"
    problem = _problem(name, _clamped(noise, low, high), inputs, EveryQuery(delta), doc)
    problem = replace(problem, assumptions=assumptions)
    shape = f"{kind}: clamp(x + {noise.describe()}, {low}, {high})"
    return Decidable(problem, shape, epsilon * delta / sensitivity, assumptions=assumptions)
