"""StatDP's hypothesis test (§4.2) and a confidence interval for one event's loss.

H0: p1 ≤ e^ε·p2, where c1 ~ Bin(n1, p1) and c2 ~ Bin(n2, p2) count the runs on
D1 and D2 that land in the event E.  Thinning c1 to c̃1 ~ Bin(c1, e^-ε) gives
c̃1 ~ Bin(n1, p1/e^ε), which turns H0 into "c̃1 and c2 have the same
parameter or c̃1 the smaller one", and Fisher's exact test decides that:
p = P(X ≥ c̃1) for X ~ Hypergeom(n1 + n2, n1, c̃1 + c2).

Guarantee: for one thinning, P(p ≤ α | H0) ≤ α.  The reported p-value is the
mean over ``thinnings`` independent thinnings (StatDP §4.2's variance
reduction).  A mean of valid p-values is only guaranteed valid at level 2α
(twice the mean always is a valid p-value, Vovk and Wang 2020); under H0 the
mean is in fact more conservative than one thinning, which the tests measure.

The direction of the test (D1 over D2) is fixed before the test samples are
drawn.  The public StatDP code instead swaps D1 and D2 after counting so that
c1 ≥ c2, which reports min(p⊤, p⊥) and can double the false-alarm rate
(measured in the tests: 0.095 instead of 0.05 at ε = 0).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _stats() -> Any:
    """scipy.stats, imported on first use: it costs most of a second at start-up."""
    import scipy.stats

    return scipy.stats


def thinned_pvalues(
    c1: IntArray,
    c2: IntArray,
    n1: int,
    n2: int,
    epsilon: float,
    thinnings: int,
    rng: np.random.Generator,
) -> FloatArray:
    """Mean p-value over ``thinnings`` thinnings, for each pair of counts (vectorised)."""
    c1 = np.asarray(c1, dtype=np.int64)
    c2 = np.asarray(c2, dtype=np.int64)
    kept = rng.binomial(c1[:, None], math.exp(-epsilon), size=(c1.size, thinnings))
    tails = np.broadcast_to(c2[:, None], kept.shape)
    # Thinnings repeat values; each distinct tail is computed once (scipy's costs up to 0.4 ms).
    distinct, back = np.unique(np.stack([kept.ravel(), tails.ravel()]), axis=1, return_inverse=True)
    p = _stats().hypergeom.sf(distinct[0] - 1, n1 + n2, n1, distinct[0] + distinct[1])
    p = np.clip(p, 0.0, 1.0)[back.ravel()].reshape(kept.shape)
    return np.asarray(p.mean(axis=1), dtype=np.float64)


def thinned_pvalue(
    c1: int, c2: int, n1: int, n2: int, epsilon: float, thinnings: int, rng: np.random.Generator
) -> float:
    """The test of H0: p1 ≤ e^ε·p2 for one pair of counts."""
    counts = np.array([c1]), np.array([c2])
    return float(thinned_pvalues(*counts, n1, n2, epsilon, thinnings, rng)[0])


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Exact two-sided interval for a binomial proportion (k successes in n)."""
    tail = (1.0 - confidence) / 2.0
    low = 0.0 if k == 0 else float(_stats().beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(_stats().beta.ppf(1.0 - tail, k + 1, n - k))
    return low, high


def loss_interval(c1: int, c2: int, n1: int, n2: int, confidence: float) -> tuple[float, float]:
    """Interval for ln(p1/p2) holding with probability ≥ ``confidence``.

    Each proportion gets a Clopper–Pearson interval at 1 − (1 − confidence)/2,
    so both hold together with probability ≥ ``confidence`` (Bonferroni); the
    ratio's extremes pair the low end of one with the high end of the other.
    """
    each = 1.0 - (1.0 - confidence) / 2.0
    low1, high1 = clopper_pearson(c1, n1, each)
    low2, high2 = clopper_pearson(c2, n2, each)
    low = -math.inf if low1 == 0.0 else math.log(low1 / high2)
    high = math.inf if low2 == 0.0 else math.log(high1 / low2)
    return low, high


def loss_lower_bounds(c1: IntArray, c2: IntArray, n: int, confidence: float) -> FloatArray:
    """The lower ends of :func:`loss_interval` for many count pairs (the selector's score)."""
    c1 = np.asarray(c1, dtype=np.int64)
    c2 = np.asarray(c2, dtype=np.int64)
    tail = (1.0 - confidence) / 4.0
    with np.errstate(divide="ignore", invalid="ignore"):
        low1 = np.where(c1 > 0, _stats().beta.ppf(tail, np.maximum(c1, 1), n - c1 + 1), 0.0)
        high2 = np.where(c2 < n, _stats().beta.ppf(1.0 - tail, c2 + 1, np.maximum(n - c2, 1)), 1.0)
        out = np.where(low1 > 0, np.log(low1 / high2), -np.inf)
    return np.asarray(out, dtype=np.float64)
