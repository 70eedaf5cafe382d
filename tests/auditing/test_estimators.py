"""diffprivlib's estimators and tools, audited as an analyst calls them on small datasets; the
findings docs/AUDIT.md writes down ("diffprivlib, audited").  Each audit imports scikit-learn
once and runs the estimator some hundred times: a few seconds each, with small budgets."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("diffprivlib")
sys.path.insert(0, str(Path(__file__).parent))

import audit_estimators as estimators

from faier import audit
from faier.results import Verdict

VECTOR = np.array([0.2, 0.5, 0.9])
TABLE = np.array([[0.2, 0.1], [0.5, 0.7], [0.9, 0.8], [0.4, 0.3]])


@pytest.mark.parametrize("name", ["tools_mean", "tools_sum", "tools_var"])
def test_a_nan_record_is_released_by_the_bounded_tools(name: str) -> None:
    report = audit(getattr(estimators, name), VECTOR, epsilon=1, budget=20)
    assert report.verdict is Verdict.VIOLATED
    witness = report.witness
    assert witness is not None and witness.loss is not None
    assert witness.change == "add nan" and witness.loss.epsilon_star == math.inf
    assert math.isnan(getattr(estimators, name)(witness.right.materialise()))


@pytest.mark.parametrize(
    "name, data",
    [
        ("tools_count_nonzero", VECTOR),
        ("tools_histogram", VECTOR),
        ("scaler_mean", VECTOR),
        ("linear_regression", TABLE),
        ("pca", TABLE),
    ],
)
def test_estimators_with_no_violation_found(name: str, data: np.ndarray) -> None:
    report = audit(getattr(estimators, name), data, epsilon=1, budget=8)
    assert report.verdict is None, (report.outcome, [u.undecided for u in report.undecided])
    assert report.primitives and all("diffprivlib" in p for p in report.primitives)


def test_gaussian_nb_is_unknown_its_outputs_are_not_read_from_the_runs() -> None:
    """Its output is neither the draws translated nor, by the replays, a function of the
    draws alone: no pair is cleared by a bound it does not have."""
    report = audit(estimators.gaussian_nb, TABLE, epsilon=1, budget=4)
    assert report.verdict is Verdict.UNKNOWN
    assert report.witness is None and report.undecided


def test_the_quantile_is_unknown_where_a_nan_changes_its_calls() -> None:
    report = audit(estimators.tools_quantile, VECTOR, epsilon=1, budget=20)
    assert report.verdict is Verdict.UNKNOWN
    assert any(u.change == "add nan" and u.difference for u in report.undecided)
