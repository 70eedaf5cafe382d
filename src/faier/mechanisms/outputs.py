"""A mechanism's output as a value that can key an output distribution.

Engines that run a body symbolically compare outputs by equality, so an
output must be hashable: lists become tuples (at every depth), the engine's
own symbolic values are replaced by what the engine makes of them, and
anything else that cannot be hashed is the mechanism's error, said once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from faier.errors import MechanismError

Symbolic = TypeVar("Symbolic")


def hashable_output(
    value: Any, symbolic: type[Symbolic], convert: Callable[[Symbolic], Hashable]
) -> Hashable:
    """``value`` with lists as tuples and each ``symbolic`` part as ``convert`` makes it."""
    if isinstance(value, symbolic):
        return convert(value)
    if isinstance(value, list | tuple):
        return tuple(hashable_output(part, symbolic, convert) for part in value)
    try:
        hash(value)
    except TypeError as exc:
        raise MechanismError(
            f"the output {value!r} is not hashable", fix="return a tuple, number, bool or string"
        ) from exc
    return value  # type: ignore[no-any-return]
