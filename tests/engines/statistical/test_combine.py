"""Testing combined with verification (FAIER journal §7.3): certified candidates and bounds on ε*.

Expected numbers are the FAIER papers' (discrete Noisy Max, n = 5: ε* ≈ 1.372,
conference §7.2; exactly ln(288/73), from 1/5 and 73/1440) or brute force over every noise draw, written here
without faier; the journal's Figures 4c/4d observation is reproduced on
discrete Above Threshold with the exact ε*(K) = K·ln 2 beside it.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

import faier.testing as t
from faier.errors import MechanismError
from faier.mechanisms.sampled import Outputs
from faier.results import Verdict

STAR = Fraction(288, 73)
FAST = {"samples": 100_000, "selection_samples": 20_000, "seed": 7, "workers": 1}


def test_certify_tells_real_from_spurious_exactly() -> None:
    report = t.certify(
        "noisy-max", claimed="ln(3)", settings={"n": "5"}, epsilons="1.2,1.3,1.4,1.5", **FAST
    )
    for row in report.rows:
        candidate = row.point.candidate
        assert (candidate.left.value, candidate.right.value) == ((1, 1, 1, 1, 1), (0, 2, 2, 2, 2))
        assert candidate.event.describe() == "ω = 1"
        assert (row.exact.p, row.exact.q) == (Fraction(1, 5), Fraction(73, 1440))
        assert row.real == (row.point.epsilon < math.log(STAR))
    result = report.result
    assert result.verdict is Verdict.VIOLATED and report.exit_code == 1
    assert result.witness is not None and result.witness.p / result.witness.q == STAR
    assert result.lower_bound is not None and result.lower_bound.ratio == STAR


def test_certify_never_claims_privacy() -> None:
    report = t.certify("noisy-max", claimed="ln(4)", settings={"n": "5"}, epsilons="1.3", **FAST)
    assert report.result.verdict is Verdict.UNKNOWN and report.exit_code == 3
    assert "testing cannot show privacy" in (report.result.reason or "")


def above_threshold_brute_force(
    threshold: int, streams: tuple[tuple[int, ...], ...]
) -> list[dict[tuple[str, ...], Fraction]]:
    """Transcript distributions of discrete Above Threshold, every noise draw enumerated."""

    def row(alpha: Fraction, centre: int) -> list[Fraction]:
        inner = (1 - alpha) / (1 + alpha)
        return [
            alpha**centre / (1 + alpha),
            inner * alpha ** abs(1 - centre),
            alpha ** (2 - centre) / (1 + alpha),
        ]

    out = []
    for stream in streams:
        found: dict[tuple[str, ...], Fraction] = {}
        for noisy_t, *noisy in itertools.product(range(3), repeat=len(stream) + 1):
            p = row(Fraction(1, 4), threshold)[noisy_t]
            for answer, value in zip(stream, noisy, strict=True):
                p *= row(Fraction(1, 2), answer)[value]
            transcript: list[str] = []
            for value in noisy:
                transcript.append("⊤" if value >= noisy_t else "⊥")
                if value >= noisy_t:
                    break
            key = tuple(transcript)
            found[key] = found.get(key, Fraction(0)) + p
        out.append(found)
    return out


def test_interactive_candidates_are_certified_exactly() -> None:
    report = t.certify("above-threshold", claimed="ln(2)", lengths=(3,), epsilons="1,2,3", **FAST)
    for row in report.rows:
        candidate = row.point.candidate
        threshold = int(dict(candidate.left.args)["start"].split()[1])
        tables = above_threshold_brute_force(
            threshold, (candidate.left.value, candidate.right.value)
        )
        transcripts = list(tables[0] | tables[1])
        inside = candidate.event.mask(Outputs.from_values(transcripts))
        p, q = (
            sum(
                (
                    tab.get(x, Fraction(0))
                    for x, hit in zip(transcripts, inside, strict=True)
                    if hit
                ),
                Fraction(0),
            )
            for tab in tables
        )
        assert (row.exact.p, row.exact.q) == (p, q)
    assert report.result.verdict is Verdict.VIOLATED


def test_certify_needs_a_model() -> None:
    from faier.mechanisms.sampled import vectorised

    @vectorised(neighbours="one-query")
    def noisy_first(queries, epsilon, n, rng):  # type: ignore[no-untyped-def]
        return queries[0] + rng.laplace(scale=1 / epsilon, size=n)

    with pytest.raises(MechanismError, match="has no model"):
        t.certify(noisy_first, claimed="0.7", epsilons="0.5", **FAST)


def test_bound_is_exactly_ln_288_over_73_and_the_tester_brackets_it() -> None:
    report = t.bound("noisy-max", settings={"n": "5"}, **FAST)
    assert report.exact is not None and report.exact.epsilon_star is not None
    assert report.exact.epsilon_star.ratio == STAR
    assert report.rejected is not None and report.next_grid is not None
    assert report.rejected < math.log(STAR) < report.next_grid
    assert (report.rejected, report.next_grid) == (1.3, 1.4)
    interval = report.test.interval
    assert interval is not None and interval.low <= math.log(STAR) <= interval.high
    assert report.exit_code == 0 and not report.notes


def test_bisection_with_exact_verdicts_reaches_the_precision() -> None:
    report = t.bound(
        "noisy-max",
        settings={"n": "5"},
        epsilons="1.2:1.5:0.1",
        bisection=True,
        precision=1e-3,
        **FAST,
    )
    bracket = report.bracket
    assert bracket is not None
    assert bracket[0] < math.log(STAR) <= bracket[1] and bracket[1] - bracket[0] <= 1e-3
    assert round(bracket[0], 3) == 1.372


def test_black_boxes_get_a_statistical_lower_bound() -> None:
    from faier.mechanisms.sampled import vectorised

    @vectorised(neighbours="one-query")
    def wrong_scale(queries, epsilon, n, rng):  # type: ignore[no-untyped-def]
        return queries + rng.laplace(scale=epsilon, size=(n, queries.size))

    report = t.bound(wrong_scale, claimed="0.5", epsilons="1.5,2.5", **FAST)
    assert report.exact is None and report.exit_code == 3
    interval = report.test.interval
    assert interval is not None and 1.8 < interval.lower_bound <= 2.0 <= interval.high


def test_a_suite_name_gets_the_certified_epsilon_beside_the_statistical_bound() -> None:
    """Histogram with Lap(ε₀) noise at ε₀ = 0.5: ε* = 1/ε₀ = 2 exactly (StatDP Alg. 10)."""
    report = t.bound(
        "histogram-laplace-wrong-scale", claimed="0.5", epsilons="1.5,2.5", lengths=5, **FAST
    )
    assert report.exact is not None and report.exit_code == 0
    enclosure = report.exact.enclosure
    assert enclosure is not None and enclosure.closed_form == "2"
    interval = report.test.interval
    assert interval is not None and 1.8 < interval.lower_bound <= 2.0 <= interval.high


def test_bounded_input_length_hides_above_thresholds_unbounded_loss() -> None:
    """Journal Fig. 4c/4d: short inputs suggest a finite ε; faier's exact ε*(K) = K·ln 2 grows."""
    grid = "1,2,3,4,5,8"
    short = t.bound("above-threshold", lengths=(2, 3), epsilons=grid, **FAST)
    long = t.bound("above-threshold", lengths=(10, 15), epsilons=grid, **FAST)
    assert short.rejected == 2 and short.next_grid == 3
    assert long.rejected is not None and long.rejected >= 3
    assert short.exact is not None and short.exact.epsilon_star is not None
    assert long.exact is not None and long.exact.epsilon_star is not None
    assert short.exact.epsilon_star.ratio == 2**3
    assert long.exact.epsilon_star.ratio == 2**15
    interval = short.test.interval
    assert interval is not None and interval.low <= 3 * math.log(2) <= interval.high
