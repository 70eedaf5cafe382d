"""Interactive mechanisms: automaton exploration merges states; sampling halts."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from faier.mechanisms.interactive import HALTED
from faier.mechanisms.library.above_threshold import TOP, above_threshold


def test_above_threshold_automaton_is_small_and_stochastic() -> None:
    automaton = above_threshold().automaton()
    # halted, three fresh thresholds, noisy thresholds 1 and 2 (noisy 0 always halts)
    assert len(automaton.states) == 1 + 3 + 2
    assert automaton.states[automaton.halted] is HALTED
    for per_letter in automaton.moves:
        for moves in per_letter:
            assert sum((p for _, _, p in moves), Fraction(0)) == 1


def test_sampling_stops_at_top() -> None:
    mechanism = above_threshold()
    rng = np.random.default_rng(1)
    for _ in range(50):
        run = mechanism.sample("threshold 1", [0, 1, 2, 2, 2, 2], rng)
        assert all(o != TOP for o in run[:-1])
        assert len(run) == 6 or run[-1] == TOP
