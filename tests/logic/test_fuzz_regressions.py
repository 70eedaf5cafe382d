"""Regressions found by the differential fuzzer (benchmarks/soundness.py, kind dpctl)."""

from __future__ import annotations

from fractions import Fraction

from faier.logic import check, logic_model, markov_chain
from faier.logic.neighbours import NeighbourRelation
from faier.results import Verdict


def two_absorbing_states() -> object:
    """s0 and s1 absorbing, b only in s0: Pr(s0, X b) = 1, Pr(s1, X b) = 0."""
    chain = markov_chain(
        {"s0": {"s0": Fraction(1)}, "s1": {"s1": Fraction(1)}},
        states=["s0", "s1"],
        labels={"b": ["s0"]},
    )
    relation = NeighbourRelation.from_pairs(["s0", "s1"], [("s0", "s1")])
    return logic_model("two", chain, neighbours=relation, labels=("b",))


def test_violated_d_over_a_negated_next_of_a_negated_label_is_explained() -> None:
    """Rechecking the witness progressed ``!X !b`` to ``b``, which ``sat`` did not know
    (only the maximal state subformula ``!b``): KeyError instead of 'violated'."""
    result = check(two_absorbing_states(), "D{ln(1000), 0}[!X !b]")
    assert dict(result.states) == {"s0": Verdict.VIOLATED, "s1": Verdict.VIOLATED}


def test_d_reads_an_exponent_decimal_like_verify() -> None:
    """docs/LOGIC.md: ε in D{ε, δ} is read 'as in faier verify', which accepts 1e-06,
    and δ as --delta reads it."""
    result = check(two_absorbing_states(), "D{1e-06, 0}[X b]")
    assert dict(result.states) == {"s0": Verdict.VIOLATED, "s1": Verdict.VIOLATED}
    result = check(two_absorbing_states(), "D{ln(3), 1e-5}[X b]")
    assert dict(result.states) == {"s0": Verdict.VIOLATED, "s1": Verdict.VIOLATED}
    assert check(two_absorbing_states(), "D{ln(3), 1e0}[X b]").verdict is Verdict.HOLDS
