"""faier's chain/MDP files and PRISM files: what loads, and what fails with a located message."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from faier.errors import InputError, ModelError
from faier.logic import NeighbourSpec, check, load_model, parse_neighbour_spec
from faier.logic.files import load_logic_file
from faier.results import Verdict

SURVEY_YAML = """\
name: my-survey
description: the survey of dpCTL*
states: [+, -, s, t, done]
initial: [+, -]
labels:
  out1: [s]
  out0: [t]
  finished: []
transitions:
  +: {s: 3/4, t: 1/4}
  -: {s: 0.25, t: 0.75}
  s: {done: 1}
  t: {done: 1}
neighbours: [[+, -]]
"""

SURVEY_MDP_JSON = """{
  "states": ["+", "-", "s", "t"],
  "labels": {"out1": ["s"], "out0": ["t"]},
  "actions": {
    "+": {"L": {"s": "3/4", "t": "1/4"}, "H": {"s": "4/5", "t": "1/5"}},
    "-": {"L": {"s": "1/4", "t": "3/4"}, "H": {"s": "1/5", "t": "4/5"}}
  },
  "initial": ["+", "-"],
  "neighbours": {"states": [["+", "-"]]}
}
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_chain_file(tmp_path: Path) -> None:
    model = load_model(_write(tmp_path, "survey.yaml", SURVEY_YAML))
    assert model.name == "my-survey" and model.kind == "Markov chain"
    assert model.initial == ("+", "-")
    assert model.system.transitions["-"] == {"s": Fraction(1, 4), "t": Fraction(3, 4)}  # type: ignore[union-attr]
    assert model.label_sets()["finished"] == frozenset()
    assert check(model, "D{ln(3), 0}[X out1]").verdict is Verdict.HOLDS
    assert check(model, "P=? [F finished]").values == (("+", Fraction(0)), ("-", Fraction(0)))


def test_mdp_file(tmp_path: Path) -> None:
    model = load_model(_write(tmp_path, "survey.json", SURVEY_MDP_JSON))
    assert model.kind == "MDP" and model.name == "survey"
    assert model.system.actions["s"] == {"-": {"s": Fraction(1)}}  # type: ignore[union-attr]
    assert check(model, "D{ln(4), 0}[X out1]").verdict is Verdict.HOLDS
    assert check(model, "D{ln(3), 0}[X out1]").verdict is Verdict.VIOLATED


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        (SURVEY_YAML.replace("t: 1/4}", "t: 1/5}"), "transitions.+", "sum to 19/20"),
        (
            SURVEY_YAML.replace("{s: 0.25, t: 0.75}", "{s: 0.25, t: 0.74}"),
            "transitions.-",
            "sum to 99/100",
        ),
        (SURVEY_YAML.replace("t: 1/4}", "t: -1/4}"), "transitions.+", "negative"),
        (
            SURVEY_YAML.replace("{done: 1}", "{gone: 1}", 1),
            "transitions of 's'",
            "unknown state 'gone'",
        ),
        (SURVEY_YAML.replace("transitions:", "transition:"), "", "did you mean 'transitions'"),
        (SURVEY_YAML.replace("out0: [t]", "out0: t"), "labels.out0", "expected a list"),
        (SURVEY_YAML.replace("out0: [t]", "out0: [x]"), "labels", "'x', which is not a state"),
        (SURVEY_YAML.replace("initial: [+, -]", "initial: [+, x]"), "", "initial state 'x'"),
        (
            SURVEY_YAML.replace("neighbours: [[+, -]]", "neighbours: [[+, x]]"),
            "neighbours",
            "'x', which is not a state",
        ),
        (
            SURVEY_YAML.replace("  s: {done: 1}\n", "  s: {done: 1}\n  s: {done: 1}\n"),
            "line 13",
            "appears twice",
        ),
        (
            SURVEY_YAML.replace("states: [+, -, s, t, done]", "states: [+, -, s, t, yes]"),
            "states",
            "boolean",
        ),
        (SURVEY_YAML + "actions: {}\n", "", "both 'transitions' and 'actions'"),
        (SURVEY_YAML.replace("states: [+, -, s, t, done]\n", ""), "", "missing 'states'"),
        ("- a\n- b\n", "", "not a mapping"),
        ("states: [a\n", "line 2", "not valid YAML"),
        (SURVEY_YAML.replace("t: 1/4}", "t: p}"), "transitions.+", "is 'p', not a number"),
        (
            SURVEY_YAML.replace("  s: {done: 1}", "  u: {done: 1}"),
            "transitions",
            "'u', which is not a state",
        ),
    ],
)
def test_bad_chain_files(tmp_path: Path, text: str, where: str, words: str) -> None:
    path = _write(tmp_path, "bad.yaml", text)
    with pytest.raises(InputError) as caught:
        load_model(path)
    assert caught.value.where is not None and caught.value.where.startswith(path)
    assert where in caught.value.where
    assert words in caught.value.render()


def test_bad_json_and_suffix(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="line 2"):
        load_logic_file(_write(tmp_path, "bad.json", '{"states": ["a"],\n ]}'))
    with pytest.raises(ModelError, match="unknown file type"):
        load_logic_file(_write(tmp_path, "model.txt", "states: [a]"))
    with pytest.raises(ModelError, match="file not found"):
        load_model(str(tmp_path / "missing.yaml"))
    with pytest.raises(ModelError, match="neither a built-in example"):
        load_model("no-such-model")


def test_mdp_without_action_names(tmp_path: Path) -> None:
    text = SURVEY_MDP_JSON.replace('"actions": {', '"actions": {"s": {},')
    with pytest.raises(ModelError, match="offers no action"):
        load_model(_write(tmp_path, "bad.json", text))


# --- PRISM ---------------------------------------------------------------------------

SURVEY_PM = """\
dtmc
module survey
  s : [0..3];
  [] s=0 -> 3/4:(s'=2) + 1/4:(s'=3);
  [] s=1 -> 1/4:(s'=2) + 3/4:(s'=3);
  [] s>=2 -> 1:(s'=s);
endmodule
init s=0 | s=1 endinit
label "out1" = s=2;
label "out0" = s=3;
label "pos" = s=0;
label "neg" = s=1;
"""

SURVEY_MDP_PM = """\
mdp
const double high;
module survey
  s : [0..3];
  [low]  s<=1 -> (s=0 ? 3/4 : 1/4):(s'=2) + (s=0 ? 1/4 : 3/4):(s'=3);
  [high] s<=1 -> (s=0 ? high : 1-high):(s'=2) + (s=0 ? 1-high : high):(s'=3);
  [] s>=2 -> 1:(s'=s);
endmodule
init s<=1 endinit
label "out1" = s=2;
"""


def test_prism_dtmc(tmp_path: Path) -> None:
    model = load_model(_write(tmp_path, "survey.pm", SURVEY_PM))
    assert model.system.states == ("s=0", "s=1", "s=2", "s=3")
    assert model.initial == ("s=0", "s=1")
    assert model.label_sets()["pos"] == {"s=0"}
    assert (
        check(model, "D{ln(3), 0}[X out1]", neighbours=_spec("@pos~@neg")).verdict is Verdict.HOLDS
    )
    result = check(model, "D{ln(2), 0}[X out1]", neighbours=_spec("s=0~s=1"))
    assert result.verdict is Verdict.VIOLATED
    assert result.witness is not None and (result.witness.p, result.witness.q) == (
        Fraction(3, 4),
        Fraction(1, 4),
    )


def _spec(text: str) -> NeighbourSpec:
    return parse_neighbour_spec(text)


def test_prism_mdp_with_constants(tmp_path: Path) -> None:
    path = _write(tmp_path, "survey-mdp.pm", SURVEY_MDP_PM)
    model = load_model(path, {"high": "4/5"})
    assert model.kind == "MDP"
    assert set(model.system.actions["s=0"]) == {"low", "high"}  # type: ignore[union-attr]
    relation = _spec("s=0~s=1")
    assert (
        check(model, "D{ln(4), 0}[X out1]", neighbours=relation, state="s=0").verdict
        is Verdict.HOLDS
    )
    with pytest.raises(ModelError, match="undefined constants: high"):
        load_model(path)
    with pytest.raises(ModelError, match="no undefined constant 'low'"):
        load_model(path, {"high": "1/2", "low": "1"})


def test_prism_rows_must_sum_to_one(tmp_path: Path) -> None:
    """Storm builds this model without complaint; faier does not accept it."""
    text = SURVEY_PM.replace("1/4:(s'=3);\n  [] s=1", "1/5:(s'=3);\n  [] s=1")
    with pytest.raises(ModelError, match="sum to 19/20"):
        load_model(_write(tmp_path, "bad.pm", text))


def test_prism_syntax_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        load_model(_write(tmp_path, "bad.pm", SURVEY_PM.replace("[0..3];", "[0..3]")))
    assert caught.value.where is not None and "line 4, column" in caught.value.where


MODELS = Path(__file__).parents[2] / "src" / "faier" / "logic" / "models"


@pytest.mark.parametrize(
    ("name", "settings", "neighbours", "formula"),
    [
        ("survey.yaml", {}, None, "D{ln(3), 0}[X out1] & D{ln(3), 0}[X out0]"),
        ("interactive-survey.yaml", {}, None, "D{ln(4), 0}[X out1] & D{ln(4), 0}[X out0]"),
        ("survey.pm", {"p": "1/2"}, "@pos~@neg", "D{ln(3), 0}[X out1] & D{ln(3), 0}[X out0]"),
    ],
)
def test_shipped_model_files(
    name: str, settings: dict[str, str], neighbours: str | None, formula: str
) -> None:
    model = load_model(str(MODELS / name), settings)
    relation = _spec(neighbours) if neighbours else None
    assert check(model, formula, neighbours=relation).verdict is Verdict.HOLDS
    tighter = formula.replace("ln(3)", "ln(2)").replace("ln(4)", "ln(3)")
    assert check(model, tighter, neighbours=relation).verdict is Verdict.VIOLATED
