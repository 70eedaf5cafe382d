"""Stars: a path's comparisons of noise as one-dimensional integrals, and argmax merged.

A path's constraints compare one noise variable with a number or two with
opposite coefficients.  Where every connected part of that comparison graph
is a *star* (a tree whose centre is compared with each of its leaves: a
noisy threshold and the noisy queries), the path's probability is one
integral over the centre of its density times each leaf's mass given the
centre (:mod:`.gaussian` integrates it).

Noisy Max's paths are chains (each noisy value against the best so far),
not stars, but the union of the paths of one output is: the paths'
difference constraints are closed (longest paths, as for difference
bounds), every path of output k then implies X_k + q_k ≥ X_j + q_j for all
j, and when these per-output stars are pairwise disjoint up to measure zero
(a cycle of non-negative weight in the union of two stars) and the paths
partition the noise space (no finite draws), each output's probability is
its star's integral.  Other shapes raise :class:`~.integrate.Unsupported`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from faier.engines.certified.integrate import Unsupported
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


def _tighten(box: list[Bound], low: Bound, high: Bound) -> None:
    if low is not None and (box[0] is None or low > box[0]):
        box[0] = low
    if high is not None and (box[1] is None or high < box[1]):
        box[1] = high


def comparison_graph(constraints: Sequence[Constraint]) -> _Graph:
    graph = _Graph({}, {})
    for c in constraints:
        if len(c.coefficients) == 1:
            ((v, a),) = c.coefficients
            bound = -c.constant / a
            box = graph.unary.setdefault(v, [None, None])
            _tighten(box, bound, None) if a > 0 else _tighten(box, None, bound)
            continue
        if len(c.coefficients) != 2:
            raise Unsupported(f"a comparison involves {len(c.coefficients)} noise variables")
        (i, a), (j, b) = c.coefficients
        if a != -b:
            raise Unsupported(
                f"a comparison {a}·X{i} + {b}·X{j} + {c.constant} ≥ 0 is not a difference of noise"
            )
        bound = -c.constant / a
        box = graph.edges.setdefault((i, j), [None, None])
        _tighten(box, bound, None) if a > 0 else _tighten(box, None, bound)
    return graph


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


def _closure(size: int, bounds: dict[tuple[int, int], Fraction]) -> list[list[Fraction | None]]:
    """Longest-path closure: d[a][b] is the best implied lower bound on x_a − x_b."""
    d: list[list[Fraction | None]] = [[None] * size for _ in range(size)]
    for a in range(size):
        d[a][a] = Fraction(0)
    for (a, b), value in bounds.items():
        current = d[a][b]
        if current is None or value > current:
            d[a][b] = value
    for m in range(size):
        row_m = d[m]
        for a in range(size):
            dam = d[a][m]
            if dam is None:
                continue
            row_a = d[a]
            for b in range(size):
                dmb = row_m[b]
                if dmb is not None and (row_a[b] is None or dam + dmb > row_a[b]):  # type: ignore[operator]
                    row_a[b] = dam + dmb
    return d


def _difference_bounds(
    constraints: Sequence[Constraint], zero: int
) -> dict[tuple[int, int], Fraction]:
    """Each constraint as x_a − x_b ≥ value (the node ``zero`` stands for the constant 0)."""
    bounds: dict[tuple[int, int], Fraction] = {}

    def add(a: int, b: int, value: Fraction) -> None:
        if (a, b) not in bounds or value > bounds[(a, b)]:
            bounds[(a, b)] = value

    graph = comparison_graph(constraints)
    for v, (low, high) in graph.unary.items():
        if low is not None:
            add(v, zero, low)
        if high is not None:
            add(zero, v, -high)
    for (i, j), (low, high) in graph.edges.items():
        if low is not None:
            add(i, j, low)
        if high is not None:
            add(j, i, -high)
    return bounds


@dataclass(frozen=True)
class _OutputStar:
    centre: int
    bounds: dict[tuple[int, int], Fraction]
    """The star's constraints x_a − x_b ≥ value (each involves the centre or a unary bound)."""


def _star_of_path(size: int, constraints: Sequence[Constraint]) -> _OutputStar | None:
    zero = size
    d = _closure(size + 1, _difference_bounds(constraints, zero))
    centres = [c for c in range(size) if all(d[c][j] is not None for j in range(size))]
    if not centres:
        return None
    c = centres[0]
    kept: dict[tuple[int, int], Fraction] = {}
    for a in range(size + 1):
        for b in range(size + 1):
            value = d[a][b]
            if a != b and value is not None and (c in (a, b) or zero in (a, b)):
                kept[(a, b)] = value
    return _OutputStar(c, kept)


def _loosest(stars: Sequence[_OutputStar]) -> _OutputStar | None:
    """The star implied by every path of one output (None: their centres differ)."""
    if len({s.centre for s in stars}) != 1:
        return None
    common = set(stars[0].bounds)
    for s in stars[1:]:
        common &= set(s.bounds)
    return _OutputStar(stars[0].centre, {k: min(s.bounds[k] for s in stars) for k in common})


def _null_intersection(size: int, first: _OutputStar, second: _OutputStar) -> bool:
    """Whether two stars meet in a set of measure zero (a non-negative cycle in their union)."""
    bounds = dict(first.bounds)
    for k, v in second.bounds.items():
        bounds[k] = max(v, bounds.get(k, v))
    d = _closure(size + 1, bounds)
    for a in range(size + 1):
        for b in range(a + 1, size + 1):
            dab, dba = d[a][b], d[b][a]
            if dab is not None and dba is not None and dab + dba >= 0:
                return True
    return False


def _as_star(noise: Sequence[Continuous], star: _OutputStar) -> Star:
    size = len(noise)
    zero = size
    c = star.centre
    low = star.bounds.get((c, zero))
    high_neg = star.bounds.get((zero, c))
    leaves = []
    for j in range(size):
        if j == c:
            continue
        above = star.bounds.get((j, c))  # x_j − x_c ≥ above
        below = star.bounds.get((c, j))  # x_c − x_j ≥ below, so x_j − x_c ≤ −below
        a = star.bounds.get((j, zero))
        b_neg = star.bounds.get((zero, j))
        leaves.append(
            Leaf(
                noise[j],
                above,
                None if below is None else -below,
                a,
                None if b_neg is None else -b_neg,
            )
        )
    return Star(noise[c], low, None if high_neg is None else -high_neg, tuple(leaves))


def argmax_stars(run: Sequence[Path]) -> dict[Hashable, Star]:
    """Output → the star that is the union of its paths (see the module's note), or raise."""
    reason = (
        "a path's comparisons form chains rather than stars, and the paths of each output "
        "do not add up to one star (not an argmax shape)"
    )
    if any(path.weight != 1 for path in run) or len({path.noise for path in run}) != 1:
        raise Unsupported(reason + "; the paths draw differently")
    noise = run[0].noise
    size = len(noise)
    per_output: dict[Hashable, list[_OutputStar]] = {}
    for path in run:
        star = _star_of_path(size, path.constraints)
        if star is None:
            raise Unsupported(reason)
        per_output.setdefault(path.output, []).append(star)
    merged: dict[Hashable, _OutputStar] = {}
    for output, stars in per_output.items():
        loosest = _loosest(stars)
        if loosest is None:
            raise Unsupported(reason)
        merged[output] = loosest
    found = list(merged.values())
    for k, first in enumerate(found):
        for second in found[k + 1 :]:
            if not _null_intersection(size, first, second):
                raise Unsupported(reason + "; two outputs' stars overlap")
    return {o: _as_star(noise, s) for o, s in merged.items()}
