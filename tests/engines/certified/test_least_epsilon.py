"""The least ε for a δ by doubling and bisection: what the bracket and its reason claim."""

from __future__ import annotations

from fractions import Fraction

from faier.engines.certified.least_epsilon import least_epsilon


def test_a_bracket_around_the_threshold() -> None:
    found = least_epsilon(
        lambda e: e < Fraction(7, 3), Fraction(0), Fraction(512), Fraction(1, 10**6)
    )
    assert found.low is not None and found.high is not None and found.stopped is None
    assert found.low < Fraction(7, 3) <= found.high
    assert found.high - found.low <= Fraction(7, 3) / 10**6


def test_the_cap_says_what_was_proved() -> None:
    above = least_epsilon(lambda e: True, 0.0, 8.0, 1e-9)
    assert (above.low, above.high) == (8.0, None)
    assert above.stopped == "δ(ε) stays above δ up to ε = 8"


def test_undecided_tests_are_not_reported_as_above() -> None:
    found = least_epsilon(lambda e: True if e < 2 else None, 0.0, 8.0, 1e-9)
    assert (found.low, found.high) == (1.0, None)
    assert found.stopped is not None
    assert "above δ up to ε = 1;" in found.stopped
    assert "from ε = 2 up to 8" in found.stopped
    nowhere = least_epsilon(lambda e: None, 0.0, 8.0, 1e-9)
    assert nowhere.low is None and "above δ nowhere" in (nowhere.stopped or "")
