"""Sequence mode: Above Threshold horizons, HMM forward vectors, budgets."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference as ref
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import branch_and_bound, engine, epsilon, sequence_mode, verify
from faier.mechanisms.interactive import HALTED, Interactive
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.sparse_vector import sparse_vector
from faier.model.distribution import bernoulli
from faier.privacy.budget import Epsilon
from faier.privacy.specs import InteractiveDP
from faier.results import Verdict


def at_problem(horizon: int | None) -> Problem:
    return Problem("at", above_threshold(), InteractiveDP(1), horizon)


def test_above_threshold_is_k_ln2_per_horizon() -> None:
    result = epsilon(at_problem(6))
    ratios = [row.loss.ratio for row in result.horizons]
    assert ratios == [2**k for k in range(1, 7)]
    assert ratios[:5] == [ref.above_threshold_ratio(k) for k in range(1, 6)]
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 64


def test_above_threshold_refutes_four_ln2_from_five_queries() -> None:
    assert verify(at_problem(4), Epsilon.parse("4*ln(2)")).verdict is Verdict.HOLDS
    result = verify(at_problem(5), Epsilon.parse("4*ln(2)"))
    assert result.verdict is Verdict.VIOLATED
    w = result.witness
    assert w is not None and len(w.output) == 5 and "⊤" not in w.output[:-1]
    assert w.p / w.q == 32
    threshold = int(w.left.split(",")[0].removeprefix("threshold "))
    halts = w.output[-1] == "⊤"
    assert w.p == ref.above_threshold_transcript_prob(threshold, tuple(w.left_value), halts)
    assert w.q == ref.above_threshold_transcript_prob(threshold, tuple(w.right_value), halts)


def test_no_horizon_uses_the_unbounded_loss_certificate() -> None:
    result = verify(at_problem(None), Epsilon.parse("100"))
    assert result.verdict is Verdict.VIOLATED
    assert result.certificate is not None
    assert result.certificate.block == ("answers 1 vs 2 → ⊥",)
    assert (result.certificate.pi_rate, result.certificate.tau_rate) == (
        Fraction(2, 3),
        Fraction(1, 3),
    )
    w = result.witness
    assert w is not None and w.p / w.q > Fraction(10**43)
    assert verify(at_problem(None), Epsilon.parse("ln(4)")).verdict is Verdict.VIOLATED


def test_epsilon_without_horizon_is_infinite_with_a_certificate() -> None:
    result = epsilon(Problem("at", above_threshold(), InteractiveDP(1)))
    assert result.epsilon_star is not None and result.epsilon_star.infinite
    assert [h.loss.ratio for h in result.horizons] == [2**k for k in range(1, 7)]
    assert result.exit_code == 0


def one_noisy_answer() -> Interactive:
    """Randomized response on the first answer, then a constant '·' forever: ε* = ln 3."""

    def step(state, answer, ctx):  # type: ignore[no-untyped-def]
        if state == "fresh":
            truthful = ctx.draw(bernoulli(Fraction(1, 2)))
            coin = ctx.draw(bernoulli(Fraction(1, 2)))
            return "done", str(answer if truthful else int(coin))
        return "done", "·"

    return Interactive("once", (0, 1), {"start": "fresh"}, step)


def test_looping_mechanism_without_certificate_stays_unknown_beyond_the_horizon() -> None:
    problem = Problem("once", one_noisy_answer(), InteractiveDP(1))
    result = epsilon(problem)
    assert result.epsilon_star is None and result.certificate is None
    assert result.lower_bound is not None and result.lower_bound.ratio == 3
    assert result.reason is not None and "unknown beyond" in result.reason
    assert verify(problem, Epsilon.parse("ln(3)")).verdict is Verdict.UNKNOWN
    assert verify(problem, Epsilon.parse("ln(2)")).verdict is Verdict.VIOLATED
    bounded = epsilon(Problem("once", one_noisy_answer(), InteractiveDP(1), 4))
    assert bounded.epsilon_star is not None and bounded.epsilon_star.ratio == 3


def test_runs_that_all_halt_give_an_exact_answer_without_a_horizon() -> None:
    def step(state, answer, ctx):  # type: ignore[no-untyped-def]
        truthful = ctx.draw(bernoulli(Fraction(1, 2)))
        coin = ctx.draw(bernoulli(Fraction(1, 2)))
        return HALTED, str(answer if truthful else int(coin))

    result = epsilon(
        Problem("rr", Interactive("rr", (0, 1), {"start": "s"}, step), InteractiveDP(1))
    )
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 3
    assert result.reason is None and result.certificate is None


def _counted_response(k: int) -> Interactive:
    """Randomized response (truth with probability 3/4) to each of k queries, then halt."""

    def step(state, answer, ctx):  # type: ignore[no-untyped-def]
        keep = ctx.draw(bernoulli(Fraction(3, 4)))
        said = (answer > 0) == keep
        return (HALTED if state + 1 >= k else state + 1), ("T" if said else "F")

    return Interactive(f"rr{k}", (0, 1), {"start": 0}, step)


def _transcript_probability(answers: tuple[int, ...], said: tuple[bool, ...]) -> Fraction:
    out = Fraction(1)
    for answer, told in zip(answers, said, strict=True):
        out *= Fraction(3, 4) if (answer > 0) == told else Fraction(1, 4)
    return out


def _transcript_ratio(k: int) -> Fraction:
    """Brute force over every answer pair sequence and transcript: max P[t | x]/P[t | y]."""
    best = Fraction(0)
    for xs in itertools.product((0, 1), repeat=k):
        for ys in itertools.product((0, 1), repeat=k):
            for said in itertools.product((False, True), repeat=k):
                ratio = _transcript_probability(xs, said) / _transcript_probability(ys, said)
                best = max(best, ratio)
    return best


@pytest.mark.parametrize("k", [3, 8])
def test_a_mechanism_that_halts_after_k_queries_needs_no_horizon(k: int) -> None:
    """Beyond the default horizon of 6 it was "unknown beyond": every run halts within k
    queries (no cycle before HALTED), so the search to k covers every transcript."""
    problem = Problem(f"rr{k}", _counted_response(k), InteractiveDP(1))
    result = epsilon(problem)
    expected = _transcript_ratio(k) if k <= 3 else Fraction(3) ** k
    assert result.epsilon_star is not None and result.epsilon_star.ratio == expected
    assert result.reason is None and "every run halts by then" in result.method
    assert len(result.horizons) == k
    system, starts = sequence_mode.interactive_system(_counted_response(k))
    assert sequence_mode.halting_depth(system, starts.values()) == k
    looping, loop_starts = sequence_mode.interactive_system(one_noisy_answer())
    assert sequence_mode.halting_depth(looping, loop_starts.values()) is None


def test_state_budget_ends_in_unknown_with_sound_bounds() -> None:
    result = verify(at_problem(6), Epsilon.parse("100"), budget=Budget(max_states=50))
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason is not None and "budget" in result.reason
    violated = verify(at_problem(6), Epsilon.parse("ln(2)/2"), budget=Budget(max_states=50))
    assert violated.verdict is Verdict.VIOLATED


@pytest.mark.parametrize("threshold", [0, 1, 2])
def test_public_threshold_is_shared(threshold: int) -> None:
    problem = Problem("at", above_threshold(threshold=threshold), InteractiveDP(1), 3)
    result = epsilon(problem)
    assert result.epsilon_star is not None
    assert result.witness is not None and result.witness.left.startswith(f"threshold {threshold}")


def brute_delta(horizon: int, e_eps: Fraction) -> Fraction:
    """max over thresholds and non-adaptive answer pairs of Σ max(0, P − e^ε Q) (horizon 2)."""
    pairs = [(x, y) for x in range(3) for y in range(3) if abs(x - y) <= 1]
    best = Fraction(0)
    for t in range(3):
        for strategy in itertools.product(pairs, repeat=horizon):
            left = tuple(x for x, _ in strategy)
            right = tuple(y for _, y in strategy)
            total = Fraction(0)
            transcripts = [(j + 1, True) for j in range(horizon)] + [(horizon, False)]
            for length, halts in transcripts:
                p = ref.above_threshold_transcript_prob(t, left[:length], halts)
                q = ref.above_threshold_transcript_prob(t, right[:length], halts)
                total += max(Fraction(0), p - e_eps * q)
            best = max(best, total)
    return best


@pytest.mark.parametrize("e_eps", [Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)])
def test_interactive_delta_is_the_best_strategy(e_eps: Fraction) -> None:
    expected = brute_delta(2, e_eps)
    eps = Epsilon.from_ratio(e_eps)
    result = verify(at_problem(2), eps, delta=expected)
    assert result.verdict is Verdict.HOLDS and result.delta_star == expected
    if expected > 0:
        assert (
            verify(at_problem(2), eps, delta=expected - Fraction(1, 10**12)).verdict
            is Verdict.VIOLATED
        )


def test_interactive_epsilon_for_delta_is_least() -> None:
    for delta in [Fraction(0), Fraction(1, 20), Fraction(1, 5)]:
        result = epsilon(at_problem(2), delta=delta)
        assert result.epsilon_star is not None and result.epsilon_star.ratio is not None
        e_star = result.epsilon_star.ratio
        assert brute_delta(2, e_star) <= delta
        if e_star > 1:
            assert brute_delta(2, e_star - Fraction(1, 10**6)) > delta
    pure = epsilon(at_problem(2), delta=Fraction(0))
    assert pure.epsilon_star is not None and pure.epsilon_star.ratio == 4


def _fraction_times(vector: dict[int, Fraction], rows: sequence_mode.Rows) -> dict[int, Fraction]:
    """vector·rows in plain Fractions: the reference for the integer and FLINT products."""
    out: dict[int, Fraction] = {}
    for s, x in vector.items():
        for t, p in rows[s]:
            out[t] = out.get(t, Fraction(0)) + x * p
    return out


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 40),
    st.floats(0.05, 1.0),
    st.randoms(use_true_random=False),
)
def test_exact_products_agree_with_fractions(n: int, density: float, rng: Any) -> None:
    """Small vectors in Fractions, long ones in integers, dense matrices through FLINT: all equal."""
    rows = []
    for _ in range(n):
        weights = [rng.randint(1, 9) if rng.random() < density else 0 for _ in range(n)]
        weights[rng.randrange(n)] += 1
        total = sum(weights)
        rows.append(tuple((t, Fraction(w, total)) for t, w in enumerate(weights) if w))
    matrix = tuple(rows)
    vector = {
        s: Fraction(rng.randint(1, 10**40), rng.randint(1, 10**40))
        for s in range(n)
        if rng.random() < 0.8
    }
    assert sequence_mode._times(vector, matrix) == _fraction_times(vector, matrix)


def test_a_dense_matrix_is_multiplied_by_flint() -> None:
    rng = __import__("random").Random(7)
    n = 48
    matrix = tuple(
        tuple((t, Fraction(w, 10 * n)) for t, w in enumerate([10] * n)) for _ in range(n)
    )
    assert sequence_mode._integer_rows(matrix).dense is not None  # python-flint is installed
    vector = {s: Fraction(rng.randint(1, 10**60), rng.randint(1, 10**60)) for s in range(n)}
    assert sequence_mode._times(vector, matrix) == _fraction_times(vector, matrix)


@pytest.mark.parametrize(
    ("mechanism", "horizon"),
    [
        (above_threshold(), 30),
        (sparse_vector("isvt4", cutoff=2), 7),
        (sparse_vector("svt", cutoff=2), 7),
    ],
    ids=["at", "isvt4", "svt"],
)
def test_witnesses_written_in_one_pass_are_those_written_one_by_one(
    mechanism: Interactive, horizon: int
) -> None:
    """Extending the previous witness's text gives the text written from scratch,
    also for records of other comparisons, other paths and the halting symbol."""
    problem = Problem("m", mechanism, InteractiveDP(1), horizon)
    system, comparisons, _, _ = engine._sequence_setup(problem, Budget())
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    branch_and_bound.merged_search(system, comparisons, horizon, Budget(), state)
    shuffled = list(state.best[1:]) + [r for r in reversed(state.best[1:]) if r is not None]
    for records in (sequence_mode.cumulative(state), state.best[1:], shuffled):
        one_by_one = [
            None
            if r is None
            else sequence_mode.sequence_witness(system, comparisons[r.comparison], r.path, r.p, r.q)
            for r in records
        ]
        assert sequence_mode.sequence_witnesses(system, comparisons, records) == one_by_one
