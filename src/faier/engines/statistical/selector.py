"""Event selection (StatDP §4.3): the candidate (D1, D2, E) most likely to show a violation.

Counts of every event on every side come from the selection samples, once;
they do not depend on ε, so choosing at another ε costs only arithmetic.
At each ε every ordered pair and event is scored by the z statistic of the
thinned comparison (c1·e^-ε against c2: the normal approximation of the
thinned Fisher test, whose p-value is monotone in it), and events with fewer
than 0.001·n·e^ε hits in all are dropped (StatDP §4.3, footnote 3: too noisy).

With thousands of events some look strong by chance, and a chance winner
fails on fresh samples.  So the selection samples are counted in two
halves: the best ``TOP`` candidates on all of them are re-scored on each
half, and the one whose *weaker* half scores best wins.  Ranking by z
rather than by the exact p-value also keeps apart the many strong
candidates whose p-values all underflow to 0 (StatDP then takes the first)
and needs no hypergeometric tails (scipy's cost up to 0.4 ms each).

The direction D1 → D2 is part of the choice, so the final test on fresh
samples has a fixed direction.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from faier.engines.statistical.significance import loss_lower_bounds

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

TOP = 64
"""Candidates re-scored on each half of the selection samples."""
FILTER = 0.001
"""StatDP's count filter: an event needs 0.001·n·e^ε hits on the two sides together."""


@dataclass(frozen=True)
class Selection:
    """The chosen ordered pair and event, with its score on the selection samples."""

    pair: int
    event: int
    score: float
    filtered: bool


@dataclass(frozen=True, eq=False)
class Counts:
    """Event counts per side (rows) on the two halves of the selection samples."""

    first: IntArray
    second: IntArray
    halves: tuple[int, int]

    @property
    def total(self) -> IntArray:
        return self.first + self.second

    @property
    def n(self) -> int:
        return sum(self.halves)


def _z(a: FloatArray | IntArray, b: FloatArray | IntArray, n: int, epsilon: float) -> FloatArray:
    shrink = math.exp(-epsilon)
    thinned = a * shrink
    total = thinned + b
    variance = thinned * (1 - shrink) + total * (1 - total / (2 * n)) + 1.0
    return np.asarray((thinned - b) / np.sqrt(variance), dtype=np.float64)


def _pick(
    score: FloatArray, halves: tuple[FloatArray, FloatArray], keep: npt.NDArray[np.bool_]
) -> int:
    """Best of the top candidates by their weaker half."""
    ranked = np.where(keep, score, -np.inf)
    k = min(TOP, ranked.size)
    best = np.argpartition(-ranked, k - 1)[:k]
    weaker = np.minimum(halves[0][best], halves[1][best])
    weaker = np.where(np.isfinite(ranked[best]), weaker, -np.inf)
    order = np.lexsort((-ranked[best], -weaker))
    return int(best[order[0]])


def select(counts: Counts, left: IntArray, right: IntArray, epsilon: float) -> Selection:
    """The (pair, event) with the strongest evidence of P(D1 ∈ E) > e^ε·P(D2 ∈ E)."""
    events = counts.first.shape[1]
    total = counts.total
    a, b = total[left].ravel(), total[right].ravel()
    keep = (a + b) >= FILTER * counts.n * math.exp(epsilon)
    filtered = bool(keep.any())
    if not filtered:
        keep = (a + b) > 0
    halves = tuple(
        _z(part[left].ravel(), part[right].ravel(), size, epsilon)
        for part, size in ((counts.first, counts.halves[0]), (counts.second, counts.halves[1]))
    )
    chosen = _pick(_z(a, b, counts.n, epsilon), (halves[0], halves[1]), keep)
    pair, event = divmod(chosen, events)
    return Selection(pair, event, float(min(h[chosen] for h in halves)), filtered)


def _approximate_bound(a: IntArray, b: IntArray, z: float) -> FloatArray:
    """A normal-approximation lower bound of ln(p1/p2), for ranking only."""
    with np.errstate(divide="ignore"):
        bound = np.log((a + 0.5) / (b + 0.5)) - z * np.sqrt(1 / (a + 0.5) + 1 / (b + 0.5))
    return np.asarray(np.where(a > 0, bound, -np.inf), dtype=np.float64)


def select_loss(counts: Counts, left: IntArray, right: IntArray, confidence: float) -> Selection:
    """The (pair, event) whose loss ln(p1/p2) has the largest confidence lower bound."""
    events = counts.first.shape[1]
    from scipy.stats import norm  # lazy: scipy.stats is slow to import

    z = float(norm.ppf(1 - (1 - confidence) / 2))
    total = counts.total
    a, b = total[left].ravel(), total[right].ravel()
    score = _approximate_bound(a, b, z)
    k = min(TOP, score.size)
    best = np.argpartition(-score, k - 1)[:k]
    halves = [
        loss_lower_bounds(part[left].ravel()[best], part[right].ravel()[best], size, confidence)
        for part, size in ((counts.first, counts.halves[0]), (counts.second, counts.halves[1]))
    ]
    weaker = np.minimum(halves[0], halves[1])
    order = np.lexsort((-score[best], -weaker))
    chosen = int(best[order[0]])
    pair, event = divmod(chosen, events)
    return Selection(pair, event, float(weaker[order[0]]), True)
