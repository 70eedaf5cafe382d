"""PRISM's reward questions R=? [F φ] and R=? [C<=k], against plain stormpy in exact arithmetic."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from storm_answers import storm_answers
from typer.testing import CliRunner

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.logic import check, load_model
from faier.logic.parser import FormulaError

stormpy = pytest.importorskip("stormpy")

CHAIN = """dtmc
module m
  s : [0..3] init 0;
  [go] s < 2 -> 1/3 : (s'=s+1) + 1/3 : (s'=s) + 1/3 : (s'=3);
  [] s >= 2 -> true;
endmodule
label "goal" = s >= 2;
rewards "steps"
  [go] true : 1;
endrewards
rewards "place"
  s = 1 : 5;
  [go] s = 0 : 1/2;
endrewards
"""

DECISIONS = """mdp
module m
  s : [0..3] init 0;
  [fast] s < 2 -> 1/2 : (s'=s+1) + 1/2 : (s'=3);
  [slow] s < 2 -> 1/4 : (s'=s+1) + 3/4 : (s'=s);
  [] s >= 2 -> true;
endmodule
rewards "time"
  [fast] true : 3;
  [slow] true : 1;
  s = 1 : 1/2;
endrewards
"""

VARYING = """dtmc
module m
  s : [0..3] init 0;
  [go] s < 3 -> (s+1)/4 : (s'=s+1) + (3-s)/4 : (s'=s);
  [] s = 3 -> true;
endmodule
rewards "steps"
  [go] true : 1;
  s = 1 : 1/2;
endrewards
"""
"""Probabilities that depend on the state: faier holds its own rows, Storm's build the rewards."""


def written(tmp_path: Path, text: str, name: str = "model.pm") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        (CHAIN, 'R{"steps"}=? [ F s>=2 ]', Fraction(9, 4)),
        (CHAIN, 'R{"steps"}=? [ F "goal" | s=1 ]', Fraction(3, 2)),
        (CHAIN, 'R{"steps"}=? [ F s=2 ]', math.inf),
        (CHAIN, 'R{"place"}=? [ C<=3 ]', None),
        (CHAIN, 'R{"place"}=? [ F P>=1/2 [X s>=2] ]', None),
        (VARYING, "R=? [ F s=3 ]", Fraction(4) + Fraction(2) + Fraction(4, 3) + 1),
        (VARYING, 'R{"steps"}=? [ C<=3 ]', None),
        (DECISIONS, "Rmin=? [ F s=2 ]", None),
        (DECISIONS, "Rmax=? [ F s>=2 ]", None),
        (DECISIONS, 'R{"time"}min=? [ C<=4 ]', None),
        (DECISIONS, 'R{"time"}max=? [ F s>=2 ]', None),
    ],
)
def test_expected_rewards_are_storms_exact_values(
    text: str, query: str, expected: Any, tmp_path: Path
) -> None:
    path = written(tmp_path, text)
    result = check(load_model(str(path)), query)
    ((_, value),) = result.values
    assert result.quantity == "expected reward"
    assert [value] == storm_answers(path, query)
    if expected is not None:
        assert value == expected


def test_the_cli_prints_an_infinite_reward_and_serialises_it(tmp_path: Path) -> None:
    path = written(tmp_path, CHAIN)
    args = ["check", str(path), "-f", 'R{"steps"}=? [F s=2]']
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["values"] == {"s=0": "inf"}
    text = CliRunner().invoke(app, args).stdout
    assert "expected reward" in text and "∞" in text


@pytest.mark.parametrize(
    ("text", "query", "message"),
    [
        (CHAIN, "R=? [F s=2]", "model has 2 reward structures (place, steps)"),
        (CHAIN, 'R{"time"}=? [F s=2]', "model has no reward structure 'time'"),
        (DECISIONS, "R=? [F s=2]", "on an MDP the expected reward depends on the scheduler"),
        (CHAIN, 'R{"steps"}=? [F nothere]', "unknown label 'nothere'"),
    ],
)
def test_bad_reward_questions_are_located(
    text: str, query: str, message: str, tmp_path: Path
) -> None:
    model = load_model(str(written(tmp_path, text)))
    with pytest.raises(FormulaError) as caught:
        check(model, query)
    assert caught.value.message.startswith(message)
    assert caught.value.where.startswith("formula, column ")


def test_a_model_without_prism_rewards_is_told_so() -> None:
    with pytest.raises(FormulaError, match="survey has no reward structures faier can read"):
        check(load_model("survey"), "R=? [F out1]")


MODELS = Path(__file__).parent / "models"
QVBS = [  # (file stem, constants, question, the benchmark set's published exact value)
    ("consensus.2", {"K": "2"}, 'R{"steps"}max=? [F "finished"]', Fraction(75)),
    ("consensus.2", {"K": "2"}, "Rmin=? [F finished]", Fraction(48)),
    ("csma.2-2", {}, 'R{"time"}max=? [F "all_delivered"]', Fraction(227630345357, 3221225472)),
    ("csma.2-2", {}, "Rmin=? [F all_delivered]", Fraction(53954981353, 805306368)),
    ("leader_sync.3-2", {}, 'R{"num_rounds"}=? [F "elected"]', Fraction(4, 3)),
    ("leader_sync.3-2", {}, "R=? [C<=2]", None),
    ("consensus.2", {"K": "2"}, 'R{"steps"}max=? [C<=7]', None),
]


def initial_value(path: Path, constants: dict[str, str], query: str) -> Fraction | float:
    result = check(load_model(str(path), constants), query)
    ((_, value),) = result.values
    assert result.quantity == "expected reward"
    return value


@pytest.mark.parametrize(("stem", "constants", "query", "published"), QVBS)
def test_jani_rewards_are_the_benchmark_sets_values_and_the_prism_files(
    stem: str, constants: dict[str, str], query: str, published: Fraction | None
) -> None:
    """A JANI file's transient real variables are its reward structures (the default one
    when it has one), with the same exact values as the PRISM original's rewards blocks."""
    jani = initial_value(MODELS / f"{stem}.jani", constants, query)
    assert jani == initial_value(MODELS / f"{stem}.prism", constants, query)
    if published is not None:
        assert jani == published
    else:
        assert isinstance(jani, Fraction) and jani > 0


def test_an_unknown_jani_reward_is_refused_naming_the_ones_there() -> None:
    model = load_model(str(MODELS / "leader_sync.3-2.jani"))
    with pytest.raises(FormulaError) as caught:
        check(model, 'R{"steps"}=? [F "elected"]')
    assert caught.value.message.startswith("leader_sync.3-2 has no reward structure 'steps'")
    assert caught.value.fix == "its reward structures are num_rounds"


def test_the_cli_answers_a_jani_reward_question() -> None:
    path = str(MODELS / "consensus.2.jani")
    args = ["check", path, "--set", "K=2", "-f", 'R{"steps"}min=? [F "finished"]', "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)["values"].values()) == ["48"]


def test_a_jani_files_transient_reals_are_its_reward_structures(tmp_path: Path) -> None:
    """walk.jani moves up with probability 1/3 until s = 2: 2 moves, 1/(1/3) = 3 steps each;
    in 4 steps, the chance of not being at 2 yet after 0, 1, 2, 3 steps: 1 + 1 + 8/9 + 20/27."""
    document = json.loads((MODELS / "walk.jani").read_text(encoding="utf-8"))
    for name in ("moves", "time"):
        document["variables"].append(
            {"name": name, "type": "real", "transient": True, "initial-value": 0}
        )
    up, stay = document["automata"][0]["edges"][0]["destinations"]
    up["assignments"] += [{"ref": "moves", "value": 1}, {"ref": "time", "value": 1}]
    stay["assignments"].append({"ref": "time", "value": 1})
    path = written(tmp_path, json.dumps(document), "walk.jani")
    assert initial_value(path, {"p": "1/3"}, 'R{"moves"}=? [F top]') == 2
    assert initial_value(path, {"p": "1/3"}, 'R{"time"}=? [F top]') == 6
    assert initial_value(path, {"p": "1/3"}, 'R{"time"}=? [C<=4]') == Fraction(98, 27)
    model = load_model(str(path), {"p": "1/3"})
    with pytest.raises(FormulaError) as caught:
        check(model, "R=? [F top]")
    assert caught.value.message.startswith("walk has 2 reward structures (moves, time)")


def test_herman_from_every_initial_state_on_both_formats() -> None:
    """QVBS's herman.3 asks filter(max, R=? [F "stable"], "init"): published 4/3."""
    values = [
        sorted(value for _, value in check(load_model(str(path)), 'R=? [F "stable"]').values)
        for path in (MODELS / "herman.3.jani", MODELS / "herman.3.prism")
    ]
    assert values[0] == values[1] == [0] * 6 + [Fraction(4, 3)] * 2
