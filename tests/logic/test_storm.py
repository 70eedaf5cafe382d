"""What faier hands Storm: bounded G without the LTL engine, long LTL bounds refused.

Storm's LTL engine unrolls a step bound of k into k nested steps and
overflows its stack past about 2,500 (issue 25: ``P=? [G<=3000 out1]`` on
survey ended the process with SIGSEGV).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from faier.logic import check, probabilities
from faier.logic._storm import LTL_BOUND_LIMIT, StormLimit, stormpy, to_fraction
from faier.logic.examples import build_example
from faier.logic.loading import load_model

OVERLAP = Path(__file__).parent / "models" / "overlap.nm"


def _storm_ltl(question: str) -> Fraction:
    """stormpy alone, through its LTL engine (the form faier no longer sends)."""
    import stormpy

    program = stormpy.parse_prism_program(str(OVERLAP))
    properties = stormpy.parse_properties(question, program)
    built = stormpy.build_model[stormpy.Rational](program, properties)
    (initial,) = built.initial_states
    return Fraction(str(stormpy.model_checking(built, properties[0]).get_value(initial)))


def test_a_long_bounded_globally_is_the_complement_of_finally() -> None:
    survey = build_example("survey", {})
    for bound in (2, 3000):
        always = probabilities(survey, f"G<={bound} !out1")
        eventually = probabilities(survey, f"F<={bound} out1")
        assert always == {s: 1 - p for s, p in eventually.items()}
    assert set(probabilities(survey, "G<=3000 out1").values()) <= {Fraction(0), Fraction(1)}


@pytest.mark.parametrize("optimum", ["min", "max"])
def test_bounded_globally_on_an_mdp_flips_the_optimum(optimum: str) -> None:
    model = load_model(str(OVERLAP))
    got = dict(check(model, f"P{optimum}=? [G<=2 (y<2)]").values)[model.initial[0]]
    assert got == _storm_ltl(f"P{optimum}=? [!(F<=2 !(y<2))]")
    assert got == {"min": Fraction(1, 9), "max": Fraction(1)}[optimum]


def test_an_ltl_formula_with_a_longer_bound_is_refused_before_storm() -> None:
    survey = build_example("survey", {})
    with pytest.raises(StormLimit, match=f"at most {LTL_BOUND_LIMIT}"):
        probabilities(survey, f"X (G<={LTL_BOUND_LIMIT + 1} out1)")
    assert probabilities(survey, "X (G<=3 out1)")


def test_check_with_a_timeout_answers_unknown_in_time() -> None:
    survey = build_example("survey", {})
    stopped = check(survey, "P=? [X (F<=900 out1)]", timeout=0.3)
    assert stopped.exit_code == 3
    assert stopped.reason is not None and "time limit" in stopped.reason
    answered = check(survey, "P=? [X out1]", timeout=60)
    assert answered.values == check(survey, "P=? [X out1]").values


@pytest.mark.parametrize("digits", [1, 4000, 4301, 12000])
def test_storms_rationals_of_any_length_are_read_exactly(digits: int) -> None:
    """Python refuses int(text) past 4300 digits; Storm's exact answers can be longer."""
    numerator, denominator = -(7 ** (digits * 6 // 5)), 3 ** (digits * 2 + 1)
    text = f"{_decimal(numerator)}/{_decimal(denominator)}"
    assert to_fraction(stormpy().Rational(text)) == Fraction(numerator, denominator)


def _decimal(n: int) -> str:
    """``n`` in decimal digits, past the 4300 that ``str`` writes (``Decimal`` has no limit)."""
    return str(Decimal(n))
