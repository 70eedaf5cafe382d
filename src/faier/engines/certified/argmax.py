"""Argmax recognised: the paths of one output merged into one star-shaped integral.

Noisy Max over n queries has 2^(n−1) paths per input (who was the best so
far at each step), but the union of the paths that report i is the event
that i wins, {x_i − x_j ≥ d_j for every j}, whose probability is one
integral ∫ f_i(t) Π_{j≠i} F_j(t − d_j) dt: a star with the winner at its
centre (:func:`.integrate.probability` integrates it leaf to root).  The
merge is proved, not assumed, for every input:

1. every path has weight 1 and the same noise, so the paths partition the
   noise space (up to the measure-zero boundaries of the comparisons);
2. each path's comparisons of two noise variables, read as
   ``x_u − x_v ≥ w``, imply for one centre c a lower bound D(j) on
   x_c − x_j for every other j (longest implied chains, relaxed to a fixed
   point); all paths of one output share their centre, and the output's star
   takes d_j = the least D(j) over them, so each path lies inside its star;
3. the stars of two outputs are disjoint up to measure zero:
   d^o_{c′} + d^{o′}_c ≥ 0 (x_c − x_{c′} cannot exceed both).

Stars that contain their paths and are disjoint while the paths cover the
space are exactly the unions of their paths (each star minus its own paths
lies in other outputs' paths, so in other stars).  Any run that fails a step
keeps its paths.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction

from faier.engines.certified.exppoly import ONE, ZERO
from faier.engines.certified.symbolic import Constraint, Path

MIN_PATHS = 8
"""Runs with fewer paths than this are integrated path by path (nothing to gain)."""


def _edges(constraints: Sequence[Constraint]) -> list[tuple[int, int, Fraction]]:
    """Each comparison of two noise variables as (u, v, w): x_u − x_v ≥ w."""
    edges = []
    for c in constraints:
        if len(c.coefficients) != 2:
            continue  # a bound on one variable only shrinks the path: dropping it is safe
        (i, a), (j, b) = c.coefficients
        if a != -b:
            continue
        # a·(x_i − x_j) + c ≥ 0
        if a > 0:
            edges.append((i, j, -c.constant / a))
        else:
            edges.append((j, i, c.constant / a))
    return edges


def _dominance(
    size: int, edges: list[tuple[int, int, Fraction]]
) -> tuple[int, list[Fraction]] | None:
    """(c, D) with x_c − x_j ≥ D[j] implied for every j, or None when no variable is
    implied above all others."""
    dominated = {v for _, v, _ in edges}
    centres = [u for u in range(size) if u not in dominated]
    if len(centres) != 1:
        return None
    centre = centres[0]
    bound: list[Fraction | None] = [None] * size
    bound[centre] = ZERO
    for _ in range(size):
        changed = False
        for u, v, w in edges:
            start = bound[u]
            if start is None:
                continue
            reach = start + w
            if bound[v] is None or reach > bound[v]:  # type: ignore[operator]
                bound[v] = reach
                changed = True
        if not changed:
            break
    else:
        return None  # still rising after n rounds: a positive cycle (an empty path)
    if any(b is None for b in bound):
        return None
    return centre, [b for b in bound if b is not None]


Stars = dict[Hashable, tuple[int, list[Fraction]]]
"""Output → (centre c, d) with the output's event {x_c − x_j ≥ d_j for every j ≠ c}."""


def output_stars(run: Sequence[Path]) -> Stars | str:
    """Each output's star, proved to be the union of its paths (the module's steps 1–3),
    or the step that fails.  Laplace tables (:func:`merged`) and Gaussian balls
    (:func:`.stars.argmax_stars`) both integrate these."""
    if not run or any(path.weight != 1 for path in run):
        return "the paths carry weights (a finite draw)"
    noise = run[0].noise
    if any(path.noise != noise for path in run):
        return "the paths draw differently"
    size = len(noise)
    stars: Stars = {}
    for path in run:
        found = _dominance(size, _edges(path.constraints))
        if found is None:
            return "a path implies no noise variable above all others"
        centre, bound = found
        before = stars.get(path.output)
        if before is None:
            stars[path.output] = (centre, bound)
            continue
        if before[0] != centre:
            return "the paths of one output have different winners"
        stars[path.output] = (centre, [min(a, b) for a, b in zip(before[1], bound, strict=True)])
    centres = [c for c, _ in stars.values()]
    if len(set(centres)) != len(centres):
        return "two outputs' stars overlap (they share a winner)"
    for c, d in stars.values():
        for c2, d2 in stars.values():
            if c != c2 and d[c2] + d2[c] < 0:
                return "two outputs' stars overlap"
    return stars


def merged(run: Sequence[Path]) -> list[Path] | None:
    """One path per output whose constraints are its star, or None where not proved (or
    where the run is too short to gain from it)."""
    if len(run) < MIN_PATHS:
        return None
    stars = output_stars(run)
    if isinstance(stars, str):
        return None
    noise = run[0].noise
    out = []
    for output, (c, d) in stars.items():
        constraints = tuple(
            Constraint(((c, ONE), (j, -ONE)) if c < j else ((j, -ONE), (c, ONE)), -d[j])
            for j in range(len(noise))
            if j != c
        )
        out.append(Path(noise, constraints, ONE, output))
    return out
