"""OpenDP and diffprivlib mechanisms called by audited code: correct ones pass, a miscalibrated
one is violated with its exact ε*, and diffprivlib's analytic Gaussian passes at its δ."""

from __future__ import annotations

import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import audit_libraries as libraries

from faier import audit
from faier.results import Verdict

DATA = np.array([0.2, 0.5, 0.9])

PASSING = [
    ("opendp", libraries.opendp_laplace_sum, None, "laplace"),
    ("opendp", libraries.opendp_integer_count, None, "discrete-laplace"),
    ("opendp", libraries.opendp_gaussian, "1e-5", "gaussian"),
    ("diffprivlib", libraries.dpl_laplace, None, "laplace"),
    ("diffprivlib", libraries.dpl_gaussian_classic, "1e-5", "gaussian"),
    ("diffprivlib", libraries.dpl_bounded, None, "library"),
]


@pytest.mark.parametrize(
    "library, function, delta, family", PASSING, ids=[p[1].__name__ for p in PASSING]
)
def test_correct_library_mechanisms_pass(
    library: str, function: Callable[..., Any], delta: str | None, family: str
) -> None:
    pytest.importorskip(library)
    report = audit(function, DATA, epsilon=1, delta=delta, budget=15)
    assert report.verdict is None, report.outcome
    assert any(f"({family}" in p for p in report.primitives), report.primitives


def test_a_miscalibrated_opendp_laplace_is_violated_exactly() -> None:
    pytest.importorskip("opendp")
    report = audit(libraries.opendp_laplace_too_small, DATA, epsilon=1, budget=15)
    assert report.verdict is Verdict.VIOLATED
    witness = report.witness
    assert witness is not None and witness.loss is not None and witness.loss.exact

    def clipped(values: Any) -> Fraction:
        return Fraction(float(np.clip(np.nan_to_num(values, nan=0.0, posinf=1.0), 0.0, 1.0).sum()))

    shift = abs(clipped(witness.right.materialise()) - clipped(witness.left.materialise()))
    assert witness.loss.pure == shift / Fraction(0.5)


def test_an_opendp_pipeline_enters_at_its_privacy_map() -> None:
    """A chained measurement on the dataset itself: OpenDP's map at the measured symmetric
    distance (1.0000000093 for a bounded sum with Laplace at scale 1, its float slack), a bound
    that clears a claim above it and leaves the doubled release undecided, never violated."""
    pytest.importorskip("opendp")
    once = audit(libraries.opendp_chained_sum, DATA, epsilon="1.001", budget=10)
    assert once.verdict is None, once.outcome
    assert once.largest is not None and once.largest.loss is not None
    assert 1 < once.largest.loss.pure < Fraction("1.000001")
    twice = audit(libraries.opendp_chained_sum_released_twice, DATA, epsilon="1.001", budget=10)
    assert twice.verdict is Verdict.UNKNOWN
    assert twice.undecided[0].loss is not None and twice.undecided[0].loss.pure > 2
