"""A diffprivlib mechanism as a black box: its ε, sensitivity and bounds read from the object.

A mechanism that randomises one value (``Laplace``, ``Geometric``,
``Snapping``, their truncated and folded forms) is tested on one number with
neighbours ±sensitivity; ``Exponential`` is tested on its utility vector
(each utility ±sensitivity), the output being the chosen candidate.  The
stated ε is the object's ``epsilon``; a mechanism with δ > 0 is refused (the
tester checks pure ε-DP).

The tester runs the object that was passed, its own ``randomise`` (an
instance attribute or a subclass's, if it has one), never a fresh copy
built from its parameters.  diffprivlib draws from ``secrets`` unless
``random_state`` is fixed, so while a batch runs the adapter sets the
object's random source (``_rng``, when it is the library's) to a
``RandomState`` seeded from faier's generator and restores it afterwards:
``--seed`` then reproduces a run.  ``seeded=False`` (or a random source of
the object's own) leaves it as it is.  ``Exponential`` takes its utilities
at construction, so for each tested input a copy of the object (its class
and instance attributes) is constructed again by its own ``__init__``.
"""

from __future__ import annotations

import copy
import inspect
from secrets import SystemRandom
from typing import Any

import numpy as np

from faier.adapters.common import Query, batched, plain, relation, whole_sensitivity
from faier.errors import SpecError
from faier.mechanisms.sampled import Sampled


def _arguments(mechanism: Any) -> dict[str, Any]:
    """The constructor's keyword arguments, read back from the object's attributes."""
    names = [
        p
        for p in inspect.signature(type(mechanism).__init__).parameters
        if p not in ("self", "random_state")
    ]
    missing = [n for n in names if not hasattr(mechanism, n)]
    if missing:
        raise SpecError(
            f"{type(mechanism).__name__} keeps no attribute {missing[0]!r}, so it cannot be "
            "rebuilt with a seeded random_state",
            fix="pass seeded=False (then --seed does not reproduce runs)",
        )
    return {n: getattr(mechanism, n) for n in names}


def _rebuilt(mechanism: Any, arguments: dict[str, Any], utility: Any, state: Any) -> Any:
    """A copy of the object (its class, its instance attributes) constructed again by its own
    ``__init__`` on other utilities: how an ``Exponential`` is run on each tested input."""
    clone = copy.copy(mechanism)
    type(mechanism).__init__(clone, **{**arguments, "utility": utility}, random_state=state)
    return clone


def _seedable(mechanism: Any) -> bool:
    """The object draws from diffprivlib's own random source (which faier may seed)."""
    return type(getattr(mechanism, "_rng", None)) in (SystemRandom, np.random.RandomState)


def _on_seeded_source(mechanism: Any, state: np.random.RandomState, call: Any) -> Any:
    """``call()`` with the object's random source set to ``state``, restored afterwards."""
    saved = mechanism._rng
    mechanism._rng = state
    try:
        return call()
    finally:
        mechanism._rng = saved


def wrap_mechanism(
    mechanism: Any,
    *,
    query: Query | None = None,
    neighbours: str | None = None,
    lengths: tuple[int, ...] | None = None,
    name: str | None = None,
    seeded: bool = True,
) -> Sampled:
    """See :func:`faier.adapters.from_diffprivlib`."""
    from diffprivlib.mechanisms.base import DPMechanism

    kind = type(mechanism).__name__
    if not isinstance(mechanism, DPMechanism):
        raise SpecError(
            f"{kind} is not a diffprivlib mechanism",
            fix="pass an object of diffprivlib.mechanisms (Laplace, Geometric, Exponential, ...)",
        )
    if getattr(mechanism, "delta", 0) != 0:
        raise SpecError(
            f"{kind} has δ = {mechanism.delta}",
            fix="the tester checks pure ε-DP: test the mechanism with delta=0",
        )
    utility = "utility" in inspect.signature(type(mechanism).__init__).parameters
    arguments = _arguments(mechanism) if utility else {}
    seeded = seeded and _seedable(mechanism)
    delta = whole_sensitivity(float(getattr(mechanism, "sensitivity", 1)), "sensitivity")
    setting = relation(neighbours, "every-query", delta if query is None else 1)
    stated = float(mechanism.epsilon)
    sizes = (len(mechanism.utility),) if utility else (1,)

    def runner(value: list[Any], rng: np.random.Generator) -> Any:
        state = np.random.RandomState(int(rng.integers(2**32))) if seeded else None
        if utility:
            chosen = _rebuilt(mechanism, arguments, value, state)
            return lambda: plain(chosen.randomise())
        if len(value) != 1:
            raise SpecError(
                f"{kind} randomises one number, got {len(value)}",
                fix="test it with lengths=(1,), or pass query= reducing the data to one number",
            )
        number = value[0]
        if state is None:
            return lambda: plain(mechanism.randomise(number))
        return lambda: plain(
            _on_seeded_source(mechanism, state, lambda: mechanism.randomise(number))
        )

    return batched(
        name or f"diffprivlib {kind}",
        runner,
        neighbours=setting,
        stated=stated,
        lengths=lengths if lengths is not None else (None if query is not None else sizes),
        doc=f"diffprivlib {kind}, states ε = {stated:g}, sensitivity {delta}",
        query=query,
    )
