"""dpCTL* over MDPs: exact action-word enumeration, Proposition 2, and 'unknown' with bounds."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from faier.logic import check, logic_model, mdp, parse_neighbour_spec, probabilities
from faier.logic.analysis import least_delta
from faier.logic.examples import above_threshold, above_threshold_path, interactive_survey
from faier.logic.parser import FormulaError
from faier.privacy.budget import Epsilon
from faier.results import Verdict

# --- interactive survey (dpCTL* Fig. 5) ----------------------------------------------


def test_interactive_survey_is_ln4_private_by_enumeration() -> None:
    result = check(interactive_survey(), "D{ln(4),0}[X out1] & D{ln(4),0}[X out0]")
    assert result.verdict is Verdict.HOLDS
    row = result.operators[0].rows[0]
    assert row.method.startswith("action words")
    assert row.closest is not None
    assert (row.closest.p, row.closest.q, row.closest.margin) == (Fraction(4, 5), Fraction(1, 5), 0)
    assert row.closest.word == ("H",)


def test_interactive_survey_high_accuracy_breaks_ln3() -> None:
    result = check(interactive_survey(), "D{ln(3),0}[X out1]")
    assert result.verdict is Verdict.VIOLATED
    witness = result.witness
    assert witness is not None and witness.word == ("H",) and witness.repeat is None
    assert (witness.left, witness.right, witness.p, witness.q) == (
        "+",
        "-",
        Fraction(4, 5),
        Fraction(1, 5),
    )


def test_unbounded_formula_goes_through_proposition_2() -> None:
    model = interactive_survey()
    holds = check(model, "D{ln(4),0}[F out1]")
    assert holds.verdict is Verdict.HOLDS
    assert holds.operators[0].rows[0].method == "Proposition 2"
    assert probabilities(model, "F out1", optimum="max")["+"] == Fraction(4, 5)
    assert probabilities(model, "F out1", optimum="min")["-"] == Fraction(1, 5)
    fails = check(model, "D{ln(3),0}[F out1]")
    assert fails.verdict is Verdict.VIOLATED
    witness = fails.witness
    assert witness is not None and witness.method == "tail words"
    assert (witness.word, witness.repeat, witness.p, witness.q) == (
        (),
        "H",
        Fraction(4, 5),
        Fraction(1, 5),
    )


def _lookalike() -> object:
    """s and t behave alike under every action word, but schedulers can tell x from y apart."""
    return logic_model(
        "lookalike",
        mdp(
            {
                "s": {"x": {"a": Fraction(1, 2), "z": Fraction(1, 2)}, "y": {"a": 1}},
                "t": {"x": {"a": Fraction(1, 2), "z": Fraction(1, 2)}, "y": {"a": 1}},
            },
            states=["s", "t", "a", "z"],
            labels={"goal": ["a"]},
        ),
        initial=["s", "t"],
        neighbours=parse_neighbour_spec("s~t"),
    )


def test_sufficient_condition_failing_is_unknown_with_both_bounds() -> None:
    result = check(_lookalike(), "D{0, 0}[F goal]")  # type: ignore[arg-type]
    assert result.verdict is Verdict.UNKNOWN and result.exit_code == 3
    assert result.reason is not None
    assert "sufficient condition failed (Proposition 2)" in result.reason
    assert "max Pr(s) = 1, min Pr(t) = 1/2" in result.reason
    exact = check(_lookalike(), "D{0, 0}[X goal]")  # type: ignore[arg-type]
    assert exact.verdict is Verdict.HOLDS


def test_undecided_inner_d_makes_outer_operators_unknown_where_reachable() -> None:
    model = _lookalike()
    result = check(model, "P>=1 [X D{0, 0}[F goal]] | goal", state=["s", "a"])  # type: ignore[arg-type]
    assert dict(result.states) == {"s": Verdict.UNKNOWN, "a": Verdict.HOLDS}


def test_word_budget_falls_back_to_proposition_2() -> None:
    model = above_threshold()
    path = above_threshold_path(2)
    ok = check(model, f"D{{1, 0.74}}[{path}]", state="t3r5", word_limit=50)
    assert ok.verdict is Verdict.HOLDS
    assert ok.operators[0].rows[0].method == "Proposition 2"
    unsure = check(model, f"D{{0, 0.1}}[{path}]", state="t3r5", word_limit=50)
    assert unsure.verdict is Verdict.UNKNOWN
    assert unsure.reason is not None and "budget of 50 search nodes exceeded" in unsure.reason
    exact = check(model, f"D{{0, 0.1}}[{path}]", state="t3r5")
    assert exact.verdict is Verdict.HOLDS


def test_query_alphabet_must_be_offered_everywhere() -> None:
    broken = logic_model(
        "broken",
        mdp(
            {
                "s": {"x": {"u": 1}, "y": {"v": 1}},
                "t": {"x": {"u": 1}, "z": {"v": 1}},
                "u": {"-": {"u": 1}},
                "v": {"-": {"v": 1}},
            },
            labels={"g": ["u"]},
        ),
        neighbours=parse_neighbour_spec("s~t"),
    )
    result = check(broken, "D{0,0}[X g]", state="s")  # Pr ∈ [0, 1] from both: no bound decides
    assert result.verdict is Verdict.UNKNOWN
    reason = result.operators[0].rows[0].reason or ""
    assert "no action words" in reason and "a query scheduler picks one action per step" in reason
    assert "Proposition 2" in reason


def test_every_scheduler_violates_when_min_exceeds_max() -> None:
    """Proposition 2's converse: min Pr(s) > e^ε·max Pr(t) + δ fails under every scheduler."""
    model = logic_model(
        "apart",
        mdp(
            {
                "s": {"x": {"u": 1}, "y": {"u": "3/4", "v": "1/4"}},
                "t": {"x": {"v": 1}, "z": {"u": "1/4", "v": "3/4"}},
                "u": {"-": {"u": 1}},
                "v": {"-": {"v": 1}},
            },
            labels={"g": ["u"]},
        ),
        neighbours=parse_neighbour_spec("s~t"),
    )
    result = check(model, "D{ln(2),0}[X g]", state="s")
    assert result.verdict is Verdict.VIOLATED
    assert result.witness is not None
    assert (result.witness.p, result.witness.q) == (Fraction(3, 4), Fraction(1, 4))
    assert result.witness.method == "every scheduler"
    assert result.witness.show().startswith("min Pr(s) = 3/4 > e^ε·max Pr(t) + δ")
    assert check(model, "D{ln(3),0}[X g]", state="s").verdict is Verdict.UNKNOWN


def test_proposition_2_decides_an_mdp_without_a_query_alphabet() -> None:
    """Real models (interleaved modules) offer different actions in different states."""
    half = {"u": "1/2", "v": "1/2"}
    model = logic_model(
        "interleaved",
        mdp(
            {
                "s": {"x": half, "y": half},
                "t": {"x": half, "z": {"u": "1/2", "v": "1/2"}},
                "u": {"-": {"u": 1}},
                "v": {"-": {"v": 1}},
            },
            labels={"g": ["u"]},
        ),
        neighbours=parse_neighbour_spec("s~t"),
    )
    result = check(model, "D{0,0}[X g]", state="s")
    assert result.verdict is Verdict.HOLDS
    assert result.operators[0].rows[0].method == "Proposition 2"


def test_p_over_all_schedulers() -> None:
    model = interactive_survey()
    assert check(model, "P>=3/4 [X out1]", state="+").verdict is Verdict.HOLDS
    result = check(model, "P>=4/5 [X out1]", state="+")
    assert result.verdict is Verdict.VIOLATED
    assert result.operators[0].rows[0].bounds == (Fraction(3, 4), Fraction(4, 5))
    assert check(model, "Pmax=? [X out1]").values == (("+", Fraction(4, 5)), ("-", Fraction(1, 4)))
    with pytest.raises(FormulaError, match="depends on the scheduler"):
        check(model, "P=? [X out1]")


# --- Above Threshold (dpCTL* §7.1, §8.1) -----------------------------------------------

PAIR = [("t3r5", "_t3r4")]


def test_above_threshold_model() -> None:
    model = above_threshold()
    assert len(model.system.states) == 218
    assert len(model.initial) == 72
    assert len(model.neighbours.unordered()) == 96
    assert model.system.actions["t3'r1'"].keys() == {
        f"{m}|{n}" for m in range(6) for n in range(6) if abs(m - n) <= 1
    }
    assert above_threshold_path(1) == "X X (bot & X X (X top))"


@pytest.mark.parametrize(
    ("k", "proposition2", "words"),
    [
        (0, Fraction(379, 3840), Fraction(379, 3840)),
        (1, Fraction(1661, 10240), Fraction(379, 3840)),
        (2, Fraction(86281, 552960), Fraction(26909, 276480)),
        (3, Fraction(47677, 327680), Fraction(5249, 55296)),
    ],
)
def test_above_threshold_pair_t3r5_t3r4(k: int, proposition2: Fraction, words: Fraction) -> None:
    """dpCTL*'s (0, 0.17) for t3r5 / t3r4: Proposition 2 needs δ = 1661/10240 ≈ 0.1622 at
    k = 1; exact query schedulers need only 379/3840 ≈ 0.0987."""
    model = above_threshold()
    path = above_threshold_path(k)
    assert least_delta(model, path, "0", pairs=PAIR, method="proposition 2").exact == proposition2
    assert least_delta(model, path, "0", pairs=PAIR).exact == words
    assert check(model, f"D{{0, 0.17}}[{path}]", state="t3r5").verdict is Verdict.HOLDS


def test_above_threshold_pair_supremum_over_k() -> None:
    """Every k ≥ 4 needs the first four outputs to be ⊥, which no scheduler makes likelier than
    δ(k=1): so sup over all k of Proposition 2's δ is exactly 1661/10240."""
    model = above_threshold()
    four_bots = "X X (bot & X X (bot & X X (bot & X X bot)))"
    tail = max(probabilities(model, four_bots, optimum="max")[s] for s in PAIR[0])
    assert tail < Fraction(1661, 10240)
    assert (
        check(model, f"D{{0, 0.16}}[{above_threshold_path(1)}]", state="t3r5").verdict
        is Verdict.HOLDS
    )


@pytest.mark.parametrize(
    ("k", "p", "q"),
    [
        (1, Fraction(17783, 23040), Fraction(49, 1152)),
        (2, Fraction(50569, 69120), Fraction(859, 138240)),
        (3, Fraction(115237, 165888), Fraction(7699, 6635520)),
    ],
)
def test_above_threshold_all_neighbours_epsilon_1(k: int, p: Fraction, q: Fraction) -> None:
    """dpCTL*'s (1, 0.74): Proposition 2's worst pair is t4r0 / t4r1, δ = p − e·q."""
    need = least_delta(above_threshold(), above_threshold_path(k), "1", method="proposition 2")
    assert (need.left, need.right, need.p, need.q) == ("t4r0", "_t4r1", p, q)
    assert need.value == pytest.approx(float(p) - math.e * float(q), abs=1e-12)


def test_above_threshold_is_1_074_private_by_proposition_2_and_exactly() -> None:
    model = above_threshold()
    assert least_delta(model, above_threshold_path(0), "1", method="proposition 2").value < 0
    need = least_delta(model, above_threshold_path(1), "1")
    assert (need.p, need.q) == (Fraction(595421, 1474560), Fraction(32017, 294912))
    assert need.value == pytest.approx(0.108687, abs=1e-6)
    result = check(model, f"D{{1, 0.74}}[{above_threshold_path(1)}]")
    assert result.verdict is Verdict.HOLDS
    assert len(result.states) == 72


def test_above_threshold_proposition_2_supremum_over_all_k() -> None:
    """sup over every k of Proposition 2's δ for ε = 1 is attained at k = 2 (≈ 0.714721): for
    k ≥ 16 the first 16 outputs must be ⊥, which no scheduler makes likelier than that."""
    model = above_threshold()
    needs = [
        least_delta(model, above_threshold_path(k), "1", method="proposition 2") for k in range(16)
    ]
    best = needs[2]
    assert all(need.value < best.value - 1e-3 for k, need in enumerate(needs) if k != 2)
    first_bots = "bot"
    for _ in range(15):
        first_bots = f"bot & X X ({first_bots})"
    tail = max(probabilities(model, f"X X ({first_bots})", optimum="max").values())
    # tail < p − e·q  ⇔  (p − tail)/q > e, decided exactly
    assert Epsilon.parse("1").compare_ratio((best.p - tail) / best.q) > 0
