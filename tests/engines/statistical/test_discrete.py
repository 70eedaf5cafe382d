"""Discrete mechanisms sampled from their exact tables: same law as one run per sample."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.stats import chi2_contingency

from faier.engines.statistical.discrete import (
    ModeContext,
    Table,
    interactive_loop,
    noise_free_output,
    noise_free_transcript,
    program_loop,
    program_table,
    transcript_distribution,
)
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.noisy_max import noisy_max
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.mechanisms.sampled import Outputs
from faier.model.distribution import Distribution, truncated_geometric


def frequencies(out: Outputs) -> dict[object, int]:
    found: dict[object, int] = {}
    for i in range(out.n):
        found[out.value(i)] = found.get(out.value(i), 0) + 1
    return found


def same_law(a: Outputs, b: Outputs) -> float:
    fa, fb = frequencies(a), frequencies(b)
    keys = sorted(set(fa) | set(fb), key=str)
    return float(
        chi2_contingency([[fa.get(k, 0) for k in keys], [fb.get(k, 0) for k in keys]]).pvalue
    )


def test_tables_draw_what_the_mechanism_draws() -> None:
    mechanism = noisy_max(4, "uniform")
    side = Distribution.point((0, 2, 1, 2))
    table = program_table(mechanism, side)
    fast = table.draw(20_000, np.random.default_rng(0))
    slow = program_loop(mechanism, side).draw(3_000, np.random.default_rng(1))
    assert same_law(fast, slow) > 1e-4


def test_transcripts_draw_what_the_mechanism_draws() -> None:
    mechanism = sparse_vector("isvt2")
    stream = (1, 2, 0, 2)
    exact = transcript_distribution(mechanism.automaton(), "threshold 1", stream)
    assert sum(exact.values()) == 1
    fast = Table.of(exact).draw(20_000, np.random.default_rng(0))
    slow = interactive_loop(mechanism, "threshold 1", stream).draw(3_000, np.random.default_rng(1))
    assert same_law(fast, slow) > 1e-4


def test_a_run_that_halts_early_is_shorter() -> None:
    exact = transcript_distribution(above_threshold().automaton(), "threshold 0", (2, 2, 2))
    assert ("⊤",) in exact and all(len(t) <= 3 for t in exact)
    assert sum(exact.values()) == 1


def test_noise_free_runs_take_the_most_likely_draw() -> None:
    assert ModeContext().draw(truncated_geometric(Fraction(1, 2), 2, 1)) == 1
    assert noise_free_output(noisy_max(3, "first"), (0, 2, 1)) == 2
    transcript = noise_free_transcript(above_threshold(), "threshold 2", (1, 1, 2, 1))
    assert transcript == ("⊥", "⊥", "⊤")
