"""Discrete histogram: ε* = ln(1/α) for one-query neighbours, bins·ln(1/α) for every query.

The brute force enumerates every noise vector with ``itertools.product`` in
exact Fractions and compares every ordered neighbour pair; it uses no faier.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.errors import SpecError
from faier.mechanisms.library.histogram import histogram
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy

F = Fraction
HALF = F(1, 2)


def noise_row(alpha: Fraction, m: int, centre: int) -> dict[int, Fraction]:
    """centre + two-sided geometric noise, clamped to {0..m} (tails P(Z ≥ k) = α^k/(1+α))."""
    row = {j: (1 - alpha) / (1 + alpha) * alpha ** abs(j - centre) for j in range(1, m)}
    row[0] = alpha**centre / (1 + alpha)
    row[m] = alpha ** (m - centre) / (1 + alpha)
    assert sum(row.values()) == 1
    return row


def brute_ratio(bins: int, alpha: Fraction, m: int, every_query: bool) -> Fraction:
    """Largest P(o | x)/P(o | y) over neighbours x, y and noisy histograms o."""
    inputs = list(product(range(m + 1), repeat=bins))

    def dist(x: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        rows = [noise_row(alpha, m, v) for v in x]
        out = {}
        for noisy in product(range(m + 1), repeat=bins):
            p = F(1)
            for row, z in zip(rows, noisy, strict=True):
                p *= row[z]
            out[noisy] = p
        return out

    dists = {x: dist(x) for x in inputs}
    best = F(0)
    for x, y in product(inputs, repeat=2):
        moved = [abs(a - b) for a, b in zip(x, y, strict=True) if a != b]
        if not moved or max(moved) > 1 or (not every_query and len(moved) > 1):
            continue
        best = max(best, max(p / dists[y][o] for o, p in dists[x].items()))
    return best


def ratio(bins: int, alpha: Fraction, m: int, every_query: bool) -> Fraction | None:
    relation = EveryQuery(1) if every_query else OneQuery(1)
    problem = Problem("histogram", histogram(bins, alpha, m), DifferentialPrivacy(relation))
    loss = epsilon(problem).epsilon_star
    assert loss is not None
    return loss.ratio


def test_one_query_neighbours_cost_one_bin() -> None:
    assert ratio(2, HALF, 2, every_query=False) == 2


def test_every_query_neighbours_add_up_over_bins() -> None:
    assert ratio(2, HALF, 2, every_query=True) == 4


@pytest.mark.parametrize(
    ("bins", "alpha", "m"), [(1, HALF, 2), (2, HALF, 2), (3, HALF, 2), (2, F(1, 3), 3)]
)
@pytest.mark.parametrize("every_query", [False, True])
def test_engine_matches_brute_force(bins: int, alpha: Fraction, m: int, every_query: bool) -> None:
    expected = (1 / alpha) ** (bins if every_query else 1)
    assert brute_ratio(bins, alpha, m, every_query) == expected
    assert ratio(bins, alpha, m, every_query) == expected


def test_output_names_and_distribution() -> None:
    mech = histogram()
    assert mech.output_name((0, 2)) == "(0~, 2~)"
    dist = mech.output_distribution((0, 2))
    assert len(dist) == 9
    assert dist.prob((0, 2)) == F(2, 3) * F(2, 3)
    assert len(mech.inputs) == 9


def test_sampling() -> None:
    mech = histogram(3)
    noisy = mech.sample((0, 2, 1), np.random.default_rng(0))
    assert isinstance(noisy, tuple) and len(noisy) == 3
    assert all(0 <= v <= 2 for v in noisy)


def test_bad_alpha() -> None:
    with pytest.raises(SpecError):
        histogram(alpha=F(1))
    with pytest.raises(SpecError):
        histogram(bins=0)
