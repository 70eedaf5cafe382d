"""Gaussian noise: each output's probability as a certified ball (integrals over stars).

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

The stars come from :mod:`.stars` (a path's comparison graph, or argmax's
paths merged per output); every input's balls must sum to a ball holding 1.
Released numbers without branches are the Gaussian mechanism
(:mod:`.gaussian_numbers`).  Other shapes (sums of noise, unequal
coefficients, chains that are not an argmax, branches around a released
Gaussian number) raise :class:`~.integrate.Unsupported`, reported as
"unknown".
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
from faier.engines.certified import balls, gaussian_numbers, intervals
from faier.engines.certified.balls import rational_ball, sqrt_two_ball
from faier.engines.certified.gaussian_numbers import Numbers, numbers_table
from faier.engines.certified.integrate import Unsupported
from faier.engines.certified.stars import (
    Bound,
    Star,
    argmax_stars,
    comparison_graph,
    empty,
    path_stars,
)
from faier.engines.certified.symbolic import Constraint, Path, has_number
from faier.mechanisms.continuous import Continuous
from faier.privacy.budget import Epsilon
from faier.results import Result


def draws_gaussian(runs: Sequence[Sequence[Path]]) -> bool:
    """Whether some path draws Gaussian noise (then this module computes the table)."""
    return any(d.kind == "gaussian" for run in runs for path in run for d in path.noise)


# ---------------------------------------------------------------- certified integration


def _cdf(noise: Continuous, y: Any, above: bool) -> Any:
    """Pr[X < y] for an arb or acb y on one side of the kink at the location (``above``:
    y ≥ loc); Gaussian noise has no kink, and erfc keeps its lower tail accurate."""
    z = (y - rational_ball(noise.loc)) / rational_ball(noise.scale)
    if noise.kind == "gaussian":
        return (-z / sqrt_two_ball()).erfc() / 2
    if noise.kind == "laplace":
        return 1 - (-z).exp() / 2 if above else z.exp() / 2
    return 1 - (-z).exp() if above else 0 * z


def _survival(noise: Continuous, y: Any, above: bool) -> Any:
    """Pr[X > y], accurate in the upper tail."""
    z = (y - rational_ball(noise.loc)) / rational_ball(noise.scale)
    if noise.kind == "gaussian":
        return (z / sqrt_two_ball()).erfc() / 2
    if noise.kind == "laplace":
        return (-z).exp() / 2 if above else 1 - z.exp() / 2
    return (-z).exp() if above else 1 + 0 * z


def _density(noise: Continuous, t: Any, above: bool) -> Any:
    """The density at t on one side of the location (Laplace and exponential have a kink)."""
    import flint

    sigma = rational_ball(noise.scale)
    w = (t - rational_ball(noise.loc)) / sigma
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
        tail = 0 if b is None else _survival(noise, rational_ball(b), b >= noise.loc)
        return _survival(noise, rational_ball(a), True) - tail
    upper = flint.arb(1) if b is None else _cdf(noise, rational_ball(b), b >= noise.loc)
    return upper - (0 if a is None else _cdf(noise, rational_ball(a), a >= noise.loc))


def _reach(noise: Continuous, bits: int) -> tuple[Fraction, Any]:
    """(R, tail): the centre's domain is cut at loc ± R, each side's cut-off mass ≤ tail,
    below 2^−(bits + 8)."""
    import flint

    if noise.kind == "gaussian":
        k = Fraction(math.ceil(math.sqrt(2 * math.log(2) * (bits + 8))) + 1)
        return k * noise.scale, (rational_ball(k) / sqrt_two_ball()).erfc() / 2
    k = Fraction(math.ceil(math.log(2) * (bits + 8)) + 1)
    return k * noise.scale, (-flint.arb(int(k))).exp()


def _max(x: Bound, y: Bound) -> Bound:
    return x if y is None else y if x is None else max(x, y)


def _min(x: Bound, y: Bound) -> Bound:
    return x if y is None else y if x is None else min(x, y)


DEEPEST = 1 << 15
"""The most bits below 1 a star's probability is followed to (e^(−22700))."""


def star_probability(star: Star, bits: int) -> Any:
    """A ball containing the star's probability (the working precision is ``bits``).

    The centre's cut-off tails and the integrator's tolerance are absolute, near
    2^−bits: a probability far below that (e^(−5000) at σ = 1/100) comes back as
    [0, 2^−bits].  Then it is computed again with both set that many bits further
    below its upper bound, until its ball is relatively tight (at most
    :data:`DEEPEST` bits down).
    """
    import flint

    depth = 0
    while True:
        value = _star_once(star, bits, depth)
        upper = value.upper()
        if not _loose(value) or not upper > 0:
            return value
        below = 1 - math.floor(float(flint.arb(upper).log() / flint.arb(2).log()))
        if below <= depth or below > DEEPEST:
            return value
        depth = below


def _loose(value: Any) -> bool:
    """A ball whose radius is not far below its midpoint (its relative accuracy lost)."""
    import flint

    return not abs(value.mid()) * flint.arb(2) ** (-(flint.ctx.prec // 2)) > value.rad()


def _star_once(star: Star, bits: int, depth: int) -> Any:
    """The star's probability with its tails cut and its integrals accurate to
    2^−(bits + depth) absolute."""
    import flint

    mean = star.noise.loc
    reach, cut = _reach(star.noise, bits + depth)
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
            total += _segment(star, u, v, bits + depth)
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


def _segment(star: Star, u: Fraction, v: Fraction, accuracy: int) -> Any:
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
    return constant * _integrate(star.noise, middle >= star.noise.loc, factors, u, v, accuracy)


def _bound_at(t: Any, value: Bound, moves: bool) -> Any:
    if value is None:
        return None
    return t + rational_ball(value) if moves else rational_ball(value)


def _integrate(
    centre: Continuous,
    above: bool,
    factors: Sequence[_Factor],
    u: Fraction,
    v: Fraction,
    accuracy: int,
) -> Any:
    """acb.integral of density_c(t)·Π factors over [u, v] (the integrand is entire there),
    to an absolute tolerance of 2^−accuracy."""
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

    tolerance = flint.arb(2) ** (-accuracy)
    result = flint.acb.integral(integrand, rational_ball(u), rational_ball(v), abs_tol=tolerance)
    real = result.real
    if not real.is_finite():
        raise Unsupported(f"the integral over [{u}, {v}] did not converge")
    return real


def _single_mass(star: Star) -> Any:
    return _mass(star.noise, star.low, star.high)


def _difference_mass(star: Star) -> Any | None:
    """Pr[lo < X_l − X_c < hi] in closed form where the star is two Gaussian variables and
    only their difference is bounded: X_l − X_c is N(μ_l − μ_c, σ_l² + σ_c²), and erfc
    keeps the probability's relative accuracy where an integral's absolute error bound
    would swallow it (e^(−444451) at σ = 3/2000).  None for any other star."""
    if len(star.leaves) != 1 or star.low is not None or star.high is not None:
        return None
    (leaf,) = star.leaves
    if star.noise.kind != "gaussian" or leaf.noise.kind != "gaussian":
        return None
    if leaf.a is not None or leaf.b is not None:
        return None
    import flint

    mean = leaf.noise.loc - star.noise.loc
    variance = rational_ball(leaf.noise.scale) ** 2 + rational_ball(star.noise.scale) ** 2
    spread = variance.sqrt() * sqrt_two_ball()

    def below(y: Fraction) -> Any:
        return (-(rational_ball(y - mean)) / spread).erfc() / 2

    def above(y: Fraction) -> Any:
        return (rational_ball(y - mean) / spread).erfc() / 2

    lo, hi = leaf.lo, leaf.hi
    if lo is not None and hi is not None and lo >= hi:
        return flint.arb(0)
    if lo is not None and lo > mean:
        return above(lo) - (0 if hi is None else above(hi))
    return (flint.arb(1) if hi is None else below(hi)) - (0 if lo is None else below(lo))


# ---------------------------------------------------------------- the probability table

Term = tuple[Fraction, tuple[Star, ...]]
"""A path's weight times the product of its stars' probabilities."""


def _plan(run: Sequence[Path]) -> tuple[dict[Hashable, list[Term]], str]:
    """Output → its terms: per path when every path's graph is stars, else per output (argmax)."""
    terms: dict[Hashable, list[Term]] = {}
    for path in run:
        graph = comparison_graph(path.constraints)
        if any(empty(box) for box in (*graph.unary.values(), *graph.edges.values())):
            terms.setdefault(path.output, [])
            continue
        stars = path_stars(path.noise, graph)
        if stars is None:
            merged = argmax_stars(run)
            return {o: [(Fraction(1), (star,))] for o, star in merged.items()}, "argmax"
        terms.setdefault(path.output, []).append((path.weight, tuple(stars)))
    return terms, "paths"


def _ball(star: Star, bits: int, memo: dict[Star, Any]) -> Any:
    key = star.normalised()
    value = memo.get(key)
    if value is None:
        value = _single_mass(star) if not star.leaves else _difference_mass(star)
        if value is None:
            value = star_probability(star, bits)
        memo[key] = value
    return value


def path_probability(
    noise: Sequence[Continuous], constraints: Sequence[Constraint], bits: int
) -> Any | None:
    """One path's probability as a ball when its comparison graph is stars (None otherwise);
    for callers that enclose events path by path (``faier certify``)."""
    import flint

    graph = comparison_graph(constraints)
    if any(empty(box) for box in (*graph.unary.values(), *graph.edges.values())):
        return flint.arb(0)
    stars = path_stars(noise, graph)
    if stars is None:
        return None
    total = flint.arb(1)
    with balls.precision(bits):
        for star in stars:
            total *= _ball(star, bits, {})
    return total


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
                    product = rational_ball(weight)
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


# ---------------------------------------------------------------- the engine's doors

Table = intervals.BallTable | Numbers


def _timed(result: Result, started: float) -> Result:
    seconds = time.perf_counter() - started
    return replace(result, statistics=replace(result.statistics, seconds=seconds))


def verify(problem: Problem, eps: Epsilon, table: Table, budget: Budget, started: float) -> Result:
    if isinstance(table, Numbers):
        return gaussian_numbers.verify(problem, eps, table, started)
    return _timed(intervals.verify(problem, eps, table, budget), started)


def epsilon(problem: Problem, table: Table, budget: Budget, started: float) -> Result:
    if isinstance(table, Numbers):
        return gaussian_numbers.epsilon(problem, table, started)
    return _timed(intervals.epsilon(problem, table, budget), started)


def verify_delta(
    problem: Problem, eps: Epsilon, delta: Fraction, table: Table, budget: Budget, started: float
) -> Result:
    if isinstance(table, Numbers):
        return gaussian_numbers.verify_delta(problem, eps, delta, table, started)
    return _timed(intervals.verify_delta(problem, eps, delta, table, budget), started)


def epsilon_delta(
    problem: Problem, delta: Fraction, table: Table, budget: Budget, started: float
) -> Result:
    if isinstance(table, Numbers):
        if delta == 0:  # δ(ε) = 0 only where the pure loss is bounded by ε
            return replace(gaussian_numbers.epsilon(problem, table, started), delta=delta)
        return gaussian_numbers.epsilon_delta(problem, delta, table, started)
    return _timed(intervals.epsilon_delta(problem, delta, table, budget), started)


def build(
    name: str, inputs: tuple[Hashable, ...], runs: Sequence[Sequence[Path]], budget: Budget
) -> Table:
    """The Gaussian table of a program's paths: released numbers or output probabilities."""
    if any(has_number(path.output) for run in runs for path in run):
        return numbers_table(inputs, runs)
    return ball_table(name, inputs, runs, budget)
