"""Per-primitive losses composed and decided, against scipy's densities."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from faier.auditing.loss import ROUNDING, Term, compose, decide, exceeds
from faier.privacy.budget import Epsilon


def laplace(shift: Fraction, scale: Fraction, line: int = 1) -> Term:
    return Term("laplace", "f.py", line, shift, scale)


def test_laplace_terms_add_exactly_and_match_the_densities() -> None:
    loss = compose([laplace(Fraction(3, 10), Fraction(1, 2)), laplace(Fraction(1), Fraction(4))])
    assert loss.pure == Fraction(3, 5) + Fraction(1, 4) and loss.exact
    grid = np.linspace(-20, 20, 400_001)
    ratio = stats.laplace.logpdf(grid, 0.3, 0.5) - stats.laplace.logpdf(grid, 0.0, 0.5)
    assert abs(ratio.max() - 0.6) < 1e-12


def test_the_claim_is_decided_exactly_and_rounding_is_not_a_violation() -> None:
    two = compose([laplace(Fraction(2), Fraction(1))])
    assert decide(two, Epsilon.parse("1"), Fraction(0)).violated
    assert not decide(two, Epsilon.parse("2"), Fraction(0)).violated
    assert decide(two, Epsilon.parse("ln(7)"), Fraction(0)).violated  # 2 > ln 7 ≈ 1.9459
    assert not decide(two, Epsilon.parse("ln(8)"), Fraction(0)).violated
    assert not exceeds(Fraction(1) * (1 + ROUNDING / 2), Epsilon.parse("1"))
    assert exceeds(Fraction(1) * (1 + 2 * ROUNDING), Epsilon.parse("1"))


def test_a_bound_never_convicts() -> None:
    bound = compose([Term("laplace", "f.py", 1, Fraction(5), Fraction(1), bound="post-processed")])
    decision = decide(bound, Epsilon.parse("1"), Fraction(0))
    assert not decision.violated and decision.undecided is not None


@pytest.mark.parametrize("family", ["exponential", "uniform", "gumbel"])
def test_a_shifted_one_sided_or_bounded_draw_is_infinite(family: str) -> None:
    loss = compose([Term(family, "f.py", 3, Fraction(1, 10), Fraction(1))])
    assert loss.infinite is not None and "line 3" in loss.infinite


def test_a_zero_scale_with_a_shift_is_infinite_and_without_one_is_nothing() -> None:
    assert compose([laplace(Fraction(1), Fraction(0))]).infinite is not None
    assert compose([laplace(Fraction(0), Fraction(0))]).pure == 0


@pytest.mark.parametrize("sigma, violated", [(Fraction(3), True), (Fraction(5), False)])
def test_gaussian_delta_against_scipy(sigma: Fraction, violated: bool) -> None:
    loss = compose([Term("gaussian", "f.py", 1, Fraction(1), sigma)])
    assert loss.mu2 == 1 / sigma**2
    mu = 1 / float(sigma)
    reference = stats.norm.cdf(mu / 2 - 1 / mu) - math.e * stats.norm.cdf(-mu / 2 - 1 / mu)
    delta = Fraction(1, 10**5)
    assert bool(reference > float(delta)) is violated
    assert decide(loss, Epsilon.parse("1"), delta).violated is violated
    assert decide(loss, Epsilon.parse("1"), Fraction(0)).violated  # no finite pure ε


def test_a_single_laplace_under_delta_uses_its_hockey_stick() -> None:
    loss = compose([laplace(Fraction(2), Fraction(1))])
    exact = 1 - math.exp((1 - 2) / 2)  # δ(1) of a Laplace shift of 2 scales
    assert decide(loss, Epsilon.parse("1"), Fraction(exact * 0.99)).violated
    assert not decide(loss, Epsilon.parse("1"), Fraction(exact * 1.01)).violated


def test_released_draws_convict_beside_a_bound() -> None:
    """One draw released as it is (exact) and one post-processed (a bound): the released one's
    loss is a marginal's, a lower bound of the pair's, so it alone can convict."""
    released = laplace(Fraction(3), Fraction(1))
    hidden = Term("laplace", "f.py", 2, Fraction(1), Fraction(1), bound="post-processed")
    loss = compose([released, hidden])
    assert not loss.exact and loss.pure == 4
    decision = decide(loss, Epsilon.parse("2"), Fraction(0))
    assert decision.violated and "lower bound" in decision.detail
    assert not decide(loss, Epsilon.parse("3.5"), Fraction(0)).violated


def test_a_part_of_unknown_loss_leaves_the_pair_undecided() -> None:
    unknown = Term("output", "", 0, None, None, bound="[1] moves outside the recognised noise")
    loss = compose([laplace(Fraction(1, 2), Fraction(1)), unknown])
    decision = decide(loss, Epsilon.parse("1"), Fraction(0))
    assert not decision.violated and decision.undecided is not None
    assert "moves outside" in decision.undecided
