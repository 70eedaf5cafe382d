"""The hypothesis test: Fisher's exact test after thinning, its type-I error, and the loss interval.

The type-I error is measured where H0 is hardest to keep, on its boundary
p1 = e^ε·p2, with many simulated count pairs (vectorised).  Expected values
come from scipy's own Fisher test and from simulation, never from faier.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import fisher_exact

from faier.engines.statistical.significance import (
    clopper_pearson,
    loss_interval,
    loss_lower_bounds,
    thinned_pvalue,
    thinned_pvalues,
)

REPLICATES = 3000
N = 4000


def boundary_counts(
    epsilon: float, p2: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Count pairs from two binomials with p1 = e^ε·p2 exactly (H0 holds with equality)."""
    return rng.binomial(N, math.exp(epsilon) * p2, REPLICATES), rng.binomial(N, p2, REPLICATES)


def test_at_epsilon_zero_it_is_fishers_one_sided_test() -> None:
    rng = np.random.default_rng(0)
    for c1, c2 in [(30, 12), (12, 30), (0, 5), (400, 380)]:
        expected = fisher_exact([[c1, N - c1], [c2, N - c2]], alternative="greater").pvalue
        assert thinned_pvalue(c1, c2, N, N, 0.0, 5, rng) == pytest.approx(expected, rel=1e-9)


def test_more_evidence_gives_smaller_p_values() -> None:
    rng = np.random.default_rng(1)
    p = thinned_pvalues(np.array([100, 200, 400]), np.array([100, 100, 100]), N, N, 0.5, 200, rng)
    assert p[0] > p[1] > p[2]
    assert p[2] < 1e-6


@pytest.mark.parametrize(("epsilon", "p2"), [(0.0, 0.3), (0.5, 0.05), (1.0, 0.2), (0.2, 0.01)])
def test_type_one_error_is_at_most_alpha_on_the_boundary(epsilon: float, p2: float) -> None:
    rng = np.random.default_rng(7)
    c1, c2 = boundary_counts(epsilon, p2, rng)
    p = thinned_pvalues(c1, c2, N, N, epsilon, 50, rng)
    for alpha in (0.05, 0.01):
        # 3 standard errors of the simulated rate above α
        slack = 3 * math.sqrt(alpha * (1 - alpha) / REPLICATES)
        assert np.mean(p <= alpha) <= alpha + slack


def test_swapping_after_counting_doubles_false_alarms() -> None:
    """StatDP's post-hoc swap (test whichever direction the counts favour) at ε = 0."""
    rng = np.random.default_rng(11)
    c1, c2 = boundary_counts(0.0, 0.3, rng)
    fixed = thinned_pvalues(c1, c2, N, N, 0.0, 1, rng)
    swapped = np.minimum(fixed, thinned_pvalues(c2, c1, N, N, 0.0, 1, rng))
    assert np.mean(fixed <= 0.05) <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / REPLICATES)
    assert np.mean(swapped <= 0.05) >= 1.6 * 0.05


def test_clopper_pearson_covers_the_proportion() -> None:
    rng = np.random.default_rng(3)
    p, n = 0.03, 2000
    hits = [clopper_pearson(int(k), n, 0.95) for k in rng.binomial(n, p, 1000)]
    covered = np.mean([low <= p <= high for low, high in hits])
    assert covered >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / 1000)
    assert clopper_pearson(0, n, 0.95)[0] == 0.0
    assert clopper_pearson(n, n, 0.95)[1] == 1.0


def test_loss_interval_covers_the_true_loss() -> None:
    rng = np.random.default_rng(5)
    p1, p2, n = 0.2, 73 / 1440, 20_000
    truth = math.log(p1 / p2)
    c1, c2 = rng.binomial(n, p1, 500), rng.binomial(n, p2, 500)
    covered = np.mean(
        [
            lo <= truth <= hi
            for lo, hi in (loss_interval(a, b, n, n, 0.95) for a, b in zip(c1, c2, strict=True))
        ]
    )
    assert covered >= 0.95 - 3 * math.sqrt(0.05 * 0.95 / 500)


def test_loss_interval_ends() -> None:
    low, high = loss_interval(50, 0, 1000, 1000, 0.95)
    assert low > 2 and high == math.inf
    low, high = loss_interval(0, 50, 1000, 1000, 0.95)
    assert low == -math.inf and high < -2


def test_vectorised_lower_bounds_agree_with_the_interval() -> None:
    c1, c2 = np.array([500, 40, 0, 7]), np.array([200, 0, 3, 7])
    bounds = loss_lower_bounds(c1, c2, 10_000, 0.9)
    for a, b, bound in zip(c1, c2, bounds, strict=True):
        assert bound == pytest.approx(loss_interval(int(a), int(b), 10_000, 10_000, 0.9)[0])
