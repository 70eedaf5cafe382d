"""StatDP's continuous suite: every vectorised sampler draws what its scalar pseudo-code draws.

Both are run with fixed seeds and compared by two-sample tests on what the
event selector looks at (index, value, length, counts, components); a tiny
p-value would mean the fast path samples another mechanism.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from scipy.stats import chi2_contingency, ks_2samp

from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.sampled import NUMBER, Outputs

FAST, SLOW = 20_000, 3_000
LIMIT = 1e-4
QUERIES = np.array([1.0, 1.0, 0.0, 2.0, 1.0])
ARGS: dict[str, dict[str, Any]] = {
    "svt-laplace": {"N": 2, "T": 1.5},
    "isvt1-laplace": {"T": 1.5},
    "isvt2-laplace": {"T": 1.5},
    "isvt3-laplace": {"N": 1, "T": 0.5},
    "isvt4-laplace": {"N": 1, "T": 1.5},
}


def summaries(out: Outputs) -> dict[str, np.ndarray]:
    """Per sample: the keys an event can depend on."""
    numeric = out.codes == NUMBER
    found = {"length": out.lengths, "trues": (out.codes == 1).sum(axis=1)}
    if numeric.any():
        found["number"] = np.where(numeric, out.numbers, 0.0).sum(axis=1)
    return found


def same_law(a: np.ndarray, b: np.ndarray) -> float:
    """p-value of 'a and b come from one distribution' (chi-square if few values, else KS)."""
    values = sorted(set(np.unique(a)) | set(np.unique(b)))
    if len(values) <= 30:
        ca, cb = Counter(a.tolist()), Counter(b.tolist())
        table = np.array([[ca[v] for v in values], [cb[v] for v in values]])
        table = table[:, table.sum(axis=0) > 0]
        return 1.0 if table.shape[1] < 2 else float(chi2_contingency(table).pvalue)
    return float(ks_2samp(a, b).pvalue)


@pytest.mark.parametrize("name", list(SUITE))
def test_vectorised_sampler_matches_the_pseudo_code(name: str) -> None:
    mechanism = SUITE[name]
    args = tuple(ARGS.get(name, {}).items())
    fast = mechanism.sample(QUERIES, 0.7, FAST, np.random.default_rng(1), args)
    slow = mechanism.sample_each(QUERIES, 0.7, SLOW, np.random.default_rng(2), args)
    assert fast.is_list == slow.is_list
    if not fast.is_list:
        assert same_law(fast.numbers[:, 0], slow.numbers[:, 0]) > LIMIT
        return
    a, b = summaries(fast), summaries(slow)
    assert a.keys() == b.keys()
    for key in a:
        assert same_law(a[key], b[key]) > LIMIT, key


def test_noisy_max_reports_one_based_indices() -> None:
    out = SUITE["noisy-max-laplace"].sample(QUERIES, 100.0, 1000, np.random.default_rng(0), ())
    assert set(out.numbers[:, 0]) == {4.0}


def test_sparse_vector_halts_after_the_cutoff() -> None:
    out = SUITE["svt-laplace"].sample(
        np.full(10, 5.0), 1.0, 500, np.random.default_rng(0), (("N", 2), ("T", 0.0))
    )
    assert ((out.codes == 1).sum(axis=1) <= 2).all()
    stopped = out.lengths < 10
    assert ((out.codes[stopped] == 1).sum(axis=1) == 2).all()


def test_isvt4_reveals_the_noisy_answer() -> None:
    out = SUITE["isvt4-laplace"].sample(
        np.full(5, 3.0), 1.0, 500, np.random.default_rng(0), (("N", 1), ("T", 0.0))
    )
    last = out.codes[np.arange(out.n), out.lengths - 1]
    assert out.categories == (False,)
    assert ((last == NUMBER) | (out.lengths == 5)).all()


def test_histogram_returns_the_whole_noisy_vector() -> None:
    out = SUITE["histogram-laplace"].sample(QUERIES, 1.0, 10, np.random.default_rng(0), ())
    assert out.is_list and out.width == 5 and (out.codes == NUMBER).all()


def test_the_suite_names_the_command_lists_are_the_suites() -> None:
    """``faier test --help`` lists the suite from a light module: the two must not drift."""
    from faier.mechanisms.library.continuous import SUITE
    from faier.mechanisms.library.suite_names import SUITE_NAMES

    assert tuple(SUITE) == SUITE_NAMES
