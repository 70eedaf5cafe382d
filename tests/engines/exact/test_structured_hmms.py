"""The structured benchmark HMMs (benchmarks/hmm_models.py) against exhaustive enumeration.

For a small location grid and a small sparse random HMM, the merged search's
exact ε*(k) for every k equals the maximum, over every observation sequence of
length ≤ k and both directions of every prior pair, of the ratio of the two
forward-algorithm probabilities computed here in Fractions; the float64
frontier and exact arithmetic give the same records.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest

from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, sequence_mode
from faier.model.hmm import HMM

MODELS = Path(__file__).resolve().parents[3] / "benchmarks" / "hmm_models.py"
HORIZON = 3


@pytest.fixture(scope="module")
def hmm_models() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_hmm_models", MODELS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def forward(hmm: HMM, prior: dict[int, Fraction], sequence: tuple[int, ...]) -> Fraction:
    """Pr[ω1…ωk | prior]: α_1(s) = π(s)·o(s, ω1), α_{t+1}(s') = Σ_s α_t(s)·p(s, s')·o(s', ω)."""
    n = len(hmm.states)
    alpha = [prior.get(s, Fraction(0)) * hmm.emission[s][sequence[0]] for s in range(n)]
    for w in sequence[1:]:
        alpha = [
            sum((alpha[s] * hmm.transition[s][t] for s in range(n) if alpha[s]), Fraction(0))
            * hmm.emission[t][w]
            for t in range(n)
        ]
    return sum(alpha, Fraction(0))


def exhaustive(
    hmm: HMM, pairs: list[tuple[dict[int, Fraction], dict[int, Fraction]]], horizon: int
) -> list[Fraction | None]:
    """ε*(k) as a ratio for k = 1..horizon (None: infinite), the best over lengths ≤ k."""
    out: list[Fraction | None] = []
    best: Fraction | None = Fraction(0)
    for k in range(1, horizon + 1):
        for sequence in itertools.product(range(len(hmm.observations)), repeat=k):
            for a, b in pairs:
                p, q = forward(hmm, a, sequence), forward(hmm, b, sequence)
                if p and not q:
                    best = None
                elif p and best is not None:
                    best = max(best, p / q)
        out.append(best)
    return out


def merged(
    system: sequence_mode.SequenceSystem,
    comparisons: list[sequence_mode.SequenceComparison],
    horizon: int,
    arithmetic: str,
) -> list[Fraction | None]:
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    branch_and_bound.merged_search(
        system, comparisons, horizon, Budget(), state, arithmetic=arithmetic
    )
    records = sequence_mode.cumulative(state)
    assert all(record is not None for record in records)
    return [record.loss.ratio for record in records if record is not None]


@pytest.mark.parametrize(("builder", "argument"), [("location_grid", 3), ("sparse_random", 8)])
def test_merged_search_matches_enumeration(
    hmm_models: ModuleType, builder: str, argument: int
) -> None:
    hmm, pairs = getattr(hmm_models, f"{builder}_hmm")(argument)
    system, comparisons = getattr(hmm_models, builder)(argument)
    assert [(c.a0, c.b0) for c in comparisons] == pairs
    expected = exhaustive(hmm, pairs, HORIZON)
    assert merged(system, comparisons, HORIZON, "exact") == expected
    assert merged(system, comparisons, HORIZON, "float") == expected


def test_location_grid_is_sparse(hmm_models: ModuleType) -> None:
    system, comparisons = hmm_models.location_grid(4)
    assert system.size == 16 and len(system.symbols) == 4 and len(comparisons) == 2
    assert all(len(row) <= 5 for matrix in system.left for row in matrix)
