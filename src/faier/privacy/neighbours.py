"""Neighbour relations of differential privacy, as small values.

Inputs are query-answer vectors (tuples of ints), single answers (ints), or
data sets (tuples of records) for add/remove.  A relation lists ordered
neighbour pairs; DP compares both orders, so every relation here is symmetric.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError


def _is_answer(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _as_vector(x: Hashable) -> tuple[int | float, ...]:
    if _is_answer(x):
        return (x,)  # type: ignore[return-value]
    if isinstance(x, tuple) and all(_is_answer(v) for v in x):
        return x
    raise SpecError(
        f"input {x!r} is not a query-answer vector (a tuple of numbers)", fix="use explicit pairs"
    )


def _gap(a: int | float, b: int | float) -> int | Fraction:
    """|a − b|, exact: a float counts as the decimal it prints as (1.3 − 0.3 is 1)."""
    if isinstance(a, int) and isinstance(b, int):
        return abs(a - b)
    return abs(Fraction(repr(a)) - Fraction(repr(b)))


@dataclass(frozen=True)
class EveryQuery:
    """Every query answer may move by at most Δ (counting queries, FAIER's Noisy Max)."""

    delta: int = 1

    def related(self, x: Hashable, y: Hashable) -> bool:
        u, v = _as_vector(x), _as_vector(y)
        return (
            len(u) == len(v)
            and u != v
            and all(_gap(a, b) <= self.delta for a, b in zip(u, v, strict=True))
        )

    def describe(self) -> str:
        return f"every query ±{self.delta}"


@dataclass(frozen=True)
class OneQuery:
    """Exactly one query answer moves, by at most Δ (histograms)."""

    delta: int = 1

    def related(self, x: Hashable, y: Hashable) -> bool:
        u, v = _as_vector(x), _as_vector(y)
        if len(u) != len(v):
            return False
        moved = [_gap(a, b) for a, b in zip(u, v, strict=True) if a != b]
        return len(moved) == 1 and moved[0] <= self.delta

    def describe(self) -> str:
        return f"one query ±{self.delta}"


@dataclass(frozen=True)
class AddRemove:
    """Data sets (tuples of records) that differ by adding or removing one record."""

    def related(self, x: Hashable, y: Hashable) -> bool:
        if not isinstance(x, tuple) or not isinstance(y, tuple):
            raise SpecError("add/remove needs data sets written as tuples of records")
        small, large = (x, y) if len(x) < len(y) else (y, x)
        if len(large) != len(small) + 1:
            return False
        return any(large[:i] + large[i + 1 :] == small for i in range(len(large)))

    def describe(self) -> str:
        return "add/remove one record"


@dataclass(frozen=True)
class ExplicitPairs:
    """A user-given list of neighbour pairs (closed under symmetry)."""

    pairs: tuple[tuple[Hashable, Hashable], ...]

    def related(self, x: Hashable, y: Hashable) -> bool:
        return (x, y) in self.pairs or (y, x) in self.pairs

    def describe(self) -> str:
        return f"{len(self.pairs)} explicit pairs"


NeighbourRelation = EveryQuery | OneQuery | AddRemove | ExplicitPairs


def neighbour_pairs(
    relation: NeighbourRelation, inputs: Sequence[Hashable]
) -> Iterator[tuple[Hashable, Hashable]]:
    """Ordered neighbour pairs among ``inputs`` (both orders)."""
    if isinstance(relation, ExplicitPairs):
        known = set(inputs)
        for x, y in relation.pairs:
            for u in (x, y):
                if u not in known:
                    raise SpecError(f"neighbour pair uses {u!r}, which is not an input")
            yield x, y
            yield y, x
        return
    if isinstance(relation, EveryQuery | OneQuery):
        index = {x: i for i, x in enumerate(inputs)}
        for x in inputs:
            for y in _shifts(_as_vector(x), relation):
                key: Hashable = y if isinstance(x, tuple) else y[0]
                if key in index:
                    yield x, key
        return
    for x in inputs:
        for y in inputs:
            if relation.related(x, y):
                yield x, y


def _shifts(
    x: tuple[int | float, ...], relation: EveryQuery | OneQuery
) -> Iterator[tuple[int | float, ...]]:
    """Vectors related to x, generated directly instead of testing all pairs."""
    d = relation.delta
    if isinstance(relation, OneQuery):
        for i, v in enumerate(x):
            for step in range(-d, d + 1):
                if step:
                    yield (*x[:i], v + step, *x[i + 1 :])
        return

    for steps in itertools.product(range(-d, d + 1), repeat=len(x)):
        if any(steps):
            yield tuple(v + s for v, s in zip(x, steps, strict=True))


def parse_neighbours(text: str) -> NeighbourRelation:
    """Read ``every-query``, ``every-query:2``, ``one-query``, ``one-query:1``, ``add-remove``."""
    name, _, arg = text.strip().partition(":")
    try:
        delta = int(arg) if arg else 1
    except ValueError:
        raise SpecError(
            f"bad Δ in neighbour relation {text!r}", fix="write e.g. every-query:2"
        ) from None
    if delta < 1:
        raise SpecError(f"Δ must be at least 1 in {text!r}", fix="write e.g. every-query:1")
    if name in {"every-query", "every"}:
        return EveryQuery(delta)
    if name in {"one-query", "one"}:
        return OneQuery(delta)
    if name in {"add-remove", "addremove"}:
        return AddRemove()
    raise SpecError(
        f"unknown neighbour relation {text!r}",
        fix="choose every-query[:Δ], one-query[:Δ] or add-remove",
    )
