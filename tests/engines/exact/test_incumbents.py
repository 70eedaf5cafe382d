"""Incumbents from StatDP's input patterns and from the beam."""

from __future__ import annotations

from fractions import Fraction

from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, sequence_mode
from faier.engines.exact.incumbents import answer_runs, symbols_following
from faier.mechanisms.library.above_threshold import above_threshold
from faier.model.hmm import HMM


def at_system() -> sequence_mode.SequenceSystem:
    return sequence_mode.interactive_system(above_threshold())[0]


def test_patterns_are_placed_among_the_answers_in_both_orders() -> None:
    runs = list(answer_runs(at_system(), 4))
    names = {run.name for run in runs}
    assert "one below rest above at +0" in names
    assert "one below rest above (swapped) at +0" in names
    for run in runs:
        assert len(run.answers) == 4
        assert all(0 <= x <= 2 and 0 <= y <= 2 and abs(x - y) <= 1 for x, y in run.answers)
    assert len({run.answers for run in runs}) == len(runs)


def test_a_run_allows_only_its_answer_pair_and_the_end_symbol() -> None:
    system = at_system()
    run = next(iter(answer_runs(system, 3)))
    allowed = symbols_following(system, run)
    for depth in (1, 2, 3):
        for index in allowed(depth):
            answers = system.symbols[index].answers
            assert answers is None or answers == run.answers[depth - 1]


def test_hmms_get_no_pattern_runs_and_use_the_beam() -> None:
    half, third = Fraction(1, 2), Fraction(1, 3)
    hmm = HMM(
        ("s", "t"),
        ("x", "y"),
        ((half, half), (Fraction(0), Fraction(1))),
        ((third, 1 - third), (half, half)),
        {},
    )
    system = sequence_mode.hmm_system(hmm)
    assert list(answer_runs(system, 3)) == []
    comparison = sequence_mode.SequenceComparison(
        {0: Fraction(1)},
        {1: Fraction(1)},
        None,  # type: ignore[arg-type]
    )
    state = sequence_mode.SearchState(3, [None] * 4)
    counts = branch_and_bound.merged_search(system, [comparison], 3, Budget(), state)
    assert counts.pattern_runs == 0
    assert state.best[1] is not None and state.best[1].loss.ratio == Fraction(4, 3)


def test_pattern_incumbents_find_the_above_threshold_optimum() -> None:
    system = at_system()
    comparisons = [
        sequence_mode.SequenceComparison({i: Fraction(1)}, {i: Fraction(1)}, None)  # type: ignore[arg-type]
        for i in range(system.size)
        if i != system.halted
    ]
    state = sequence_mode.SearchState(6, [None] * 7)
    counts = branch_and_bound.merged_search(system, comparisons, 6, Budget(), state)
    assert counts.pattern_runs > 0
    assert [r.loss.ratio for r in sequence_mode.cumulative(state)] == [2**k for k in range(1, 7)]
