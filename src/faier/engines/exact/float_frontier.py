"""The merged, pruned sequence search on a float64 frontier, exact where it matters.

The frontier of one length is a pair of matrices (one row per prefix): the
forward vectors a and b, each normalised to sum 1, plus log(|a|/|b|).  A
level is a few matrix products per symbol.  Floats only *steer* the search:

* **Records.**  Every prefix whose float loss lies within the relative margin
  η of the level's float maximum is recomputed exactly; ``state.best`` only
  ever holds exact losses of real transcripts.
* **Pruning.**  A prefix is dropped when its float bound is below every
  incumbent it could still beat by more than ``BAND``·η, kept when above one
  by more than that, and decided exactly (its exact forward vectors, the
  exact bound) in between.
* **Merging.**  Prefixes whose normalised float vectors agree to 12 digits are
  candidates; they are merged only if their exact normalised vectors are
  equal.  A missed merge costs time, never an answer.

Why η bounds the float error (:func:`_margin`): +, × and / are correctly
rounded (IEEE 754), and every entry is a sum of at most n non-negative
products, so one step off by at most γ_n = n·u/(1 − n·u) relative (in any
summation order, with or without fused multiply-adds), the matrix entry's
own rounding and the normalising division adding u each.  A mass's rounding
cancels: it divides the vector and is added to the running log ratio.  The
logarithms (|log| ≤ 700, see below) are the one operation IEEE does not
round correctly; numpy's are within ``LOG_ULPS`` units in the last place
(tested against mpmath), so each is off by at most ``LOG_ULPS``·700·u, and
adding to a running log ratio of size L by L·u.  η is twice the sum over
the steps, at least 10⁻⁹, and every exact decision audits it: a float
bound or loss further than η from its exact value is an
:class:`~faier.errors.InternalError`, never a silent wrong prune.  Supports (which
entries are zero) are exact as long as nothing underflows: the matrices'
smallest entry and the normalised vectors' smallest entry are watched, and
the search hands back to the exact one (:class:`FloatRangeError`) before a
product could leave the normal range.

Exact vectors are recomputed from a prefix's path on demand and memoised,
so a child of a rechecked prefix costs one exact step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from faier.core.budget import Budget
from faier.engines.exact.pruning import (
    SearchCounts,
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
from faier.errors import InternalError
from faier.results import Loss, loss_of

if TYPE_CHECKING:
    from scipy.sparse import csr_matrix

UNIT_ROUNDOFF = 2.0**-53
SMALLEST_ENTRY = 1e-280
"""Normalised entries below this could underflow in one more step: hand back."""
LOG_RANGE = 700.0
"""Bound on |log| of a normalised entry or a mass: both stay above 1e-300."""
SMALLEST_PROBABILITY = 1e-20
"""Matrix entries below this are left to the exact search."""
KEY_DIGITS = 12
LOG_ULPS = 4
"""numpy's float64 log is within this many units in the last place (tests check it)."""
BAND = 4.0
"""Prunes within BAND·η of an incumbent are decided exactly, not by floats."""
BEAM_WIDTH = 16

Floats = NDArray[np.float64]
Indices = NDArray[np.int64]


class FloatRangeError(ArithmeticError):
    """A float could leave the normal range; the exact search must take over."""


@dataclass(frozen=True)
class FloatSystem:
    """Per-symbol float64 matrices of both sides (a symbol's rows shared where they are)."""

    left: tuple[csr_matrix, ...]
    right: tuple[csr_matrix, ...]


def float_system(system: SequenceSystem) -> FloatSystem:
    """The step matrices as float64 CSR; refuses entries too small for float64 work.

    scipy is imported here, not with the module: a grid search never needs it.
    """
    from scipy import sparse

    def matrix(rows: Sequence[Sequence[tuple[int, Fraction]]]) -> csr_matrix:
        data, cols, ptr = [], [], [0]
        for row in rows:
            for t, p in row:
                value = float(p)
                if p > 0 and value < SMALLEST_PROBABILITY:
                    raise FloatRangeError(f"probability {p} is too small for float64 search")
                data.append(value)
                cols.append(t)
            ptr.append(len(data))
        return sparse.csr_matrix(
            (np.array(data, dtype=np.float64), np.array(cols, dtype=np.int64), ptr),
            shape=(system.size, system.size),
        )

    cache: dict[int, csr_matrix] = {}

    def shared(rows: Sequence[Sequence[tuple[int, Fraction]]]) -> csr_matrix:
        if id(rows) not in cache:
            cache[id(rows)] = matrix(rows)
        return cache[id(rows)]

    return FloatSystem(
        tuple(shared(rows) for rows in system.left), tuple(shared(rows) for rows in system.right)
    )


@dataclass
class _Level:
    """One length's prefixes: where each came from, and its float state."""

    parent: Indices
    symbol: Indices
    comparison: Indices
    a: Floats
    b: Floats
    log_ratio: Floats


class _Exact:
    """Exact forward vectors of any prefix of the search, from its path, memoised."""

    def __init__(
        self,
        system: SequenceSystem,
        comparisons: Sequence[SequenceComparison],
        levels: list[_Level],
        budget: Budget,
    ) -> None:
        self.system = system
        self.comparisons = comparisons
        self.levels = levels
        self.budget = budget
        self.memo: dict[tuple[int, int], tuple[SparseVector, SparseVector]] = {}
        self.computed = 0

    def path(self, depth: int, index: int) -> tuple[int, ...]:
        symbols = []
        while depth > 0:
            level = self.levels[depth]
            symbols.append(int(level.symbol[index]))
            index = int(level.parent[index])
            depth -= 1
        return tuple(reversed(symbols))

    def comparison(self, depth: int, index: int) -> int:
        return int(self.levels[depth].comparison[index])

    def vectors(self, depth: int, index: int) -> tuple[SparseVector, SparseVector]:
        chain: list[tuple[int, int]] = []
        key = (depth, index)
        while key not in self.memo and key[0] > 0:
            chain.append(key)
            key = (key[0] - 1, int(self.levels[key[0]].parent[key[1]]))
        if key not in self.memo:
            start = self.comparisons[key[1]]
            self.memo[key] = (dict(start.a0), dict(start.b0))
        a, b = self.memo[key]
        for d, i in reversed(chain):
            self.budget.check_time()
            sym = int(self.levels[d].symbol[i])
            a, b = _times(a, self.system.left[sym]), _times(b, self.system.right[sym])
            self.memo[(d, i)] = (a, b)
            self.computed += 1
        return a, b

    def forget_below(self, depth: int) -> None:
        """Drop memoised vectors of lengths below ``depth - 1`` (never needed again)."""
        self.memo = {k: v for k, v in self.memo.items() if k[0] >= depth - 1}


def _log(x: Fraction) -> float:
    return math.log(x.numerator) - math.log(x.denominator)


def _log_loss(loss: Loss | None) -> float:
    """log of a recorded loss (−∞ when nothing is recorded, +∞ for an infinite loss)."""
    if loss is None:
        return -math.inf
    if loss.ratio is None:
        return math.inf
    return -math.inf if loss.ratio == 0 else _log(loss.ratio)


def _log_growth(growth: list[list[Loss]]) -> Floats:
    """log B_j(s) for every j and s (+∞ where unbounded), rounded up by the margin later."""
    return np.array(
        [[math.inf if g.ratio is None else _log(g.ratio) for g in row] for row in growth],
        dtype=np.float64,
    )


def _margin(depth: int, size: int, log_size: float) -> float:
    """η after ``depth`` steps over ``size`` states with running log ratios up to ``log_size``.

    Per step and side: γ_n for the product, u for the matrix entry and u for
    normalising (relative errors, so as much in log); two logs of masses and
    two additions to the running log ratio.  The final bound adds two logs
    and three additions.  Twice the total, as a cushion for the first-order
    expansion of the log of (1 ± error).
    """
    u = UNIT_ROUNDOFF
    gamma = size * u / (1 - size * u)
    log_error = LOG_ULPS * LOG_RANGE * u
    running = (log_size + 3 * LOG_RANGE) * u
    per_step = 2 * (gamma + 2 * u) + 2 * log_error + 2 * running
    final = 2 * log_error + 3 * running
    return max(1e-9, 2.0 * ((depth + 1) * per_step + final))


def _normalise(x: Floats, mass: Floats) -> Floats:
    out = np.zeros_like(x)
    positive = mass > 0
    out[positive] = x[positive] / mass[positive, None]
    smallest = out[out > 0]
    if smallest.size and smallest.min() < SMALLEST_ENTRY:
        raise FloatRangeError("a forward vector entry is close to underflow")
    return out


def _log_bound(a: Floats, b: Floats, log_ratio: Floats, log_growth: Floats) -> Floats:
    """log max_s a(s)/b(s)·B(s) per prefix (+∞ where b(s) = 0 < a(s))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        per_state = np.where(a > 0, np.log(a) - np.log(b) + log_growth[None, :], -np.inf)
    bound: Floats = np.max(per_state, axis=1) + log_ratio
    return bound


def float_search(
    system: SequenceSystem,
    comparisons: Sequence[SequenceComparison],
    horizon: int,
    budget: Budget,
    state: SearchState,
    *,
    counts: SearchCounts,
    progress: Callable[[SearchCounts], None] | None = None,
) -> SearchCounts:
    """Fill ``state.best`` with the exact best loss per length.

    Without incumbents from the pattern runs, a float beam finds them first
    (its best transcripts recomputed exactly).  Raises
    :class:`FloatRangeError` (with ``state.best`` still holding only exact
    records) when floats cannot be trusted; the caller then runs the exact
    search, which may start from those records.
    """
    floats = float_system(system)
    growth = growth_bounds(system, horizon)
    search = _FloatPass(system, comparisons, horizon, budget, state, floats, growth)
    if not counts.pattern_runs:
        search.run(SearchCounts(), None, beam=BEAM_WIDTH)
    search.run(counts, progress, beam=None)
    return counts


class _FloatPass:
    """One level-by-level pass over float frontiers (a beam, or the full pruned search)."""

    def __init__(
        self,
        system: SequenceSystem,
        comparisons: Sequence[SequenceComparison],
        horizon: int,
        budget: Budget,
        state: SearchState,
        floats: FloatSystem,
        growth: list[list[Loss]],
    ) -> None:
        self.system, self.comparisons, self.horizon = system, comparisons, horizon
        self.budget, self.state, self.floats, self.growth = budget, state, floats, growth
        self.log_growth = _log_growth(growth)

    def _start(self) -> tuple[_Level, Indices]:
        n, comparisons = self.system.size, self.comparisons

        def rows(pick: Callable[[SequenceComparison], SparseVector]) -> Floats:
            out = np.zeros((len(comparisons), n))
            for i, c in enumerate(comparisons):
                for s, x in pick(c).items():
                    out[i, s] = float(x)
            return out

        a0, b0 = rows(lambda c: c.a0), rows(lambda c: c.b0)
        mass_a, mass_b = a0.sum(axis=1), b0.sum(axis=1)
        keep = (mass_a > 0) & (mass_b > 0)
        with np.errstate(divide="ignore"):
            ratio0 = np.log(mass_a) - np.log(mass_b)
        none = np.full(len(comparisons), -1, dtype=np.int64)
        level = _Level(
            none,
            none,
            np.arange(len(comparisons), dtype=np.int64),
            _normalise(a0, mass_a),
            _normalise(b0, mass_b),
            np.where(keep, ratio0, 0.0),
        )
        return level, np.flatnonzero(keep)

    def run(
        self,
        counts: SearchCounts,
        progress: Callable[[SearchCounts], None] | None,
        *,
        beam: int | None,
    ) -> None:
        """Extend level by level; keep the ``beam`` best, or everything not pruned or merged."""
        system, horizon, state = self.system, self.horizon, self.state
        start, frontier = self._start()
        levels = [start]
        exact = _Exact(system, self.comparisons, levels, self.budget)
        n = system.size
        halted = system.halted
        for depth in range(1, horizon + 1):
            counts.depth = depth
            level = levels[-1]
            a, b, lr = level.a[frontier], level.b[frontier], level.log_ratio[frontier]
            self.budget.spend(len(frontier))
            counts.explored += len(frontier)
            eta = _margin(depth, n, float(np.abs(lr).max(initial=0.0)))
            pieces: list[tuple[int, Indices, Floats, Floats, Floats]] = []
            for sym in range(len(system.symbols)):
                a2 = np.asarray(a @ self.floats.left[sym])
                pa = a2.sum(axis=1)
                alive = np.flatnonzero(pa > 0)
                if not alive.size:
                    continue
                b2 = np.asarray(b[alive] @ self.floats.right[sym])
                a2, pa = a2[alive], pa[alive]
                pb = b2.sum(axis=1)
                with np.errstate(divide="ignore"):
                    loss = lr[alive] + np.log(pa) - np.log(pb)
                _record(state, exact, depth, frontier[alive], sym, loss, eta)
                going = pb > 0
                if halted is not None:
                    support = (a2 > 0) | (b2 > 0)
                    support[:, halted] = False
                    going &= support.any(axis=1)
                if depth == horizon:
                    counts.cut |= bool(going.any())
                    continue
                rows = np.flatnonzero(going)
                if rows.size:
                    pieces.append(
                        (
                            sym,
                            frontier[alive[rows]],
                            _normalise(a2[rows], pa[rows]),
                            _normalise(b2[rows], pb[rows]),
                            loss[rows],
                        )
                    )
            if depth == horizon or not pieces:
                break
            parent = np.concatenate([p[1] for p in pieces])
            symbol = np.concatenate([np.full(len(p[1]), p[0], dtype=np.int64) for p in pieces])
            child = _Level(
                parent,
                symbol,
                level.comparison[parent],
                np.concatenate([p[2] for p in pieces]),
                np.concatenate([p[3] for p in pieces]),
                np.concatenate([p[4] for p in pieces]),
            )
            levels.append(child)
            level.a = level.b = level.log_ratio = np.empty((0, 0))
            if beam is not None:
                frontier = np.sort(np.argsort(-child.log_ratio, kind="stable")[:beam])
            else:
                survivors = _prune(
                    exact, self.growth, self.log_growth, child, depth, horizon, state, counts, eta
                )
                frontier = _merge(exact, child, depth, survivors, counts)
            exact.forget_below(depth)
            counts.frontier = len(frontier)
            counts.rechecked += exact.computed
            exact.computed = 0
            if progress is not None:
                progress(counts)
            if not frontier.size:
                break
        counts.rechecked += exact.computed


def _record(
    state: SearchState,
    exact: _Exact,
    depth: int,
    parents: Indices,
    sym: int,
    loss: Floats,
    eta: float,
) -> None:
    """Recompute exactly every child whose float loss could beat ε*(depth) so far.

    Children below the best loss found at this length or before (by more
    than the margin) cannot change ε*(k) for any k.
    """
    top = float(loss.max())
    incumbent = _log_loss(incumbents(state)[depth])
    if top + eta < incumbent or (top == incumbent == math.inf):
        return
    threshold = top - 2 * eta if math.isfinite(top) else math.inf
    for parent, guess in zip(parents[loss >= threshold], loss[loss >= threshold], strict=True):
        a, b = exact.vectors(depth - 1, int(parent))
        pa = sum(_times(a, exact.system.left[sym]).values(), Fraction(0))
        pb = sum(_times(b, exact.system.right[sym]).values(), Fraction(0))
        found = loss_of(pa, pb)
        _audit(float(guess), _log_loss(found), eta)
        record = state.best[depth]
        if record is None or found.exceeds(record.loss):
            path = (*exact.path(depth - 1, int(parent)), sym)
            state.best[depth] = DepthRecord(
                found, pa, pb, exact.comparison(depth - 1, int(parent)), path
            )
        if found.infinite:
            return  # nothing exceeds an infinite record


def _prune(
    exact: _Exact,
    growth: list[list[Loss]],
    log_growth: Floats,
    child: _Level,
    depth: int,
    horizon: int,
    state: SearchState,
    counts: SearchCounts,
    eta: float,
) -> Indices:
    """Indices of the children that may still beat an incumbent (exactly decided at the margin)."""
    best = incumbents(state)
    logs = [_log_loss(loss) for loss in best]
    remaining = range(1, horizon - depth + 1)
    rows, which = np.unique(log_growth[list(remaining)], axis=0, return_inverse=True)
    which = which.reshape(-1)
    surely = np.zeros(len(child.a), dtype=bool)
    maybe = np.zeros(len(child.a), dtype=bool)
    band = BAND * eta
    bounds = []
    for r, row in enumerate(rows):
        lowest = min(logs[depth + j] for j, w in zip(remaining, which, strict=True) if w == r)
        bound = _log_bound(child.a, child.b, child.log_ratio, row)
        bounds.append(bound)
        surely |= bound - band > lowest
        maybe |= bound + band > lowest
    keep = surely.copy()
    for i in np.flatnonzero(maybe & ~surely):
        a, b = exact.vectors(depth, int(i))
        for j in remaining:
            exact_bound = ratio_bound(a, b, growth[j])
            _audit(float(bounds[which[j - 1]][i]), _log_loss(exact_bound), eta)
            incumbent = best[depth + j]
            if incumbent is None or exact_bound.exceeds(incumbent):
                keep[i] = True
                break
    counts.pruned += int((~keep).sum())
    counts.cut |= bool((~keep).any())
    return np.flatnonzero(keep)


def _audit(guess: float, exact: float, eta: float) -> None:
    """Check a float log against its exact value: further than η apart breaks the margin."""
    if math.isfinite(exact) and not abs(guess - exact) <= eta:
        raise InternalError(
            f"float64 frontier: a float log {guess!r} is {abs(guess - exact):.3g} from its "
            f"exact value {exact!r}, beyond the round-off margin {eta:.3g}"
        )


def _merge(
    exact: _Exact, child: _Level, depth: int, survivors: Indices, counts: SearchCounts
) -> Indices:
    """Survivors with equal normalised vectors merged (equality confirmed exactly)."""
    if survivors.size < 2:
        return survivors
    rounded = np.round(np.hstack([child.a[survivors], child.b[survivors]]), KEY_DIGITS)
    _, group, sizes = np.unique(rounded, axis=0, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    single = sizes[group] == 1
    kept = [int(i) for i in survivors[single]]
    members: dict[int, list[int]] = {}
    for row in np.flatnonzero(~single):
        members.setdefault(int(group[row]), []).append(int(survivors[row]))
    for indices in members.values():
        best: dict[object, tuple[Fraction, int]] = {}
        for i in indices:
            a, b = exact.vectors(depth, i)
            pa, pb = sum(a.values(), Fraction(0)), sum(b.values(), Fraction(0))
            key = normalised_key(a, b, pa, pb)
            scale = pa / pb
            if key in best:
                counts.merged += 1
                if scale <= best[key][0]:
                    continue
            best[key] = (scale, i)
        kept.extend(i for _, i in best.values())
    return np.array(sorted(kept), dtype=np.int64)
