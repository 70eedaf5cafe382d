"""PRISM constants set with --set: a Crowds model checks, and values out of range are bad input.

Storm refuses such values with raw messages (a RuntimeError for a negative
probability, a WrongFormatException for an empty range) or, for a zero
divisor, kills the process with SIGFPE; each must become exit 2 with one
line naming the constants and the fix.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import cast

import pytest
from typer.testing import CliRunner, Result

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.errors import ModelError
from faier.logic import check as check_formula
from faier.logic import parse_neighbour_spec
from faier.logic._storm import StormRows, stormpy
from faier.logic.models import LogicModel
from faier.logic.prism import load_prism
from faier.results import Verdict

CROWDS = Path(__file__).parent / "models" / "crowds.pm"
FORMULA = "D{ln(3), 0}[F reportedA]"

runner = CliRunner()


def constants(pf: str = "4/5", bad: str = "1", size: str = "5", runs: str = "2") -> list[str]:
    """--set options for the four constants of crowds.pm, one of them changed."""
    values = {"PF": pf, "badC": bad, "CrowdSize": size, "TotalRuns": runs}
    return [part for name, value in values.items() for part in ("--set", f"{name}={value}")]


def check(options: list[str], formula: str = FORMULA, *extra: str) -> Result:
    args = ["check", str(CROWDS), *options, "--neighbors", "@sentA~@sentB", "-f", formula]
    result = runner.invoke(app, [*args, *extra], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def reported(pf: Fraction, bad: int, size: int) -> tuple[Fraction, Fraction]:
    """Pr(a corrupt member reports A in one run) when A sends, and when B sends, by hand.

    x_A, x_B: the probability of a report naming A once an honest member (A, B;
    any other honest member behaves like B) holds the message.
    """
    to_bad, to_one = Fraction(bad, size), Fraction(1, size)
    to_rest = Fraction(size - bad - 2, size)
    x_b = pf * pf * to_one * to_bad / (1 - pf * (2 * to_one + to_rest))
    x_a = pf * to_bad + x_b
    after_first = to_one * x_a + (to_one + to_rest) * x_b
    return to_bad + after_first, after_first


def test_crowds_probabilities_match_a_hand_computation() -> None:
    result = check(constants(runs="1"), "P=? [F reportedA]", "--json")
    assert result.exit_code == 0, result.stderr
    values = json.loads(result.stdout)["values"]
    sent_a, sent_b = reported(Fraction(4, 5), 1, 5)
    assert (sent_a, sent_b) == (Fraction(13, 45), Fraction(4, 45))
    assert values == {
        "holder=0,phase=0,runs=0,seenA=0,seenB=0,who=0": str(sent_a),
        "holder=1,phase=0,runs=0,seenA=0,seenB=0,who=1": str(sent_b),
    }


def test_crowds_privacy_over_two_runs() -> None:
    """Two runs: 1 − (32/45)² against 1 − (41/45)², a ratio of 1001/344 < 3."""
    holds = check(constants(), FORMULA, "--json")
    assert holds.exit_code == 0, holds.stderr
    row = json.loads(holds.stdout)["operators"][0]["rows"][0]
    assert row["tightest_epsilon"]["ratio"] == "1001/344"
    assert check(constants(), "D{ln(2), 0}[F reportedA]").exit_code == 1


def assert_bad_input(result: Result, message: str) -> None:
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: {CROWDS}: {message}"]
    assert "Traceback" not in result.output
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            constants(pf="1.3"),
            "--set PF=1.3 makes the probability (1 - PF) negative (give PF a value in [0, 1])",
        ),
        (
            constants(runs="-1"),
            "--set TotalRuns=-1 makes the range of runs, [0..TotalRuns], empty"
            " (choose TotalRuns so that 0 ≤ TotalRuns)",
        ),
        (
            constants(pf="-0.5"),
            "--set PF=-0.5, badC=1, CrowdSize=5 make the probability (PF * (badC / CrowdSize))"
            " negative (= -1/10) (give PF a value in [0, 1])",
        ),
        (
            constants(bad="4"),
            "--set badC=4, CrowdSize=5 make the probability (((CrowdSize - badC) - 2) / CrowdSize)"
            " negative (= -1/5) (choose badC, CrowdSize so that"
            " (((CrowdSize - badC) - 2) / CrowdSize) ≥ 0)",
        ),
        (
            constants(size="-3"),
            "--set badC=1, CrowdSize=-3 make the probability (badC / CrowdSize) negative (= -1/3)"
            " (choose badC, CrowdSize so that (badC / CrowdSize) ≥ 0)",
        ),
    ],
    ids=["PF above 1", "empty range", "PF below 0", "too many corrupt", "negative crowd"],
)
def test_out_of_range_constant_is_bad_input(options: list[str], message: str) -> None:
    assert_bad_input(check(options), message)
    assert_bad_input(check(options, FORMULA, "--json"), message)


def test_probability_above_one_is_bad_input(tmp_path: Path) -> None:
    model = tmp_path / "coin.pm"
    model.write_text(
        "dtmc\nconst double q;\nmodule coin\n  s : [0..1];\n"
        "  [] s=0 -> 2*q : (s'=1) + 1/2 : (s'=0);\n  [] s=1 -> true;\nendmodule\n"
        'label "heads" = s=1;\n'
    )
    result = runner.invoke(app, ["check", str(model), "--set", "q=3/4", "-f", "P>=0 [F heads]"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {model}: --set q=3/4 makes the probability (2 * q) exceed 1 (= 3/2)"
        " (choose q so that (2 * q) ≤ 1)"
    ]


def test_zero_divisor_is_bad_input_not_a_crash() -> None:
    """Storm's exact arithmetic raises SIGFPE on 1/0, so this runs in its own process."""
    args = [str(CROWDS), *constants(size="0"), "--neighbors", "@sentA~@sentB", "-f", FORMULA]
    done = subprocess.run(
        [sys.executable, "-c", "from faier.cli.main import main; main()", "check", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: {CROWDS}: --set CrowdSize=0 makes (badC / CrowdSize) divide by zero"
        " (choose CrowdSize so that CrowdSize ≠ 0)"
    ]
    assert done.stdout == ""


# --- large models: Storm's matrix is the model -------------------------------------------


def _crowds(runs: int) -> LogicModel:
    return load_prism(CROWDS, {"PF": "4/5", "badC": "1", "CrowdSize": "5", "TotalRuns": str(runs)})


def test_rows_are_read_from_storms_matrix_as_the_eager_conversion_reads_them() -> None:
    """The lazily converted rows equal a row-by-row conversion of the same built model."""
    model = _crowds(3)
    rows = model.system.transitions  # type: ignore[union-attr]
    assert isinstance(rows, StormRows)
    states = model.system.states
    matrix = rows.model.transition_matrix
    for i, state in enumerate(states):
        expected: dict[str, Fraction] = {}
        for entry in matrix.get_row(i):
            target = states[entry.column]
            expected[target] = expected.get(target, Fraction(0)) + Fraction(str(entry.value))
        assert rows[state] == expected
        assert sum(expected.values()) == 1


def test_state_dependent_probabilities_are_checked_entry_by_entry_in_storms_matrix(
    tmp_path: Path,
) -> None:
    """A probability over a variable may leave [0, 1] in some state: every entry is checked
    (in Storm's exact rationals), and every row's sum; the rows stay Storm's."""
    text = (
        "dtmc\nmodule m\n  s : [0..1] init 1;\n"
        "  [] true -> s/2 + LOW : (s'=0) + 1 - s/2 - LOW : (s'=1);\nendmodule\n"
    )
    path = tmp_path / "moving.pm"
    path.write_text(text.replace("LOW", "-1/4"), encoding="utf-8")  # -1/4 in state s=0
    with pytest.raises(ModelError, match=r"a transition probability is (5/4|-1/4)"):
        load_prism(path)
    path.write_text(text.replace("LOW", "0"), encoding="utf-8")
    model = load_prism(path)
    rows = model.system.transitions  # type: ignore[union-attr]
    assert isinstance(rows, StormRows)
    assert rows["s=1"] == {"s=0": Fraction(1, 2), "s=1": Fraction(1, 2)}
    assert rows["s=0"] == {"s=1": Fraction(1)}
    path.write_text(text.replace("- LOW", "- s/4").replace("LOW", "0"), encoding="utf-8")
    with pytest.raises(ModelError, match="transitions of 's=1': probabilities sum to 3/4, not 1"):
        load_prism(path)


def test_d_on_a_large_crowds_model_equals_storms_own_probabilities() -> None:
    """30 runs (75k states): D compares the two senders only, with Storm's exact values."""
    model = _crowds(30)
    assert len(model.system.states) > 70_000
    result = check_formula(
        model.with_neighbours(parse_neighbour_spec("@sentA~@sentB")),
        "D{ln(3), 0}[F reportedA]",
    )
    assert result.verdict is Verdict.HOLDS
    sp = stormpy()
    built = cast(StormRows, model.system.transitions).model  # type: ignore[union-attr]
    values = sp.model_checking(built, sp.parse_property('P=? [F "reportedA"]')).get_value_vector()
    row = result.operators[0].rows[0]
    by_name = {s: Fraction(str(values[i])) for i, s in enumerate(model.system.states)}
    assert row.closest is not None
    assert (row.closest.p, row.closest.q) == (by_name[row.closest.left], by_name[row.closest.right])


# --- --const: PRISM's -const, overriding the file's definitions ---------------------------

WALK = """dtmc
const int N = 2; // steps to the top
const double p = 1/2;
module m
  s : [0..N] init 0;
  [] s<N -> p : (s'=s+1) + 1-p : true;
  [] s=N -> true;
endmodule
label "top" = s=N;
"""


def _walk(tmp_path: Path, *options: str, formula: str = "P=? [X X X X top]") -> Result:
    path = tmp_path / "walk.pm"
    path.write_text(WALK, encoding="utf-8")
    args = ["check", str(path), *options, "-f", formula, "--json"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


@pytest.mark.parametrize(
    ("options", "value"),
    [
        ((), "11/16"),  # N = 2, p = 1/2: at least 2 of 4 steps go up
        (("--const", "N=4"), "1/16"),
        (("--const", "N=4,p=1/3"), "1/81"),
        (("--const", "N=4", "--const", "p=1/3"), "1/81"),
    ],
)
def test_const_overrides_the_files_own_definitions(
    tmp_path: Path, options: tuple[str, ...], value: str
) -> None:
    result = _walk(tmp_path, *options)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["values"] == {"s=0": value}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ("--set", "N=3"),
            "walk.pm: --set N: the file defines 'N' itself (override a definition with --const N=3)",
        ),
        (("--const", "M=3"), "walk.pm: --const M: the model has no constant 'M' (constants: N, p)"),
        (("--const", "N=3", "--set", "N=4"), "walk.pm: N is given with both --set and --const"),
        (("--const", "N=3,N=4"), "--const: N is set twice (give each value once)"),
        (("--const", "N=1:4"), "--const: N=1:4 is a range (PRISM's experiments)"),
        (("--const", "p=3/2"), "walk.pm: --const p=3/2 makes the probability (1 - p) negative"),
    ],
)
def test_const_mistakes_are_bad_input(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    result = _walk(tmp_path, *options)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_const_keeps_line_numbers_for_syntax_errors(tmp_path: Path) -> None:
    path = tmp_path / "walk.pm"
    path.write_text(WALK.replace("s=N -> true;", "s=N -> true"), encoding="utf-8")
    result = runner.invoke(app, ["check", str(path), "--const", "N=3", "-f", "P=? [F top]"])
    assert result.exit_code == 2
    assert f"{path}: line 8" in result.stderr


def test_const_needs_a_prism_file() -> None:
    result = runner.invoke(app, ["check", "survey", "--const", "N=3", "-f", "P=? [X out1]"])
    assert result.exit_code == 2
    assert "--const N: only PRISM files have constants" in result.stderr


# --- output people can read -------------------------------------------------------------


def test_a_partial_valuation_picks_the_states_it_describes() -> None:
    result = check(constants(), FORMULA, "--json", "--state", "who=1,runs=0,phase=0")
    assert result.exit_code == 0, result.stderr
    assert list(json.loads(result.stdout)["states"]) == [
        "holder=1,phase=0,runs=0,seenA=0,seenB=0,who=1"
    ]
    missing = check(constants(), FORMULA, "--state", "who=7")
    assert missing.exit_code == 2
    assert "--state: 'who=7' is not a state of crowds" in missing.stderr


def test_a_witness_names_the_variables_where_the_two_states_differ_first() -> None:
    result = check(constants(), "D{ln(2), 0}[F reportedA]")
    assert result.exit_code == 1
    assert (
        "Pr(holder=0,who=0 | phase=0,runs=0,seenA=0,seenB=0) = 1001/2025 > "
        "e^ε·Pr(holder=1,who=1 | phase=0,runs=0,seenA=0,seenB=0)"
    ) in " ".join(result.stdout.split())


def test_seconds_cover_building_the_model() -> None:
    result = check(constants(runs="6"), FORMULA, "--json")
    data = json.loads(result.stdout)
    assert 0 < data["model_seconds"] < data["seconds"]


def test_a_command_that_is_never_enabled_may_sum_to_less_than_one(tmp_path: Path) -> None:
    """As in PRISM, only the rows of reachable states must be distributions."""
    text = (
        "dtmc\nmodule m\n  s : [0..2] init 0;\n"
        "  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=0);\n"
        "  [] s=2 -> 1/2 : (s'=0);\n"  # s = 2 is never reached
        "  [] s=1 -> true;\nendmodule\n"
    )
    path = tmp_path / "partial.pm"
    path.write_text(text, encoding="utf-8")
    model = load_prism(path)
    assert isinstance(model.system.transitions, StormRows)  # type: ignore[union-attr]
    assert model.system.transitions["s=0"] == {"s=0": Fraction(1, 2), "s=1": Fraction(1, 2)}  # type: ignore[union-attr]
    path.write_text(
        text.replace("(s'=1) + 1/2 : (s'=0)", "(s'=2) + 1/2 : (s'=0)"), encoding="utf-8"
    )
    with pytest.raises(ModelError, match="probabilities sum to 1/2, not 1"):
        load_prism(path)


def test_mdp_choices_are_read_from_storms_matrix_entry_by_entry() -> None:
    """Dining cryptographers (N = 3): each lazily named and converted choice holds exactly
    the entries of its row in Storm's matrix, and the choices are Storm's, one name each."""
    from faier.logic._storm import StormChoices

    model = load_prism(Path(__file__).parent / "models" / "dining-cryptographers.pm")
    choices = model.system.actions  # type: ignore[union-attr]
    assert isinstance(choices, StormChoices)
    states = model.system.states
    matrix = choices.model.transition_matrix
    for i, state in enumerate(states):
        rows = range(matrix.get_row_group_start(i), matrix.get_row_group_end(i))
        expected = sorted(
            sorted((states[e.column], Fraction(str(e.value))) for e in matrix.get_row(row))
            for row in rows
        )
        assert sorted(sorted(d.items()) for d in choices[state].values()) == expected
    assert sum(len(choices[s]) for s in states) == choices.model.nr_choices
    assert set(choices[states[0]]) == {"crypt0:1", "crypt1:1", "crypt2:1"}  # the three coin flips


CROWDS_SMALL = {"PF": "4/5", "badC": "1", "CrowdSize": "3", "TotalRuns": "1"}


@pytest.mark.parametrize(
    "question",
    ["P=? [F reportedA]", "P=? [!done U<=3 (seenA > 0)]", "P=? [X (phase = 1)]", "P=? [G !done]"],
)
def test_a_model_built_for_its_question_gives_the_same_answer(question: str) -> None:
    """Issue 25 (speed): Storm's property-directed build explores only what the question
    needs (rabin.3: 1,088 of 27,766 states); the initial states' values stay the same."""
    from faier.logic.parser import parse_formula

    whole = load_prism(CROWDS, CROWDS_SMALL)
    directed = load_prism(CROWDS, CROWDS_SMALL, question=parse_formula(question).formula)
    assert directed.initial == whole.initial
    assert len(directed.system.states) <= len(whole.system.states)
    assert check_formula(directed, question).values == check_formula(whole, question).values


def test_only_a_question_storm_can_direct_prunes_the_model() -> None:
    from faier.logic.parser import parse_formula

    whole = load_prism(CROWDS, CROWDS_SMALL)
    reached = load_prism(CROWDS, CROWDS_SMALL, question=parse_formula("P=? [F reportedA]").formula)
    assert len(reached.system.states) < len(whole.system.states)
    for kept in ("P=? [X (F reportedA)]", "P=? [F (P>=1/2 [X reportedA])]", "P=? [G<=2 !done]"):
        same = load_prism(CROWDS, CROWDS_SMALL, question=parse_formula(kept).formula)
        assert len(same.system.states) == len(whole.system.states), kept


def test_state_dependent_probabilities_of_an_mdp_are_checked_choice_by_choice(
    tmp_path: Path,
) -> None:
    """An MDP's probability over a variable may leave [0, 1] in one choice of one state:
    refused naming the transition; in range, the choices are Storm's rows, read exactly."""
    from faier.logic._storm import StormChoices

    text = (
        "mdp\nmodule m\n  s : [0..1] init 1;\n"
        "  [a] true -> 1 : (s'=1-s);\n"
        "  [b] true -> s/2 + LOW : (s'=0) + 1 - s/2 - LOW : (s'=1);\nendmodule\n"
    )
    path = tmp_path / "moving.nm"
    path.write_text(text.replace("LOW", "-1/4"), encoding="utf-8")  # b at s=0: -1/4
    with pytest.raises(ModelError, match=r"a transition probability is (5/4|-1/4)"):
        load_prism(path)
    path.write_text(text.replace("LOW", "0"), encoding="utf-8")
    choices = load_prism(path).system.actions  # type: ignore[union-attr]
    assert isinstance(choices, StormChoices)
    assert dict(choices["s=1"]) == {
        "a": {"s=0": Fraction(1)},
        "b": {"s=0": Fraction(1, 2), "s=1": Fraction(1, 2)},
    }
    assert dict(choices["s=0"]) == {"a": {"s=1": Fraction(1)}, "b": {"s=1": Fraction(1)}}
