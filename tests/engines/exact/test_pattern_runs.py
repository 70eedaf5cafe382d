"""The pattern runs' shortcut: a child that is only recorded costs no product.

Its masses come from the matrices' row sums and its halting from the rows'
supports (``integer_vectors.step_masses``); the per-horizon results must be
those of the full products, on the float frontier and in exact arithmetic
alike, and each witness's probabilities those of an independent forward sum.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import reference as ref
from faier.core.problem import Problem
from faier.engines.exact import engine, sequence_mode
from faier.engines.exact.integer_vectors import (
    IntegerVector,
    integer_times,
    mass_numerator,
    step_masses,
)
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.privacy.specs import InteractiveDP
from faier.results import Result


def rows(result: Result) -> list[tuple[object, ...]]:
    return [
        (h.k, h.loss, h.witness.left, h.witness.right, h.witness.output, h.witness.p, h.witness.q)
        for h in result.horizons
        if h.witness is not None
    ]


def transcript_probability(threshold: int, answers: list[int], output: tuple[str, ...]) -> Fraction:
    """Pr[output | answers] of Above Threshold (defaults), summed over the noisy threshold:
    every ⊥ needs its noisy answer below it, the final ⊤ one at or above it."""
    noise_t = ref.truncated_geometric_row(Fraction(1, 4), 2, threshold)
    total = Fraction(0)
    for noisy_t, p in noise_t.items():
        for answer, seen in zip(answers, output, strict=True):
            row = ref.truncated_geometric_row(Fraction(1, 2), 2, answer)
            p *= sum(q for z, q in row.items() if (z >= noisy_t) == (seen == "⊤"))
        total += p
    return total


def test_above_threshold_to_sixty_queries_float_and_exact_agree_with_a_forward_sum() -> None:
    problem = Problem("at", above_threshold(), InteractiveDP(1), 60)
    fast = engine.epsilon(problem)
    exact = engine.epsilon(problem, arithmetic="exact")
    assert rows(fast) == rows(exact)
    assert [h.loss.ratio for h in fast.horizons] == [2**k for k in range(1, 61)]
    for h in fast.horizons:
        w = h.witness
        assert w is not None and len(w.output) == h.k
        threshold = int(w.left.split(",")[0].removeprefix("threshold "))
        assert w.p == transcript_probability(threshold, list(w.left_value), w.output)
        assert w.q == transcript_probability(threshold, list(w.right_value), w.output)


@pytest.mark.parametrize(
    "mechanism",
    [sparse_vector("svt"), sparse_vector("isvt2"), sparse_vector("isvt4", cutoff=2)],
    ids=["svt", "isvt2", "isvt4"],
)
def test_sparse_vector_float_and_exact_give_the_same_horizons(mechanism: Interactive) -> None:
    problem = Problem("svt", mechanism, InteractiveDP(1), 8)
    assert rows(engine.epsilon(problem)) == rows(engine.epsilon(problem, arithmetic="exact"))


def test_masses_and_halting_from_the_rows_equal_the_full_product() -> None:
    rng = random.Random(5)
    for mechanism in (above_threshold(), sparse_vector("isvt4", cutoff=2)):
        system, _ = sequence_mode.interactive_system(mechanism)
        for _ in range(200):
            support = rng.sample(range(system.size), rng.randint(1, system.size))
            vector = IntegerVector({s: rng.randint(1, 2**200) for s in support}, 3**50)
            for matrix in system.left:
                product = integer_times(vector, matrix)
                top, den = mass_numerator(vector, matrix)
                assert Fraction(top, den) == product.mass()
                if system.halted is not None:
                    into = step_masses(matrix, system.halted)[2]
                    halts = all(into[s] for s in support)
                    assert halts == product.within(system.halted)
