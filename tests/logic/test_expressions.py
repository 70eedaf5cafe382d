"""Comparisons over a PRISM model's variables in formulas, against Storm's own expressions.

Storm decides ``P=? [F (seenA + seenB >= 2)]`` by building the model with the
expression as a label; faier evaluates the expression on the state valuations.
Both must give the same exact probabilities.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.logic import check, probabilities
from faier.logic.expressions import evaluate
from faier.logic.parser import FormulaError, parse
from faier.logic.printer import format_formula
from faier.logic.prism import load_prism
from faier.logic.syntax import Expression

MODELS = Path(__file__).parent / "models"
CROWDS = MODELS / "crowds.pm"
CONSTANTS = {"PF": "4/5", "badC": "1", "CrowdSize": "5", "TotalRuns": "3"}

WALK = """dtmc
module walk
  x : [0..4] init 0;
  y : [-2..2] init 0;
  up : bool init false;
  [] x<4 -> 1/3 : (x'=x+1) & (up'=true) + 1/3 : (y'=max(y-1,-2)) & (up'=false)
          + 1/3 : (y'=min(y+1,2)) & (up'=false);
  [] x=4 -> true;
endmodule
"""


def storm_probabilities(path: Path, constants: dict[str, str], formula: str) -> list[Fraction]:
    """Storm's exact Pr from the initial states, the expression handed to Storm itself."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    if constants:
        values = {
            c.name: int(constants[c.name])
            if str(c.type) == "int"
            else stormpy.Rational(constants[c.name])
            for c in program.constants
            if not c.defined
        }
        program, _ = stormpy.instantiate_constants(program, values)
    properties = stormpy.parse_properties(f"P=? [{formula}]", program)
    model = stormpy.build_model[stormpy.Rational](program, properties)
    result = stormpy.model_checking(model, properties[0])
    return [Fraction(str(result.get_value(i))) for i in model.initial_states]


@pytest.mark.parametrize(
    "formula",
    [
        "F (seenA > 1)",
        "F (seenA > 1 & seenB = 0)",
        "F (seenA + seenB >= 2) & !(runs = 3)",
        "F<=6 (seenA * 2 - seenB != 0)",
        "(holder != 2) U (seenA >= 1)",
        "F (min(seenA, seenB) = 1 | max(seenA, runs) / 2 > 1)",
        "F (mod(seenA + 1, 2) = 0 & floor(runs / 2) = 1)",
    ],
)
def test_crowds_expressions_agree_with_storm(formula: str) -> None:
    model = load_prism(CROWDS, CONSTANTS)
    values = probabilities(model, formula)
    assert [values[s] for s in model.initial] == storm_probabilities(CROWDS, CONSTANTS, formula)


COMPARISONS = st.sampled_from(["=", "!=", "<", "<=", ">", ">="])
TERMS = st.recursive(
    st.sampled_from(["x", "y", "0", "1", "2", "-1", "1/2"]),
    lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    ),
    max_leaves=4,
)


@settings(max_examples=25, deadline=None)
@given(TERMS, COMPARISONS, TERMS)
def test_random_comparisons_agree_with_storm(
    tmp_path_factory: pytest.TempPathFactory, left: str, op: str, right: str
) -> None:
    path = tmp_path_factory.mktemp("walk") / "walk.pm"
    path.write_text(WALK, encoding="utf-8")
    formula = f"F<=3 ({left} {op} {right})"
    model = load_prism(path)
    values = probabilities(model, formula)
    assert [values[s] for s in model.initial] == storm_probabilities(path, {}, formula)


def test_a_boolean_variable_reads_as_a_label(tmp_path: Path) -> None:
    path = tmp_path / "walk.pm"
    path.write_text(WALK, encoding="utf-8")
    model = load_prism(path)
    values = probabilities(model, "X up")
    assert values[model.initial[0]] == Fraction(1, 3)
    assert check(model, "P>=1/3 [X (up & x = 1)]").verdict.value == "holds"  # type: ignore[union-attr]


def test_expressions_print_and_parse_back() -> None:
    for text in ["x + y = 2", "P=? [F observe0 > 1]", "min(a, b - 1) >= -1/2 & !done"]:
        formula = parse(text)
        assert parse(format_formula(formula)) == formula


def test_expression_terms_are_exact() -> None:
    node = parse("x / 3 + 1/6 = 1/2")
    assert isinstance(node, Expression)
    assert evaluate(node.left, {"x": 1}) == Fraction(1, 2)


@pytest.mark.parametrize(
    ("formula", "where", "message"),
    [
        ("P=? [F sean > 1]", "formula, column 8", "unknown variable 'sean' in sean > 1"),
        ("P=? [F foo(seenA) > 1]", "formula, column 8", "unknown function 'foo'"),
        ("P=? [F mod(seenA) > 1]", "formula, column 8", "mod takes 2 arguments, got 1"),
    ],
)
def test_expression_mistakes_are_located(formula: str, where: str, message: str) -> None:
    model = load_prism(CROWDS, CONSTANTS)
    with pytest.raises(FormulaError) as caught:
        check(model, formula)
    assert caught.value.where == where
    assert message in caught.value.message


def test_expressions_need_states_that_are_valuations() -> None:
    from faier.logic.examples import survey

    with pytest.raises(FormulaError, match="states of survey are not variable valuations"):
        check(survey(), "P=? [F x > 1]")
