"""Discrete SVT and iSVT 1–4: exact ε*(k) from the engine, checked by brute force.

The brute force below simulates each variant from its StatDP pseudo-code on
every threshold draw and every query-noise vector (``itertools.product``,
exact Fractions), then takes the largest ratio over every pair of answer
streams that differ by at most 1 per query.  Nothing in it uses faier.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
import pytest

from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.errors import SpecError
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import VARIANTS, paper_alphas, sparse_vector
from faier.privacy.specs import InteractiveDP

F = Fraction
INF = None
QUARTER = F(1, 4)
HALF = F(1, 2)
NAMES = ("svt", "isvt1", "isvt2", "isvt3", "isvt4")
HALTING = {"svt", "isvt3", "isvt4"}

# --- brute force -------------------------------------------------------------


def clamped_geometric(alpha: Fraction, m: int, centre: int) -> dict[int, Fraction]:
    """centre + Z clamped to {0..m}, Z two-sided geometric: P(Z ≥ k) = α^k/(1+α) for k ≥ 1."""

    def tail(k: int) -> Fraction:
        return alpha**k / (1 + alpha)

    row = {}
    for j in range(m + 1):
        if j == 0:
            row[j] = tail(centre) if centre > 0 else 1 - tail(1)
        elif j == m:
            row[j] = tail(m - centre) if m > centre else 1 - tail(1)
        else:
            row[j] = (1 - alpha) / (1 + alpha) * alpha ** abs(j - centre)
    assert sum(row.values()) == 1
    return row


def run(
    variant: str, cutoff: int, noisy_t: int, answers: tuple[int, ...], noise: tuple[int, ...]
) -> tuple[str, ...]:
    """One execution of the pseudo-code with all noise fixed in advance."""
    out = []
    tops = 0
    for q, noisy_q in zip(answers, noise, strict=True):
        value = q if variant == "isvt1" else noisy_q
        if value >= noisy_t:
            out.append(f"{value}~" if variant == "isvt4" else "⊤")
            tops += 1
            if variant in HALTING and tops >= cutoff:
                break
        else:
            out.append("⊥")
    return tuple(out)


def outputs(
    variant: str, ta: Fraction, qa: Fraction, m: int, cutoff: int, t: int, answers: tuple[int, ...]
) -> dict[tuple[str, ...], Fraction]:
    """Exact distribution of the output transcript on one answer stream."""
    dist: dict[tuple[str, ...], Fraction] = {}
    for noisy_t, pt in clamped_geometric(ta, m, t).items():
        rows = [clamped_geometric(qa, m, q) for q in answers]
        for noise in product(range(m + 1), repeat=len(answers)):
            p = pt
            for row, z in zip(rows, noise, strict=True):
                p *= row[z]
            key = run(variant, cutoff, noisy_t, answers, noise)
            dist[key] = dist.get(key, F(0)) + p
    return dist


def brute_epsilon(
    variant: str, k: int, ta: Fraction = QUARTER, qa: Fraction = HALF, m: int = 2, cutoff: int = 1
) -> Fraction | None:
    """max over thresholds, ±1 answer-stream pairs of length k and transcripts of P/P'."""
    best = F(0)
    streams = list(product(range(m + 1), repeat=k))
    for t in range(m + 1):
        dists = {x: outputs(variant, ta, qa, m, cutoff, t, x) for x in streams}
        for x, y in product(streams, repeat=2):
            if any(abs(a - b) > 1 for a, b in zip(x, y, strict=True)):
                continue
            for o, p in dists[x].items():
                q = dists[y].get(o, F(0))
                if q == 0:
                    return INF
                best = max(best, p / q)
    return best


# --- engine ------------------------------------------------------------------


def engine_table(variant: str, horizon: int, **kwargs: Any) -> list[Fraction | None]:
    """ε*(k) ratios for k = 1..horizon (None: infinite)."""
    mech = sparse_vector(variant, **kwargs)
    result = epsilon(Problem(variant, mech, InteractiveDP(), horizon=horizon))
    assert [row.k for row in result.horizons] == list(range(1, horizon + 1))
    return [row.loss.ratio for row in result.horizons]


# At the defaults (threshold α = 1/4, query α = 1/2, m = 2, N = 1) every
# variant but iSVT 1 loses exactly ln 2 per query: the truncation of both
# noises to {0..m} defeats SVT's threshold-shift argument (a noisy threshold
# at m has nowhere to shift to), so even the correct SVT is unbounded.
DEFAULTS: dict[str, list[Fraction | None]] = {
    "svt": [F(2), F(4), F(8), F(16)],
    "isvt1": [INF, INF, INF, INF],
    "isvt2": [F(2), F(4), F(8), F(16)],
    "isvt3": [F(2), F(4), F(8), F(16)],
    "isvt4": [F(2), F(4), F(8), F(16)],
}

# Each variant with the paper's own scales at ε₀ = 4·ln 2 (β = 1/2), N = 1:
# ε*(k) = k·ln(1/query α) again, so the wrongly scaled iSVT 3 is the worst.
PAPER: dict[str, list[Fraction | None]] = {
    "svt": [F(2), F(4), F(8), F(16)],
    "isvt1": [INF, INF, INF, INF],
    "isvt2": [F(4), F(16), F(64), F(256)],
    "isvt3": [F(8), F(64), F(512), F(4096)],
    "isvt4": [F(4), F(16), F(64), F(256)],
}


@pytest.mark.parametrize("variant", NAMES)
def test_default_table(variant: str) -> None:
    assert engine_table(variant, 4) == DEFAULTS[variant]


@pytest.mark.parametrize("variant", NAMES)
def test_paper_calibration_table(variant: str) -> None:
    ta, qa = paper_alphas(variant, HALF)
    assert engine_table(variant, 4, threshold_alpha=ta, query_alpha=qa) == PAPER[variant]


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("variant", NAMES)
def test_engine_matches_brute_force(variant: str, k: int) -> None:
    assert brute_epsilon(variant, k) == DEFAULTS[variant][k - 1]


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("variant", NAMES)
def test_paper_calibration_matches_brute_force(variant: str, k: int) -> None:
    ta, qa = paper_alphas(variant, HALF)
    assert brute_epsilon(variant, k, ta, qa) == PAPER[variant][k - 1]


@pytest.mark.parametrize("variant", ["svt", "isvt3", "isvt4"])
def test_cutoff_two_matches_brute_force(variant: str) -> None:
    table = engine_table(variant, 3, cutoff=2)
    assert table == [brute_epsilon(variant, k, cutoff=2) for k in (1, 2, 3)]
    assert table == [F(2), F(4), F(8)]


def test_svt_with_cutoff_one_is_above_threshold() -> None:
    """At the defaults with N = 1 the correct SVT is discrete Above Threshold."""
    result = epsilon(Problem("at", above_threshold(), InteractiveDP(), horizon=4))
    assert [row.loss.ratio for row in result.horizons] == DEFAULTS["svt"]


def test_isvt1_is_infinite_at_one_query() -> None:
    """Without query noise, answer m always reaches a threshold drawn from {0..m}."""
    result = epsilon(Problem("isvt1", sparse_vector("isvt1"), InteractiveDP(), horizon=1))
    witness = result.horizons[0].witness
    assert witness is not None and witness.output == ("⊥",) and witness.q == 0


# --- front end ---------------------------------------------------------------


def test_unknown_variant_lists_choices() -> None:
    with pytest.raises(SpecError, match="svt, isvt1, isvt2, isvt3, isvt4"):
        sparse_vector("isvt9")


@pytest.mark.parametrize(
    "kwargs",
    [{"cutoff": 0}, {"threshold": 3}, {"m": 0}, {"query_alpha": F(1)}, {"threshold_alpha": F(0)}],
)
def test_bad_parameters(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SpecError):
        sparse_vector("svt", **kwargs)


def test_variant_names() -> None:
    assert tuple(VARIANTS) == NAMES


def test_paper_alphas() -> None:
    half = F(1, 2)
    assert paper_alphas("svt", half) == (F(1, 4), F(1, 2))
    assert paper_alphas("isvt1", half)[0] == F(1, 16)
    assert paper_alphas("isvt2", half) == (F(1, 4), F(1, 4))
    assert paper_alphas("isvt3", half) == (F(1, 2), F(1, 8))
    assert paper_alphas("isvt4", half) == (F(1, 4), F(1, 4))
    assert paper_alphas("svt", F(1, 4), cutoff=2) == (F(1, 16), F(1, 2))
    assert paper_alphas("isvt3", F(1, 4), cutoff=2) == (F(1, 4), F(1, 64))
    assert paper_alphas("isvt4", F(4, 9), cutoff=2) == (F(16, 81), F(4, 9))
    with pytest.raises(SpecError, match="irrational"):
        paper_alphas("svt", half, cutoff=2)


def test_starts_and_states() -> None:
    mech = sparse_vector("svt", threshold=1)
    assert list(mech.starts) == ["threshold 1"]
    assert len(sparse_vector("svt").automaton().states) == 6
    assert len(sparse_vector("isvt2").automaton().states) == 7


def test_names_say_how_it_stops() -> None:
    assert "halts after 2 ⊤" in sparse_vector("svt", cutoff=2).name
    assert "never halts" in sparse_vector("isvt2").name
    assert "no query noise" in sparse_vector("isvt1").name


@pytest.mark.parametrize("variant", NAMES)
def test_sampling(variant: str) -> None:
    mech = sparse_vector(variant)
    seen: set[Hashable] = set()
    for seed in range(20):
        obs = mech.sample("threshold 1", [0, 2, 1], np.random.default_rng(seed))
        assert isinstance(obs, tuple) and 1 <= len(obs) <= 3
        assert all(isinstance(o, str) for o in obs)
        assert all(o == "⊥" for o in obs[:-1]) or variant not in HALTING
        seen.update(obs)
    allowed = {"⊥", "0~", "1~", "2~"} if variant == "isvt4" else {"⊥", "⊤"}
    assert seen <= allowed


def test_sampling_runs_to_the_end_without_a_cutoff() -> None:
    obs = sparse_vector("isvt2").sample("threshold 1", [0, 2, 1], np.random.default_rng(0))
    assert len(obs) == 3
