"""Finite input spaces: the data a mechanism may be run on."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from faier.errors import SpecError

Input = Hashable

MAX_INPUTS = 2_000_000


@dataclass(frozen=True)
class InputSpace:
    """All inputs a comparison may use, with a short description for reports."""

    values: tuple[Input, ...]
    description: str

    def __iter__(self) -> Iterator[Input]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __contains__(self, x: object) -> bool:
        return x in set(self.values)


def grid(length: int, top: int) -> InputSpace:
    """Vectors of ``length`` query answers, each in {0..top}."""
    if length < 1:
        raise SpecError(f"the number of queries must be at least 1, got {length}")
    if top < 0:
        raise SpecError(f"the answer range top must be at least 0, got {top}")
    if (top + 1) ** length > MAX_INPUTS:
        raise SpecError(
            f"{(top + 1)}^{length} inputs is too many to enumerate",
            fix=f"keep the input grid below {MAX_INPUTS} vectors",
        )
    values = tuple(itertools.product(range(top + 1), repeat=length))
    return InputSpace(values, f"{{0..{top}}}^{length}")


def scalars(top: int) -> InputSpace:
    """Single answers in {0..top}."""
    if top < 0:
        raise SpecError(f"the answer range top must be at least 0, got {top}")
    return InputSpace(tuple(range(top + 1)), f"{{0..{top}}}")
