"""results.py: how a certified enclosure is shown in a table cell, logarithms of exact
ratios of any size, and the assumptions a result lists."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from faier.results import (
    CertifiedWitness,
    Enclosure,
    Loss,
    ParameterValue,
    Result,
    approximately,
    natural_log,
    saturated,
)

finite = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_a_brief_interval_still_contains_the_enclosure(a: float, b: float) -> None:
    low, high = min(a, b), max(a, b)
    shown = Enclosure(low, high).brief()
    if shown.startswith("≈"):
        assert f"{low:.10g}" == f"{high:.10g}" == shown.removeprefix("≈ ")
        return
    left, right = shown.strip("[]").split(", ")
    assert float(left) <= low and high <= float(right)
    assert len(left.replace("-", "").split("e")[0].replace(".", "").lstrip("0")) <= 10


def test_closed_forms_and_infinity_are_shown_as_such() -> None:
    assert Enclosure(0.69, 0.71, "7/10").brief() == "7/10"
    assert Enclosure(math.inf, math.inf).brief() == "∞"
    assert Enclosure(1.0799676730937, 1.0799676730938).brief() == "≈ 1.079967673"
    assert Enclosure(1.05, 1.0500000005).brief() == "[1.05, 1.050000001]"


@given(st.integers(1, 10**600), st.integers(1, 10**600))
def test_the_log_of_any_exact_ratio_is_its_float_log(p: int, q: int) -> None:
    """Checked against mpmath at 60 digits: ratios past the float range (10^±600) and
    ratios a hair above 1 keep their logarithm to a few ulps."""
    ratio = Fraction(p, q)
    with mpmath.workdps(60):
        exact = mpmath.log(mpmath.mpf(p)) - mpmath.log(mpmath.mpf(q))
        expected = float(exact)
    assert natural_log(ratio) == pytest.approx(expected, rel=1e-14, abs=1e-300)


def test_huge_tiny_and_near_one_ratios_have_their_logs() -> None:
    assert natural_log(Fraction(5 * 10**399)) == pytest.approx(math.log(5) + 399 * math.log(10))
    assert natural_log(Fraction(1, 10**500)) == pytest.approx(-500 * math.log(10))
    near_one = Fraction(10**20 + 1, 10**20)
    assert natural_log(near_one) == pytest.approx(1e-20, rel=1e-12)
    assert natural_log(Fraction(1)) == 0.0
    assert natural_log(Fraction(0)) == -math.inf
    assert Loss(Fraction(5 * 10**399)).show().endswith("≈ 920.3409")
    assert Loss(Fraction(5 * 10**399)).to_json()["value"] == pytest.approx(920.3408900170582)


def test_assumptions_are_listed_in_the_json_and_empty_by_default() -> None:
    plain = Result("t", "dp", "exact")
    assert plain.to_json()["assumptions"] == []
    assumed = Result("t", "dp", "exact", assumptions=("the declared symmetry, on 10 inputs",))
    assert assumed.to_json()["assumptions"] == ["the declared symmetry, on 10 inputs"]


def test_a_loss_below_the_float_range_of_its_logarithm_is_not_rounded_to_zero() -> None:
    tiny = Loss(Fraction(10**20 + 1, 10**20))  # ε = ln(1 + 1e-20) ≈ 1e-20
    assert tiny.value == pytest.approx(1e-20, rel=1e-12)
    assert tiny.show().endswith("≈ 1e-20")
    assert tiny.to_json()["value"] == pytest.approx(1e-20, rel=1e-12)
    below = Loss(1 + Fraction(1, 10**400))  # beyond any float: the digits as text
    assert below.to_json()["value"] == "1e-400" and below.show().endswith("≈ 1e-400")
    huge = Loss(Fraction(10**400))  # math.log(float(ratio)) overflowed
    assert huge.value == pytest.approx(400 * math.log(10))
    assert Loss(Fraction(3, 2)).show() == "ln(3/2) ≈ 0.4055"
    assert Loss(Fraction(1)).to_json()["value"] == 0.0


def test_a_certified_result_fills_epsilon_star_from_its_enclosure() -> None:
    settled = Result("t", "dp", "certified", enclosure=Enclosure(0.5, 0.5, "1/2"))
    assert settled.epsilon_star is settled.enclosure and settled.epsilon_star.value == 0.5
    assert settled.to_json()["epsilon_star"]["ratio"] is None
    lower_only = Result("t", "dp", "certified", enclosure=Enclosure(0.5, math.inf))
    assert lower_only.epsilon_star is None and lower_only.exit_code == 3


def test_a_witness_ratio_past_the_float_range_is_shown_as_a_bound() -> None:
    """x + N(0, 1/100) ≥ 1/2: Pr[False | 1] ≈ 1e-545, so the ratio's float enclosure is
    [max float, ∞]: shown as 'ratio ≥ …', not 'ratio ∈ ≥ …'."""
    tiny = Enclosure(0.0, 5e-324)
    one = Enclosure(0.9999999999999998, 1.0)

    def ratio_line(ratio: Enclosure) -> str:
        return CertifiedWitness(0, 1, "False", one, tiny, ratio).lines()[-1]

    assert ratio_line(Enclosure(1.7976931348623157e308, math.inf)).startswith("ratio ≥ 1.79")
    assert ratio_line(Enclosure(2.0, 2.5)) == "ratio ∈ [2, 2.5]"
    assert ratio_line(Enclosure(math.inf, math.inf)) == "ratio = ∞"


def test_approximations_of_exact_values_past_the_float_range() -> None:
    assert approximately(Fraction(5 * 10**399), 8) == "5e+399"
    assert approximately(Fraction(-1, 10**400)) == "-1e-400"
    assert approximately(Fraction(1, 3)) == f"{1 / 3:.6g}"
    assert approximately(Fraction(12345678)) == f"{12345678.0:.6g}"
    assert approximately(Fraction(0)) == "0"
    assert saturated(Fraction(10**400)) == math.inf and saturated(Fraction(-(10**400))) == -math.inf
    assert saturated(Fraction(1, 4)) == 0.25


def test_a_parameter_past_the_float_range_is_shown() -> None:
    huge = ParameterValue("n", Fraction(10**401 + 1, 10))
    assert huge.show().endswith("≈ 1e+400")
    assert (
        ParameterValue("p", Fraction(1, 3 * 10**20)).show()
        == "p = 1/300000000000000000000 ≈ 3.33333e-21"
    )
