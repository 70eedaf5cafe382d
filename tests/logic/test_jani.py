"""JANI files (the quantitative verification benchmark set's format) through Storm.

``walk.jani`` is the random walk of test_prism.py's ``WALK`` written in JANI:
both must give the same exact probabilities.  ``choose.jani`` is an MDP whose
one automaton has two edges enabled in its first state.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.errors import ModelError
from faier.logic import check, probabilities
from faier.logic._storm import choice_names
from faier.logic.loading import load_model
from faier.model.chains import MDP

MODELS = Path(__file__).parent / "models"
WALK = MODELS / "walk.jani"
CHOOSE = MODELS / "choose.jani"

runner = CliRunner()

PRISM_WALK = """dtmc
const int N = 2;
const double p;
module m
  s : [0..N] init 0;
  [] s<N -> p : (s'=s+1) + 1-p : true;
  [] s=N -> true;
endmodule
label "top" = s=N;
"""


def run(*args: str) -> Result:
    result = runner.invoke(app, ["check", *args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


@pytest.mark.parametrize("settings", [{"p": "1/3"}, {"p": "3/4"}])
@pytest.mark.parametrize("formula", ["F<=2 top", "F<=3 top", "X (s = 1)", "F top"])
def test_jani_walk_equals_the_prism_walk(
    tmp_path: Path, settings: dict[str, str], formula: str
) -> None:
    prism = tmp_path / "walk.pm"
    prism.write_text(PRISM_WALK, encoding="utf-8")
    jani_model, prism_model = load_model(str(WALK), settings), load_model(str(prism), settings)
    jani = probabilities(jani_model, formula)
    via_prism = probabilities(prism_model, formula)
    assert [jani[s] for s in jani_model.initial] == [via_prism[s] for s in prism_model.initial]


def test_jani_from_the_command_line() -> None:
    result = run(str(WALK), "--set", "p=1/3", "-f", "P=? [F<=2 top]", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["values"] == {"s=0,top=false": "1/9"}
    longer = run(str(WALK), "--set", "p=1/3", "--const", "N=3", "-f", "P=? [F<=3 top]", "--json")
    assert json.loads(longer.stdout)["values"] == {"s=0,top=false": "1/27"}


def test_jani_mdp_choices_are_named_by_automaton_and_edge() -> None:
    model = load_model(str(CHOOSE))
    assert isinstance(model.system, MDP)
    first = model.system.actions["goal=false,s=0"]
    assert first == {
        "m:1": {"goal=false,s=1": Fraction(1, 2), "goal=true,s=2": Fraction(1, 2)},
        "m:2": {"goal=false,s=1": Fraction(3, 4), "goal=true,s=2": Fraction(1, 4)},
    }
    high = probabilities(model, "X goal", optimum="max")
    low = probabilities(model, "X goal", optimum="min")
    assert (high["goal=false,s=0"], low["goal=false,s=0"]) == (Fraction(1, 2), Fraction(1, 4))


OVERLAP_QUESTIONS = (
    "Pmax=? [F<=2 (y=2 & x=0)]",
    "Pmax=? [F y=2]",
    "Pmax=? [F<=2 y=2]",
    "Pmin=? [F y=1]",
)


def _storm_alone(path: Path, question: str) -> Fraction:
    """stormpy's exact value in the initial state, with no faier code in between."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    properties = stormpy.parse_properties(question, program)
    built = stormpy.build_model[stormpy.Rational](program, properties)
    (initial,) = built.initial_states
    return Fraction(str(stormpy.model_checking(built, properties[0]).get_value(initial)))


@pytest.mark.parametrize("question", OVERLAP_QUESTIONS)
def test_two_choices_with_one_action_and_overlapping_guards_both_stay(question: str) -> None:
    """Issue 25 (zeroconf): a JANI automaton's two edges with one action, both enabled,
    are two choices; naming one after the other's edge made it overwrite the first."""
    jani, prism = load_model(str(MODELS / "overlap.jani")), load_model(str(MODELS / "overlap.nm"))
    for model in (jani, prism):
        assert isinstance(model.system, MDP)
        assert sum(len(model.system.actions[s]) for s in model.system.states) == 27
        assert model.system.actions["x=1,y=1"].keys() >= {"a(m1:1)", "a(m1:2)"}
    expected = _storm_alone(MODELS / "overlap.nm", question)
    for model in (jani, prism):
        result = check(model, question)
        assert dict(result.values)[model.initial[0]] == expected


def test_choices_that_share_every_name_get_storms_index() -> None:
    """Two choices with one label and one origin stay two, told apart by ``#k``."""
    rows = range(10, 13)
    origin = {10: ("go", "m:1"), 11: ("go", "m:1"), 12: ("", "m:2")}
    assert choice_names(rows, origin.__getitem__) == {"go(m:1)#0": 10, "go(m:1)#1": 11, "m:2": 12}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"jani-version": 1,\n "name": }', "line 2"),
        ("[1, 2]", "a JANI file holds one JSON object"),
        ('{"jani-version": 1, "name": "x", "type": "ctmc"}', "not a JANI model Storm reads"),
    ],
)
def test_bad_jani_files_are_bad_input(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.jani"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        load_model(str(path))
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_jani_const_names_only_its_constants() -> None:
    result = run(str(WALK), "--const", "M=3", "-f", "P=? [F top]")
    assert result.exit_code == 2
    assert "--const M: the model has no constant 'M' (constants: N, p)" in result.stderr


def test_a_constant_divisor_that_is_zero_is_refused_before_storm_crashes(tmp_path: Path) -> None:
    """Storm evaluates p / z natively: with z = 0 the process would die of SIGFPE."""
    document = json.loads(WALK.read_text(encoding="utf-8"))
    document["constants"].append({"name": "z", "type": "int", "value": 0})
    destinations = document["automata"][0]["edges"][0]["destinations"]
    destinations[1]["probability"] = {
        "exp": {"op": "-", "left": 1, "right": {"op": "/", "left": "p", "right": "z"}}
    }
    path = tmp_path / "divides.jani"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = run(str(path), "--set", "p=1/3", "-f", "P=? [F top]")
    assert result.exit_code == 2
    assert "a division by z divides by zero once the constants are put in" in result.stderr
    document["constants"][-1]["value"] = 2
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ModelError, match=r"probabilities sum to|transition probability"):
        load_model(str(path), {"p": "1/3"})  # 1/3 + (1 - 1/6): a row that does not sum to 1


def test_a_transient_real_variable_is_read(tmp_path: Path) -> None:
    """Issue 25: QVBS files count rewards in a transient ``real`` (herman's ``steps``);
    reading the state names stopped at it ("stored as rational[128]", exit 4)."""
    document = json.loads(WALK.read_text(encoding="utf-8"))
    document["variables"].append(
        {"name": "steps", "type": "real", "transient": True, "initial-value": 0}
    )
    moving = document["automata"][0]["edges"][0]["destinations"][0]
    moving["assignments"].append({"ref": "steps", "value": 1})
    counted = tmp_path / "counted.jani"
    counted.write_text(json.dumps(document), encoding="utf-8")
    plain, with_steps = load_model(str(WALK), {"p": "1/3"}), load_model(str(counted), {"p": "1/3"})
    assert with_steps.system.states == plain.system.states
    assert probabilities(with_steps, "F<=2 top") == probabilities(plain, "F<=2 top")


@pytest.mark.parametrize("question", OVERLAP_QUESTIONS)
def test_a_jani_model_built_for_its_question_gives_storms_answer(question: str) -> None:
    from faier.logic.parser import parse_formula

    directed = load_model(str(MODELS / "overlap.jani"), question=parse_formula(question).formula)
    expected = _storm_alone(MODELS / "overlap.nm", question)
    assert dict(check(directed, question).values)[directed.initial[0]] == expected


def test_a_jani_files_constants_may_be_named_in_formulas() -> None:
    """QVBS's nand asks ``z/N < 0.1``: N was an unknown variable in JANI files."""
    walk = load_model(str(WALK), {"p": "1/3"})
    assert probabilities(walk, "F<=2 (s = N)") == probabilities(walk, "F<=2 top")
    longer = load_model(str(WALK), {"p": "1/3"}, {"N": "3"})
    assert probabilities(longer, "F<=3 (s = N & p < 1/2)") == probabilities(longer, "F<=3 top")


def test_a_variable_no_edge_writes_may_be_named(tmp_path: Path) -> None:
    """Storm's JANI build drops a variable that never changes from the state; the
    fuzzer (kind 'models') found formulas naming one refused as 'unknown variable'."""
    document = json.loads(WALK.read_text(encoding="utf-8"))
    document["variables"].append(
        {
            "name": "c",
            "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 2},
            "initial-value": 1,
        }
    )
    fixed = tmp_path / "fixed.jani"
    fixed.write_text(json.dumps(document), encoding="utf-8")
    model = load_model(str(fixed), {"p": "1/3"})
    assert probabilities(model, "F<=2 (top & c = 1)") == probabilities(model, "F<=2 top")
    assert set(probabilities(model, "F (c = 0)").values()) == {Fraction(0)}
