"""PRISM's reward questions R=? [F φ] and R=? [C<=k], against plain stormpy in exact arithmetic."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
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


def written(tmp_path: Path, text: str, name: str = "model.pm") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def storm_exact(path: Path, query: str) -> Fraction | float:
    """Plain stormpy: the exact value in the initial state (math.inf for Storm's inf)."""
    program = stormpy.parse_prism_program(str(path))
    properties = stormpy.parse_properties(query, program)
    model = stormpy.build_model[stormpy.Rational](program, properties)
    result = stormpy.model_checking(model, properties[0])
    (initial,) = model.initial_states
    value = str(result.get_value(initial))
    return math.inf if value == "inf" else Fraction(value)


@pytest.mark.parametrize(
    ("text", "query", "expected"),
    [
        (CHAIN, 'R{"steps"}=? [ F s>=2 ]', Fraction(9, 4)),
        (CHAIN, 'R{"steps"}=? [ F "goal" | s=1 ]', Fraction(3, 2)),
        (CHAIN, 'R{"steps"}=? [ F s=2 ]', math.inf),
        (CHAIN, 'R{"place"}=? [ C<=3 ]', None),
        (CHAIN, 'R{"place"}=? [ F P>=1/2 [X s>=2] ]', None),
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
    assert value == storm_exact(path, query)
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
