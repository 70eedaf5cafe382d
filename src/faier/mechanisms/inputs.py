"""Finite input spaces: the data a mechanism may be run on."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from faier.errors import SpecError

Input = Hashable

MAX_INPUTS = 2_000_000
"""Grids larger than this are not enumerated: only searches that need no list of inputs
(the orbit search of a mechanism symmetric in its queries) can use them."""


@dataclass(frozen=True)
class InputSpace:
    """All inputs a comparison may use, with a short description for reports.

    A grid (``shape`` set, ``enumerated`` None) is listed only when something
    asks for its :attr:`values`, and only up to ``MAX_INPUTS`` vectors: asking
    a larger one is bad input naming its size.  ``shape`` is the grid
    {0..s1−1} × … × {0..sn−1} (product order) when known.
    """

    enumerated: tuple[Input, ...] | None
    description: str
    shape: tuple[int, ...] | None = None

    @functools.cached_property
    def values(self) -> tuple[Input, ...]:
        """Every input, in order (a grid in ``itertools.product`` order)."""
        if self.enumerated is not None:
            return self.enumerated
        assert self.shape is not None
        if math.prod(self.shape) > MAX_INPUTS:
            sides = set(self.shape)
            size = (
                f"{self.shape[0]}^{len(self.shape)}"
                if len(sides) == 1
                else " × ".join(map(str, self.shape))
            )
            raise SpecError(
                f"{size} inputs is too many to enumerate",
                fix=f"keep the input grid below {MAX_INPUTS} vectors; only a mechanism that "
                "declares a symmetry in its queries is searched without listing its inputs "
                "(docs/MECHANISMS.md)",
            )
        return tuple(itertools.product(*(range(s) for s in self.shape)))

    def __iter__(self) -> Iterator[Input]:
        if self.enumerated is None and self.shape is not None:
            return itertools.product(*(range(s) for s in self.shape))
        return iter(self.values)

    def __len__(self) -> int:
        if self.enumerated is None and self.shape is not None:
            return math.prod(self.shape)
        return len(self.values)

    def __contains__(self, x: object) -> bool:
        if self.enumerated is None and self.shape is not None:
            return (
                isinstance(x, tuple)
                and len(x) == len(self.shape)
                and all(type(v) is int and 0 <= v < s for v, s in zip(x, self.shape, strict=True))
            )
        return x in set(self.values)


def grid(length: int, top: int) -> InputSpace:
    """Vectors of ``length`` query answers, each in {0..top}.

    Kept by its shape; listed when first asked, up to ``MAX_INPUTS`` vectors
    (see :class:`InputSpace`).
    """
    if length < 1:
        raise SpecError(f"the number of queries must be at least 1, got {length}")
    if top < 0:
        raise SpecError(f"the answer range top must be at least 0, got {top}")
    return InputSpace(None, f"{{0..{top}}}^{length}", (top + 1,) * length)


def scalars(top: int) -> InputSpace:
    """Single answers in {0..top}."""
    if top < 0:
        raise SpecError(f"the answer range top must be at least 0, got {top}")
    return InputSpace(tuple(range(top + 1)), f"{{0..{top}}}")
