"""A path's probability in closed form: its constraint forest integrated leaf to root.

The constraints of the programs this engine decides compare one noise
variable with a number (``Xᵢ ≥ c``) or two noise variables with equal and
opposite coefficients (``Xᵢ − Xⱼ ≥ c``: a noisy query against a noisy
threshold or against the best noisy query so far).  Their graph (variables
as nodes, compared pairs as edges) is a forest for Noisy Max, the sparse
vector family and the histogram; then the probability of the path factors
along each tree: a leaf l with parent p contributes
``G(x_p) = H_l(x_p + hi) − H_l(x_p + lo)``, where H_l is the cumulative of
l's density times its own factors and (lo, hi) bounds x_l − x_p.  Every step
is exact (:mod:`.exppoly`), so the result is the exact probability.
Constraints of other shapes (sums of noise, unequal coefficients, cycles,
Gaussian noise) raise :class:`Unsupported`, which the engine reports as
"unknown" with the reason.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from faier.engines.certified.exppoly import ZERO, ExpSum, Piecewise, density, piece_limit
from faier.engines.certified.symbolic import Constraint
from faier.errors import Unanswerable
from faier.mechanisms.continuous import Continuous


class Unsupported(Unanswerable):
    """A path whose probability has no closed form here (the reason is the message)."""


@dataclass
class _Bounds:
    """An open interval (low, high); None is unbounded."""

    low: Fraction | None = None
    high: Fraction | None = None

    def tighten(self, low: Fraction | None = None, high: Fraction | None = None) -> None:
        if low is not None and (self.low is None or low > self.low):
            self.low = low
        if high is not None and (self.high is None or high < self.high):
            self.high = high


@dataclass
class Forest:
    """A path's comparisons as bounds: on single variables, and on differences (edges)."""

    unary: dict[int, _Bounds] = field(default_factory=dict)
    edges: dict[tuple[int, int], _Bounds] = field(default_factory=dict)
    """(i, j) with i < j: bounds on x_i − x_j."""


def comparison_forest(constraints: Sequence[Constraint]) -> Forest:
    """Each constraint as a bound on one variable or on a difference x_i − x_j (the
    shapes the Laplace forests and the Gaussian stars integrate); other shapes raise."""
    forest = Forest()
    for c in constraints:
        if len(c.coefficients) == 1:
            ((var, a),) = c.coefficients
            box = forest.unary.setdefault(var, _Bounds())
        elif len(c.coefficients) != 2:
            raise Unsupported(f"a comparison involves {len(c.coefficients)} noise variables")
        else:
            (i, a), (j, b) = c.coefficients
            if a != -b:
                raise Unsupported(
                    f"a comparison {a}·X{i} + {b}·X{j} + {c.constant} ≥ 0 is not a difference "
                    "of noise"
                )
            box = forest.edges.setdefault((i, j), _Bounds())  # a·(x_i − x_j) + c ≥ 0
        bound = -c.constant / a
        if a > 0:
            box.tighten(low=bound)
        else:
            box.tighten(high=bound)
    return forest


def _factor_of_child(cumulative: Piecewise, total: ExpSum, box: _Bounds) -> Piecewise:
    """G(x) = H(x + hi) − H(x + lo), the child's mass given its parent's value x."""
    upper = _constant_of(total) if box.high is None else cumulative.shift(box.high)
    lower = Piecewise.constant(Fraction(0)) if box.low is None else cumulative.shift(box.low)
    return upper.minus(lower)


def _constant_of(value: ExpSum) -> Piecewise:
    piece = {(0, ZERO, r): q for r, q in value.terms}
    return Piecewise((), (piece,))


def _prepared(
    constraints: Sequence[Constraint],
) -> tuple[Forest, dict[int, list[tuple[int, _Bounds, int]]]] | None:
    """The constraint forest and its adjacency; None when some bound is empty (probability 0)."""
    forest = comparison_forest(constraints)
    for box in (*forest.edges.values(), *forest.unary.values()):
        if box.low is not None and box.high is not None and box.low >= box.high:
            return None
    neighbours: dict[int, list[tuple[int, _Bounds, int]]] = {}
    for (i, j), box in forest.edges.items():
        neighbours.setdefault(i, []).append((j, box, 1))
        neighbours.setdefault(j, []).append((i, box, -1))
    return forest, neighbours


def probability(noise: Sequence[Continuous], constraints: Sequence[Constraint]) -> ExpSum:
    """The exact probability that every constraint holds, the noise drawn independently."""
    prepared = _prepared(constraints)
    if prepared is None:
        return ExpSum(())
    forest, neighbours = prepared
    involved = sorted(set(forest.unary) | set(neighbours))
    result = ExpSum.rational(1)
    seen: set[int] = set()
    for root in involved:
        if root in seen:
            continue
        total = _tree_total(root, noise, forest, neighbours, seen)
        result = result * total
        if result.is_zero:
            return result
    return result


def joint_density(
    noise: Sequence[Continuous], constraints: Sequence[Constraint], variable: int
) -> Piecewise:
    """t ↦ density of X_variable at t times Pr[every constraint | X_variable = t], exactly.

    The output density of a path that releases X_variable (plus a constant):
    the forest is rooted at that variable and its root is not integrated.
    """
    prepared = _prepared(constraints)
    if prepared is None:
        return Piecewise((), ({},))
    forest, neighbours = prepared
    seen: set[int] = set()
    h, _ = _node_function(variable, None, noise, forest, neighbours, seen)
    rest = ExpSum.rational(1)
    for root in sorted(set(forest.unary) | set(neighbours)):
        if root not in seen:
            rest = rest * _tree_total(root, noise, forest, neighbours, seen)
    if rest == ExpSum.rational(1):
        return h
    return h.combine(_constant_of(rest))


_NODES: dict[Hashable, Piecewise] = {}
_FACTORS: dict[Hashable, Piecewise] = {}
_PREFIXES: dict[Hashable, Piecewise] = {}
"""A node's density times its first k child factors, by structure: sibling paths (a
sparse vector's queries above or below one threshold) share all but the last factors."""
CACHE_LIMIT = 100_000
"""Subtree functions and child factors are shared between paths and inputs (keyed by
their structure: distributions and bounds), since Noisy Max's paths repeat sub-chains."""


def _remember(cache: dict[Hashable, Piecewise], key: Hashable, value: Piecewise) -> Piecewise:
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


def _node_function(
    node: int,
    parent: int | None,
    noise: Sequence[Continuous],
    forest: Forest,
    neighbours: dict[int, list[tuple[int, _Bounds, int]]],
    seen: set[int],
) -> tuple[Piecewise, Hashable]:
    """The node's density × its own bounds × every child's mass given the node's value,
    and a key naming that function by its structure."""
    seen.add(node)
    dist = noise[node]
    if dist.kind not in ("laplace", "exponential"):
        raise Unsupported(f"{dist.describe()} noise has no closed form (Laplace, exponential)")
    box = forest.unary.get(node)
    children: list[tuple[Hashable, _Bounds, Piecewise]] = []
    for child, edge, orientation in neighbours.get(node, []):
        if child == parent:
            continue
        if child in seen:
            raise Unsupported("the comparisons between noise variables form a cycle")
        child_h, child_key = _node_function(child, node, noise, forest, neighbours, seen)
        # bounds on x_child − x_node: the edge holds bounds on x_i − x_j with (i, j) = key
        if orientation == 1:  # key (node, child): bounds on x_node − x_child
            child_box = _Bounds(
                None if edge.high is None else -edge.high,
                None if edge.low is None else -edge.low,
            )
        else:
            child_box = edge
        children.append((child_key, child_box, child_h))
    key = (
        dist,
        None if box is None else (box.low, box.high),
        tuple((k, b.low, b.high) for k, b, _ in children),
    )
    cached = _NODES.get(key)
    if cached is not None:
        return cached, key
    prefix: Hashable = (dist, key[1])
    h = _PREFIXES.get(prefix)
    if h is None:
        h = density(dist.kind, dist.loc, dist.scale)
        if box is not None:
            h = h.combine(Piecewise.indicator(box.low, box.high))
        _remember(_PREFIXES, prefix, h)
    for child_key, child_box, child_h in children:
        factor_key = (child_key, child_box.low, child_box.high)
        prefix = (prefix, factor_key)
        known = _PREFIXES.get(prefix)
        if known is not None:
            h = known
        else:
            factor = _FACTORS.get(factor_key)
            if factor is None:
                cumulative = child_h.cumulative()
                total = piece_limit(cumulative.pieces[-1], 1)
                factor = _factor_of_child(cumulative, total, child_box)
                _remember(_FACTORS, factor_key, factor)
            h = _remember(_PREFIXES, prefix, h.combine(factor))
        if h.is_zero():
            break
    return _remember(_NODES, key, h), key


def _tree_total(
    root: int,
    noise: Sequence[Continuous],
    forest: Forest,
    neighbours: dict[int, list[tuple[int, _Bounds, int]]],
    seen: set[int],
) -> ExpSum:
    h, _ = _node_function(root, None, noise, forest, neighbours, seen)
    if h.is_zero():
        return ExpSum(())
    return h.total()
