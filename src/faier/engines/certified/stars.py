"""Stars: a path's comparisons of noise as one-dimensional integrals, and argmax merged.

A path's constraints compare one noise variable with a number or two with
opposite coefficients.  Where every connected part of that comparison graph
is a *star* (a tree whose centre is compared with each of its leaves: a
noisy threshold and the noisy queries), the path's probability is one
integral over the centre of its density times each leaf's mass given the
centre (:mod:`.gaussian` integrates it).

Noisy Max's paths are chains (each noisy value against the best so far),
not stars, but the union of the paths of one output is: the merge, and its
proof, is :func:`.argmax.output_stars` (shared with the Laplace tables), and
:func:`argmax_stars` reads each output's star {X_c − X_j ≥ d_j} as a centre
with one upper bound per leaf.  Other shapes raise
:class:`~.integrate.Unsupported`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from faier.engines.certified import argmax
from faier.engines.certified.integrate import Unsupported, comparison_forest
from faier.engines.certified.symbolic import Constraint, Path
from faier.mechanisms.continuous import Continuous

Bound = Fraction | None
"""An open bound; None is unbounded."""


# ---------------------------------------------------------------- constraint graphs


@dataclass
class _Graph:
    unary: dict[int, list[Bound]]
    """v → [low, high]: bounds on X_v."""
    edges: dict[tuple[int, int], list[Bound]]
    """(i, j), i < j → [low, high]: bounds on X_i − X_j."""


def comparison_graph(constraints: Sequence[Constraint]) -> _Graph:
    """The path's bounds (:func:`.integrate.comparison_forest`) as [low, high] lists."""
    forest = comparison_forest(constraints)
    return _Graph(
        {v: [box.low, box.high] for v, box in forest.unary.items()},
        {edge: [box.low, box.high] for edge, box in forest.edges.items()},
    )


def empty(box: list[Bound]) -> bool:
    return box[0] is not None and box[1] is not None and box[0] >= box[1]


@dataclass(frozen=True)
class Leaf:
    """A leaf X_l of a star: its noise, bounds (lo, hi) on X_l − X_c and (a, b) on X_l."""

    noise: Continuous
    lo: Bound
    hi: Bound
    a: Bound
    b: Bound


@dataclass(frozen=True)
class Star:
    """A centre X_c with its box (low, high) and its leaves; the integral is over X_c."""

    noise: Continuous
    low: Bound
    high: Bound
    leaves: tuple[Leaf, ...]

    def normalised(self) -> Star:
        """The same probability with the centre's mean moved to 0 and leaves sorted (memo key)."""
        m = self.noise.loc

        def move(x: Bound) -> Bound:
            return None if x is None else x - m

        leaves = sorted(
            (
                Leaf(
                    replace(leaf.noise, loc=leaf.noise.loc - m),
                    leaf.lo,
                    leaf.hi,
                    move(leaf.a),
                    move(leaf.b),
                )
                for leaf in self.leaves
            ),
            key=repr,
        )
        return Star(
            replace(self.noise, loc=Fraction(0)), move(self.low), move(self.high), tuple(leaves)
        )


def _components(graph: _Graph, variables: set[int]) -> list[list[int]]:
    parent = {v: v for v in variables}

    def root(v: int) -> int:
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for i, j in graph.edges:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for v in sorted(variables):
        groups.setdefault(root(v), []).append(v)
    return list(groups.values())


def path_stars(noise: Sequence[Continuous], graph: _Graph) -> list[Star] | None:
    """The path's constraint graph as stars (one per connected part), or None if some part
    is not a star."""
    variables = set(graph.unary) | {v for e in graph.edges for v in e}
    stars = []
    for part in _components(graph, variables):
        neighbours: dict[int, set[int]] = {v: set() for v in part}
        for i, j in graph.edges:
            if i in neighbours:
                neighbours[i].add(j)
                neighbours[j].add(i)
        edges = sum(len(n) for n in neighbours.values()) // 2
        centres = [v for v in part if len(neighbours[v]) == len(part) - 1]
        if not centres or edges != len(part) - 1:  # a star is a tree with a centre
            return None
        centre = centres[0]
        low, high = graph.unary.get(centre, [None, None])
        leaves = []
        for leaf in part:
            if leaf == centre:
                continue
            if (leaf, centre) in graph.edges:
                lo, hi = graph.edges[(leaf, centre)]
            else:
                lo_c, hi_c = graph.edges[(centre, leaf)]
                lo, hi = (None if hi_c is None else -hi_c), (None if lo_c is None else -lo_c)
            a, b = graph.unary.get(leaf, [None, None])
            leaves.append(Leaf(noise[leaf], lo, hi, a, b))
        stars.append(Star(noise[centre], low, high, tuple(leaves)))
    return stars


# ---------------------------------------------------------------- argmax: stars per output


def argmax_stars(run: Sequence[Path]) -> dict[Hashable, Star]:
    """Output → the star that is the union of its paths (:func:`.argmax.output_stars`, the
    one merge Laplace and Gaussian tables share), or raise."""
    found = argmax.output_stars(run)
    if isinstance(found, str):
        raise Unsupported(
            "a path's comparisons form chains rather than stars, and the paths of each output "
            f"do not add up to one star (not an argmax shape): {found}"
        )
    noise = run[0].noise
    return {
        output: Star(
            noise[c],
            None,
            None,
            tuple(Leaf(noise[j], None, -d[j], None, None) for j in range(len(noise)) if j != c),
        )
        for output, (c, d) in found.items()
    }
