"""The largest cost of a walk in a loop's cost graph, or the costly edges on a cycle."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

Edge = tuple[Hashable, Hashable | None, int, Fraction]
"""(from, to or None when the run stops, iteration path, the query's change Δ)."""


def walks(
    edges: list[Edge], weights: list[Fraction], start: Hashable
) -> tuple[Fraction | None, list[int]]:
    """The largest weight of a walk from ``start``, with its edges; None with the costly
    edges that lie on a cycle (a walk can repeat them: the cost grows with n)."""
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
