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

from faier.engines.budget import Budget
from faier.engines.exact.incumbents import seed_incumbents
from faier.engines.exact.sequence_mode import (
    DepthRecord,
    SearchState,
    SequenceComparison,
    SequenceSystem,
    SparseVector,
    _times,
    cumulative,
)
from faier.results import Loss, loss_of

Key = tuple[tuple[tuple[int, Fraction], ...], tuple[tuple[int, Fraction], ...]]


@dataclass
class SearchCounts:
    """What the search did: prefixes extended, pruned by the bound, merged away."""

    explored: int = 0
    pruned: int = 0
    merged: int = 0
    frontier: int = 0
    depth: int = 0
    cut: bool = False
    """Some run was still going at the horizon (or was pruned): longer runs exist."""
    pattern_runs: int = 0
    """StatDP input patterns tried for incumbents before the exact pass."""


@dataclass
class _Node:
    a: SparseVector
    b: SparseVector
    scale: Fraction
    comparison: int
    path: tuple[int, ...]


Frontier = dict[Key | tuple[int, int], _Node]


def _normalised(vector: SparseVector, total: Fraction) -> tuple[tuple[int, Fraction], ...]:
    return tuple(sorted((s, x / total) for s, x in vector.items() if x))


def growth_bounds(system: SequenceSystem, horizon: int) -> list[list[Loss]]:
    """B[j][s]: no continuation of length ≤ j from state s on both sides gains more.

    With the identity coupling of the two copies (both sides run the same
    automaton), F_s(σw)/G_s(σw) ≤ max_t L_σ[s][t]/R_σ[s][t] · B[j−1][t]; for
    HMMs (L = R) every B is 1 and the bound is the classic max_s a(s)/b(s).
    """
    steps = _step_factors(system)
    bounds = [[Loss(Fraction(1))] * system.size]
    for _ in range(horizon):
        previous = bounds[-1]
        row = []
        for factors in steps:
            best = Loss(Fraction(1))
            for t, factor in factors.items():
                candidate = _product(factor, previous[t])
                if candidate.exceeds(best):
                    best = candidate
            row.append(best)
        bounds.append(row)
    return bounds


def _step_factors(system: SequenceSystem) -> list[dict[int, Loss]]:
    """Per state s and successor t: max over symbols of L_σ[s][t]/R_σ[s][t] (∞ if R is 0).

    It does not depend on the remaining length, so it is computed once.
    """
    steps: list[dict[int, Loss]] = []
    for s in range(system.size):
        factors: dict[int, Loss] = {}
        for left, right in zip(system.left, system.right, strict=True):
            right_row = dict(right[s])
            for t, p in left[s]:
                q = right_row.get(t, Fraction(0))
                factor = Loss(None) if q == 0 else Loss(p / q)
                if t not in factors or factor.exceeds(factors[t]):
                    factors[t] = factor
        steps.append(factors)
    return steps


def _product(x: Loss, y: Loss) -> Loss:
    if x.ratio is None or y.ratio is None:
        return Loss(None)
    return Loss(x.ratio * y.ratio)


def _ratio_bound(a: SparseVector, b: SparseVector, growth: list[Loss]) -> Loss:
    """max_s a(s)/b(s)·growth[s] bounds every continuation's loss (mediant inequality)."""
    best = Loss(Fraction(0))
    for s, x in a.items():
        if not x:
            continue
        y = b.get(s, Fraction(0))
        if y == 0:
            return Loss(None)
        candidate = _product(Loss(x / y), growth[s])
        if candidate.exceeds(best):
            best = candidate
    return best


def _keep_all(a: SparseVector, b: SparseVector, depth: int) -> bool:
    return True


def _best_of(frontier: Frontier, width: int) -> Frontier:
    """The ``width`` prefixes of largest loss (the beam)."""
    ranked = sorted(frontier.items(), key=lambda item: item[1].scale, reverse=True)
    return dict(ranked[:width])


def is_symmetric(system: SequenceSystem) -> bool:
    """True when both sides step with the same matrices (HMMs): the bound applies."""
    return all(left is right for left, right in zip(system.left, system.right, strict=True))


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
            key: Key = (_normalised(a2, pa), _normalised(b2, pb))
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
) -> SearchCounts:
    """Fill ``state.best`` with the exact best loss per length, merging and pruning.

    Incumbents come first (StatDP's patterns, then a beam: see
    :mod:`incumbents`); the exact pass then drops every prefix whose bound
    cannot beat the incumbent of any length it could still reach.
    """
    counts = counts or SearchCounts()
    growth = growth_bounds(system, horizon)
    start: Frontier = {
        (index, -1): _Node(c.a0, c.b0, Fraction(1), index, ())
        for index, c in enumerate(comparisons)
    }

    def incumbents() -> list[Loss | None]:
        out: list[Loss | None] = [None]
        for record in cumulative(state):
            out.append(None if record is None else record.loss)
        return out

    def extend_all(frontier: Frontier, depth: int, symbols: Sequence[int]) -> Frontier:
        return _extend(
            system, frontier, depth, horizon, budget, state, SearchCounts(), _keep_all, symbols
        )

    counts.pattern_runs = seed_incumbents(system, horizon, start, extend_all, _best_of)
    best = incumbents()

    def keep(a: SparseVector, b: SparseVector, depth: int) -> bool:
        for k in range(depth + 1, horizon + 1):
            bound = _ratio_bound(a, b, growth[k - depth])
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
        best = incumbents()
        counts.frontier = len(frontier)
        if progress is not None:
            progress(counts)
        if not frontier:
            break
    return counts
