"""The certified engine's answer for programs whose released numbers it refuses: the
coarsened program's exact ε* as a lower bound, and its violations as the program's."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import pytest
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.core.problem import Problem
from faier.mechanisms.program import Program
from faier.privacy.neighbours import EveryQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import CertifiedWitness, Enclosure, Verdict

runner = CliRunner()

DIFFERENCE = """\
import faier


@faier.program(inputs=faier.grid(1, 1))
def difference(q, ctx):
    return q[0] + ctx.draw(faier.laplace(0, 1)) - ctx.draw(faier.laplace(0, 1))
"""


@faier.program(inputs=faier.grid(1, 1))
def _difference(q, ctx):  # type: ignore[no-untyped-def]
    return q[0] + ctx.draw(faier.laplace(0, 1)) - ctx.draw(faier.laplace(0, 1))


DIFFERENCE_PROBLEM = Problem("difference", _difference, DifferentialPrivacy(EveryQuery(1)))


def _below(s: mpmath.mpf) -> mpmath.mpf:
    """Pr[η₁ − η₂ < s] for independent Lap(1), integrated over η₂ (independent of the
    engine's closed forms)."""

    def cdf(t: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2

    kinks = sorted({mpmath.mpf(0), -s})
    return mpmath.quad(
        lambda e: mpmath.exp(-abs(e)) / 2 * cdf(s + e), [-mpmath.inf, *kinks, mpmath.inf]
    )


def _mpf(text: str) -> mpmath.mpf:
    value = Fraction(text)
    return mpmath.mpf(value.numerator) / value.denominator


def _interval(bucket: str) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A bucket as the engine names it ("< 0", "≥ 1", "in [-1, 0)") as [low, high)."""
    if bucket.startswith("< "):
        return -mpmath.inf, _mpf(bucket[2:])
    if bucket.startswith("≥ "):
        return _mpf(bucket[2:]), mpmath.inf
    low, high = bucket.removeprefix("in [").removesuffix(")").split(", ")
    return _mpf(low), _mpf(high)


def _chance(q: int, low: mpmath.mpf, high: mpmath.mpf) -> mpmath.mpf:
    """Pr[q + η₁ − η₂ ∈ [low, high)]."""
    top = mpmath.mpf(1) if high == mpmath.inf else _below(high - q)
    bottom = mpmath.mpf(0) if low == -mpmath.inf else _below(low - q)
    return top - bottom


def _coarsened_epsilon(cuts: list[int]) -> mpmath.mpf:
    """The largest ln(Pr[B | x] / Pr[B | y]) over the buckets B of ``cuts`` and x, y ∈ {0, 1}."""
    edges = [-mpmath.inf, *(mpmath.mpf(c) for c in cuts), mpmath.inf]
    return max(
        mpmath.log(_chance(x, lo, hi) / _chance(y, lo, hi))
        for lo, hi in itertools.pairwise(edges)
        for x, y in ((0, 1), (1, 0))
    )


def _check_witness(witness: CertifiedWitness) -> None:
    """The witness event's two probabilities, integrated independently, lie in its balls."""
    event, _, _ = witness.output.partition(", ")
    low, high = _interval(event)
    (left,), (right,) = witness.left_value, witness.right_value
    with mpmath.workdps(30):
        p, q = _chance(left, low, high), _chance(right, low, high)
    assert witness.p.lower - 1e-15 <= p <= witness.p.upper + 1e-15
    assert witness.q.lower - 1e-15 <= q <= witness.q.upper + 1e-15


def test_a_refused_difference_gets_the_coarsened_lower_bound() -> None:
    """q + Lap(1) − Lap(1) is refused (a sum of two noise variables); cut at −1, 0, 1 its
    events' largest loss, integrated with mpmath, is the lower bound reported."""
    result = faier.epsilon(DIFFERENCE_PROBLEM, engine="certified")
    star = result.enclosure
    assert star is not None and math.isinf(star.upper) and result.epsilon_star is None
    assert result.exit_code == 3
    with mpmath.workdps(30):
        expected = _coarsened_epsilon([-1, 0, 1])
    assert abs(star.lower - expected) < 1e-12 and star.lower <= expected
    assert result.reason is not None and "a sum of 2 noise variables" in result.reason
    assert "cut at 0: ε* ≥" in result.reason and "a lower bound" in result.reason
    witness = result.certified_witness
    assert witness is not None
    assert witness.output.endswith("among the cut points -1, 0, 1")
    _check_witness(witness)
    assert abs(math.log(witness.ratio.lower) - expected) < 1e-12


def test_a_violation_only_through_the_released_number_is_refuted() -> None:
    """Claimed 1/2-DP, q + Lap(1) − Lap(1) is violated: the witness event (a bucket of the
    released difference) has exact probabilities whose ratio exceeds e^(1/2)."""
    result = faier.verify(DIFFERENCE_PROBLEM, "1/2", engine="certified")
    assert result.verdict is Verdict.VIOLATED and result.exit_code == 1
    witness = result.certified_witness
    assert witness is not None and "replaced by where it lies among the cut" in witness.output
    _check_witness(witness)
    assert witness.ratio.lower > math.exp(0.5)
    assert result.enclosure is not None and math.isinf(result.enclosure.upper)
    assert "coarsened program violates ε = 1/2" in (result.reason or "")


def test_the_cli_reports_the_bound_and_the_violation(tmp_path: Path) -> None:
    path = tmp_path / "difference.py"
    path.write_text(DIFFERENCE)
    env = {"COLUMNS": "200"}
    args = [str(path), "--engine", "certified", "--json"]
    out = runner.invoke(app, ["epsilon", *args], env=env)
    assert out.exit_code == 3, out.output
    data = json.loads(out.stdout)
    assert data["verdict"] is None and data["exit_code"] == 3
    assert data["epsilon_star"]["upper"] == "inf" and data["epsilon_star"]["value"] is None
    assert 0.59 < data["epsilon_star"]["lower"] < 1
    assert "cut point" in data["witness"]["output"]
    violated = runner.invoke(app, ["verify", *args, "--epsilon", "1/2"], env=env)
    assert violated.exit_code == 1, violated.output
    data = json.loads(violated.stdout)
    assert data["verdict"] == "violated" and data["epsilon_star"]["upper"] == "inf"
    unknown = runner.invoke(app, ["verify", *args, "--epsilon", "1"], env=env)
    assert unknown.exit_code == 3, unknown.output
    data = json.loads(unknown.stdout)
    assert data["verdict"] == "unknown" and "no violation found" in data["reason"]
    text = runner.invoke(app, ["epsilon", *args[:-1]], env=env)
    assert "(lower bound)" in text.stdout


@faier.program(inputs=faier.grid(2, 1))
def _gap_svt(q, ctx):  # type: ignore[no-untyped-def]
    """GapSVT with N = 1 (threshold Lap(2), queries Lap(4)): 1-DP."""
    threshold = ctx.draw(faier.laplace(0, 2))
    out = []
    for answer in q:
        noisy = answer + ctx.draw(faier.laplace(0, 4))
        if noisy >= threshold:
            out.append(noisy - threshold)
            break
        out.append(False)
    return tuple(out)


@faier.program(inputs=faier.grid(2, 1))
def _num_svt(q, ctx):  # type: ignore[no-untyped-def]
    """NumSVT with N = 2 (threshold Lap(3), queries Lap(12), released Lap(6)): 1-DP, two
    numbers released under branches."""
    threshold = ctx.draw(faier.laplace(0, 3))
    out = []
    for answer in q:
        if answer + ctx.draw(faier.laplace(0, 12)) >= threshold:
            out.append(answer + ctx.draw(faier.laplace(0, 6)))
        else:
            out.append(False)
    return tuple(out)


@pytest.mark.parametrize("program", [_gap_svt, _num_svt], ids=["gap_svt", "num_svt"])
def test_a_private_sparse_vector_keeps_its_coarsened_bound_within_its_claim(
    program: Program[Any],
) -> None:
    """Post-processing keeps privacy: GapSVT and NumSVT (1-DP) coarsened on {0,1}² stay
    ≤ 1, and a claim of 1 is never "violated" (the refusal stays "unknown")."""
    problem = Problem(program.name, program, DifferentialPrivacy(EveryQuery(1)))
    bound = faier.epsilon(problem, engine="certified").enclosure
    assert isinstance(bound, Enclosure) and math.isinf(bound.upper)
    assert 0 < bound.lower <= 1
    result = faier.verify(problem, "1", engine="certified")
    assert result.verdict is Verdict.UNKNOWN and "no violation found" in (result.reason or "")


EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "checkdp"


def test_a_prefix_sum_keeps_its_first_release_alone() -> None:
    """PrefixSum on {0,1,2}³ (one query ±1): cut at a point, its second release compares a
    sum of two noise variables, refused; its first release alone, q₀ + Lap(1) cut at 0,
    has the event "< 0" with Pr 1/2 against e^(−1)/2: ε* ≥ 1, exactly its claim."""
    result = faier.epsilon(str(EXAMPLES / "prefix_sum.py"), engine="certified")
    star = result.enclosure
    assert star is not None and math.isinf(star.upper)
    assert 1 - 1e-15 <= star.lower <= 1
    reason = result.reason or ""
    assert (
        "cut at 0: no closed form" in reason and "the first number alone cut at 0: ε* ≥ 1" in reason
    )
    witness = result.certified_witness
    assert witness is not None and witness.output.startswith("(< 0, ·, ·), the first released")
    assert witness.p.closed_form == "1/2" and witness.q.closed_form == "1/2·e^(-1)"


@faier.program(inputs=faier.grid(1, 1))
def _sum_compared(q, ctx):  # type: ignore[no-untyped-def]
    return q[0] + ctx.draw(faier.laplace(0, 1)) + ctx.draw(faier.laplace(0, 1)) >= 0


def test_a_refusal_of_something_other_than_a_release_stays_unknown() -> None:
    """A sum of two noises compared with 0 releases no number: nothing to coarsen, so the
    refusal stands as it was, with no bound and no witness."""
    problem = Problem("sum", _sum_compared, DifferentialPrivacy(EveryQuery(1)))
    result = faier.verify(problem, "1", engine="certified")
    assert result.verdict is Verdict.UNKNOWN and result.enclosure is None
    assert result.certified_witness is None
    assert "not a difference" in (result.reason or "")
    assert "not coarsened (the program releases no number" in (result.reason or "")
