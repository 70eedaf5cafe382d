"""PRISM's ternary ``c ? a : b`` inside properties, read as PRISM and Storm read it.

PRISM's grammar puts ``? :`` below every other expression operator (``=>``,
``<=>``, ``|``, ``&``) and above the temporal operators, and makes it
right-associative; Storm reads it the same way.  Each reading is compared
with the tree Storm's parser builds (storm_trees.py), and values with
stormpy's exact answer.  csma's ``some_before`` (QVBS) reaches a ternary
through the model's formula ``min_backoff_after_success``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from storm_trees import faier_tree, storm_tree
from test_prism_oracle import storm_context
from test_prism_properties import storm_exact

from faier.errors import SpecError
from faier.logic import check, load_model
from faier.logic.parser import FormulaError, parse_formula
from faier.logic.printer import format_formula

stormpy = pytest.importorskip("stormpy")

IDENTIFIERS = {"x": "int", "y": "int", "K": "int", "b": "bool", "c": "bool"}

PRECEDENCE = [
    "P=? [F (x=1 ? y : K+1) < K]",
    "P=? [F x=1 ? y>2 : b]",
    "P=? [F b ? x=1 : c ? y=2 : x=3]",
    "P=? [F (b ? x=1 : c) ? y=2 : x=3]",
    "P=? [F x = (b ? 1 : 2)]",
    "P=? [F b => c ? x=1 : y=1]",
    "P=? [F b | c ? x=1 : y=1]",
    "P=? [F b & c ? x=1 : y=1 | x=2]",
    "P=? [F !b ? x=1 : y=1]",
    "P=? [F min(x, (b ? 2 : K)) = 2]",
    "P=? [F x + (b ? 1 : (c ? 2 : 3)) * 2 >= y]",
    "P>=1/2 [b U c ? x=1 : y=1]",
    "P=? [X b ? x=1 : y=1]",
    "P=? [G b ? x=1 : y=1]",
]


@pytest.mark.parametrize("text", PRECEDENCE)
def test_faier_reads_a_ternary_as_storm_does(text: str, tmp_path: Path) -> None:
    program = storm_context(IDENTIFIERS, tmp_path)
    (storm_property,) = stormpy.parse_properties(text, program)
    expected = storm_tree(str(storm_property.get_raw_formula()))
    parsed = parse_formula(text).formula
    assert faier_tree(parsed) == expected, text
    assert parse_formula(format_formula(parsed)).formula == parsed


def test_the_grouping_is_printed() -> None:
    assert format_formula(parse_formula("P=? [F (x=1 ? y : K+1) < K]").formula) == (
        "P=? [F ((x = 1) ? y : (K + 1)) < K]"
    )
    assert format_formula(parse_formula("P=? [F b ? x=1 : c ? y=2 : x=3]").formula) == (
        "P=? [F (b & x = 1 | !b & (c & y = 2 | !c & x = 3))]"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "P=? [F b ? 1 : x=2]",
            "c \\? a : b has a number in one branch and a formula in the other",
        ),
        ("P=? [F x=1 ? 2 : 3 = y]", "a number in one branch and a formula in the other"),
        ("P=? [F b ? 1 : 2]", r"\(b \? 1 : 2\) is a number, not a formula"),
        ("P=? [F K + 1]", "K \\+ 1 is a number, not a formula"),
        ("P=? [b ? F c : x=1]", "the condition and branches of c \\? a : b are state formulas"),
        ('P=? [F ("a" ? 1 : 2) = x]', "the condition of c \\? a : b is not a condition"),
        ("P=? [F (b ? x=1 : c) + 1 = 2]", "a condition is not a number"),
    ],
)
def test_a_ternary_faier_cannot_read_is_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        parse_formula(text)


MODEL = """dtmc
const int K = 2;
const bool fast = true;
module m
  x : [0..3] init 0;
  b : bool init false;
  [] x < 3 -> 1/3 : (x'=x+1) & (b'=!b) + 2/3 : (x'=x);
  [] x = 3 -> true;
endmodule
label "top" = x = 3;
"""


@pytest.mark.parametrize(
    ("query", "storm_query"),
    [
        ("P=? [F<=4 (b ? x : K) >= 3]", None),
        ("P=? [F<=4 b ? x=1 : x=3]", None),
        # Storm's expressions have no labels; PRISM's do
        ('P=? [F<=5 fast ? "top" : b]', 'P=? [F<=5 (fast & "top") | (!fast & b)]'),
        (
            "P=? [G<=3 x < (fast ? K : 1) ? !b | x=0 : true]",
            "P=? [!(F<=3 !(x < 2 ? !b | x=0 : true))]",
        ),
        ("P=? [!b U<=5 x = (b ? 1 : (fast ? 2 : 3))]", None),
    ],
)
def test_values_equal_stormpys_exact_answer(
    query: str, storm_query: str | None, tmp_path: Path
) -> None:
    path = tmp_path / "ternary.pm"
    path.write_text(MODEL, encoding="utf-8")
    ((_, value),) = check(load_model(str(path)), query).values
    assert value == storm_exact(path, {}, storm_query or query)


CSMA = Path(__file__).parent / "models" / "csma.2-2.prism"


def test_csma_some_before_equals_stormpy(tmp_path: Any) -> None:
    """QVBS csma 2-2 'some_before', whose formula is min(s1=4?cd1:K+1, s2=4?cd2:K+1)."""
    query = '"some_before": Pmin=? [ F min_backoff_after_success<K ];'
    ((_, value),) = check(load_model(str(CSMA)), query).values
    assert value == storm_exact(CSMA, {}, query) == Fraction(1, 2)
    inline = "Pmin=? [ F min((s1=4 ? cd1 : K+1), (s2=4 ? cd2 : K+1)) < K ]"
    ((_, same),) = check(load_model(str(CSMA)), inline).values
    assert same == storm_exact(CSMA, {}, inline) == value


def test_the_cli_prints_the_grouping_and_refuses_with_exit_2() -> None:
    from typer.testing import CliRunner

    import faier.cli.main  # noqa: F401  (registers the commands on the app)
    from faier.cli.common import app

    query = "Pmin=? [ F min((s1=4 ? cd1 : K+1), (s2=4 ? cd2 : K+1)) < K ]"
    result = CliRunner().invoke(app, ["check", str(CSMA), "-f", query, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (
        report["formula"]
        == "Pmin=? [F min(((s1 = 4) ? cd1 : (K + 1)), ((s2 = 4) ? cd2 : (K + 1))) < K]"
    )
    assert [Fraction(v) for v in report["values"].values()] == [Fraction(1, 2)]
    refused = CliRunner().invoke(app, ["check", str(CSMA), "-f", "Pmin=? [F s1=4 ? 1 : cd1=2]"])
    assert refused.exit_code == 2
    assert "a number in one branch and a formula in the other" in refused.output


def test_a_numeric_condition_is_refused_not_read_as_nonzero(tmp_path: Path) -> None:
    """PRISM and Storm refuse ``(x ? 1 : 2)`` for an integer x; faier does not guess."""
    path = tmp_path / "ternary.pm"
    path.write_text(MODEL, encoding="utf-8")
    with pytest.raises(SpecError, match=r"the condition x of c \? a : b is a number"):
        check(load_model(str(path)), "P=? [F (x ? 1 : 2) = 1]")


def test_nested_conditionals_count_towards_the_depth_cap() -> None:
    deep = "P=? [F " + "b ? x=1 : " * 210 + "x=2]"
    with pytest.raises(FormulaError, match="more than 200 operators are nested here"):
        parse_formula(deep)
    deep = "P=? [F x = " + "(b ? 1 : " * 199 + "2" + ")" * 199 + "]"
    with pytest.raises(FormulaError, match="more than 200"):
        parse_formula(deep)
