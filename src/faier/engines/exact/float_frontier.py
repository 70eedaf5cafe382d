"""The merged, pruned sequence search on a float64 frontier, exact where it matters.

The frontier of one length is a pair of matrices (one row per prefix): the
forward vectors a and b, each normalised to sum 1, plus log(|a|/|b|).  A
level is a few matrix products per symbol.  Floats only *steer* the search:

* **Records.**  Every prefix whose float loss lies within the relative margin
  η of the level's float maximum is compared with the record, in order, by
  certified balls (:mod:`balls`) and exactly where they overlap; only the
  winner is computed exactly, so ``state.best`` only ever holds exact losses
  of real transcripts.
* **Pruning.**  A prefix is dropped when its float bound is below every
  incumbent it could still beat by more than ``BAND``·η, kept when above one
  by more than that, and decided in between by the bound in balls, else
  exactly (its exact forward vectors, the exact bound).
* **Merging.**  Prefixes whose normalised float vectors have the same
  weighted sums to 12 digits are candidates; they are merged only if their
  exact normalised vectors are equal.  A missed merge costs time, never an
  answer.

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
the steps, at least 10⁻⁹, and every ball or exact decision audits it: a
float bound or loss further than η from its certified value is an
:class:`~faier.errors.InternalError`, never a silent wrong prune.  Supports (which
entries are zero) are exact as long as nothing underflows: the matrices'
smallest entry and the normalised vectors' smallest entry are watched, and
the search hands back to the exact one (:class:`FloatRangeError`) before a
product could leave the normal range.

Ball and exact vectors are recomputed from a prefix's path on demand and
memoised, so a child of a rechecked prefix costs one step.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol, Union

import numpy as np
from numpy.typing import NDArray

from faier.core.budget import Budget
from faier.engines.exact import balls
from faier.engines.exact.integer_vectors import (
    IntegerVector,
    integer_times,
    integer_vector,
    mass_after,
    same_direction,
)
from faier.engines.exact.lookahead import Lookahead, combined, lookahead_depth, smaller
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
    SparseVector,
    _integer_rows,
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


FloatMatrix = Union["csr_matrix", Floats]
DENSE_UP_TO = 64
"""Systems with at most this many states get dense float matrices: no scipy import
(70 ms of Above Threshold's 2 s) and small dense products are as fast."""


@dataclass(frozen=True)
class FloatSystem:
    """Per-symbol float64 matrices of both sides (a symbol's rows shared where they are):
    CSR, or dense arrays for small systems."""

    left: tuple[FloatMatrix, ...]
    right: tuple[FloatMatrix, ...]


def float_system(system: SequenceSystem) -> FloatSystem:
    """The step matrices in float64; refuses entries too small for float64 work.

    scipy is imported only for systems above :data:`DENSE_UP_TO` states.
    """
    n = system.size

    def arrays(rows: Rows) -> tuple[Floats, Indices, Indices]:
        fast = _from_integers(rows)
        if fast is not None:
            return fast
        data, cols, ptr = [], [], [0]
        for row in rows:
            for t, p in row:
                value = float(p)
                if p > 0 and value < SMALLEST_PROBABILITY:
                    raise FloatRangeError(f"probability {p} is too small for float64 search")
                data.append(value)
                cols.append(t)
            ptr.append(len(data))
        return np.array(data, dtype=np.float64), np.array(cols, dtype=np.int64), np.array(ptr)

    def matrix(rows: Rows) -> FloatMatrix:
        data, cols, ptr = arrays(rows)
        if n <= DENSE_UP_TO:
            dense = np.zeros((n, n))
            np.add.at(dense, (np.repeat(np.arange(n), np.diff(ptr)), cols), data)
            return dense
        from scipy import sparse

        return sparse.csr_matrix((data, cols, ptr), shape=(n, n))

    cache: dict[int, FloatMatrix] = {}

    def shared(rows: Rows) -> FloatMatrix:
        if id(rows) not in cache:
            cache[id(rows)] = matrix(rows)
        return cache[id(rows)]

    return FloatSystem(
        tuple(shared(rows) for rows in system.left), tuple(shared(rows) for rows in system.right)
    )


_EXACT_IN_FLOAT = 2**53


def _from_integers(rows: Rows) -> tuple[Floats, Indices, Indices] | None:
    """CSR arrays of a matrix from its small integer numerators and row denominators.

    Each entry is N/d_s with N and d_s below 2^53, so both are exact floats and
    the one division is correctly rounded: the same float as ``float(p)``.
    None when a number is too large for that (the caller converts entry by
    entry).  Raises :class:`FloatRangeError` like the slow path.
    """
    integer = _integer_rows(rows)
    row_dens = [integer.den // scale for scale in integer.scale]
    counts = [len(row) for row in integer.rows]
    total = sum(counts)
    numerators = np.fromiter((p for row in integer.rows for _, p in row), np.float64, total)
    if max(row_dens, default=1) >= _EXACT_IN_FLOAT or (
        total and float(numerators.max()) >= _EXACT_IN_FLOAT
    ):
        return None
    data = numerators / np.repeat(np.array(row_dens, dtype=np.float64), counts)
    tiny = np.flatnonzero((data > 0) & (data < SMALLEST_PROBABILITY))
    if tiny.size:
        s = int(np.searchsorted(np.cumsum(counts), int(tiny[0]), side="right"))
        smallest = min(p for _, p in rows[s] if p)
        raise FloatRangeError(f"probability {smallest} is too small for float64 search")
    cols = np.fromiter((t for row in integer.rows for t, _ in row), np.int64, total)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return data, cols, ptr


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
    """Exact and ball forward vectors of any prefix of the search, from its path, memoised."""

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
        self.memo: dict[tuple[int, int], tuple[IntegerVector, IntegerVector]] = {}
        self.ball_memo: dict[tuple[int, int, int], tuple[Any, Any]] = {}
        self.use_balls = balls.available()
        self.computed = 0
        self.ball_steps = 0

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

    def _chain(
        self, depth: int, index: int, known: Callable[[tuple[int, int]], bool]
    ) -> tuple[list[tuple[int, int]], tuple[int, int]]:
        """The prefixes from the nearest memoised ancestor (or the start) down to this one."""
        chain: list[tuple[int, int]] = []
        key = (depth, index)
        while not known(key) and key[0] > 0:
            chain.append(key)
            key = (key[0] - 1, int(self.levels[key[0]].parent[key[1]]))
        return chain, key

    def vectors(self, depth: int, index: int) -> tuple[IntegerVector, IntegerVector]:
        """Exact vectors (integers over one denominator)."""
        chain, key = self._chain(depth, index, lambda k: k in self.memo)
        if key not in self.memo:
            start = self.comparisons[key[1]]
            self.memo[key] = (integer_vector(start.a0), integer_vector(start.b0))
        a, b = self.memo[key]
        for d, i in reversed(chain):
            self.budget.check_time()
            sym = int(self.levels[d].symbol[i])
            a = integer_times(a, self.system.left[sym])
            b = integer_times(b, self.system.right[sym])
            self.memo[(d, i)] = (a, b)
            self.computed += 1
        return a, b

    def sparse(self, depth: int, index: int) -> tuple[SparseVector, SparseVector]:
        a, b = self.vectors(depth, index)
        return a.to_sparse(), b.to_sparse()

    def ball_system(self, bits: int) -> balls.BallSystem:
        return balls.ball_system(self.system, bits)

    def ball_vectors(self, depth: int, index: int, bits: int) -> tuple[Any, Any]:
        """Ball vectors at ``bits`` of precision (call inside ``balls.precision(bits)``)."""
        chain, key = self._chain(depth, index, lambda k: (bits, *k) in self.ball_memo)
        system = self.ball_system(bits)
        if (bits, *key) not in self.ball_memo:
            start = self.comparisons[key[1]]
            self.ball_memo[(bits, *key)] = (system.vector(start.a0), system.vector(start.b0))
        a, b = self.ball_memo[(bits, *key)]
        for d, i in reversed(chain):
            self.budget.check_time()
            sym = int(self.levels[d].symbol[i])
            a = system.times(a, self.system.left[sym])
            b = system.times(b, self.system.right[sym])
            self.ball_memo[(bits, d, i)] = (a, b)
            self.ball_steps += 1
        return a, b

    def forget_below(self, depth: int) -> None:
        """Drop memoised vectors of lengths below ``depth - 1`` (never needed again)."""
        self.memo = {k: v for k, v in self.memo.items() if k[0] >= depth - 1}
        self.ball_memo = {k: v for k, v in self.ball_memo.items() if k[1] >= depth - 1}


class _Known:
    """An exact loss already on record (or an incumbent), as a decision operand."""

    def __init__(self, loss: Loss) -> None:
        self.loss = loss

    def ball(self, bits: int) -> balls.Ball:
        return balls.of_loss(self.loss.ratio)

    def exact(self) -> Loss:
        return self.loss


class _ChildLoss:
    """The loss of a prefix's child by one symbol: from the parent's masses one step on.

    Its first ball is audited against the float guess, like the exact value was.
    """

    def __init__(
        self, exact: _Exact, depth: int, parent: int, sym: int, guess: float, eta: float
    ) -> None:
        self.exact_vectors, self.depth, self.parent, self.sym = exact, depth, parent, sym
        self.guess, self.eta = guess, eta
        self.balls: dict[int, balls.Ball] = {}
        self.found: tuple[Loss, Fraction, Fraction] | None = None

    def ball(self, bits: int) -> balls.Ball:
        if bits not in self.balls:
            exact, system = self.exact_vectors, self.exact_vectors.system
            a, b = exact.ball_vectors(self.depth - 1, self.parent, bits)
            balls_system = exact.ball_system(bits)
            pa = balls_system.mass_after(a, system.left[self.sym])
            pb = balls_system.mass_after(b, system.right[self.sym])
            self.balls[bits] = balls.ratio(pa, pb)
            if len(self.balls) == 1:
                _audit_ball(self.guess, self.balls[bits], self.eta)
        return self.balls[bits]

    def record(self) -> tuple[Loss, Fraction, Fraction]:
        """The exact loss and both probabilities (checked to lie in every ball computed)."""
        if self.found is None:
            exact, system = self.exact_vectors, self.exact_vectors.system
            a, b = exact.vectors(self.depth - 1, self.parent)
            pa = mass_after(a, system.left[self.sym])
            pb = mass_after(b, system.right[self.sym])
            found = loss_of(pa, pb)
            _audit(self.guess, _log_loss(found), self.eta)
            _check_balls(found, self.balls)
            self.found = (found, pa, pb)
        return self.found

    def exact(self) -> Loss:
        return self.record()[0]


class _Bound:
    """A child's pruning bound for j more steps, as a decision operand.

    max_s a(s)/b(s)·B_j(s), or |a|/|b|·κ^j where that is smaller (``gain``).
    """

    def __init__(
        self,
        exact: _Exact,
        depth: int,
        index: int,
        growth: list[Loss],
        gain: Loss | None,
        guess: float,
        eta: float,
        ahead: _Ahead | None = None,
    ) -> None:
        self.exact_vectors, self.depth, self.index = exact, depth, index
        self.growth, self.gain, self.ahead = growth, gain, ahead
        self.guess, self.eta = guess, eta
        self.balls: dict[int, balls.Ball] = {}

    def ball(self, bits: int) -> balls.Ball:
        if bits not in self.balls:
            a, b = self.exact_vectors.ball_vectors(self.depth, self.index, bits)
            bound = _ball_bound(a.entries(), b.entries(), self.growth)
            if self.gain is not None and self.gain.ratio is not None:
                scaled = balls.ratio(balls.mass(a), balls.mass(b), self.gain.ratio)
                bound = balls.smaller(bound, scaled)
            self.balls[bits] = bound
            if len(self.balls) == 1:
                _audit_ball(self.guess, self.balls[bits], self.eta)
        return self.balls[bits]

    def exact(self) -> Loss:
        a, b = self.exact_vectors.vectors(self.depth, self.index)
        ahead = self.ahead
        if ahead is not None and ahead.gain_after is None:
            bound = ahead.lookahead.exact_bound(a, b, ahead.length, ahead.words)
        else:
            bound = integer_ratio_bound(a, b, self.growth, self.gain)
            if ahead is not None and ahead.gain_after is not None:
                first = ahead.lookahead.exact_bound(a, b, ahead.length, ahead.words)
                bound = smaller(bound, combined(first, Loss(ahead.gain_after)))
        _audit(self.guess, _log_loss(bound), self.eta)
        _check_balls(bound, self.balls)
        return bound


@dataclass(frozen=True)
class _Ahead:
    """How a :class:`_Bound` uses the lookahead: the exact best over words of ``length``,
    or (``gain_after`` set) that times the gain bound of the steps after them.  Such
    a bound is decided exactly, never in balls (see :mod:`lookahead`)."""

    lookahead: Lookahead
    length: int
    gain_after: Fraction | None = None
    words: tuple[int, ...] | None = None
    """The words whose float ratio could reach the incumbent (the others provably cannot)."""


def _ball_bound(a: list[Any], b: list[Any], growth: list[Loss]) -> balls.Ball:
    """max_s a(s)/b(s)·growth[s] over balls (∞ where b(s) is exactly 0 < a(s))."""
    best: balls.Ball = None
    for s, (x, y) in enumerate(zip(a, b, strict=True)):
        if x.is_zero():
            continue
        factor = growth[s].ratio
        if factor is None:
            return balls.INFINITE if x > 0 else balls.UNDECIDED
        candidate = balls.ratio(x, y, None if factor == 1 else factor)
        if candidate is balls.UNDECIDED or candidate is balls.INFINITE:
            return candidate
        best = candidate if best is None else best.max(candidate)
    return balls.ball(Fraction(0)) if best is None else best


class _Operand(Protocol):
    def ball(self, bits: int) -> balls.Ball: ...

    def exact(self) -> Loss: ...


def _exceeds(x: _Operand, y: _Operand, use_balls: bool) -> bool:
    """x > y: by certified balls at rising precision, exactly when they overlap."""
    if use_balls:
        for bits in balls.PRECISIONS:
            with balls.precision(bits):
                verdict = balls.exceeds(x.ball(bits), y.ball(bits))
            if verdict is not None:
                return verdict
    return x.exact().exceeds(y.exact())


def _audit_ball(guess: float, value: balls.Ball, eta: float) -> None:
    """The float log must lie within η of the ball's log (as :func:`_audit` for exact values)."""
    interval = balls.log_interval(value)
    if interval is None:
        return
    low, high = interval
    if not low - eta <= guess <= high + eta:
        distance = max(low - guess, guess - high)
        raise InternalError(
            f"float64 frontier: a float log {guess!r} is {distance:.3g} from its certified "
            f"value [{low!r}, {high!r}], beyond the round-off margin {eta:.3g}"
        )


def _check_balls(value: Loss, computed: dict[int, balls.Ball]) -> None:
    """An exact value outside a ball computed for it would make ball decisions unsound."""
    for bits, got in computed.items():
        if not balls.contains(got, value.ratio):
            with balls.precision(bits):
                shown = str(got)
            raise InternalError(f"certified ball {shown} at {bits} bits misses the exact {value}")


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
    counts.lookahead = 0 if search.lookahead is None else search.lookahead.depth
    if not counts.pattern_runs:
        search.run(SearchCounts(), None, beam=BEAM_WIDTH)
    search.run(counts, progress, beam=None)
    return counts


def _float_lookahead(system: SequenceSystem, horizon: int, floats: FloatSystem) -> Lookahead | None:
    """The lookahead (:mod:`lookahead`) where its float columns stay clear of underflow.

    A column entry is a product of at most J matrix entries; entries below
    :data:`SMALLEST_PROBABILITY` times a normalised vector entry (at least
    :data:`SMALLEST_ENTRY`) could underflow and turn a possible word into an
    impossible one, so the depth stops before any column has one.
    """
    depth = lookahead_depth(system, horizon)
    if not depth:
        return None
    lookahead = Lookahead(system, depth)
    for length in range(1, depth + 1):
        for columns in lookahead.float_columns(length, floats.left, floats.right):
            positive = columns[columns > 0]
            if positive.size and positive.min() < SMALLEST_PROBABILITY:
                lookahead.depth = length - 1
                return lookahead if lookahead.depth >= 2 else None
    return lookahead


def _words_above(
    search: _FloatPass, lookahead: Lookahead, child: _Level, row: int, length: int, low: float
) -> tuple[int, ...]:
    """The words whose float loss from this row is above ``low`` (the incumbent less the band).

    Every other word's exact loss is below the incumbent (its float is within
    η of it and the band is wider), so it cannot decide a prune; the one of
    largest float loss is always among these when the row's bound is in the band.
    """
    left, right = lookahead.float_columns(length, search.floats.left, search.floats.right)
    with np.errstate(divide="ignore"):
        logs = np.log(_ratios(child.a[row] @ left, child.b[row] @ right))
    return tuple(int(w) for w in np.flatnonzero(child.log_ratio[row] + logs > low))


def _log_ahead(a: Floats, b: Floats, columns: tuple[Floats, Floats]) -> Floats:
    """log max over words of (a·f^L_w)/(b·f^R_w) per row of normalised vectors.

    +∞ where some word has b·f^R_w = 0 < a·f^L_w, −∞ where no word is possible on
    the π side; both exact, since nothing underflows (:func:`_float_lookahead`).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        best: Floats = np.log(_ratios(a @ columns[0], b @ columns[1]).max(axis=1, initial=0.0))
    return best


def _ratios(tops: Floats, bottoms: Floats) -> Floats:
    """tops/bottoms, 0 where tops is 0 (no word), ∞ where only bottoms is (one correctly
    rounded division: a third of the two logs per word it replaced)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios: Floats = np.where(tops > 0, tops / bottoms, 0.0)
    return ratios


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
        self.gains = gain_bounds(system, horizon)
        self.gains_finite = not self.gains[-1].infinite
        kappa = self.gains[1].ratio if horizon and self.gains_finite else None
        log_kappa = 0.0 if kappa is None else _log(kappa)
        steps = np.arange(horizon + 1, dtype=np.float64)
        self.log_gain: Floats = steps * log_kappa
        self.gain_error: Floats = 4 * UNIT_ROUNDOFF * (steps * abs(log_kappa) + 1)
        """Bound on the float error of j·log κ (two logs within an ulp, one product)."""
        self.lookahead = _float_lookahead(system, horizon, floats)

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
                survivors = _prune(self, exact, child, depth, state, counts, eta)
                frontier = _merge(exact, child, depth, survivors, counts)
            exact.forget_below(depth)
            counts.frontier = len(frontier)
            counts.rechecked += exact.computed
            counts.ball_steps += exact.ball_steps
            exact.computed = exact.ball_steps = 0
            if progress is not None:
                progress(counts)
            if not frontier.size:
                break
        counts.rechecked += exact.computed
        counts.ball_steps += exact.ball_steps


def _record(
    state: SearchState,
    exact: _Exact,
    depth: int,
    parents: Indices,
    sym: int,
    loss: Floats,
    eta: float,
) -> None:
    """Record the child whose loss beats ε*(depth) so far, among those whose float loss could.

    Children below the best loss found at this length or before (by more
    than the margin) cannot change ε*(k) for any k.  The others are compared
    in order, each with the leader so far, exactly as the exact search
    would (a later child must strictly exceed the leader), but by certified
    balls; only the final leader is computed exactly, once.
    """
    top = float(loss.max())
    incumbent = _log_loss(incumbents(state)[depth])
    if top + eta < incumbent or (top == incumbent == math.inf):
        return
    threshold = top - 2 * eta if math.isfinite(top) else math.inf
    picked = loss >= threshold
    record = state.best[depth]
    leader: _Operand | None = None if record is None else _Known(record.loss)
    for parent, guess in zip(parents[picked], loss[picked], strict=True):
        candidate = _ChildLoss(exact, depth, int(parent), sym, float(guess), eta)
        if leader is None or _exceeds(candidate, leader, exact.use_balls):
            leader = candidate
        if candidate.balls.get(balls.PRECISIONS[0]) is balls.INFINITE or (
            candidate.found is not None and candidate.found[0].infinite
        ):
            break  # nothing exceeds an infinite loss
    if isinstance(leader, _ChildLoss):
        found, pa, pb = leader.record()
        path = (*exact.path(depth - 1, leader.parent), sym)
        state.best[depth] = DepthRecord(
            found, pa, pb, exact.comparison(depth - 1, leader.parent), path
        )


def _prune(
    search: _FloatPass,
    exact: _Exact,
    child: _Level,
    depth: int,
    state: SearchState,
    counts: SearchCounts,
    eta: float,
) -> Indices:
    """Indices of the children that may still beat an incumbent (exactly decided at the margin).

    The bound for j more steps is the smaller of the classic one and the
    gain bound |a|/|b|·κ^j (:func:`~faier.engines.exact.pruning.gain_bounds`);
    for j up to the lookahead depth J it is the exact best over the words of
    length j, and past J, where κ is finite, at most that of J times κ^{j−J}
    (:mod:`~faier.engines.exact.lookahead`; the margin then covers J + 1 more
    steps of float error).  A child is kept if the bound beats the incumbent
    of some length it can reach.
    """
    best = incumbents(state)
    remaining = np.arange(1, search.horizon - depth + 1)
    lowest = np.array([_log_loss(best[depth + j]) for j in remaining])
    rows, which = np.unique(search.log_growth[remaining], axis=0, return_inverse=True)
    which = which.reshape(-1)
    classic = np.stack([_log_bound(child.a, child.b, child.log_ratio, row) for row in rows], axis=1)
    bounds = classic[:, which]
    band = BAND * eta + search.gain_error[remaining]
    if search.gains_finite:
        bounds = np.minimum(bounds, child.log_ratio[:, None] + search.log_gain[None, remaining])
    lookahead = search.lookahead
    ahead = 0 if lookahead is None else min(lookahead.depth, len(remaining))
    if lookahead is not None and ahead:
        eta = _margin(depth + ahead + 1, child.a.shape[1], float(np.abs(child.log_ratio).max()))
        band = BAND * eta + search.gain_error[remaining]
        # Rows kept anyway by a length past the lookahead need no columns, unless the
        # gain bound lowers those lengths too (then every row gets them).
        # Rows the bounds so far already prune need nothing more either.
        later = (bounds[:, ahead:] - band[None, ahead:] > lowest[None, ahead:]).any(axis=1)
        alive = (bounds + band[None, :] > lowest[None, :]).any(axis=1)
        near = np.flatnonzero(alive if search.gains_finite else alive & ~later)
        a, b, lr = child.a[near], child.b[near], child.log_ratio[near]
        for j in range(1, ahead + 1):
            columns = lookahead.float_columns(j, search.floats.left, search.floats.right)
            bounds[near, j - 1] = lr + _log_ahead(a, b, columns)
        if search.gains_finite:
            first = bounds[near, ahead - 1]
            for j in range(ahead + 1, len(remaining) + 1):
                scaled = first + search.log_gain[j - ahead]
                bounds[near, j - 1] = np.minimum(bounds[near, j - 1], scaled)
    surely: NDArray[np.bool_] = np.asarray((bounds - band[None, :] > lowest[None, :]).any(axis=1))
    maybe: NDArray[np.bool_] = np.asarray((bounds + band[None, :] > lowest[None, :]).any(axis=1))
    keep = surely.copy()
    for i in np.flatnonzero(maybe & ~surely):
        for column, j in enumerate(remaining.tolist()):
            incumbent = best[depth + j]
            gain = search.gains[j] if search.gains_finite else None
            guess = float(bounds[i, column])
            if guess + band[column] <= lowest[column]:
                continue  # surely not above this length's incumbent, as decided for pruning
            how = None
            threshold = float(lowest[column] - band[column])
            if lookahead is not None and j <= ahead:
                words = _words_above(search, lookahead, child, int(i), j, threshold)
                how = _Ahead(lookahead, j, None, words)
            elif lookahead is not None and ahead and search.gains_finite:
                factor = search.gains[j - ahead].ratio
                threshold -= float(search.log_gain[j - ahead])
                words = _words_above(search, lookahead, child, int(i), ahead, threshold)
                how = _Ahead(lookahead, ahead, factor, words)
            operand = _Bound(exact, depth, int(i), search.growth[j], gain, guess, eta, how)
            tie = _near_tie(guess, float(lowest[column]))
            if incumbent is None or _exceeds(
                operand, _Known(incumbent), exact.use_balls and not tie and how is None
            ):
                keep[i] = True
                break
    counts.pruned += int((~keep).sum())
    counts.cut |= bool((~keep).any())
    return np.flatnonzero(keep)


TIE_ULPS = 64
"""Float bounds this close to an incumbent are taken for exact ties (see :func:`_near_tie`)."""


def _near_tie(guess: float, incumbent: float) -> bool:
    """Whether a bound is most likely exactly the incumbent: balls cannot settle a tie.

    The lookahead bound of a prefix on the witness's path is the incumbent
    itself, computed along another route, so the two floats differ by a few
    ulps; such a decision goes straight to exact arithmetic (a guess only
    picks the method, never the answer).
    """
    if not math.isfinite(incumbent):
        return guess == incumbent
    return abs(guess - incumbent) <= TIE_ULPS * UNIT_ROUNDOFF * max(1.0, abs(incumbent))


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
    """Survivors with equal normalised vectors merged (equality confirmed exactly).

    Float keys group the candidates; within a group, certified balls tell
    most different vectors apart, and the rest are compared exactly by
    cross-multiplying integer numerators (no normalising, no gcd).
    """
    if survivors.size < 2:
        return survivors
    n = child.a.shape[1]
    projected = np.column_stack(
        [child.a[survivors] @ _key_weights(n, 0), child.b[survivors] @ _key_weights(n, 1)]
    )
    rounded = np.round(projected, KEY_DIGITS)
    _, group, sizes = np.unique(rounded, axis=0, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    single = sizes[group] == 1
    kept = [int(i) for i in survivors[single]]
    members: dict[int, list[int]] = {}
    for row in np.flatnonzero(~single):
        members.setdefault(int(group[row]), []).append(int(survivors[row]))
    for indices in members.values():
        representatives: list[list[Any]] = []  # [index, exact scale |a|/|b|]
        for i in indices:
            match = next((r for r in representatives if _same_shape(exact, depth, i, r[0])), None)
            if match is None:
                representatives.append([i, None])
                continue
            counts.merged += 1
            scale = _scale(exact, depth, i)
            if match[1] is None:
                match[1] = _scale(exact, depth, match[0])
            if scale <= match[1]:
                continue
            match[0], match[1] = i, scale
        kept.extend(r[0] for r in representatives)
    return np.array(sorted(kept), dtype=np.int64)


@cache
def _key_weights(n: int, side: int) -> Floats:
    """Fixed random weights in [1/2, 1): a normalised vector's key is its weighted sum.

    Two numbers per prefix instead of 2n make grouping cheap (sorting whole
    rows took a third of a sparse 200-state search); vectors that are equal
    exactly have sums equal to far below 10⁻¹², and unequal ones that
    collide are told apart by balls or exactly, so a key only costs time.
    """
    weights: Floats = 0.5 + 0.5 * np.random.default_rng(12 + side).random(n)
    return weights


def _scale(exact: _Exact, depth: int, index: int) -> Fraction:
    a, b = exact.vectors(depth, index)
    return a.mass() / b.mass()


def _same_shape(exact: _Exact, depth: int, i: int, j: int) -> bool:
    """Both sides' normalised vectors equal: balls prove most differences, exact the rest."""
    if exact.use_balls:
        bits = balls.PRECISIONS[0]
        with balls.precision(bits):
            for x, y in zip(
                exact.ball_vectors(depth, i, bits), exact.ball_vectors(depth, j, bits), strict=True
            ):
                if not (x * (1 / balls.mass(x))).overlaps(y * (1 / balls.mass(y))):
                    return False
    a, b = exact.vectors(depth, i)
    a2, b2 = exact.vectors(depth, j)
    return same_direction(a, a2) and same_direction(b, b2)
