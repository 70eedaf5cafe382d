"""Reward questions answered by Storm on the model it built for them (``faier check``'s fast path).

Each answer is compared with faier's whole-model answer (the file built in
full, the target evaluated by faier, :func:`faier.logic.rewards.expected_rewards`)
and with plain stormpy's: the same exact values, ``∞`` where the target is
missed with positive probability, the same fields and the same refusals.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
from storm_answers import storm_answers
from typer.testing import CliRunner

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.logic import CheckResult, check, directed
from faier.logic.loading import build_file, load_model
from faier.logic.parser import FormulaError, parse_formula

stormpy = pytest.importorskip("stormpy")

MODELS = Path(__file__).parent / "models"

SEVERAL = """dtmc
module m
  s : [0..4] init 0;
  [go] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);
  [go] s=1 -> (s'=3);
  [] s=2 -> (s'=2);
  [] s>=3 -> true;
endmodule
label "done" = s=3;
rewards "none"
  true : 0;
endrewards
rewards "steps"
  [go] true : 1;
  s=1 : 1/3;
endrewards
"""
"""Several structures, one all zero; s=2 traps (the target "done" is missed with 1/2), s=4
is never reached."""

ESCAPE = """mdp
module m
  s : [0..2] init 0;
  [stay] s=0 -> (s'=0);
  [go] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=0);
  [] s>0 -> true;
endmodule
rewards
  [go] true : 2;
  s=0 : 1;
endrewards
"""
"""One unnamed structure; a scheduler that stays forever never reaches s=1 (Rmax = ∞),
the one that goes pays 3 per try, 2 tries expected (Rmin = 6)."""

TEXTS = {"several.pm": SEVERAL, "escape.nm": ESCAPE}

CASES = [
    ("herman.7.prism", {}, 'R=? [ F "stable" ]'),
    ("herman.3.prism", {}, "R=? [ C<=3 ]"),
    ("leader_sync.4-3.prism", {}, 'R{"num_rounds"}=? [ F "elected" ]'),
    ("leader_sync.3-2.prism", {}, "R=? [ C<=2 ]"),
    ("consensus.2.prism", {"K": "2"}, 'R{"steps"}max=? [ F "finished" ]'),
    ("consensus.2.prism", {"K": "2"}, "Rmin=? [ F finished ]"),
    ("consensus.2.prism", {"K": "2"}, 'R{"steps"}min=? [ C<=7 ]'),
    ("csma.2-2.prism", {}, 'R{"time"}max=? [ F "all_delivered" ]'),
    ("csma.2-2.prism", {}, '"named": Rmin=? [ F "all_delivered" & !"collision_max_backoff" ]'),
    ("nand.prism", {"N": "3", "K": "1"}, "R=? [ F s=4 ]"),  # one unnamed rewards block
    ("several.pm", {}, 'R{"steps"}=? [ F s>=1 ]'),
    ("several.pm", {}, 'R{"steps"}=? [ F "done" | s=2 ]'),
    ("several.pm", {}, 'R{"steps"}=? [ F "done" ]'),  # ∞: missed with 1/2
    ("several.pm", {}, 'R{"none"}=? [ F "done" ]'),  # ∞ although every reward is 0
    ("several.pm", {}, 'R{"steps"}=? [ F s=4 ]'),  # ∞: never reached
    ("several.pm", {}, 'R{"none"}=? [ F s!=4 ]'),
    ("several.pm", {}, 'R{"steps"}=? [ F s=0 ]'),  # 0: the initial state is the target
    ("several.pm", {}, 'R{"steps"}=? [ C<=0 ]'),
    ("several.pm", {}, 'R{"steps"}=? [ C<=5 ]'),
    ("several.pm", {}, 'R{"none"}=? [ C<=5 ]'),
    ("escape.nm", {}, "Rmin=? [ F s=1 ]"),
    ("escape.nm", {}, "Rmax=? [ F s=1 ]"),  # ∞: staying forever
    ("escape.nm", {}, "Rmin=? [ F s=2 ]"),  # ∞: never reached
    ("escape.nm", {}, "Rmin=? [ C<=3 ]"),
    ("escape.nm", {}, "Rmax=? [ C<=3 ]"),
]
STORM_TEXT = {"Rmin=? [ F finished ]": 'Rmin=? [ F "finished" ]'}
"""Storm's text where faier's differs (a label written bare)."""
KNOWN = {
    ("several.pm", 'R{"steps"}=? [ F s>=1 ]'): Fraction(1),
    ("several.pm", 'R{"steps"}=? [ F "done" | s=2 ]'): Fraction(3, 2) + Fraction(1, 6),
    ("several.pm", 'R{"steps"}=? [ F "done" ]'): math.inf,
    ("several.pm", 'R{"none"}=? [ F "done" ]'): math.inf,
    ("several.pm", 'R{"steps"}=? [ F s=4 ]'): math.inf,
    ("several.pm", 'R{"none"}=? [ F s!=4 ]'): Fraction(0),
    ("several.pm", 'R{"steps"}=? [ F s=0 ]'): Fraction(0),
    ("several.pm", 'R{"steps"}=? [ C<=0 ]'): Fraction(0),
    ("several.pm", 'R{"steps"}=? [ C<=5 ]'): Fraction(3, 2) + Fraction(1, 6),
    ("escape.nm", "Rmin=? [ F s=1 ]"): Fraction(6),
    ("escape.nm", "Rmax=? [ F s=1 ]"): math.inf,
    ("escape.nm", "Rmin=? [ F s=2 ]"): math.inf,
    ("escape.nm", "Rmax=? [ C<=3 ]"): Fraction(3) + Fraction(3, 2) + 1,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    place = tmp_path_factory.mktemp("rewards")
    for name, text in TEXTS.items():
        (place / name).write_text(text, encoding="utf-8")
    return place


def _path(folder: Path, file: str) -> str:
    return str(folder / file if file in TEXTS else MODELS / file)


def _storm_alone(path: str, constants: dict[str, str], question: str) -> list[Fraction | float]:
    """Plain stormpy, sorted over the initial states (math.inf for Storm's inf)."""
    text = STORM_TEXT.get(question, question).split(": ", 1)[-1]
    return storm_answers(path, text, {name: int(value) for name, value in constants.items()})


def _answered(path: str, constants: dict[str, str], question: str) -> CheckResult:
    parsed = parse_formula(question)
    build = build_file(path, constants, question=parsed.formula)
    assert build is not None and directed.answerable(build, parsed)
    return directed.answer(build, parsed)


@pytest.mark.parametrize(("file", "constants", "question"), CASES)
def test_storms_reward_on_the_directed_build_is_the_whole_models(
    folder: Path, file: str, constants: dict[str, str], question: str
) -> None:
    path = _path(folder, file)
    answer = _answered(path, constants, question)
    whole = check(load_model(path, constants), question)
    assert answer.values == whole.values
    assert all(isinstance(v, Fraction) or v == math.inf for _, v in answer.values)
    fields = ("model", "kind", "formula", "neighbours", "name", "verdict", "states", "operators")
    for field in (*fields, "witness", "reason", "quantity"):
        assert getattr(answer, field) == getattr(whole, field), field
    assert sorted(v for _, v in answer.values) == _storm_alone(path, constants, question)
    if (file, question) in KNOWN:
        assert [v for _, v in answer.values] == [KNOWN[file, question]]
    # the counts are those of what Storm built for the question, the model faier reads too
    assert (
        answer.size
        == check(
            load_model(path, constants, question=parse_formula(question).formula), question
        ).size
    )


def test_the_directed_build_holds_only_the_structure_asked(folder: Path) -> None:
    parsed = parse_formula('R{"steps"}=? [ F "done" ]')
    build = build_file(_path(folder, "several.pm"), question=parsed.formula)
    assert build is not None and sorted(build.built.reward_models) == ["steps"]


@pytest.mark.parametrize(
    ("file", "question", "message"),
    [
        ("several.pm", 'R=? [ F "done" ]', "several has 2 reward structures (none, steps)"),
        ("several.pm", 'R{"time"}=? [ F "done" ]', "several has no reward structure 'time'"),
        ("several.pm", 'R{""}=? [ F "done" ]', "several has no reward structure ''"),
        ("several.pm", 'R{"steps"}=? [ F nothere ]', "unknown label 'nothere'"),
        ("herman.3.jani", 'R=? [ F "stable" ]', None),  # JANI: always the whole model
    ],
)
def test_a_structure_storm_cannot_be_asked_for_is_built_whole(
    folder: Path, file: str, question: str, message: str | None
) -> None:
    """No structure named, one the file lacks, a name Storm cannot read: the whole model
    is built, and the checker refuses it naming what there is, as before."""
    path = _path(folder, file)
    parsed = parse_formula(question)
    build = build_file(path, question=parsed.formula)
    assert build is not None and build.question is None
    assert not directed.answerable(build, parsed)
    if message is not None:
        with pytest.raises(FormulaError) as caught:
            check(build.model(), parsed)
        assert caught.value.message.startswith(message)


def test_a_bad_reward_question_is_the_same_error(folder: Path) -> None:
    """R=? on an MDP: Storm builds for it, faier refuses it in the same words as on the
    whole model."""
    path, question = _path(folder, "escape.nm"), "R=? [ F s=1 ]"
    parsed = parse_formula(question)
    build = build_file(path, question=parsed.formula)
    assert build is not None and directed.answerable(build, parsed)
    with pytest.raises(FormulaError) as fast:
        directed.answer(build, parsed)
    with pytest.raises(FormulaError) as whole:
        check(load_model(path), question)
    assert fast.value.render() == whole.value.render()


def test_faier_check_answers_rewards_in_storm_with_the_counts(folder: Path) -> None:
    """The CLI's JSON: the exact values (∞ as "inf"), Storm's counts."""
    path = _path(folder, "escape.nm")
    for question, value in (("Rmin=? [F s=1]", "6"), ("Rmax=? [F s=1]", "inf")):
        result = CliRunner().invoke(app, ["check", path, "-f", question, "--json"])
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        assert shown["values"] == {"s=0": value}
        assert shown["size"] == {"states": 2, "transitions": 4, "choices": 3}
