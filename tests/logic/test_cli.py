"""``faier check``: exit codes, one-line errors with the column, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from faier.cli.main import app

runner = CliRunner()


def run(args: list[str]) -> Result:
    result = runner.invoke(app, ["check", *args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def test_holds_exit_0() -> None:
    result = run(["survey", "-f", "D{ln(3),0}[X out1] & D{ln(3),0}[X out0]"])
    assert result.exit_code == 0
    assert "holds in every asked state" in result.stdout
    assert "ln(3) ≈ 1.0986" in result.stdout


def test_violated_exit_1_with_witness() -> None:
    result = run(["survey", "-f", "D{1.0986,0}[X out1]", "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["verdict"] == "violated"
    assert data["states"] == {"+": "violated", "-": "violated"}
    assert data["witness"]["p"] == "3/4" and data["witness"]["q"] == "1/4"
    assert data["operators"][0]["rows"][0]["tightest_epsilon"]["ratio"] == "3"


def test_unknown_exit_3(tmp_path: Path) -> None:
    model = tmp_path / "lookalike.yaml"
    model.write_text(
        "states: [s, t, a, z]\n"
        "initial: [s, t]\n"
        "labels: {goal: [a]}\n"
        "actions:\n"
        "  s: {x: {a: 1/2, z: 1/2}, y: {a: 1}}\n"
        "  t: {x: {a: 1/2, z: 1/2}, y: {a: 1}}\n"
    )
    result = run([str(model), "-f", "D{0,0}[F goal]", "--neighbors", "s~t"])
    assert result.exit_code == 3
    assert "sufficient condition failed (Proposition 2)" in result.stdout
    assert run([str(model), "-f", "D{0,0}[X goal]", "--neighbors", "s~t"]).exit_code == 0


def test_state_option_and_examples_parameters() -> None:
    result = run(
        ["geometric", "--set", "top=3", "-f", "D{ln(2),0}[X out0]", "--state", "s1", "--json"]
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["states"] == {"s1": "holds"}
    result = run(
        [
            "above-threshold",
            "--set",
            "top=2",
            "-f",
            "D{1, 0.74}[X X (bot & X X (X top))]",
            "--state",
            "t1r2",
        ]
    )
    assert result.exit_code == 0


def test_query() -> None:
    result = run(["double-survey", "-f", "P=? [X (out1 & X out1)]", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["values"] == {"+": "9/16", "-": "1/16"}
    text = run(["interactive-survey", "-f", "Pmax=? [X out1]"]).stdout
    assert "4/5" in text


def test_neighbours_file(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.json"
    pairs.write_text('{"labels": [["in0", "in1"]]}')
    result = run(["geometric", "-f", "D{0,0}[X out0]", "--neighbors", str(pairs), "--json"])
    assert result.exit_code == 1
    assert "1 pair" in json.loads(result.stdout)["neighbours"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["survey", "-f", "D{ln(3),0}[X out1"], "formula, column 11: unbalanced '['"),
        (["survey", "-f", "D{ln(3),0}[X out2]"], "formula, column 14: unknown label 'out2'"),
        (["survey", "-f", "D{-1,0}[X out1]"], "formula, column 3: ε = '-1' is negative"),
        (["survey", "-f", "D{ln(3),1.5}[X out1]"], "formula, column 9: δ = 1.5 is not in [0, 1]"),
        (["survey", "-f", "X out1"], "formula, column 1: X is a path operator outside P or D"),
        (["survey", "-f", "out1 & P=? [X out1]"], "formula, column 8: P=? asks for a probability"),
        (
            ["geometric", "-f", "D{0,0}[X out1]", "--state", "s9"],
            "'s9' is not a state of geometric",
        ),
        (["survey", "-f", "D{0,0}[X out1]", "--neighbors", "+~x"], "'x', which is not a state"),
        (["survey", "-f", "D{0,0}[X out1]", "--set", "n=3"], "survey has no parameter 'n'"),
        (  # issue 25: a long pair was tried as a path ("File name too long", exit 4)
            ["survey", "-f", "D{0,0}[X out1]", "--neighbors", "+~" + "x" * 300],
            "which is not a state",
        ),
        (["nothing", "-f", "true"], "neither a built-in example nor a model file"),
        (["interactive-survey", "-f", "P=? [X out1]"], "ask Pmin=? [...] or Pmax=? [...]"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], expected: str) -> None:
    result = run(args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert expected in lines[0]
    assert "Traceback" not in result.stderr


def test_d_without_neighbours_is_bad_input(tmp_path: Path) -> None:
    model = tmp_path / "chain.yaml"
    model.write_text("states: [a, b]\nlabels: {g: [b]}\ntransitions: {a: {b: 1}}\n")
    result = run([str(model), "-f", "D{0,0}[X g]"])
    assert result.exit_code == 2
    assert "column 1: D compares each state with its neighbours" in result.stderr


def test_a_long_bounded_globally_is_answered_not_a_crash() -> None:
    """Issue 25: G<=3000 went to Storm's LTL engine, which ended the process (SIGSEGV)."""
    result = run(["survey", "-f", "P=? [G<=3000 !out1]", "--json"])
    assert result.exit_code == 0, result.stderr
    long_ltl = run(["survey", "-f", "P=? [X (G<=3000 out1)]"])
    assert long_ltl.exit_code == 2
    assert "cannot take a step bound of 3000" in long_ltl.stderr


def test_timeout_ends_in_unknown() -> None:
    """Storm's LTL engine on F<=900 takes far longer than the limit; the child is killed."""
    result = run(["survey", "-f", "P=? [X (F<=900 out1)]", "--timeout", "0.3", "--json"])
    assert result.exit_code == 3, result.stderr
    body = json.loads(result.stdout)
    assert body["verdict"] == "unknown"
    assert "time limit of 0.3 s" in body["reason"]
    quick = run(["survey", "-f", "P=? [X out1]", "--timeout", "60", "--json"])
    assert quick.exit_code == 0
    assert json.loads(quick.stdout)["values"]


CROWDS = Path(__file__).parent / "models" / "crowds.pm"
CROWDS_SET = ["--set", "PF=4/5,badC=1,CrowdSize=3,TotalRuns=1"]


def test_every_prism_suffix_is_read(tmp_path: Path) -> None:
    """Issue 25: .sm (PRISM's name for stochastic models) was not recognised."""
    answers = set()
    for suffix in (".pm", ".prism", ".nm", ".sm"):
        copy = tmp_path / f"crowds{suffix}"
        copy.write_text(CROWDS.read_text(encoding="utf-8"), encoding="utf-8")
        result = run([str(copy), *CROWDS_SET, "-f", "P=? [F reportedA]", "--json"])
        assert result.exit_code == 0, result.stderr
        answers.add(json.dumps(json.loads(result.stdout)["values"]))
    assert len(answers) == 1


def test_states_and_neighbours_by_partial_valuations_in_any_order() -> None:
    by_names = run(
        [
            str(CROWDS),
            *CROWDS_SET,
            "-f",
            "D{ln(3),0}[F reportedA]",
            "--neighbors",
            "who=0, runs=0,phase=0 ~ phase=0,runs=0,who=1",
            "--state",
            "runs = 0,phase=0",
            "--json",
        ]
    )
    assert by_names.exit_code == 0, by_names.stderr
    body = json.loads(by_names.stdout)
    assert sorted(body["states"]) == [
        "holder=0,phase=0,runs=0,seenA=0,seenB=0,who=0",
        "holder=1,phase=0,runs=0,seenA=0,seenB=0,who=1",
    ]
    assert "(1 pair," in body["neighbours"]


def test_sizes_and_exact_values_are_shown(tmp_path: Path) -> None:
    chain = tmp_path / "tiny.yaml"
    tiny = Fraction(1, 3**60)
    chain.write_text(
        f"states: [a, b]\nlabels: {{g: [b]}}\ntransitions: {{a: {{b: {tiny}, a: {1 - tiny}}}, b: {{b: 1}}}}\n"
    )
    text = run([str(chain), "-f", "P=? [X g]", "--state", "a"])
    assert text.exit_code == 0, text.stderr
    assert "2 states, 3 transitions" in text.stdout
    assert str(tiny) in "".join(text.stdout.split())
    body = json.loads(run([str(chain), "-f", "P=? [X g]", "--json"]).stdout)
    assert body["size"] == {"states": 2, "transitions": 3}
    mdp = json.loads(run(["interactive-survey", "-f", "Pmax=? [X out1]", "--json"]).stdout)
    assert set(mdp["size"]) == {"states", "transitions", "choices"}


def test_neighbours_may_name_a_state_the_question_alone_never_reaches(tmp_path: Path) -> None:
    """Storm's build for ``P=? [F goal]`` stops at goal and never explores s=3; --neighbors
    may name any state of the model, so with it the whole model is built."""
    model = tmp_path / "unreached.pm"
    model.write_text(
        "dtmc\nmodule m\n  s : [0..3] init 0;\n  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);\n"
        '  [] s=1 -> (s\'=3);\n  [] s>=2 -> true;\nendmodule\nlabel "goal" = s=1;\n',
        encoding="utf-8",
    )
    result = run([str(model), "-f", 'P=? [F "goal"]', "--neighbors", "s=3~s=2", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["values"] == {"s=0": "1/2"}
    assert data["size"]["states"] == 4


def test_an_answer_of_thousands_of_digits_is_printed_whole(tmp_path: Path) -> None:
    """P=? [F<=10000 s=1] = 1 − (2/3)^10000, 4772 digits over 4772: Python's 4300-digit limit
    on int(text) and str(int) once ended this in exit 4 (brp, N = 512: 11,357 digits)."""
    model = tmp_path / "coin.pm"
    model.write_text(
        "dtmc\nmodule m\n  s : [0..1] init 0;\n"
        "  [] s=0 -> 1/3 : (s'=1) + 2/3 : (s'=0);\n  [] s=1 -> true;\nendmodule\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-c", "from faier.cli.entry import main; main()", "check"]
    done = subprocess.run(
        [*command, str(model), "-f", "P=? [F<=10000 s=1]", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    numerator, _, denominator = json.loads(done.stdout)["values"]["s=0"].partition("/")
    value = Fraction(int(Decimal(numerator)), int(Decimal(denominator)))
    assert len(denominator) == 4772 and value == 1 - Fraction(2, 3) ** 10000
