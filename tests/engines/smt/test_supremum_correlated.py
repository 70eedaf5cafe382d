"""Suprema over two unknown parameters that finish: the household contagion family.

Sampling the domain shows the loss near 8 as p → 0, c → 1; the search must
prove sup ε* = ln 8 exactly (unsat above 8), say it is a limit (Bernstein
bounds: below 8 inside the open square) and name the corner it is approached
at; the witness is checked by substituting its point back into the exact engine.
"""

from __future__ import annotations

from fractions import Fraction

from faier.api import epsilon
from faier.engines.smt.bernstein import negative_inside, nonpositive, strict_sign
from faier.engines.smt.polynomial import Polynomial
from faier.model.parameters import PROBABILITY_DOMAIN, Interval


def test_household_supremum_is_ln_8_approached_at_the_corner() -> None:
    result = epsilon("household-contagion", timeout=60)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 8
    report = result.parametric
    assert report is not None and report.attained is False
    assert {v.name: v.value for v in report.limit} == {"p": 0, "c": 1}
    point = {v.name: v.value for v in report.point}
    assert result.witness is not None
    lower = result.witness.p / result.witness.q
    assert Fraction(8) * Fraction(99, 100) <= lower < 8
    again = epsilon(
        "household-contagion",
        params=[f"{k}={v}" for k, v in point.items()],
        engine="exact",
    )
    assert again.epsilon_star is not None and again.epsilon_star.ratio == lower


def test_bernstein_bounds_prove_negativity_inside_only() -> None:
    names = ("x", "y")
    x, y = (Polynomial.variable(names, n) for n in names)
    one = Polynomial.constant(names, 1)
    corner = -(x * (one - y))  # zero on two edges, negative inside
    assert negative_inside(corner, [PROBABILITY_DOMAIN, PROBABILITY_DOMAIN])
    half = x - Polynomial.constant(names, Fraction(1, 2))
    assert not negative_inside(half, [PROBABILITY_DOMAIN, PROBABILITY_DOMAIN])
    shifted = Interval(Fraction(1, 2), Fraction(1))
    assert negative_inside(-half, [shifted, PROBABILITY_DOMAIN])
    assert not negative_inside(half, [shifted, PROBABILITY_DOMAIN])
    assert negative_inside(half, [Interval(Fraction(0), Fraction(1, 2)), PROBABILITY_DOMAIN])


def test_bernstein_subdivision_proves_upper_bounds_attained_at_a_corner() -> None:
    names = ("x", "y")
    x, y = (Polynomial.variable(names, n) for n in names)
    half = Polynomial.constant(names, Fraction(1, 2))
    # x·y − 1 ≤ 0 on the unit square, equal to 0 at the corner (1, 1)
    assert nonpositive(x * y - Polynomial.constant(names, 1), [PROBABILITY_DOMAIN] * 2)
    # (x − ½)² − ¼ ≤ 0 on [0, 1]: its Bernstein coefficients need halving first
    square = (x - half) * (x - half) - half * half
    assert nonpositive(square, [PROBABILITY_DOMAIN] * 2)
    assert not nonpositive(x - half, [PROBABILITY_DOMAIN] * 2)


def test_closed_box_supremum_is_attained_at_its_corner() -> None:
    result = epsilon(
        "household-contagion", params=["p in [1/10, 1/2]", "c in [1/4, 3/4]"], timeout=60
    )
    assert result.epsilon_star is not None
    assert result.parametric is not None and result.parametric.attained is True
    point = {v.name: v.value for v in result.parametric.point}
    assert point == {"p": Fraction(1, 10), "c": Fraction(3, 4)}
    again = epsilon("household-contagion", params=["p=1/10", "c=3/4"], engine="exact")
    assert again.epsilon_star is not None
    assert again.epsilon_star.ratio == result.epsilon_star.ratio == Fraction(4211011, 713966)


def test_constrained_family_gets_both_bounds() -> None:
    """With p + c ≤ 1 limits are not claimed, but both bounds come back within precision."""
    result = epsilon("household-contagion", params=["p + c <= 1"], timeout=60)
    assert result.epsilon_star is None and result.lower_bound is not None
    report = result.parametric
    assert report is not None and report.upper is not None
    lower, upper = result.lower_bound.ratio, report.upper.ratio
    assert lower is not None and upper is not None
    assert lower < 8 <= upper and upper / lower < Fraction(10001, 10000)


def test_bernstein_strict_signs_on_open_and_closed_boxes() -> None:
    names = ("x",)
    x = Polynomial.variable(names, "x")
    one = Polynomial.constant(names, 1)
    assert strict_sign(x, [PROBABILITY_DOMAIN]) == 1  # zero only at the excluded end
    assert strict_sign(x, [Interval(Fraction(0), Fraction(1), False, False)]) is None
    assert strict_sign(x - one, [PROBABILITY_DOMAIN]) == -1
    assert strict_sign(x - Polynomial.constant(names, Fraction(1, 2)), [PROBABILITY_DOMAIN]) is None


def test_four_people_settle_exactly() -> None:
    result = epsilon("household-contagion", settings={"people": "4"}, timeout=60)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 16
    assert result.parametric is not None and result.parametric.attained is False


def test_command_line_reports_the_limit_and_both_bounds_in_json() -> None:
    import json

    from typer.testing import CliRunner

    from faier.cli.main import app

    model = "src/faier/examples/models/household-contagion.yaml"
    out = CliRunner().invoke(app, ["epsilon", model, "--json"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["epsilon_star"]["ratio"] == "8"
    assert data["parameters"]["attained"] is False
    limit = {v["name"]: v["value"] for v in data["parameters"]["limit"]}
    assert limit == {"p": "0", "c": "1"}
    bounded = CliRunner().invoke(
        app, ["epsilon", model, "--param", "p + c <= 1", "--json"], env={"COLUMNS": "200"}
    )
    data = json.loads(bounded.stdout)
    assert bounded.exit_code == 0 and data["epsilon_star"] is None
    assert data["parameters"]["within_precision"] is True
    assert data["bounds"]["upper"]["ratio"] == "8"
    assert Fraction(data["bounds"]["lower"]["ratio"]) > Fraction(8) * Fraction(9999, 10000)
