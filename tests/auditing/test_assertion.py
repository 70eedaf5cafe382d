"""``faier.assert_private(function, data=…, epsilon=…)``: a plain function audited in a test."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import audit_corpus as corpus

import faier

DATA = np.array([0.2, 0.5, 0.9])


def test_a_fixed_function_passes_as_a_search_not_a_proof() -> None:
    assurance = faier.assert_private(corpus.budget_split, data=DATA, epsilon=1)
    assert assurance.verdict == "no violation found"
    assert "pairs" in assurance.method


def test_a_provable_function_passes_as_holds_with_the_proof_named() -> None:
    assurance = faier.assert_private(corpus.clipped_data_noised, data=DATA, epsilon=1)
    assert assurance.verdict == "holds"
    assert "proved for every add-remove neighbouring pair (loss ≤ 1" in assurance.method


def test_a_buggy_function_fails_with_the_witness() -> None:
    with pytest.raises(AssertionError) as failed:
        faier.assert_private(corpus.budget_spent_twice, data=DATA, epsilon=1)
    message = str(failed.value)
    assert "violated" in message and "ε* of the pair" in message and "D′" in message


def test_function_arguments_reach_the_function() -> None:
    with pytest.raises(AssertionError):
        faier.assert_private(corpus.scale_floored, data=DATA, epsilon=2, args={"epsilon": 2.0})
