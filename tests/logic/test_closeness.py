"""Pr(s) ≤ e^ε·Pr(t) + δ for ε past the float range (e^ε > 1.8e308 once ε > 709.78).

Large ε is legitimate input: the comparison is decided exactly, and the
float margins shown beside it saturate instead of raising OverflowError.
"""

from __future__ import annotations

import json
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.logic._closeness import FLOAT_MAX, DiffBudget, saturated, scaled
from faier.privacy.budget import Epsilon

runner = CliRunner()


def run(args: list[str]) -> Result:
    result = runner.invoke(app, ["check", *args], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def budget(epsilon: str, delta: Fraction = Fraction(0)) -> DiffBudget:
    return DiffBudget(Epsilon.parse(epsilon), delta)


def test_float_helpers_saturate() -> None:
    assert sys.float_info.max == FLOAT_MAX
    assert saturated(Fraction(10) ** 400) == FLOAT_MAX
    assert saturated(-(Fraction(10) ** 400)) == -FLOAT_MAX
    assert saturated(Fraction(1, 3)) == 1 / 3
    assert budget("800.5").factor == FLOAT_MAX
    assert budget("1000*ln(10)").factor == FLOAT_MAX
    assert scaled(Epsilon.parse("800.5"), Fraction(0)) == 0.0
    assert scaled(Epsilon.parse("800.5"), Fraction(1, 4)) == FLOAT_MAX
    # A tiny q brings e^ε·q back into range: e^800.5 / 10^340 ≈ 4.495e7.
    expected = float(Decimal("800.5").exp() / Decimal(10) ** 340)
    assert scaled(Epsilon.parse("800.5"), Fraction(1, 10**340)) == pytest.approx(expected, rel=1e-9)
    assert scaled(Epsilon.parse("ln(3)"), Fraction(1, 4)) == 0.75


@pytest.mark.parametrize(
    ("epsilon", "p", "q", "sign"),
    [
        ("800.5", Fraction(3, 4), Fraction(1, 4), -1),
        ("800.5", Fraction(1), Fraction(0), 1),
        # p/q = 10^400 against e^800.5 ≈ 10^347.6 and e^1000 ≈ 10^434.3: the float quotient overflows.
        ("800.5", Fraction(1), Fraction(1, 10**400), 1),
        ("1000", Fraction(1), Fraction(1, 10**400), -1),
        ("1000*ln(10)", Fraction(1), Fraction(1, 10**400), -1),
        ("1000*ln(10)", Fraction(1), Fraction(1, 10**1000), 0),
        ("1000*ln(10)", Fraction(1), Fraction(1, 10**1001), 1),
        ("800*ln(2)+0.5", Fraction(1), Fraction(1, 10**400), 1),
    ],
)
def test_excess_is_exact_for_huge_epsilon(
    epsilon: str, p: Fraction, q: Fraction, sign: int
) -> None:
    assert budget(epsilon).excess(p, q) == sign


def test_margins_stay_finite() -> None:
    assert budget("800.5").margin_value(Fraction(3, 4), Fraction(1, 4)) == FLOAT_MAX
    assert budget("800.5").margin_value(Fraction(3, 4), Fraction(0)) == -0.75
    exact = budget("2000*ln(2)").margin(Fraction(3, 4), Fraction(1, 4))
    assert exact == Fraction(2**2000, 4) - Fraction(3, 4)


def test_large_epsilon_holds_on_the_survey() -> None:
    """ε* of the survey is ln 3, so every larger ε holds, however large."""
    result = run(["survey", "-f", "D{800.5, 0}[X out1]"])
    assert result.exit_code == 0, result.output
    assert "holds in every asked state" in result.stdout
    assert "> 1.79769e+308" in result.stdout
    assert "ln(3) ≈ 1.0986" in result.stdout


@pytest.mark.parametrize(
    ("formula", "margin"),
    [
        ("D{800.5, 0}[X out1]", None),
        ("D{2000*ln(2), 0}[X out1]", str(Fraction(2**2000 - 3, 4))),
        ("D{800*ln(2)+0.5, 0}[X out1]", None),
    ],
)
def test_large_epsilon_json(formula: str, margin: str | None) -> None:
    result = run(["survey", "-f", formula, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "holds"
    closest = data["operators"][0]["rows"][0]["closest"]
    assert (closest["p"], closest["q"]) == ("3/4", "1/4")
    assert closest["margin"] == margin
    assert 1e240 < closest["margin_value"] <= FLOAT_MAX


def test_large_epsilon_table_shows_exact_margin_approximately() -> None:
    result = run(["survey", "-f", "D{2000*ln(2), 0}[X out1]"])
    assert result.exit_code == 0, result.output
    assert "≈ 2.87033e+601" in result.stdout


def test_large_epsilon_still_fails_when_q_is_zero(tmp_path: Path) -> None:
    """Pr(t) = 0 < Pr(s): no ε saves it."""
    model = tmp_path / "sure.yaml"
    model.write_text(
        "states: [a, b, hit, miss]\n"
        "initial: [a, b]\n"
        "labels: {out: [hit]}\n"
        "transitions:\n"
        "  a: {hit: 1}\n"
        "  b: {miss: 1}\n"
        "  hit: {hit: 1}\n"
        "  miss: {miss: 1}\n"
    )
    result = run([str(model), "-f", "D{800.5, 0}[X out]", "--neighbors", "a~b", "--json"])
    assert result.exit_code == 1, result.output
    witness = json.loads(result.stdout)["witness"]
    assert (witness["p"], witness["q"], witness["margin_value"]) == ("1", "0", -1.0)


def test_large_epsilon_on_an_mdp() -> None:
    for formula in ("D{800.5, 0}[X out1]", "D{800.5, 0}[F out1]", "D{2000*ln(2), 0}[X out1]"):
        result = run(["interactive-survey", "-f", formula, "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["verdict"] == "holds"


def test_valuation_names_show_their_differences_first() -> None:
    from faier.logic.outcome import differences_first

    assert differences_first("a=0,b=1,c=2", "a=0,b=5,c=2") == ("b=1 | a=0,c=2", "b=5 | a=0,c=2")
    assert differences_first("s0", "s1") == ("s0", "s1")  # not valuations
    assert differences_first("a=0,b=1", "a=1,b=0") == ("a=0,b=1", "a=1,b=0")  # all differ
    assert differences_first("a=0,b=1", "a=0,c=1") == ("a=0,b=1", "a=0,c=1")  # other variables
