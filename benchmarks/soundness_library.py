"""Fuzzer kind ``library``: library objects, honest or tampered with, decided or run as they are.

A random diffprivlib ``Geometric`` or ``GeometricTruncated`` (ε a random
float, sensitivity 1–3, bounds for the truncated one) is left alone, wrapped
in a subclass that redefines nothing on the sampling path, or tampered with
in one of the ways a user's code can: ``randomise`` replaced on the instance,
a subclass redefining ``randomise``/``_check_all``/``_truncate`` or
``__getattribute__``, ``epsilon`` changed after construction (the sampler
keeps its ``_scale``), or a random source of its own.  Then:

- an honest object (or a subclass that redefines nothing) is decided, and its
  certified ε* is exactly d·ε/Δ (``closed_form``; d = Δ, or the width of the
  bounds when that is less: the two-sided geometric's loss is |x − x′|/t
  with t = Δ/ε, its tails included), with the own-code check in the
  result's ``assumptions``;
- a tampered one is never decided (``faier.adapters.decidable`` is None and
  ``faier.verify`` refuses it naming why), and the tester runs the object
  itself: a tampering that returns a marker value makes every sample that
  marker.

A quarter of the cases take an OpenDP ``make_laplace`` on integers instead,
honest or with ``map``/``invoke`` replaced on the instance: honest ones are
decided at ε* = 1/scale exactly, with OpenDP's map stating at least that,
tampered ones never.  Used by ``benchmarks/soundness.py`` (kind
``library``); skipped (one note) where a library is not installed.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

MARKER = 987_654_321
"""What a tampered ``randomise`` returns, so that running it shows in the samples."""

TAMPERINGS = (
    "none",
    "quiet subclass",
    "instance randomise",
    "subclass randomise",
    "subclass _check_all",
    "subclass __getattribute__",
    "epsilon changed",
    "own random source",
)


class Check(Protocol):
    """What the fuzzer's Checker offers a case."""

    def used(self, engine: str) -> None: ...
    def expect(self, ok: bool, message: str) -> None: ...
    def crash(self, where: str, exc: BaseException) -> None: ...


class _Source:
    """A random source of the object's own (not the library's)."""

    def random(self) -> float:
        return 0.25


def _built(seed: int) -> tuple[Any, str, float]:
    """The object, how it was tampered with, and the ε it was built with."""
    from diffprivlib.mechanisms import Geometric, GeometricTruncated

    rng = random.Random(seed)
    epsilon = round(rng.uniform(0.05, 3.0), rng.randint(1, 4))
    sensitivity = rng.randint(1, 3)
    truncated = rng.random() < 0.4
    base: type = GeometricTruncated if truncated else Geometric
    extra: dict[str, Any] = {}
    if truncated:
        low = rng.randint(-3, 2)
        extra = {"lower": low, "upper": low + rng.randint(1, 6)}
    tampering = rng.choice(TAMPERINGS)
    kind: type = base
    if tampering == "quiet subclass":
        kind = type("Quiet", (base,), {"describe": lambda self: "quiet"})
    elif tampering == "subclass randomise":
        kind = type("Leaky", (base,), {"randomise": lambda self, value: MARKER})
    elif tampering == "subclass _check_all":
        kind = type("Unchecked", (base,), {"_check_all": lambda self, value: True})
    elif tampering == "subclass __getattribute__":
        kind = type(
            "Redirecting",
            (base,),
            {"__getattribute__": lambda self, name: object.__getattribute__(self, name)},
        )
    mechanism = kind(epsilon=epsilon, sensitivity=sensitivity, **extra)
    if tampering == "instance randomise":
        mechanism.randomise = lambda value: MARKER
    elif tampering == "epsilon changed":
        mechanism.epsilon = epsilon * 2
    elif tampering == "own random source":
        mechanism._rng = _Source()
    return mechanism, tampering, epsilon


OPENDP_TAMPERINGS = ("none", "instance map", "instance invoke")


def case_opendp(seed: int, check: Check) -> str:
    """An OpenDP integer Laplace, honest or with ``map``/``invoke`` replaced on the instance:
    decided at ε* = 1/scale exactly (OpenDP's map states at least that) only when honest."""
    import opendp.prelude as dp

    from faier import adapters

    dp.enable_features("contrib")
    rng = random.Random(seed)
    scale = round(rng.uniform(0.2, 5.0), rng.randint(1, 3))
    measurement = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale)
    tampering = rng.choice(OPENDP_TAMPERINGS)
    if tampering == "instance map":
        measurement.map = lambda d_in: 0.001  # type: ignore[method-assign]
    elif tampering == "instance invoke":
        measurement.invoke = lambda value: MARKER  # type: ignore[method-assign]
    description = f"OpenDP make_laplace(scale = {scale}) on integers, tampered: {tampering}"
    check.used("adapters")
    found = adapters.decidable(measurement)
    honest = tampering == "none"
    check.expect(
        (found is not None) == honest,
        f"{description}: decided is {found is not None}, expected {honest}",
    )
    if found is not None and honest:
        import faier

        check.used("certified")
        star = faier.epsilon(found.problem).enclosure
        expected = 1 / Fraction(scale)
        check.expect(
            star is not None
            and star.closed_form is not None
            and Fraction(star.closed_form) == expected
            and found.epsilon is not None
            and Fraction(found.epsilon) >= expected,
            f"{description}: certified ε* {star} is not 1/scale = {expected}, or OpenDP's "
            f"map {found.epsilon} states less",
        )
    return description


def case_library(seed: int, check: Check, notes: list[str]) -> str:
    """One object: decided exactly when honest, run as it is when tampered with."""
    if seed % 4 == 3:
        try:
            import opendp  # noqa: F401
        except ImportError:
            notes.append("opendp is not installed: its cases of kind 'library' skipped")
        else:
            return case_opendp(seed, check)
    try:
        import diffprivlib  # noqa: F401
    except ImportError:
        notes.append("diffprivlib is not installed: kind 'library' skipped")
        return "(skipped)"
    import faier
    from faier import adapters
    from faier.errors import SpecError

    mechanism, tampering, epsilon = _built(seed)
    description = f"{type(mechanism).__name__}(ε = {epsilon}) tampered: {tampering}"
    honest = tampering in ("none", "quiet subclass")
    check.used("adapters")
    found = adapters.decidable(mechanism)
    check.expect(
        (found is not None) == honest,
        f"{description}: decided is {found is not None}, expected {honest}",
    )
    if found is not None and honest:
        check.used("certified")
        result = faier.epsilon(found.problem)
        star = result.enclosure
        exact = star is not None and star.closed_form is not None
        sensitivity = int(mechanism.sensitivity)
        reach = sensitivity  # the farthest neighbours: ±Δ, within the bounds when truncated
        if hasattr(mechanism, "lower"):
            reach = min(sensitivity, int(mechanism.upper) - int(mechanism.lower))
        expected = Fraction(reach) * Fraction(epsilon) / sensitivity  # reach / (Δ/ε)
        check.expect(
            exact and Fraction(str(star.closed_form)) == expected,  # type: ignore[union-attr]
            f"{description}: certified ε* {star} is not {expected} (ε = {epsilon}, reach {reach})",
        )
        check.expect(
            bool(found.problem.assumptions)
            and found.problem.assumptions[0].startswith("checked: the object runs"),
            f"{description}: the own-code check is not among the assumptions",
        )
        return description
    if found is None and not honest:
        try:
            faier.verify(mechanism, "1")
            check.expect(False, f"{description}: faier.verify decided it")
        except SpecError as refusal:
            check.expect("cannot decide" in refusal.message, f"{description}: refused as {refusal}")
        if tampering in ("instance randomise", "subclass randomise"):
            wrapped = adapters.wrap(mechanism)
            assert wrapped is not None and wrapped.vectorised is not None
            samples = wrapped.vectorised(np.array([1]), epsilon, 5, np.random.default_rng(seed))
            check.expect(
                list(samples) == [MARKER] * 5,
                f"{description}: the tester did not run the object itself ({samples})",
            )
    return description
