"""What both adapters share: the neighbour setting, the query in front, the batching."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from faier.errors import SpecError
from faier.mechanisms.sampled import Sampled
from faier.privacy.neighbours import EveryQuery, OneQuery, parse_neighbours

Query = Callable[[list[Any]], Any]
"""Maps the data (a list of query answers) to the value the library mechanism takes."""

Runner = Callable[[list[Any], np.random.Generator], Callable[[], Any]]
"""Given one input and faier's generator, a function that runs the library once."""


def whole_sensitivity(value: float, where: str) -> int:
    """A library's sensitivity as the Δ of faier's neighbour relations (a whole number)."""
    if not math.isfinite(value) or value <= 0 or float(value) != int(value):
        raise SpecError(
            f"sensitivity {value:g} is not a whole number ≥ 1",
            where=where,
            fix="faier's neighbours move query answers by a whole Δ; pass neighbours= "
            "and a query= that maps whole-number data to the library's input",
        )
    return int(value)


def relation(neighbours: str | None, kind: str, delta: int) -> tuple[str, int]:
    """(kind, Δ) of the neighbours: the given text, else the library's own."""
    if neighbours is None:
        return kind, delta
    parsed = parse_neighbours(neighbours)
    if not isinstance(parsed, EveryQuery | OneQuery):
        raise SpecError(
            "the tester runs on query-answer vectors", where="neighbours", fix="every-query[:Δ]"
        )
    return ("every-query" if isinstance(parsed, EveryQuery) else "one-query"), parsed.delta


def batched(
    name: str,
    runner: Runner,
    *,
    neighbours: tuple[str, int],
    stated: float,
    lengths: tuple[int, ...] | None,
    doc: str,
    query: Query | None,
) -> Sampled:
    """A :class:`Sampled` mechanism that runs the library n times per batch."""

    def sample(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> list[Any]:
        data = list(queries.tolist())
        value = query(data) if query is not None else data
        run = runner(value if isinstance(value, list) else [value], rng)
        return [run() for _ in range(n)]

    return Sampled(
        name,
        vectorised=sample,
        neighbours=neighbours[0],
        sensitivity=neighbours[1],
        doc=doc,
        stated_epsilon=stated,
        lengths=lengths,
    )


def plain(value: Any) -> Any:
    """A library's output as plain Python (numpy scalars and arrays unpacked)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


def lengths_or(lengths: Sequence[int] | None, default: tuple[int, ...] | None) -> Any:
    return tuple(lengths) if lengths is not None else default
