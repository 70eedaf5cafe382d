"""The bug corpus: every buggy function violated at its ``# BUG`` line with an exact or infinite
ε*, recomputed here from the witness's datasets; every fixed version with no violation."""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import audit_corpus as corpus

from faier import audit
from faier.auditing.data import Dataset
from faier.results import Verdict

NUMBERS = np.array([0.2, 0.5, 0.9])
CATEGORIES = ["a", "b", "a", "c"]


def _bug_line(function: Callable[..., Any]) -> int:
    lines, start = inspect.getsourcelines(function)
    marked = [start + i for i, text in enumerate(lines) if "# BUG" in text]
    assert len(marked) == 1, function.__name__
    return marked[0]


def _clipped_sum(dataset: Dataset) -> Fraction:
    data = dataset.materialise()
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return Fraction(float(np.sum(clipped)))


def _raw_shift(left: Dataset, right: Dataset) -> Fraction:
    return abs(
        Fraction(float(np.sum(right.materialise()))) - Fraction(float(np.sum(left.materialise())))
    )


def _twice(left: Dataset, right: Dataset) -> Fraction:
    return 2 * abs(_clipped_sum(right) - _clipped_sum(left))


def _over_spread(left: Dataset, right: Dataset) -> Fraction:
    def scale(d: Dataset) -> float:
        clipped = np.clip(np.nan_to_num(d.materialise(), nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
        spread = float(clipped.max() - clipped.min()) if len(clipped) else 1.0
        return max(spread, 0.5) / 1.0

    assert scale(left) == scale(right)
    return abs(_clipped_sum(right) - _clipped_sum(left)) / Fraction(scale(left))


def _doubled(left: Dataset, right: Dataset) -> Fraction:
    def count(d: Dataset) -> int:
        return sum(1 for x in d.materialise() if x > 0.5)

    return Fraction(2 * abs(count(right) - count(left)))


def _clipped_at_two(left: Dataset, right: Dataset) -> Fraction:
    def total(d: Dataset) -> Fraction:
        clipped = np.clip(np.nan_to_num(d.materialise(), nan=0.0, posinf=1.0), 0.0, 2.0)
        return Fraction(float(np.sum(clipped)))

    return abs(total(right) - total(left))


INFINITE = None
BUGS: list[
    tuple[
        Callable[..., Any], Any, dict[str, Any], str, Callable[[Dataset, Dataset], Fraction] | None
    ]
] = [
    (corpus.raw_data_noised, NUMBERS, {}, "1", _raw_shift),
    (corpus.mean_over_private_size, NUMBERS, {}, "1", INFINITE),
    (corpus.nan_through_clip, NUMBERS, {}, "1", INFINITE),
    (corpus.histogram_of_seen_categories, CATEGORIES, {}, "1", INFINITE),
    (corpus.scale_floored, NUMBERS, {"epsilon": 2.0}, "2", INFINITE),
    (corpus.budget_spent_twice, NUMBERS, {}, "1", _twice),
    (corpus.python_uniform_noise, NUMBERS, {}, "1", INFINITE),
    (corpus.noisy_sum_per_batch, NUMBERS, {}, "1", INFINITE),
    (corpus.scale_from_the_data, NUMBERS, {}, "1", _over_spread),
    (corpus.seeded_noise, NUMBERS, {}, "1", INFINITE),
    (corpus.gaussian_for_pure_epsilon, NUMBERS, {}, "1", INFINITE),
    (corpus.leaky_geometric, NUMBERS, {}, "1", _doubled),
    (corpus.faier_laplace_twice_the_sensitivity, NUMBERS, {}, "1", _clipped_at_two),
]


@pytest.mark.parametrize(
    "function, data, args, epsilon, expected", BUGS, ids=[b[0].__name__ for b in BUGS]
)
def test_bug_is_violated_at_its_line_with_the_exact_loss(
    function: Callable[..., Any], data: Any, args: dict[str, Any], epsilon: str, expected: Any
) -> None:
    report = audit(function, data, epsilon=epsilon, args=args, budget=40)
    assert report.verdict is Verdict.VIOLATED, report.outcome
    assert report.exit_code == 1
    witness = report.witness
    assert witness is not None and witness.loss is not None and witness.loss.exact
    contributing = [t for t in witness.loss.terms if t.ratio > 0]
    assert _bug_line(function) in {t.line for t in contributing}
    assert {Path(t.site).name for t in contributing} == {"audit_corpus.py"}
    if expected is INFINITE:
        assert witness.loss.epsilon_star == math.inf
    else:
        assert witness.loss.pure == expected(witness.left, witness.right)
        assert witness.loss.pure > Fraction(epsilon)


FIXED: list[tuple[Callable[..., Any], Any, dict[str, Any], str, str | None]] = [
    (corpus.clipped_data_noised, NUMBERS, {}, "1", None),
    (corpus.mean_over_public_size, NUMBERS, {}, "1", None),
    (corpus.histogram_of_public_categories, CATEGORIES, {}, "1", None),
    (corpus.scale_divided, NUMBERS, {"epsilon": 2.0}, "2", None),
    (corpus.budget_split, NUMBERS, {}, "1", None),
    (corpus.noisy_histogram_of_values, NUMBERS, {}, "1", None),
    (corpus.scale_from_the_bounds, NUMBERS, {}, "1", None),
    (corpus.fresh_noise, NUMBERS, {}, "1", None),
    (corpus.gaussian_for_approximate_dp, NUMBERS, {}, "1", "1e-5"),
    (corpus.python_gauss_under_delta, NUMBERS, {}, "1", "1e-5"),
    (corpus.diffprivlib_geometric, NUMBERS, {}, "1", None),
    (corpus.faier_laplace_at_the_sensitivity, NUMBERS, {}, "1", None),
]


PROVED = {
    corpus.clipped_data_noised,
    corpus.mean_over_public_size,
    corpus.scale_divided,
    corpus.scale_from_the_bounds,
    corpus.fresh_noise,
}
"""The fixed functions the structural proof covers (a clipped sum plus one Laplace draw)."""


@pytest.mark.parametrize(
    "function, data, args, epsilon, delta", FIXED, ids=[f[0].__name__ for f in FIXED]
)
def test_fixed_version_has_no_violation(
    function: Callable[..., Any], data: Any, args: dict[str, Any], epsilon: str, delta: str | None
) -> None:
    report = audit(function, data, epsilon=epsilon, delta=delta, args=args, budget=25)
    proved = function in PROVED
    assert report.verdict is (Verdict.HOLDS if proved else None), (
        report.outcome,
        report.no_proof,
        [u.undecided for u in report.undecided],
    )
    assert report.exit_code == 0
    assert ("no violation found in 25 pairs" in report.outcome) and (
        report.outcome.startswith("holds for every") == proved
    )
    assert report.largest is not None and report.largest.loss is not None


@pytest.mark.parametrize("function", [corpus.budget_spent_twice, corpus.clipped_data_noised])
def test_worker_processes_give_the_sequential_answer(function: Callable[..., Any]) -> None:
    alone = audit(function, NUMBERS, epsilon=1, budget=12)
    spread = audit(function, NUMBERS, epsilon=1, budget=12, workers=2)
    assert spread.verdict == alone.verdict and spread.pairs == alone.pairs
    if alone.witness is not None:
        assert spread.witness is not None and spread.witness.loss == alone.witness.loss
    else:
        assert spread.largest is not None and alone.largest is not None
        assert spread.largest.ratio == alone.largest.ratio


def test_a_function_that_hangs_ends_unknown_at_the_timeout() -> None:
    def hangs_on_big_data(data: Any, epsilon: float = 1.0) -> float:
        while len(data) > 3:
            pass
        return float(np.random.laplace(0.0, 1.0 / epsilon))

    report = audit(hangs_on_big_data, NUMBERS, epsilon=1, timeout=0.5)
    assert report.verdict is Verdict.UNKNOWN and report.exit_code == 3
    assert any("timeout of 0.5 s" in r for r in report.reasons)


def noisy_argmax_at_half_the_scale(data: Any, epsilon: float = 1.0) -> int:
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    counts = np.histogram(clipped, bins=3, range=(0.0, 1.0))[0]
    return int(np.argmax(counts + np.random.laplace(0.0, 0.5 / epsilon, size=3)))


def test_an_undecided_pair_goes_to_the_tester_as_evidence_only() -> None:
    """Report-noisy-max releases an index: only a bound (the draws' own losses, 2 > 1), so the
    pair is undecided; the tester's p-value is reported beside it and the answer stays unknown."""
    report = audit(noisy_argmax_at_half_the_scale, NUMBERS, epsilon=1, budget=6, test_samples=2000)
    assert report.verdict is Verdict.UNKNOWN
    assert report.evidence and report.evidence[0].p_value is not None
    assert report.to_json()["tested"][0]["samples"] == 2000


def release_plus_a_noisy_step(data: Any, epsilon: float = 1.0) -> float:
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    total = float(np.sum(clipped))
    step = 100.0 * float(np.random.laplace(total, 4.0 / epsilon) > 1.5)
    return total + float(np.random.laplace(0.0, 4.0 / epsilon)) + step


def test_a_translation_only_near_the_recorded_noise_is_not_convicted() -> None:
    """The release moves with its own draw but also by 100 when another draw crosses a step:
    the far probe sees the step, so no exact loss is claimed from the centres (which differ
    by 100 on some pairs) and nothing is convicted."""
    report = audit(release_plus_a_noisy_step, NUMBERS, epsilon=1, budget=30)
    assert report.verdict is not Verdict.VIOLATED, report.witness
