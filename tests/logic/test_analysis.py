"""``least_delta`` with ε past the float range: exact where e^ε is rational, never an overflow."""

from __future__ import annotations

from fractions import Fraction

from faier.logic import load_model
from faier.logic._closeness import FLOAT_MAX
from faier.logic.analysis import least_delta


def test_least_delta_for_huge_epsilon() -> None:
    survey = load_model("survey")
    decimal = least_delta(survey, "X out1", "800.5")
    assert (decimal.p, decimal.q, decimal.exact) == (Fraction(3, 4), Fraction(1, 4), None)
    assert decimal.value == -FLOAT_MAX
    assert decimal.show() == "3/4 − e^800.5·1/4 < -1.79769e+308 (+ vs -)"
    rational = least_delta(survey, "X out1", "2000*ln(2)")
    assert rational.exact == Fraction(3 - 2**2000, 4)
    assert rational.show().endswith(" ≈ -2.87033e+601 (+ vs -)")
    assert least_delta(survey, "X out1", "ln(3)").show() == "0 ≈ 0.000000 (+ vs -)"


def test_least_delta_for_huge_epsilon_on_an_mdp() -> None:
    need = least_delta(load_model("interactive-survey"), "X out1", "800.5")
    assert need.value == -FLOAT_MAX
    assert need.show().startswith("4/5 − e^800.5·1/5 < -1.79769e+308")
