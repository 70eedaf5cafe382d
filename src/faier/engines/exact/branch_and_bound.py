"""Level-by-level search over observation prefixes with merging and pruning.

Every prefix carries its forward vectors (a, b).  Two facts keep the search
small and exact:

* **Dominance merging.**  If two prefixes have forward vectors with the same
  shapes, a' = λ·a and b' = μ·b, then every continuation has loss ratio
  (λ/μ) times the other's; only the prefix with the larger |a|/|b| can
  matter.  Prefixes are keyed by their normalised vectors and the dominated
  one is dropped (for λ = μ these are the "equal up to a common factor"
  prefixes, which have identical futures).
* **Pruning** (HMM-like systems, where both sides share the step matrices):
  any continuation of a prefix has loss at most max_s a(s)/b(s) (∞ when
  b(s) = 0 < a(s)), a bound that never grows along a path.  A prefix whose
  bound does not beat the best loss already found at its length or below
  cannot raise ε*(k) for any k ≥ its length, so it is not extended.

All arithmetic is exact, so the per-horizon maxima are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from faier.core.budget import Budget
from faier.engines.exact.float_frontier import FloatRangeError, float_search
from faier.engines.exact.incumbents import seed_incumbents
from faier.engines.exact.pruning import (
    Key,
    SearchCounts,
    gain_bounds,
    growth_bounds,
    incumbents,
    normalised_key,
    ratio_bound,
)
from faier.engines.exact.sequence_mode import (
    DepthRecord,
    SearchState,
    SequenceComparison,
    SequenceSystem,
    SparseVector,
    _times,
)
from faier.results import loss_of


@dataclass
class _Node:
    a: SparseVector
    b: SparseVector
    scale: Fraction
    comparison: int
    path: tuple[int, ...]


Frontier = dict[Key | tuple[int, int], _Node]


def _keep_all(a: SparseVector, b: SparseVector, depth: int) -> bool:
    return True


def _best_of(frontier: Frontier, width: int) -> Frontier:
    """The ``width`` prefixes of largest loss (the beam)."""
    ranked = sorted(frontier.items(), key=lambda item: item[1].scale, reverse=True)
    return dict(ranked[:width])


def _extend(
    system: SequenceSystem,
    frontier: Frontier,
    depth: int,
    horizon: int,
    budget: Budget,
    state: SearchState,
    counts: SearchCounts,
    keep: Callable[[SparseVector, SparseVector, int], bool],
    symbols: Iterable[int],
) -> Frontier:
    """One level: extend every prefix by the given symbols, record losses, merge, prune."""
    halted = system.halted
    following: Frontier = {}
    chosen = tuple(symbols)
    for node in frontier.values():
        budget.spend()
        counts.explored += 1
        for sym in chosen:
            a2 = _times(node.a, system.left[sym])
            pa = sum(a2.values(), Fraction(0))
            if pa == 0:
                continue
            b2 = _times(node.b, system.right[sym])
            pb = sum(b2.values(), Fraction(0))
            loss = loss_of(pa, pb)
            path = (*node.path, sym)
            record = state.best[depth]
            if record is None or loss.exceeds(record.loss):
                state.best[depth] = DepthRecord(loss, pa, pb, node.comparison, path)
            if pb == 0:
                continue
            if halted is not None and set(a2) <= {halted} and set(b2) <= {halted}:
                continue
            if depth == horizon:
                counts.cut = True
                continue
            if not keep(a2, b2, depth):
                counts.pruned += 1
                counts.cut = True
                continue
            key = normalised_key(a2, b2, pa, pb)
            scale = pa / pb
            existing = following.get(key)
            if existing is not None:
                counts.merged += 1
                if scale <= existing.scale:
                    continue
            following[key] = _Node(a2, b2, scale, node.comparison, path)
    return following


def merged_search(
    system: SequenceSystem,
    comparisons: Sequence[SequenceComparison],
    horizon: int,
    budget: Budget,
    state: SearchState,
    *,
    counts: SearchCounts | None = None,
    progress: Callable[[SearchCounts], None] | None = None,
    arithmetic: str = "exact",
) -> SearchCounts:
    """Fill ``state.best`` with the exact best loss per length, merging and pruning.

    Incumbents come first (StatDP's patterns, else a beam: see
    :mod:`incumbents`); the main pass then drops every prefix whose bound
    cannot beat the incumbent of any length it could still reach.  With
    ``arithmetic="float"`` the main pass runs on a float64 frontier
    (:mod:`float_frontier`) and falls back to this exact one if floats could
    leave their range; the answer is the same exact one either way.
    """
    counts = counts or SearchCounts()
    counts.horizon, counts.phase = horizon, "length"
    start: Frontier = {
        (index, -1): _Node(c.a0, c.b0, Fraction(1), index, ())
        for index, c in enumerate(comparisons)
    }

    def extend_all(frontier: Frontier, depth: int, symbols: Sequence[int]) -> Frontier:
        following = _extend(
            system, frontier, depth, horizon, budget, state, seeding, _keep_all, symbols
        )
        if progress is not None:
            seeding.depth, seeding.frontier = depth, len(following)
            progress(seeding)
        return following

    seeding = SearchCounts(horizon=horizon, phase="incumbents")

    counts.pattern_runs = seed_incumbents(
        system, horizon, start, extend_all, _best_of, beam=arithmetic == "exact"
    )
    if arithmetic == "float":
        try:
            return float_search(
                system, comparisons, horizon, budget, state, counts=counts, progress=progress
            )
        except FloatRangeError as exc:
            counts.fell_back = str(exc)
            if not counts.pattern_runs:
                seed_incumbents(system, horizon, start, extend_all, _best_of)
    best = incumbents(state)
    growth = growth_bounds(system, horizon)
    gains = gain_bounds(system, horizon)

    def keep(a: SparseVector, b: SparseVector, depth: int) -> bool:
        for k in range(depth + 1, horizon + 1):
            bound = ratio_bound(a, b, growth[k - depth], gains[k - depth])
            incumbent = best[k]
            if incumbent is None or bound.exceeds(incumbent):
                return True
        return False

    frontier = start
    every_symbol = range(len(system.symbols))
    for depth in range(1, horizon + 1):
        counts.depth = depth
        frontier = _extend(
            system, frontier, depth, horizon, budget, state, counts, keep, every_symbol
        )
        best = incumbents(state)
        counts.frontier = len(frontier)
        if progress is not None:
            progress(counts)
        if not frontier:
            break
    return counts
