"""A question answered by Storm on the model it was built for (``faier check``'s fast path).

Every answer is compared with faier's own reading of the whole model: the
file built in full (no property-directed exploration), every state named,
the state formulas evaluated by faier on the valuations, Storm asked only
for the path probabilities.  Names, values, counts and errors must be the
same; the models are the vendored QVBS and PRISM benchmark files (zeroconf's
Pmin is QVBS's published 6859/3250206859, issue 25's first wrong answer).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from faier.errors import InternalError, ModelError
from faier.logic import CheckResult, check, directed
from faier.logic.loading import build_file, load_model
from faier.logic.parser import FormulaError, parse_formula

MODELS = Path(__file__).parent / "models"

CASES = [
    ("brp.pm", {"N": "16", "MAX": "2"}, "P=? [ F s=5 ]"),
    ("brp.pm", {"N": "16", "MAX": "2"}, "P=? [ F s=5 & srep=2 ]"),
    ("brp.pm", {"N": "16", "MAX": "2"}, '"p4": P=? [ F !(srep=0) & !recv ]'),
    ("brp.pm", {"N": "16", "MAX": "2"}, "P=? [ !(s=5) U<=40 srep=1 ]"),
    ("herman.3.prism", {}, 'P=? [ F<=3 "stable" ]'),
    ("consensus.2.prism", {"K": "2"}, 'Pmin=? [ F "finished"&"all_coins_equal_1" ]'),
    ("leader_sync.3-2.prism", {}, 'P=? [ F "elected" ]'),
    ("leader_sync.3-2.prism", {}, 'P=? [ G !"elected" ]'),
    ("consensus.2.prism", {"K": "2"}, 'Pmax=? [ F "finished"&!"agree" ]'),
    ("consensus.2.prism", {"K": "2"}, 'P<1/2 [ F "finished"&"all_coins_equal_1" ]'),
    ("csma.2-2.prism", {}, 'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]'),
    ("herman.3.prism", {}, 'P=? [ X "stable" ]'),
    ("dining-cryptographers.pm", {}, "Pmax=? [ F out_daa ]"),
    ("overlap.nm", {}, "Pmin=? [ F (x=1 & y=2) ]"),
    ("zeroconf.prism", {"N": "20", "K": "2", "reset": "true"}, "Pmin=? [ F (l=4 & ip=1) ]"),
    ("rabin.3.prism", {}, "Pmax=? [ F (p1=2|p2=2|p3=2) ]"),
    ("nand.prism", {"N": "3", "K": "1"}, "P=? [ F s=4 & z/N<0.1 ]"),
    ("leader_sync.3-2.prism", {}, 'P>=1 [ F "elected" ]'),
    ("consensus.2.prism", {"K": "2"}, 'P>=1 [ F "finished" ]'),
    ("brp.pm", {"N": "16", "MAX": "2"}, "P<=1/1000 [ F s=5 ]"),
    ("herman.3.prism", {}, 'P>=1/2 [ F<=2 "stable" ]'),
    (
        "crowds-protocol.pm",
        {"TotalRuns": "2", "CrowdSize": "5", "PF": "4/5", "badC": "1"},
        "P=? [ F seen0twice ]",
    ),
]


def _whole(file: str, constants: dict[str, str], question: str) -> CheckResult:
    """faier's answer on the whole model (built without the question)."""
    return check(load_model(str(MODELS / file), constants), question)


@pytest.mark.parametrize(("file", "constants", "question"), CASES)
def test_storms_answer_on_the_directed_build_is_faiers_on_the_whole_model(
    file: str, constants: dict[str, str], question: str
) -> None:
    parsed = parse_formula(question)
    build = build_file(str(MODELS / file), constants, question=parsed.formula)
    assert build is not None and directed.answerable(build, parsed)
    answer = directed.answer(build, parsed)
    whole = _whole(file, constants, question)
    assert answer.values == whole.values
    assert answer.values or answer.operators
    assert all(isinstance(value, Fraction) for _, value in answer.values)
    fields = ("model", "kind", "formula", "neighbours", "name", "verdict", "states", "operators")
    for field in (*fields, "witness", "reason", "quantity"):
        assert getattr(answer, field) == getattr(whole, field), field
    # the directed build's counts: what Storm built for the question
    model = build.model()
    assert answer.size == check(model, parsed).size
    # built for the answer alone (faier check): no other label, no choice names, same answer
    lean = build_file(str(MODELS / file), constants, question=parsed.formula, for_answer=True)
    assert lean is not None and lean.for_answer and directed.answerable(lean, parsed)
    assert not lean.built.has_choice_labeling()
    assert set(lean.built.labeling.get_labels()) <= set(build.built.labeling.get_labels())
    short = directed.answer(lean, parsed)
    for field in (*fields, "witness", "reason", "quantity", "values", "size"):
        assert getattr(short, field) == getattr(answer, field), field
    with pytest.raises(InternalError, match="read as a model"):
        lean.model()


def test_a_question_storm_cannot_direct_is_not_answered_here() -> None:
    """A nested operator, a D or a formula Storm cannot read go through the whole model."""
    brp = str(MODELS / "brp.pm")
    for text in ("P=? [ F (P>=1 [X s=5]) ]", "P=? [ X X s=5 ]", "!(P>=1/2 [ F s=5 ])"):
        parsed = parse_formula(text)
        build = build_file(brp, {"N": "16", "MAX": "2"}, question=parsed.formula)
        assert build is not None
        assert not directed.answerable(build, parsed), text


def test_a_bad_question_is_the_same_error() -> None:
    """``P=?`` on an MDP: Storm builds for it, faier refuses it, with the same words."""
    file, question = "csma.2-2.prism", 'P=? [ F "all_delivered" ]'
    parsed = parse_formula(question)
    build = build_file(str(MODELS / file), question=parsed.formula)
    assert build is not None and directed.answerable(build, parsed)
    with pytest.raises(FormulaError) as fast:
        directed.answer(build, parsed)
    with pytest.raises(FormulaError) as whole:
        _whole(file, {}, question)
    assert fast.value.render() == whole.value.render()


def test_a_negative_jani_probability_is_refused_on_the_whole_model(tmp_path: Path) -> None:
    """Storm's JANI build accepts a probability below 0 when the edge sums to 1; faier's
    row check, the same on both paths, refuses it and names the state."""
    shift = {"op": "/", "left": {"op": "-", "left": "x", "right": 1}, "right": 2}
    document = {
        "jani-version": 1,
        "name": "negative",
        "type": "dtmc",
        "variables": [
            {
                "name": "x",
                "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 3},
                "initial-value": 0,
            }
        ],
        "automata": [
            {
                "name": "m",
                "locations": [{"name": "l"}],
                "initial-locations": ["l"],
                "edges": [
                    {
                        "location": "l",
                        "guard": {"exp": {"op": "<", "left": "x", "right": 3}},
                        "destinations": [
                            {
                                "location": "l",
                                "probability": {"exp": shift},
                                "assignments": [
                                    {"ref": "x", "value": {"op": "+", "left": "x", "right": 1}}
                                ],
                            },
                            {
                                "location": "l",
                                "probability": {"exp": {"op": "-", "left": 1, "right": shift}},
                                "assignments": [{"ref": "x", "value": 0}],
                            },
                        ],
                    }
                ],
            }
        ],
        "system": {"elements": [{"automaton": "m"}]},
    }
    path = tmp_path / "negative.jani"
    path.write_text(json.dumps(document), encoding="utf-8")
    parsed = parse_formula("P=? [ F x=3 ]")
    build = build_file(str(path), question=parsed.formula)
    assert build is not None and build.question is not None
    assert not directed.answerable(build, parsed)  # a JANI build goes through the whole model
    with pytest.raises(ModelError, match=r"probability is 3/2 \(from x=0 to x=0\)"):
        build.model()


def test_zeroconf_gives_the_published_value() -> None:
    """QVBS zeroconf (N=20, K=2, reset): Pmin = 6859/3250206859, as Storm and PRISM publish."""
    parsed = parse_formula("Pmin=? [ F (l=4 & ip=1) ]")
    constants = {"N": "20", "K": "2", "reset": "true"}
    build = build_file(str(MODELS / "zeroconf.prism"), constants, question=parsed.formula)
    assert build is not None
    assert [v for _, v in directed.answer(build, parsed).values] == [Fraction(6859, 3250206859)]


@pytest.mark.parametrize("kind", ["dtmc", "mdp"])
def test_a_negative_prism_probability_is_refused_by_storms_build(tmp_path: Path, kind: str) -> None:
    """A PRISM build's rows are not checked after the build (prism._RowKind): that rests on
    Storm's exploration checks refusing a negative probability, which this pins on both
    paths, faier naming the transition."""
    path = tmp_path / ("negative.pm" if kind == "dtmc" else "negative.nm")
    path.write_text(
        f"{kind}\nmodule m\n  x : [0..3] init 0;\n"
        "  [a] x<3 -> ((x-1)/2) : (x'=x+1) + (1-(x-1)/2) : (x'=0);\n"
        "  [b] x=3 -> true;\nendmodule\n",
        encoding="utf-8",
    )
    _refused_alike(path, kind, r"a transition probability is (-1/2|3/2)")


SUMS = {
    "alone": (
        "module m\n  x : [0..3] init 0;\n"
        "  [] x<2 -> (x/4+1/4) : (x'=x+1) + 1/4 : (x'=3);\n  [] x>=2 -> true;\nendmodule\n"
    ),
    "synchronised": (
        "module a\n  x : [0..3] init 0;\n"
        "  [go] x<2 -> 1/2 : (x'=x+1) + 1/2 : (x'=3);\n  [] x>=2 -> true;\nendmodule\n"
        "module b\n  y : [0..1] init 0;\n"
        "  [go] true -> (1/2-y/4) : (y'=0) + 1/2 : (y'=1);\nendmodule\n"
    ),
    "constant, reached late": (
        "module m\n  x : [0..3] init 0;\n"
        "  [] x<2 -> 1/2 : (x'=x+1) + 1/2 : (x'=0);\n"
        "  [] x=2 -> 1/2 : (x'=3) + 1/4 : (x'=0);\n  [] x=3 -> true;\nendmodule\n"
    ),
}


@pytest.mark.parametrize("kind", ["dtmc", "mdp"])
@pytest.mark.parametrize("commands", sorted(SUMS))
def test_a_prism_row_that_does_not_sum_to_one_is_refused_by_storms_build(
    tmp_path: Path, kind: str, commands: str
) -> None:
    """A PRISM build's rows are not summed after the build (prism._RowKind): that rests on
    Storm's exploration checks comparing the sum of every enabled command's updates (and of
    every synchronised product) with 1 exactly, which this pins on both paths, a state
    reached only after some steps included; faier names the state."""
    path = tmp_path / ("sums.pm" if kind == "dtmc" else "sums.nm")
    path.write_text(f"{kind}\n{SUMS[commands]}", encoding="utf-8")
    _refused_alike(path, kind, r"probabilities sum to \d+/\d+, not 1")


def _refused_alike(path: Path, kind: str, message: str) -> None:
    """The build for ``faier check``'s question and the whole model refuse the file in
    the same words, which match ``message``."""
    question = "P=? [ F x=3 ]" if kind == "dtmc" else "Pmax=? [ F x=3 ]"
    with pytest.raises(ModelError, match=message) as fast:
        build_file(str(path), question=parse_formula(question).formula)
    with pytest.raises(ModelError) as whole:
        load_model(str(path))
    assert fast.value.render() == whole.value.render()


def test_a_jani_question_is_not_answered_in_storm(tmp_path: Path) -> None:
    """Storm's JANI build drops a variable no edge writes and reads ``c = 1`` over it as
    false in every state (fuzzer kind 'models', seed 11000102: Pmax 0 instead of 127/343):
    faier check answers a JANI question on the whole model, evaluating it itself."""
    document = json.loads((MODELS / "walk.jani").read_text(encoding="utf-8"))
    document["variables"].append(
        {
            "name": "c",
            "type": {"kind": "bounded", "base": "int", "lower-bound": 0, "upper-bound": 2},
            "initial-value": 1,
        }
    )
    path = tmp_path / "fixed.jani"
    path.write_text(json.dumps(document), encoding="utf-8")
    parsed = parse_formula("P=? [ F<=2 (top & c = 1) ]")
    build = build_file(str(path), {"p": "1/3"}, question=parsed.formula)
    assert build is not None and not directed.answerable(build, parsed)
    answer = check(build.model(), parsed).values
    assert answer == check(load_model(str(path), {"p": "1/3"}), "P=? [ F<=2 top ]").values
    assert answer and all(value > 0 for _, value in answer)
