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
from faier.engines.exact.integer_vectors import (
    IntegerVector,
    integer_times,
    integer_vector,
    same_direction,
    step_masses,
)
from faier.engines.exact.lookahead import Lookahead, combined, lookahead_depth
from faier.engines.exact.pruning import (
    SearchCounts,
    gain_bounds,
    growth_bounds,
    incumbents,
    integer_ratio_bound,
)
from faier.engines.exact.sequence_mode import (
    DepthRecord,
    Rows,
    SearchState,
    SequenceComparison,
    SequenceSystem,
)
from faier.results import Loss, loss_of


@dataclass
class _Node:
    """A prefix: its vectors, |a|/|b| as an unreduced pair (top, bottom), and its path."""

    a: IntegerVector
    b: IntegerVector
    top: int
    bottom: int
    comparison: int
    path: tuple[int, ...]

    @property
    def scale(self) -> Fraction:
        return Fraction(self.top, self.bottom)


Direction = tuple[tuple[int, int], ...]
MergeKey = tuple[Direction, Direction] | tuple[int, int]
Frontier = dict[MergeKey, _Node]
Step = tuple[
    int, Rows, Rows, tuple[int, ...], int, tuple[bool, ...], tuple[int, ...], int, tuple[bool, ...]
]
StepsMemo = dict[tuple[int, ...], list[Step]]
Keep = Callable[[IntegerVector, IntegerVector, int], bool]


def _keep_all(a: IntegerVector, b: IntegerVector, depth: int) -> bool:
    return True


def _best_of(frontier: Frontier, width: int) -> Frontier:
    """The ``width`` prefixes of largest loss (the beam)."""
    ranked = sorted(frontier.items(), key=lambda item: item[1].scale, reverse=True)
    return dict(ranked[:width])


def _beats(top: int, top_den: int, bottom: int, bottom_den: int, record: Loss) -> bool:
    """(top/top_den) / (bottom/bottom_den) exceeds the record, by cross-multiplying."""
    if bottom == 0:
        return not record.infinite
    if record.ratio is None:
        return False
    ratio = record.ratio
    return top * bottom_den * ratio.denominator > ratio.numerator * bottom * top_den


Products = dict[tuple[int, int, tuple[tuple[int, int], ...]], IntegerVector]

_PRODUCTS_KEPT = 1 << 17
"""Products remembered across the incumbent runs before the memory is cleared."""


def _times(products: Products | None, vector: IntegerVector, rows: Rows) -> IntegerVector:
    """vector·rows, remembered across runs for short vectors (which are in lowest terms,
    so equal vectors have equal keys): Above Threshold's 16 pattern runs met 51k distinct
    products in 160k."""
    if products is None or not isinstance(vector.numerators, dict):
        return integer_times(vector, rows)
    key = (id(rows), vector.den, vector.entries())
    hit = products.get(key)
    if hit is None:
        if len(products) >= _PRODUCTS_KEPT:
            products.clear()
        hit = products[key] = integer_times(vector, rows)
    return hit


def _merge_key(a: IntegerVector, b: IntegerVector) -> MergeKey:
    """Both vectors' fingerprints (exact primitive directions where one has none)."""
    fa, fb = a.fingerprint(), b.fingerprint()
    if fa is None or fb is None:
        return (a.direction(), b.direction())
    return (fa, fb)


def _steps(system: SequenceSystem, symbols: Iterable[int], memo: StepsMemo | None) -> list[Step]:
    """Per symbol: its matrices, row-sum weights and halting rows, once per symbol set."""
    chosen = tuple(symbols)
    if memo is not None and chosen in memo:
        return memo[chosen]
    halted = system.halted
    found = [
        (
            sym,
            system.left[sym],
            system.right[sym],
            *step_masses(system.left[sym], halted),
            *step_masses(system.right[sym], halted),
        )
        for sym in chosen
    ]
    if memo is not None:
        memo[chosen] = found
    return found


def _extend(
    system: SequenceSystem,
    frontier: Frontier,
    depth: int,
    horizon: int,
    budget: Budget,
    state: SearchState,
    counts: SearchCounts,
    keep: Keep,
    symbols: Iterable[int],
    products: Products | None = None,
    memo: StepsMemo | None = None,
) -> Frontier:
    """One level: extend every prefix by the given symbols, record losses, merge, prune.

    Vectors stay integers over one unreduced denominator
    (:mod:`integer_vectors`): losses are compared with the record by
    cross-multiplying, prefixes are merged by their primitive integer
    directions, and a Fraction is made only for a new record (Above
    Threshold's pattern runs spent most of their time reducing Fractions).
    A child's masses come from the matrix's row sums and whether it halts
    from the rows' supports, so a child that is only recorded (it halts, or
    the horizon is reached) costs no product (Above Threshold: two of every
    node's three children halt).  Children are merged by their vectors'
    fingerprints (ratios modulo a prime), confirmed exactly; a collision of
    two different directions falls back to the exact primitive directions
    (Above Threshold's pattern runs spent 14 % of their time on those gcds and
    merged 16 of 32 000 children).
    """
    halted = system.halted
    following: Frontier = {}
    steps = _steps(system, symbols, memo)
    for node in frontier.values():
        budget.spend()
        counts.explored += 1
        a_entries, b_entries = node.a.entries(), node.b.entries()
        for sym, left, right, w_left, d_left, into_left, w_right, d_right, into_right in steps:
            top = sum(x * w_left[s] for s, x in a_entries)
            if top == 0:
                continue
            bottom = sum(x * w_right[s] for s, x in b_entries)
            top_den, bottom_den = node.a.den * d_left, node.b.den * d_right
            record = state.best[depth]
            if record is None or _beats(top, top_den, bottom, bottom_den, record.loss):
                pa, pb = Fraction(top, top_den), Fraction(bottom, bottom_den)
                path = (*node.path, sym)
                state.best[depth] = DepthRecord(loss_of(pa, pb), pa, pb, node.comparison, path)
            if bottom == 0:
                continue
            if (
                halted is not None
                and all(into_left[s] for s, _ in a_entries)
                and all(into_right[s] for s, _ in b_entries)
            ):
                continue
            if depth == horizon:
                counts.cut = True
                continue
            a2 = _times(products, node.a, left)
            b2 = _times(products, node.b, right)
            path = (*node.path, sym)
            if not keep(a2, b2, depth):
                counts.pruned += 1
                counts.cut = True
                continue
            key = _merge_key(a2, b2)
            existing = following.get(key)
            if existing is not None and not (
                same_direction(a2, existing.a) and same_direction(b2, existing.b)
            ):
                key = (a2.direction(), b2.direction())
                existing = following.get(key)
            scale_top, scale_bottom = top * bottom_den, bottom * top_den
            if existing is not None:
                counts.merged += 1
                if scale_top * existing.bottom <= existing.top * scale_bottom:
                    continue
            following[key] = _Node(a2, b2, scale_top, scale_bottom, node.comparison, path)
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
        (index, -1): _Node(integer_vector(c.a0), integer_vector(c.b0), 1, 1, index, ())
        for index, c in enumerate(comparisons)
    }

    products: Products = {}
    memo: StepsMemo = {}

    def extend_all(frontier: Frontier, depth: int, symbols: Sequence[int]) -> Frontier:
        following = _extend(
            system,
            frontier,
            depth,
            horizon,
            budget,
            state,
            seeding,
            _keep_all,
            symbols,
            products,
            memo,
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

    ahead_depth = lookahead_depth(system, horizon)
    lookahead = Lookahead(system, ahead_depth) if ahead_depth else None
    counts.lookahead = ahead_depth

    def keep(a: IntegerVector, b: IntegerVector, depth: int) -> bool:
        """Whether some length the prefix reaches may beat its incumbent.

        Lengths past the lookahead are tried first with the cheap bounds; then
        the exact best of the next words (:mod:`lookahead`), and past it, where
        κ is finite, that times κ^{j−J}.
        """
        ahead = 0 if lookahead is None else min(lookahead.depth, horizon - depth)
        first: Loss | None = None
        for k in range(depth + ahead + 1, horizon + 1):
            incumbent = best[k]
            if incumbent is None:
                return True
            bound = integer_ratio_bound(a, b, growth[k - depth], gains[k - depth])
            if not bound.exceeds(incumbent):
                continue
            after = gains[k - depth - ahead]
            if lookahead is None or not ahead or after.infinite:
                return True
            if first is None:
                first = lookahead.exact_bound(a, b, ahead)
            if combined(first, after).exceeds(incumbent):
                return True
        for j in range(1, ahead + 1):
            incumbent = best[depth + j]
            assert lookahead is not None
            if incumbent is None or lookahead.exact_bound(a, b, j).exceeds(incumbent):
                return True
        return False

    frontier = start
    every_symbol = range(len(system.symbols))
    for depth in range(1, horizon + 1):
        counts.depth = depth
        frontier = _extend(
            system, frontier, depth, horizon, budget, state, counts, keep, every_symbol, None, memo
        )
        best = incumbents(state)
        counts.frontier = len(frontier)
        if progress is not None:
            progress(counts)
        if not frontier:
            break
    return counts
