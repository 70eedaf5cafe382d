"""The fast encoding's rational bracket of e^ε, and issue 11: a false "holds" above e^60.

A loss ratio just above e^60.25 ≈ 1.466e26 was reported private by both
encodings: the bracket had an absolute width of 10^-15 around a 25-digit
approximation, so its lower end lay above e^ε and an unsat there was taken as
a proof.  Brackets are now relative and checked exactly.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.engines.smt.fast import BRACKET_DIGITS, ratio_bounds
from faier.privacy.budget import Epsilon
from faier.results import Verdict

ABOVE = 146636651456856403274964263
"""The least whole number above e^60.25 = 146636651456856403274964262.789…"""

RANDOMIZED_RESPONSE = """\
# Randomized response with loss ratio (1 - q)/q = {ratio} (issue 11).
name: rr-near-e60.25
states: [a, b]
observations: ["yes", "no"]
emissions:
  a: {{"yes": {ratio}/{total}, "no": 1/{total}}}
  b: {{"yes": 1/{total}, "no": {ratio}/{total}}}
initial:
  truth: {{a: 1}}
  lie: {{b: 1}}
pairs:
  - [truth, lie]
horizon: 1
"""

PARAMETRIC = """\
# Randomized response with t in [1/{total}, 1/2]: sup of (1 - t)/t is {ratio}.
name: rr-parametric-near-e60.25
states: [a, b]
observations: ["yes", "no"]
parameters:
  t: {{domain: "[1/{total}, 1/2]"}}
emissions:
  a: {{"yes": 1-t, "no": t}}
  b: {{"yes": t, "no": 1-t}}
initial:
  truth: {{a: 1}}
  lie: {{b: 1}}
pairs:
  - [truth, lie]
horizon: 1
"""

runner = CliRunner()


def model(tmp_path: Path, template: str, ratio: int) -> str:
    path = tmp_path / "model.yaml"
    path.write_text(template.format(ratio=ratio, total=ratio + 1), encoding="utf-8")
    return str(path)


def cli_verdict(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["verify", *args, "--json"], env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, json.loads(result.stdout)["verdict"]


@pytest.mark.parametrize("encoding", ["fast", "faithful"])
@pytest.mark.parametrize(
    ("ratio", "code", "verdict"), [(ABOVE, 1, "violated"), (ABOVE - 1, 0, "holds")]
)
def test_issue_11_ratio_just_above_e_60_25_on_the_command_line(
    tmp_path: Path, encoding: str, ratio: int, code: int, verdict: str
) -> None:
    path = model(tmp_path, RANDOMIZED_RESPONSE, ratio)
    smt = ("--engine", "smt", "--encoding", encoding, "--solver", "z3")
    assert cli_verdict(path, "-e", "60.25", *smt) == (code, verdict)
    assert cli_verdict(path, "-e", "60.25", "--engine", "exact") == (code, verdict)


@pytest.mark.parametrize("encoding", ["fast", "faithful"])
@pytest.mark.parametrize("template", [RANDOMIZED_RESPONSE, PARAMETRIC])
def test_issue_11_through_the_api(tmp_path: Path, encoding: str, template: str) -> None:
    above = model(tmp_path, template, ABOVE)
    result = faier.verify(above, "60.25", engine="smt", encoding=encoding, solver="z3")
    assert result.verdict is Verdict.VIOLATED, result.reason
    witness = result.witness
    assert witness is not None and witness.p / witness.q <= ABOVE
    assert Epsilon.parse("60.25").exceeded_by(witness.p / witness.q)
    star = faier.epsilon(above, engine="smt", solver="z3")
    if template is RANDOMIZED_RESPONSE:
        assert star.epsilon_star is not None and star.epsilon_star.ratio == ABOVE
    else:
        # Doubling from ratio ~1 may stop short of 1.5e26 (unknown then, never wrong).
        bound = star.epsilon_star or star.lower_bound
        assert bound is not None and bound.ratio is not None and bound.ratio <= ABOVE
    below = model(tmp_path, template, ABOVE - 1)
    result = faier.verify(below, "60.25", engine="smt", encoding=encoding, solver="z3")
    assert result.verdict is Verdict.HOLDS, result.reason


def check_bracket(eps: Epsilon, digits: int) -> None:
    low, high = ratio_bounds(eps, digits)
    assert eps.compare_ratio(low) < 0 < eps.compare_ratio(high)
    assert (high - low) / low < Fraction(3, 10**digits)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    whole=st.integers(0, 700),
    fraction=st.integers(0, 10**12),
    digits=st.sampled_from(BRACKET_DIGITS),
)
def test_decimal_brackets_are_relative_and_exactly_confirmed(
    whole: int, fraction: int, digits: int
) -> None:
    text = f"{whole}.{fraction:012d}"
    if Fraction(text) == 0:
        text = "1e-30"
    check_bracket(Epsilon.parse(text), digits)


@pytest.mark.parametrize(
    "text", ["60.25", "23.5", "700", "1e-30", "ln(2) + 1/3", "ln(3)/2", "60 + ln(5)/7"]
)
@pytest.mark.parametrize("digits", BRACKET_DIGITS)
def test_brackets_of_other_forms(text: str, digits: int) -> None:
    check_bracket(Epsilon.parse(text), digits)


def test_rational_e_to_the_epsilon_is_its_own_bracket() -> None:
    assert ratio_bounds(Epsilon.parse("60*ln(3)"), 15) == (Fraction(3**60), Fraction(3**60))


def test_huge_decimal_epsilon_is_decided_or_refused_but_never_crashes(tmp_path: Path) -> None:
    path = model(tmp_path, RANDOMIZED_RESPONSE, ABOVE)
    smt = ("--engine", "smt", "--encoding", "fast", "--solver", "z3")
    assert cli_verdict(path, "-e", "20000", *smt) == (0, "holds")
    refused = runner.invoke(app, ["verify", path, "-e", "200000", *smt], env={"COLUMNS": "200"})
    assert refused.exit_code == 2 and "give a smaller ε" in refused.output
