"""The largest cost of a walk in a loop's cost graph, or the costly edges on a cycle.

With a horizon, only walks of at most that many iterations count (runs on at most that
many queries): their largest cost is finite even when a costly edge lies on a cycle.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

Edge = tuple[Hashable, Hashable | None, int, Fraction]
"""(from, to or None when the run stops, iteration path, the query's change Δ)."""


def walks(
    edges: list[Edge], weights: list[Fraction], start: Hashable, horizon: int | None = None
) -> tuple[Fraction | None, list[int]]:
    """The largest weight of a walk from ``start``, with its edges; None with the costly
    edges that lie on a cycle (a walk can repeat them: the cost grows with n).  With a
    ``horizon``, the largest over walks of at most that many iterations (never None)."""
    if horizon is not None:
        return bounded(edges, weights, start, horizon)
    succ: dict[Hashable, set[Hashable]] = {}
    for a, b, _, _ in edges:
        if b is not None:
            succ.setdefault(a, set()).add(b)

    def reachable(a: Hashable) -> set[Hashable]:
        seen: set[Hashable] = set()
        todo = list(succ.get(a, ()))
        while todo:
            t = todo.pop()
            if t not in seen:
                seen.add(t)
                todo.extend(succ.get(t, ()))
        return seen

    live = reachable(start) | {start}
    cyclic = [
        e
        for e, (a, b, _, _) in enumerate(edges)
        if weights[e] > 0 and a in live and b is not None and a in reachable(b)
    ]
    if cyclic:
        return None, cyclic
    best: dict[Hashable, Fraction] = {start: Fraction(0)}
    via: dict[Hashable, list[int]] = {start: []}
    top, worst = Fraction(0), []
    for _ in range(len(live) + 1):
        changed = False
        for e, (a, b, _, _) in enumerate(edges):
            if a not in best:
                continue
            value = best[a] + weights[e]
            if value > top:
                top, worst = value, [*via[a], e]
            if b is not None and (b not in best or value > best[b]):
                best[b], via[b] = value, [*via[a], e]
                changed = True
        if not changed:
            break
    return top, worst


def bounded(
    edges: list[Edge], weights: list[Fraction], start: Hashable, horizon: int
) -> tuple[Fraction, list[int]]:
    """The largest weight of a walk from ``start`` of at most ``horizon`` iterations (edges
    into a state), then at most one edge that ends the run, with its edges."""
    layer: dict[Hashable, tuple[Fraction, list[int]]] = {start: (Fraction(0), [])}
    top, worst = Fraction(0), []
    for k in range(horizon + 1):
        following: dict[Hashable, tuple[Fraction, list[int]]] = {}
        for value, walk in layer.values():
            if value > top:
                top, worst = value, walk
        for e, (a, b, _, _) in enumerate(edges):
            if a not in layer:
                continue
            value = layer[a][0] + weights[e]
            if b is None:
                if value > top:
                    top, worst = value, [*layer[a][1], e]
            elif k < horizon and (b not in following or value > following[b][0]):
                following[b] = (value, [*layer[a][1], e])
        layer = following
    return top, worst


def first_beyond(
    edges: list[Edge],
    weights: list[Fraction],
    start: Hashable,
    base: Fraction,
    limit: Fraction,
    longest: int,
) -> int | None:
    """The fewest iterations at which ``base`` plus the largest walk weight exceeds
    ``limit`` (at most ``longest``; None if it never does up to there)."""
    layer: dict[Hashable, Fraction] = {start: Fraction(0)}
    top = Fraction(0)
    for k in range(longest + 1):
        following: dict[Hashable, Fraction] = {}
        for e, (a, b, _, _) in enumerate(edges):
            if a not in layer:
                continue
            value = layer[a] + weights[e]
            if b is None:
                top = max(top, value)
            elif b not in following or value > following[b]:
                following[b] = value
        top = max([top, *layer.values()])
        if base + top > limit:
            return k
        layer = following
    return None
