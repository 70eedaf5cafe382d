"""Two noisy integers compared in their tails: difference constraints summed by a forest DP.

When a path compares K_i − K_j with a number (a noisy count against the best
so far, both in their tails), the path carries the bounds L ≤ K_i − K_j ≤ U
as an *edge*.  Its probability is the sum over the integer points that meet
every edge and every variable's interval, of the product of the variables'
weights.  Edges forming a forest (checked when one is added; a cycle leaves
the path bounded only), the sum factors along each tree as the continuous
engine's integrals do (:mod:`.integrate`), with sums for integrals:
F_v(k) = w_v(k)·Π_children Σ_{k′ ∈ [k + lo, k + hi]} F_c(k′), each inner sum
read off prefix sums.

Before summing, the bounds are propagated along the edges (lo_i ≥ lo_j + L,
hi_i ≤ hi_j + U and back, to a fixpoint: complete for trees of difference
constraints), so an infeasible path is found exactly and has probability 0.
A variable whose interval is still a half-line is summed over its first D
values, D chosen so that its mass beyond lies below 2^(−bits) of the scale
of the sum, and the mass beyond (certified, :mod:`.lattice`) is added as
[0, Σ of them]: the omitted points each have some variable beyond its
truncation, so their probability is at most that sum.
"""

from __future__ import annotations

import bisect
import math
from functools import cache
from typing import Any, Protocol

from faier.engines.certified import lattice
from faier.mechanisms.discrete_noise import DiscreteNoise

Bounds = list[int | None]
"""[low, high] of a difference K_i − K_j (None: unbounded)."""
LIMIT = 4096
"""The most values of one variable summed term by term."""


class Variable(Protocol):
    dist: DiscreteNoise
    low: int | None
    high: int | None


def tighter_low(a: int | None, b: int | None) -> int | None:
    """The tighter of two lower bounds (None: unbounded below)."""
    return b if a is None else a if b is None else max(a, b)


def tighter_high(a: int | None, b: int | None) -> int | None:
    """The tighter of two upper bounds (None: unbounded above)."""
    return b if a is None else a if b is None else min(a, b)


def bound_plus(a: int | None, b: int | None) -> int | None:
    """The sum of two bounds (None, unbounded, when either is)."""
    return None if a is None or b is None else a + b


def bound_minus(a: int | None, b: int | None) -> int | None:
    """One bound minus another (None, unbounded, when either is)."""
    return None if a is None or b is None else a - b


def propagate(variables: list[Any], edges: dict[tuple[int, int], Bounds]) -> bool:
    """Tighten the intervals along the edges to a fixpoint; False when they are infeasible."""
    for _ in range(2 * len(variables) + 2):
        changed = False
        for (i, j), (low, high) in edges.items():
            vi, vj = variables[i], variables[j]
            updates = (
                (vi, "low", tighter_low(vi.low, bound_plus(vj.low, low))),
                (vi, "high", tighter_high(vi.high, bound_plus(vj.high, high))),
                (vj, "low", tighter_low(vj.low, bound_minus(vi.low, high))),
                (vj, "high", tighter_high(vj.high, bound_minus(vi.high, low))),
            )
            for variable, side, value in updates:
                if value != getattr(variable, side):
                    setattr(variable, side, value)
                    changed = True
        if any(v.low is not None and v.high is not None and v.low > v.high for v in variables):
            return False
        if not changed:
            return True
    return True


def _depth(dist: DiscreteNoise, bits: int) -> int:
    """How many values from a half-line's end leave less than 2^(−bits) of its mass beyond."""
    scale = float(dist.scale)
    if dist.kind == "discrete_laplace":
        return min(LIMIT, math.ceil(bits * math.log(2) * scale) + 2)
    return min(LIMIT, math.ceil(scale * math.sqrt(2 * bits * math.log(2))) + 2)


def _values(variable: Any, bits: int) -> tuple[list[int], Any]:
    """The values summed for one variable and a ball holding the mass left out ([0, it])."""
    import flint

    low, high, dist = variable.low, variable.high, variable.dist
    if low is not None and high is not None and high - low < LIMIT:
        return list(range(low, high + 1)), flint.arb(0)
    depth = _depth(dist, bits)
    if low is not None:
        cut = low + depth
        return list(range(low, cut)), lattice.mass(dist, cut, high, bits)
    assert high is not None
    cut = high - depth
    return list(range(cut + 1, high + 1)), lattice.mass(dist, low, cut, bits)


@cache
def _weights(dist: DiscreteNoise, first: int, count: int, bits: int) -> tuple[Any, ...]:
    """Pr[K = k] for k = first, …, first + count − 1 (one cache entry per run of values)."""
    return tuple(lattice.point(dist, k, bits) for k in range(first, first + count))


def joint_mass(variables: list[Any], edges: dict[tuple[int, int], Bounds], bits: int) -> Any:
    """Pr[every variable in its interval and every edge met], the variables independent.

    Only the variables on edges are summed here; ``variables`` holds every tail
    variable of the path (already propagated).  Returns an arb ball.
    """
    import flint

    involved = sorted({v for edge in edges for v in edge})
    neighbours: dict[int, list[tuple[int, int | None, int | None]]] = {v: [] for v in involved}
    for (i, j), (low, high) in edges.items():
        # K_j ∈ [K_i − high, K_i − low]; K_i ∈ [K_j + low, K_j + high]
        neighbours[i].append((j, None if high is None else -high, None if low is None else -low))
        neighbours[j].append((i, low, high))
    values: dict[int, list[int]] = {}
    left_out = flint.arb(0)
    for v in involved:
        values[v], rest = _values(variables[v], bits)
        left_out += flint.arb(rest.upper())
    total = flint.arb(1)
    seen: set[int] = set()
    for root in involved:
        if root in seen:
            continue
        f = _node(root, None, variables, neighbours, values, seen, bits)
        part = flint.arb(0)
        for x in f:
            part += x
        total *= part
    return total.union(total + left_out)


def _node(
    node: int,
    parent: int | None,
    variables: list[Any],
    neighbours: dict[int, list[tuple[int, int | None, int | None]]],
    values: dict[int, list[int]],
    seen: set[int],
    bits: int,
) -> list[Any]:
    """F_node over ``values[node]``: its weight times every child's admissible mass."""
    import flint

    seen.add(node)
    ks = values[node]
    f = list(_weights(variables[node].dist, ks[0], len(ks), bits)) if ks else []
    for child, low, high in neighbours[node]:
        if child == parent:
            continue
        g = _node(child, node, variables, neighbours, values, seen, bits)
        ks = values[child]
        prefix = [flint.arb(0)]
        for x in g:
            prefix.append(prefix[-1] + x)
        for index, k in enumerate(values[node]):
            first = 0 if low is None else bisect.bisect_left(ks, k + low)
            last = len(ks) if high is None else bisect.bisect_right(ks, k + high)
            f[index] = f[index] * (prefix[last] - prefix[first]) if last > first else flint.arb(0)
    return f
