"""A diffprivlib mechanism as a black box: its ε, sensitivity and bounds read from the object.

A mechanism that randomises one value (``Laplace``, ``Geometric``,
``Snapping``, their truncated and folded forms) is tested on one number with
neighbours ±sensitivity; ``Exponential`` is tested on its utility vector
(each utility ±sensitivity), the output being the chosen candidate.  The
stated ε is the object's ``epsilon``; a mechanism with δ > 0 is refused (the
tester checks pure ε-DP).

diffprivlib draws from ``secrets`` unless ``random_state`` is fixed, so the
adapter rebuilds the object for each batch from its own constructor
arguments (read back from its attributes) with a ``random_state`` drawn from
faier's generator: ``--seed`` then reproduces a run.  ``seeded=False`` uses
the object as it is.
"""

from __future__ import annotations

import inspect
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
    arguments = _arguments(mechanism) if seeded else {}
    utility = "utility" in inspect.signature(type(mechanism).__init__).parameters
    if utility and "utility" not in arguments:
        arguments = {**_arguments(mechanism)}
    delta = whole_sensitivity(float(getattr(mechanism, "sensitivity", 1)), "sensitivity")
    setting = relation(neighbours, "every-query", delta if query is None else 1)
    stated = float(mechanism.epsilon)
    sizes = (len(mechanism.utility),) if utility else (1,)

    def runner(value: list[Any], rng: np.random.Generator) -> Any:
        chosen: Any = mechanism
        if seeded or utility:
            state = np.random.RandomState(int(rng.integers(2**32))) if seeded else None
            given = {**arguments, "utility": value} if utility else arguments
            chosen = type(mechanism)(**given, random_state=state if seeded else None)
        if utility:
            return lambda: plain(chosen.randomise())
        if len(value) != 1:
            raise SpecError(
                f"{kind} randomises one number, got {len(value)}",
                fix="test it with lengths=(1,), or pass query= reducing the data to one number",
            )
        return lambda: plain(chosen.randomise(value[0]))

    return batched(
        name or f"diffprivlib {kind}",
        runner,
        neighbours=setting,
        stated=stated,
        lengths=lengths if lengths is not None else (None if query is not None else sizes),
        doc=f"diffprivlib {kind}, states ε = {stated:g}, sensitivity {delta}",
        query=query,
    )
