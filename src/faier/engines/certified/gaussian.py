"""Gaussian noise: each output's probability as a certified ball, and the Gaussian mechanism.

A Gaussian path probability has no closed form in elementary functions, but
for the StatDP shapes it is a one-dimensional integral.  A path's
constraints compare one noise variable with a number or two with opposite
coefficients; where every connected part of that constraint graph is a
*star* (a centre compared with each of its leaves: a noisy threshold and
the noisy queries) the probability is

    ∫ φ_c(t) · 1[t in the centre's box] · Π_leaves Pr[lo_l < X_l − t < hi_l, a_l < X_l < b_l] dt,

each leaf factor a difference of normal CDFs Φ (arb's ``erfc``).  The
integrand is entire on each piece between the breakpoints where a leaf's
bounds switch, so python-flint's ``acb.integral`` (FLINT's rigorous
Gauss–Legendre integration) encloses it; the centre's domain is truncated
at ±K·σ with the tails' mass (at most that of φ_c, since every factor is
≤ 1) added as a certified [0, tail] ball.  Laplace and exponential noise
beside Gaussian noise are integrated the same way, their kinks (the
location, where a moving bound crosses a leaf's location) added as
breakpoints.

Noisy Max's paths are chains (each noisy value against the best so far),
not stars, but the union of the paths of one output is: the paths'
difference constraints are closed (longest paths, as for difference
bounds), every path of output k then implies X_k + q_k ≥ X_j + q_j for all
j, and when these per-output stars are pairwise disjoint up to measure zero
(a cycle of non-negative weight in the union of two stars) and the paths
partition the noise space (no finite draws), each output's probability is
its star's integral.  Every input's balls must then sum to a ball holding 1.

A released number with Gaussian noise and no branch (the Gaussian
histogram) has no finite pure ε (its log density ratio is linear and
unbounded); its δ(ε) is exact: δ = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ) with
μ = ‖(c − c′)/σ‖₂ (Balle and Wang, ICML 2018, Theorem 8), enclosed with arb.

Other shapes (sums of noise, unequal coefficients, chains that are not an
argmax, branches around a released Gaussian number) raise
:class:`~.integrate.Unsupported`, reported as "unknown".
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import balls, densities, intervals
from faier.engines.certified.integrate import Unsupported
from faier.engines.certified.symbolic import Constraint, Output, Path
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict

Bound = Fraction | None
"""An open bound; None is unbounded."""


def draws_gaussian(runs: Sequence[Sequence[Path]]) -> bool:
    """Whether some path draws Gaussian noise (then this module computes the table)."""
    return any(d.kind == "gaussian" for run in runs for path in run for d in path.noise)


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


def _graph(constraints: Sequence[Constraint]) -> _Graph:
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


def _empty(box: list[Bound]) -> bool:
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


def _path_stars(noise: Sequence[Continuous], graph: _Graph) -> list[Star] | None:
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

    graph = _graph(constraints)
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


def _argmax_stars(run: Sequence[Path]) -> dict[Hashable, Star]:
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


# ---------------------------------------------------------------- certified integration


def _arb(q: Fraction) -> Any:
    import flint

    return flint.arb(int(q.numerator)) / int(q.denominator)


def _sqrt2() -> Any:
    import flint

    return flint.arb(2).sqrt()


def _cdf(noise: Continuous, y: Any, above: bool) -> Any:
    """Pr[X < y] for an arb or acb y on one side of the kink at the location (``above``:
    y ≥ loc); Gaussian noise has no kink, and erfc keeps its lower tail accurate."""
    z = (y - _arb(noise.loc)) / _arb(noise.scale)
    if noise.kind == "gaussian":
        return (-z / _sqrt2()).erfc() / 2
    if noise.kind == "laplace":
        return 1 - (-z).exp() / 2 if above else z.exp() / 2
    return 1 - (-z).exp() if above else 0 * z


def _survival(noise: Continuous, y: Any, above: bool) -> Any:
    """Pr[X > y], accurate in the upper tail."""
    z = (y - _arb(noise.loc)) / _arb(noise.scale)
    if noise.kind == "gaussian":
        return (z / _sqrt2()).erfc() / 2
    if noise.kind == "laplace":
        return (-z).exp() / 2 if above else 1 - z.exp() / 2
    return (-z).exp() if above else 1 + 0 * z


def _density(noise: Continuous, t: Any, above: bool) -> Any:
    """The density at t on one side of the location (Laplace and exponential have a kink)."""
    import flint

    sigma = _arb(noise.scale)
    w = (t - _arb(noise.loc)) / sigma
    if noise.kind == "gaussian":
        return (-(w * w) / 2).exp() / (sigma * (2 * flint.arb.pi()).sqrt())
    if noise.kind == "laplace":
        return (-w if above else w).exp() / (2 * sigma)
    return (-w).exp() / sigma if above else 0 * w


def _mass(noise: Continuous, a: Bound, b: Bound) -> Any:
    """Pr[a < X < b] as a ball."""
    import flint

    if a is not None and b is not None and a >= b:
        return flint.arb(0)
    if a is not None and a > noise.loc:
        tail = 0 if b is None else _survival(noise, _arb(b), b >= noise.loc)
        return _survival(noise, _arb(a), True) - tail
    upper = flint.arb(1) if b is None else _cdf(noise, _arb(b), b >= noise.loc)
    return upper - (0 if a is None else _cdf(noise, _arb(a), a >= noise.loc))


def _reach(noise: Continuous, bits: int) -> tuple[Fraction, Any]:
    """(R, tail): the centre's domain is cut at loc ± R, each side's cut-off mass ≤ tail,
    below 2^−(bits + 8)."""
    import flint

    if noise.kind == "gaussian":
        k = Fraction(math.ceil(math.sqrt(2 * math.log(2) * (bits + 8))) + 1)
        return k * noise.scale, (_arb(k) / _sqrt2()).erfc() / 2
    k = Fraction(math.ceil(math.log(2) * (bits + 8)) + 1)
    return k * noise.scale, (-flint.arb(int(k))).exp()


def _max(x: Bound, y: Bound) -> Bound:
    return x if y is None else y if x is None else max(x, y)


def _min(x: Bound, y: Bound) -> Bound:
    return x if y is None else y if x is None else min(x, y)


def star_probability(star: Star, bits: int) -> Any:
    """A ball containing the star's probability (the working precision is ``bits``)."""
    import flint

    mean = star.noise.loc
    reach, cut = _reach(star.noise, bits)
    floor = mean if star.noise.kind == "exponential" else mean - reach
    start = _max(star.low, floor)
    end = _min(star.high, mean + reach)
    assert start is not None and end is not None
    total = flint.arb(0)
    tail = flint.arb(0)
    if star.noise.kind != "exponential" and (star.low is None or star.low < floor):
        tail += cut
    if star.high is None or star.high > mean + reach:
        tail += cut
    if start < end:
        cuts = {start, end}
        if star.noise.kind != "gaussian" and start < mean < end:
            cuts.add(mean)
        for leaf in star.leaves:
            pairs = [(leaf.a, leaf.lo), (leaf.b, leaf.hi), (leaf.a, leaf.hi), (leaf.b, leaf.lo)]
            if leaf.noise.kind != "gaussian":
                pairs += [(leaf.noise.loc, leaf.lo), (leaf.noise.loc, leaf.hi)]
            for x, y in pairs:
                if x is not None and y is not None and start < x - y < end:
                    cuts.add(x - y)
        points = sorted(cuts)
        for u, v in itertools.pairwise(points):
            total += _segment(star, u, v)
    return total + flint.arb(0).union(tail)


@dataclass(frozen=True)
class _Factor:
    """A leaf's factor on one segment: Pr[L(t) < X_l < U(t)], each bound t + offset,
    a constant or absent, with its side of the leaf's location; ``upper`` computes it from
    the upper tail (better when L > loc)."""

    noise: Continuous
    low: Bound
    low_moves: bool
    low_above: bool
    high: Bound
    high_moves: bool
    high_above: bool
    upper: bool


def _segment(star: Star, u: Fraction, v: Fraction) -> Any:
    """∫_u^v of the star's integrand, where every leaf's bounds keep one form."""
    import flint

    middle = (u + v) / 2
    constant = flint.arb(1)
    factors: list[_Factor] = []
    for leaf in star.leaves:
        # the lower bound is max(a, t + lo), the upper min(b, t + hi): pick each at the midpoint
        low_moves = leaf.lo is not None and (leaf.a is None or middle + leaf.lo > leaf.a)
        high_moves = leaf.hi is not None and (leaf.b is None or middle + leaf.hi < leaf.b)
        low = leaf.lo if low_moves else leaf.a
        high = leaf.hi if high_moves else leaf.b
        low_at = None if low is None else middle + low if low_moves else low
        high_at = None if high is None else middle + high if high_moves else high
        if low_at is not None and high_at is not None and low_at >= high_at:
            return flint.arb(0)
        if not low_moves and not high_moves:
            constant *= _mass(leaf.noise, low, high)
            continue
        loc = leaf.noise.loc
        factors.append(
            _Factor(
                leaf.noise,
                low,
                low_moves,
                low_at is not None and low_at >= loc,
                high,
                high_moves,
                high_at is not None and high_at >= loc,
                low_at is not None and low_at > loc,
            )
        )
    return constant * _integrate(star.noise, middle >= star.noise.loc, factors, u, v)


def _bound_at(t: Any, value: Bound, moves: bool) -> Any:
    if value is None:
        return None
    return t + _arb(value) if moves else _arb(value)


def _integrate(
    centre: Continuous, above: bool, factors: Sequence[_Factor], u: Fraction, v: Fraction
) -> Any:
    """acb.integral of density_c(t)·Π factors over [u, v] (the integrand is entire there)."""
    import flint

    def integrand(t: Any, _analytic: bool) -> Any:
        value = _density(centre, t, above)
        for f in factors:
            low = _bound_at(t, f.low, f.low_moves)
            high = _bound_at(t, f.high, f.high_moves)
            if f.upper:
                tail = 0 if high is None else _survival(f.noise, high, f.high_above)
                term = _survival(f.noise, low, f.low_above) - tail
            else:
                top = 1 if high is None else _cdf(f.noise, high, f.high_above)
                term = top - (0 if low is None else _cdf(f.noise, low, f.low_above))
            value = value * term
        return value

    result = flint.acb.integral(integrand, _arb(u), _arb(v))
    real = result.real
    if not real.is_finite():
        raise Unsupported(f"the integral over [{u}, {v}] did not converge")
    return real


def _single_mass(star: Star) -> Any:
    return _mass(star.noise, star.low, star.high)


# ---------------------------------------------------------------- the probability table

Term = tuple[Fraction, tuple[Star, ...]]
"""A path's weight times the product of its stars' probabilities."""


def _has_number(output: Hashable) -> bool:
    if isinstance(output, Output):
        return True
    return isinstance(output, tuple) and any(_has_number(o) for o in output)


def _plan(run: Sequence[Path]) -> tuple[dict[Hashable, list[Term]], str]:
    """Output → its terms: per path when every path's graph is stars, else per output (argmax)."""
    terms: dict[Hashable, list[Term]] = {}
    for path in run:
        graph = _graph(path.constraints)
        if any(_empty(box) for box in (*graph.unary.values(), *graph.edges.values())):
            terms.setdefault(path.output, [])
            continue
        stars = _path_stars(path.noise, graph)
        if stars is None:
            merged = _argmax_stars(run)
            return {o: [(Fraction(1), (star,))] for o, star in merged.items()}, "argmax"
        terms.setdefault(path.output, []).append((path.weight, tuple(stars)))
    return terms, "paths"


def _ball(star: Star, bits: int, memo: dict[Star, Any]) -> Any:
    key = star.normalised()
    value = memo.get(key)
    if value is None:
        value = _single_mass(star) if not star.leaves else star_probability(star, bits)
        memo[key] = value
    return value


def _values(
    plans: Sequence[dict[Hashable, list[Term]]], bits: int, budget: Budget
) -> tuple[tuple[dict[Hashable, Any], ...], int]:
    import flint

    memo: dict[Star, Any] = {}
    values = []
    with balls.precision(bits):
        for plan in plans:
            dist: dict[Hashable, Any] = {}
            for output, terms in plan.items():
                if not terms:
                    continue
                total = flint.arb(0)
                for weight, stars in terms:
                    budget.check_time()
                    product = _arb(weight)
                    for star in stars:
                        product *= _ball(star, bits, memo)
                    total += product
                dist[output] = total
            values.append(dist)
    return tuple(values), len(memo)


FIRST_BITS = 64
"""Gaussian tables start at this precision (integrals ~1e−18 accurate), raised on demand."""
LAST_BITS = 512
"""…up to this one (Noisy Max n = 3: 3.8 s at 512 bits, 22 s at 1024 for 10⁻³⁰⁷ radii)."""


def ball_table(
    name: str, inputs: tuple[Hashable, ...], runs: Sequence[Sequence[Path]], budget: Budget
) -> intervals.BallTable:
    """Every input's output probabilities as certified balls (see the module's note)."""
    planned = [_plan(run) for run in runs]
    plans = [p for p, _ in planned]
    argmax = any(kind == "argmax" for _, kind in planned)
    outputs = tuple(dict.fromkeys(o for plan in plans for o in plan))
    count = sum(len(run) for run in runs)

    def build(bits: int) -> intervals.BallTable:
        values, integrals = _values(plans, bits, budget)
        how = (
            "the paths of each output merged into one star (argmax: the paths' difference "
            "constraints closed, the outputs' stars disjoint up to measure zero)"
            if argmax
            else "one per star of a path's comparisons"
        )
        method = (
            f"certified: symbolic execution over the noise ({count} paths on {len(inputs)} "
            f"inputs); each probability a 1-D integral of a density times CDFs "
            f"({integrals} distinct integrals, {how}), enclosed by python-flint's rigorous "
            "integration (acb.integral) with certified tail bounds; every input's balls sum to "
            "a ball holding 1"
        )
        refine = build if bits < LAST_BITS else None
        table = intervals.BallTable(inputs, outputs, values, method, bits, refine=refine)
        intervals.check_total(name, table)
        return table

    return build(FIRST_BITS)


# ---------------------------------------------------------------- the Gaussian mechanism


@dataclass(frozen=True)
class Numbers:
    """Released numbers without branches, Gaussian noise (``densities.separable``'s shape)."""

    inputs: tuple[Hashable, ...]
    numbers: tuple[dict[Hashable, tuple[densities.Shifted, ...]], ...]
    paths: int


def numbers_table(inputs: tuple[Hashable, ...], runs: Sequence[Sequence[Path]]) -> Numbers:
    shapes = [densities.separable(run) for run in runs]
    found = []
    for shape in shapes:
        if shape is None:
            raise Unsupported(
                "a Gaussian number released under branches (the Gaussian mechanism without "
                "branches is decided)"
            )
        for numbers in shape.values():
            for n in numbers:
                if n.noise.kind != "gaussian":
                    raise Unsupported(f"{n.noise.describe()} beside Gaussian noise in one output")
        found.append(shape)
    if len({frozenset(shape) for shape in found}) != 1:
        raise Unsupported("inputs release different output shapes")
    return Numbers(inputs, tuple(found), sum(len(run) for run in runs))


def _mu2(a: tuple[densities.Shifted, ...], b: tuple[densities.Shifted, ...]) -> Fraction:
    total = Fraction(0)
    for x, y in zip(a, b, strict=True):
        if x.noise != y.noise:
            raise Unsupported("neighbouring inputs release numbers with different noise")
        total += ((x.shift - y.shift) / x.noise.scale) ** 2
    return total


@dataclass(frozen=True)
class _Worst:
    mu2: Fraction
    i: int
    j: int
    skeleton: Hashable
    pairs: int


def _worst(problem: Problem, table: Numbers) -> _Worst:
    """The pair and output of largest μ² (δ(ε) grows with μ, and ε* is ∞ iff μ > 0)."""
    pairs = intervals.pairs_of(problem, table.inputs)
    best: _Worst | None = None
    for i, j in pairs:
        for skeleton, numbers in table.numbers[i].items():
            mu2 = _mu2(numbers, table.numbers[j][skeleton])
            if best is None or mu2 > best.mu2:
                best = _Worst(mu2, int(i), int(j), skeleton, len(pairs))
    assert best is not None
    return best


NUMBERS_METHOD = (
    "certified: symbolic execution over the noise ({paths} paths on {inputs} inputs); every "
    "released number is one Gaussian noise variable plus a constant, so the privacy loss of a "
    "pair is Gaussian, N(μ²/2, μ²) with μ = ‖(c − c′)/σ‖₂, and its log density ratio is "
    "linear in the output (unbounded: no finite pure ε); δ(ε) = Φ(μ/2 − ε/μ) − "
    "e^ε·Φ(−μ/2 − ε/μ) (Balle and Wang 2018, Theorem 8) enclosed in arb at the pair of "
    "largest μ (δ(ε) grows with μ)"
)


def _numbers_result(
    problem: Problem, table: Numbers, worst: _Worst, started: float, **fields: Any
) -> Result:
    return Result(
        target=problem.name,
        privacy=intervals._describe(problem, len(table.inputs), worst.pairs),
        method=NUMBERS_METHOD.format(paths=table.paths, inputs=len(table.inputs)),
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=worst.pairs),
        **fields,
    )


def _joint_density(numbers: tuple[densities.Shifted, ...], point: Sequence[Fraction]) -> Any:
    import flint

    value = flint.arb(1)
    pi2 = (2 * flint.arb.pi()).sqrt()
    for n, v in zip(numbers, point, strict=True):
        w = (_arb(v - n.shift - n.noise.loc)) / _arb(n.noise.scale)
        value *= (-(w * w) / 2).exp() / (_arb(n.noise.scale) * pi2)
    return value


def _point_witness(
    problem: Problem, table: Numbers, worst: _Worst, loss: Fraction
) -> tuple[CertifiedWitness, Any]:
    """The output c + t·(c − c′) where the log density ratio is μ²·(t + ½) = loss."""
    a = table.numbers[worst.i][worst.skeleton]
    b = table.numbers[worst.j][worst.skeleton]
    t = loss / worst.mu2 - Fraction(1, 2)
    point = [x.shift + x.noise.loc + t * (x.shift - y.shift) for x, y in zip(a, b, strict=True)]
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    with balls.precision(balls.PRECISIONS[0]):
        p, q = _joint_density(a, point), _joint_density(b, point)
        ratio = p / q
        witness = CertifiedWitness(
            intervals._plain(table.inputs[worst.i]),
            intervals._plain(table.inputs[worst.j]),
            mechanism.output_name(densities.fill(worst.skeleton, point)),
            intervals._enclosure(p),
            intervals._enclosure(q),
            Enclosure(*balls.floats(ratio), f"e^{loss}"),
            "density",
        )
    return witness, ratio


def _numbers_epsilon(problem: Problem, table: Numbers, started: float) -> Result:
    worst = _worst(problem, table)
    if worst.mu2 == 0:
        return _numbers_result(problem, table, worst, started, enclosure=Enclosure(0.0, 0.0))
    witness, _ = _point_witness(problem, table, worst, Fraction(2))
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        epsilon_star=Loss(None),
        enclosure=Enclosure(math.inf, math.inf),
        certified_witness=witness,
        reason="no finite ε: the log density ratio μ²·(t + ½) at the output c + t·(c − c′) "
        "grows without bound in t (the witness shows the t where it is 2)",
    )


def _numbers_verify(problem: Problem, eps: Epsilon, table: Numbers, started: float) -> Result:
    worst = _worst(problem, table)
    if worst.mu2 == 0:
        return _numbers_result(
            problem, table, worst, started, verdict=Verdict.HOLDS, epsilon=str(eps)
        )
    loss = Fraction(math.floor(eps.value) + 1)
    witness, ratio = _point_witness(problem, table, worst, loss)
    with balls.precision(balls.PRECISIONS[0]):
        certain = ratio > balls.exp_epsilon_ball(eps, balls.PRECISIONS[0])
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        verdict=Verdict.VIOLATED if certain else Verdict.UNKNOWN,
        epsilon=str(eps),
        epsilon_star=Loss(None),
        enclosure=Enclosure(math.inf, math.inf),
        certified_witness=witness,
        reason=None if certain else "the witness's ratio ball does not clear e^ε",
    )


def analytic_delta(mu2: Fraction, eps: Any) -> Any:
    """δ(ε) of the Gaussian mechanism at μ² (Balle and Wang 2018, Thm 8) as a ball; ε a ball."""
    mu = _arb(mu2).sqrt()
    root2 = _sqrt2()

    def phi(x: Any) -> Any:
        return (-x / root2).erfc() / 2

    return phi(mu / 2 - eps / mu) - eps.exp() * phi(-mu / 2 - eps / mu)


def _delta_event(problem: Problem, table: Numbers, worst: _Worst, eps: Any) -> CertifiedWitness:
    mu = _arb(worst.mu2).sqrt()
    root2 = _sqrt2()
    p = (-(mu / 2 - eps / mu) / root2).erfc() / 2
    q = (-(-mu / 2 - eps / mu) / root2).erfc() / 2
    return CertifiedWitness(
        intervals._plain(table.inputs[worst.i]),
        intervals._plain(table.inputs[worst.j]),
        "outputs where the log density ratio exceeds ε (a half-space: "
        "Σ (cᵢ − c′ᵢ)(vᵢ − (cᵢ + c′ᵢ)/2)/σᵢ² > ε)",
        intervals._enclosure(p),
        intervals._enclosure(q),
        Enclosure(*balls.floats(p / q)),
    )


def _numbers_verify_delta(
    problem: Problem, eps: Epsilon, delta: Fraction, table: Numbers, started: float
) -> Result:
    worst = _worst(problem, table)
    fields: dict[str, Any] = {"epsilon": str(eps), "delta": delta}
    if worst.mu2 == 0:
        return _numbers_result(problem, table, worst, started, verdict=Verdict.HOLDS, **fields)
    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            e = balls.exp_epsilon_ball(eps, bits).log()
            value = analytic_delta(worst.mu2, e)
            bound = _arb(delta)
            shown = intervals._enclosure(value).show()
            if value <= bound:
                return _numbers_result(
                    problem,
                    table,
                    worst,
                    started,
                    verdict=Verdict.HOLDS,
                    reason=f"δ(ε) ∈ {shown} ≤ δ at the pair of largest μ² = {worst.mu2}",
                    **fields,
                )
            if value > bound:
                return _numbers_result(
                    problem,
                    table,
                    worst,
                    started,
                    verdict=Verdict.VIOLATED,
                    certified_witness=_delta_event(problem, table, worst, e),
                    reason=f"δ(ε) ∈ {shown} > δ = {delta} on this pair (μ² = {worst.mu2})",
                    **fields,
                )
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        verdict=Verdict.UNKNOWN,
        reason=f"δ(ε) ∈ {shown} contains δ at {balls.PRECISIONS[-1]} bits",
        **fields,
    )


def _numbers_epsilon_delta(
    problem: Problem, delta: Fraction, table: Numbers, started: float
) -> Result:
    """The least ε with δ(ε) ≤ δ: δ(ε) decreases strictly in ε, bisected on balls."""
    import flint

    worst = _worst(problem, table)
    bound = _arb(delta)

    def above(eps: float) -> bool | None:
        for bits in balls.PRECISIONS:
            with balls.precision(bits):
                value = analytic_delta(worst.mu2, flint.arb(eps))
                if value > bound:
                    return True
                if value <= bound:
                    return False
        return None

    if worst.mu2 == 0 or above(0.0) is False:
        return _numbers_result(
            problem, table, worst, started, delta=delta, enclosure=Enclosure(0.0, 0.0)
        )
    low, high = 0.0, 1.0
    reason = None
    while above(high) is not False:
        low, high = high, high * 2
        if high > intervals.EPSILON_CAP:
            return _numbers_result(
                problem,
                table,
                worst,
                started,
                delta=delta,
                enclosure=Enclosure(low, math.inf),
                reason=f"δ(ε) stays above δ up to ε = {intervals.EPSILON_CAP:g}",
            )
    while high - low > intervals.TARGET * max(1.0, low) / 4:
        middle = (low + high) / 2
        verdict = above(middle)
        if verdict is None:
            reason = "the balls cannot separate δ(ε) from δ between these bounds"
            break
        low, high = (middle, high) if verdict else (low, middle)
    with balls.precision(balls.PRECISIONS[0]):
        witness = _delta_event(problem, table, worst, flint.arb(low))
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        delta=delta,
        enclosure=Enclosure(low, high),
        certified_witness=witness,
        reason=reason,
    )


# ---------------------------------------------------------------- the engine's doors

Table = intervals.BallTable | Numbers


def _timed(result: Result, started: float) -> Result:
    seconds = time.perf_counter() - started
    return replace(result, statistics=replace(result.statistics, seconds=seconds))


def verify(problem: Problem, eps: Epsilon, table: Table, budget: Budget, started: float) -> Result:
    if isinstance(table, Numbers):
        return _numbers_verify(problem, eps, table, started)
    return _timed(intervals.verify(problem, eps, table, budget), started)


def epsilon(problem: Problem, table: Table, budget: Budget, started: float) -> Result:
    if isinstance(table, Numbers):
        return _numbers_epsilon(problem, table, started)
    return _timed(intervals.epsilon(problem, table, budget), started)


def verify_delta(
    problem: Problem, eps: Epsilon, delta: Fraction, table: Table, budget: Budget, started: float
) -> Result:
    if isinstance(table, Numbers):
        return _numbers_verify_delta(problem, eps, delta, table, started)
    return _timed(intervals.verify_delta(problem, eps, delta, table, budget), started)


def epsilon_delta(
    problem: Problem, delta: Fraction, table: Table, budget: Budget, started: float
) -> Result:
    if isinstance(table, Numbers):
        if delta == 0:  # δ(ε) = 0 only where the pure loss is bounded by ε
            return replace(_numbers_epsilon(problem, table, started), delta=delta)
        return _numbers_epsilon_delta(problem, delta, table, started)
    return _timed(intervals.epsilon_delta(problem, delta, table, budget), started)


def build(
    name: str, inputs: tuple[Hashable, ...], runs: Sequence[Sequence[Path]], budget: Budget
) -> Table:
    """The Gaussian table of a program's paths: released numbers or output probabilities."""
    if any(_has_number(path.output) for run in runs for path in run):
        return numbers_table(inputs, runs)
    return ball_table(name, inputs, runs, budget)
