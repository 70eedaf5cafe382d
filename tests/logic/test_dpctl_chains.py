"""dpCTL*'s Markov chain results (§6, on the models of §3), pinned exactly and by brute force."""

from __future__ import annotations

from fractions import Fraction

import pytest
from dpctl_reference import bounded_probability, close, until_probability

from faier.logic import check, parse, probabilities
from faier.logic.analysis import least_delta
from faier.logic.examples import (
    double_survey,
    geometric,
    subsampling_majority,
    survey,
    truncated_geometric,
)
from faier.logic.models import LogicModel
from faier.model.chains import MarkovChain
from faier.results import Loss, Verdict


def _reference(model: LogicModel, path: str, start: str) -> Fraction:
    chain = model.system
    assert isinstance(chain, MarkovChain)
    labels = {s: chain.label(s) for s in chain.states}
    return bounded_probability(chain.transitions, labels, parse(path, path=True), start)


# --- survey -------------------------------------------------------------------------


def test_survey_is_ln3_private() -> None:
    model = survey()
    result = check(model, "D{ln(3),0}[X out1] & D{ln(3),0}[X out0]")
    assert result.verdict is Verdict.HOLDS
    assert result.states == (("+", Verdict.HOLDS), ("-", Verdict.HOLDS))
    first, second = result.operators
    assert [row.probability for row in first.rows] == [Fraction(3, 4), Fraction(1, 4)]
    assert [row.probability for row in second.rows] == [Fraction(1, 4), Fraction(3, 4)]
    for report in result.operators:
        for row in report.rows:
            assert row.tightest == Loss(Fraction(3))
            assert row.closest is not None and row.closest.margin == 0
    assert _reference(model, "X out1", "+") == Fraction(3, 4)
    assert _reference(model, "X out1", "-") == Fraction(1, 4)


@pytest.mark.parametrize(
    "epsilon", ["0", "1", "ln(2)", "ln(299/100)", "1.0986", "ln(3) - 10^(-12)"]
)
def test_survey_fails_for_every_smaller_epsilon(epsilon: str) -> None:
    result = check(survey(), f"D{{{epsilon},0}}[X out1] & D{{{epsilon},0}}[X out0]")
    assert result.verdict is Verdict.VIOLATED
    assert result.states == (("+", Verdict.VIOLATED), ("-", Verdict.VIOLATED))
    witness = result.witness
    assert witness is not None and not witness.holds
    assert (witness.left, witness.right, witness.p, witness.q) == (
        "+",
        "-",
        Fraction(3, 4),
        Fraction(1, 4),
    )


@pytest.mark.parametrize("epsilon", ["ln(3)", "1.0987", "ln(301/100)", "ln(3) + 10^(-12)"])
def test_survey_holds_from_ln3_on(epsilon: str) -> None:
    assert check(survey(), f"D{{{epsilon},0}}[X out1]").verdict is Verdict.HOLDS


def test_survey_delta_half() -> None:
    assert check(survey(), "D{0, 1/2}[X out1]").verdict is Verdict.HOLDS
    assert check(survey(), "D{0, 49/100}[X out1]").verdict is Verdict.VIOLATED


# --- truncated 1/2-geometric over {0..5} --------------------------------------------


GEOMETRIC = " & ".join(f"D{{ln(2),0}}[X out{k}]" for k in range(6))


def test_geometric_is_ln2_private_in_every_input() -> None:
    model = geometric()
    result = check(model, GEOMETRIC)
    assert result.verdict is Verdict.HOLDS
    assert [s for s, _ in result.states] == [f"s{k}" for k in range(6)]
    assert all(v is Verdict.HOLDS for _, v in result.states)
    tight = [row.tightest for report in result.operators for row in report.rows]
    assert max(t.ratio for t in tight if t is not None and t.ratio is not None) == 2


def test_geometric_probabilities_match_the_closed_form() -> None:
    model = geometric()
    half = Fraction(1, 2)
    for k in range(6):
        for out in range(6):
            edge = out in (0, 5)
            expected = half ** abs(out - k) * (2 if edge else 1) / 3
            assert _reference(model, f"X out{out}", f"s{k}") == expected
            assert truncated_geometric(half, 5, k)[out] == expected
        values = probabilities(model, "X out0")
        assert values[f"s{k}"] == _reference(model, "X out0", f"s{k}")
    assert probabilities(model, "X out2")["s2"] == Fraction(1, 3)
    assert probabilities(model, "X out5")["s0"] == Fraction(1, 48)


def test_geometric_fails_below_ln2() -> None:
    result = check(geometric(), GEOMETRIC.replace("ln(2)", "ln(199/100)"))
    assert result.verdict is Verdict.VIOLATED
    assert result.witness is not None and result.witness.p == 2 * result.witness.q


def test_geometric_neighbours_are_adjacent_inputs() -> None:
    relation = geometric().neighbours
    assert relation.unordered() == tuple((f"s{k}", f"s{k + 1}") for k in range(5))


# --- double survey ------------------------------------------------------------------


def test_double_survey_ln9_is_tight() -> None:
    model = double_survey()
    result = check(model, "D{ln(9),0}[X (out1 & X out1)]")
    assert result.verdict is Verdict.HOLDS
    row_plus, row_minus = result.operators[0].rows
    assert (row_plus.probability, row_minus.probability) == (Fraction(9, 16), Fraction(1, 16))
    assert row_plus.tightest == Loss(Fraction(9))
    assert _reference(model, "X (out1 & X out1)", "+") == Fraction(9, 16)
    assert _reference(model, "X (out1 & X out1)", "-") == Fraction(1, 16)
    assert check(model, "D{ln(89/10),0}[X (out1 & X out1)]").verdict is Verdict.VIOLATED


def test_double_survey_second_answer_alone_costs_ln3() -> None:
    model = double_survey()
    result = check(model, "D{ln(3),0}[X X out1]")
    assert result.verdict is Verdict.HOLDS
    assert [row.probability for row in result.operators[0].rows] == [
        Fraction(3, 4),
        Fraction(1, 4),
    ]
    assert _reference(model, "X X out1", "+") == Fraction(3, 4)


def test_double_survey_nested() -> None:
    result = check(double_survey(), "D{ln(3),0}[X (out1 & D{ln(3),0}[X out1])]")
    assert result.verdict is Verdict.HOLDS
    outer, inner = result.operators
    assert inner.formula == "D{ln(3), 0}[X out1]"
    assert (inner.satisfied, inner.total) == (9, 9)
    assert [row.probability for row in outer.rows] == [Fraction(3, 4), Fraction(1, 4)]


def test_double_survey_beats_composition() -> None:
    model = double_survey()
    result = check(model, "D{0, 0.5}[X (out1 & X out1)]")
    assert result.verdict is Verdict.HOLDS
    assert result.operators[0].rows[0].closest is not None
    assert result.operators[0].rows[0].closest.margin == 0
    assert check(model, "D{0, 0.49}[X (out1 & X out1)]").verdict is Verdict.VIOLATED


def test_d_sets_agree_with_brute_force() -> None:
    """Every D verdict above, recomputed from reference probabilities and exact rational e^ε."""
    cases = [
        (survey(), "X out1", Fraction(3), Fraction(0)),
        (double_survey(), "X (out1 & X out1)", Fraction(9), Fraction(0)),
        (double_survey(), "X (out1 & X out1)", Fraction(8), Fraction(0)),
        (double_survey(), "X (out1 & X out1)", Fraction(1), Fraction(1, 2)),
        (geometric(), "X out3", Fraction(2), Fraction(0)),
        (geometric(), "X out3", Fraction(3, 2), Fraction(1, 10)),
    ]
    for model, path, ratio, delta in cases:
        values = {s: _reference(model, path, s) for s in model.system.states}
        formula = f"D{{ln({ratio}), {delta}}}[{path}]"
        result = check(model, formula, state=model.system.states)
        for state, verdict in result.states:
            expected = all(
                close(values[state], values[t], ratio, delta)
                and close(values[t], values[state], ratio, delta)
                for t in model.neighbours.neighbours(state)
            )
            assert (verdict is Verdict.HOLDS) == expected, (formula, state)


# --- subsampling majority -----------------------------------------------------------


def test_subsampling_majority_model() -> None:
    model = subsampling_majority(3)
    assert "q = 1/8, m = 115" in model.description
    assert model.initial == ("rrr", "rrb", "rbb", "bbb")
    chain = model.system
    assert isinstance(chain, MarkovChain)
    labels = {s: chain.label(s) for s in chain.states}
    reference = until_probability(
        chain.transitions, labels, parse("true", path=True), parse("out1", path=True)
    )
    storm = probabilities(model, "F out1")
    assert storm == reference
    assert (
        storm["rrr"] == storm["bbb"] == 0
        or storm["rrr"] > storm["rrb"] > storm["rbb"] > storm["bbb"]
    )
    both = "D{{{0}}}[F out1] & D{{{0}}}[F out0]"
    assert check(model, both.format("8*ln(2), 1/2")).verdict is Verdict.HOLDS
    result = check(model, both.format("7, 0"))
    assert result.verdict is Verdict.VIOLATED
    tightest = max(
        row.tightest.value for report in result.operators for row in report.rows if row.tightest
    )
    assert 7.1105 < tightest < 7.1107
    assert check(model, both.format("8, 0")).verdict is Verdict.HOLDS


def test_least_delta_on_chains() -> None:
    need = least_delta(survey(), "X out1", "0")
    assert (need.exact, need.left, need.right) == (Fraction(1, 2), "+", "-")
    assert least_delta(survey(), "X out1", "ln(3)").exact == 0
    assert least_delta(double_survey(), "X (out1 & X out1)", "0").exact == Fraction(1, 2)
