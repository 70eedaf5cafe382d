"""The issue's results on the FAIER papers' examples, each as a built-in example.

Every "violated" witness is checked here once more from first principles:
the brute-force reference recomputes both probabilities at the synthesized
parameter values.  Expected numbers are the papers' or exact hand computations
(example numbers are FAIER journal's unless marked; docs/REFERENCES.md).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy

import faier
from faier import api
from faier.results import Result, Verdict

F = Fraction
GEOMETRIC = {
    0: (F(2, 3), F(1, 6), F(1, 6)),
    1: (F(1, 3), F(1, 3), F(1, 3)),
    2: (F(1, 6), F(1, 6), F(2, 3)),
}


def point(result: Result) -> dict[str, Fraction]:
    assert result.parametric is not None
    return {v.name: v.value for v in result.parametric.point}


def noisy_max_index(x: tuple[int, ...], ties: str = "uniform") -> dict[int, Fraction]:
    """Pr(reported index | answers x), by enumerating every noise vector."""
    out: dict[int, Fraction] = {}
    for y in itertools.product(range(3), repeat=len(x)):
        weight = F(1)
        for xi, yi in zip(x, y, strict=True):
            weight *= GEOMETRIC[xi][yi]
        top = max(y)
        winners = [i + 1 for i, v in enumerate(y) if v == top]
        chosen = winners[:1] if ties == "first" else winners
        for i in chosen:
            out[i] = out.get(i, F(0)) + weight / len(chosen)
    return out


def family_prior(
    john_has: bool, pb: Fraction, pc: Fraction
) -> dict[tuple[int, int, int], Fraction]:
    """Ex. 6.3: A shared by John and his family member; B, C independent."""
    binomial = {p: {0: (1 - p) ** 2, 1: 2 * p * (1 - p), 2: p**2} for p in (pb, pc)}
    a = 2 if john_has else 0
    return {(a, b, c): binomial[pb][b] * binomial[pc][c] for b in range(3) for c in range(3)}


def test_independent_count_holds_for_every_p_both_priors() -> None:
    for priors in ("secret", "paper"):
        result = api.verify(
            "count-independent-disease", "ln(2)", settings={"priors": priors}, solver="z3"
        )
        assert result.verdict is Verdict.HOLDS, result.reason
        assert result.parametric is not None
        assert result.parametric.region == "holds for every parameter value in the domain"
        assert "p ∈ (0, 1)" in result.parametric.domain


def test_contagious_count_violates_ln2_for_every_p_and_holds_for_ln4() -> None:
    result = api.verify("count-contagious-disease", "ln(2)", solver="z3")
    assert result.verdict is Verdict.VIOLATED
    assert result.witness is not None and result.witness.output in (("0~",), ("2~",))
    assert result.witness.loss.ratio == 4
    assert result.parametric is not None
    assert result.parametric.region == "violated for every parameter value in the domain"
    p = point(result)["p"]
    assert 0 < p < 1
    assert api.verify("count-contagious-disease", "ln(4)", solver="z3").verdict is Verdict.HOLDS


def test_three_independent_diseases_hold_for_all_parameters() -> None:
    result = api.verify("most-common-disease", "ln(2)", solver="portfolio")
    assert result.verdict is Verdict.HOLDS, result.reason
    assert result.parametric is not None
    assert "pA ∈ (0, 1), pB ∈ (0, 1), pC ∈ (0, 1)" in result.parametric.domain
    assert result.statistics.explored == 6  # one query per comparison and output
    paper = api.verify("most-common-disease", "ln(2)", settings={"priors": "paper"}, solver="z3")
    assert paper.verdict is Verdict.HOLDS


def test_contagious_a_in_the_family_is_violated_with_synthesized_parameters() -> None:
    result = api.verify("most-common-disease-family", "ln(2)", solver="z3")
    assert result.verdict is Verdict.VIOLATED
    witness = result.witness
    assert witness is not None and witness.output[0] == "start"
    values = point(result)
    index = int(witness.output[1])
    p = q = F(0)
    for has, target in ((True, "p"), (False, "q")):
        total = F(0)
        for x, w in family_prior(has, values["pB"], values["pC"]).items():
            total += w * noisy_max_index(x).get(index, F(0))
        if target == "p":
            p = total
        else:
            q = total
    assert (witness.p, witness.q) == (p, q)
    assert p > 2 * q
    assert result.parametric is not None
    assert result.parametric.region == "violated for every parameter value in the domain"


def test_the_journals_point_for_ex_6_3_is_a_violation() -> None:
    half = ["pA=1/2", "pB=1/2", "pC=1/2"]
    result = api.epsilon("most-common-disease-family", params=half)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == F(287, 107)
    assert result.witness is not None
    assert (result.witness.p, result.witness.q) == (F(287, 576), F(107, 576))


def test_family_supremum_is_24_over_7_approached_not_attained() -> None:
    result = api.epsilon("most-common-disease-family", solver="z3", precision="1e-4")
    assert result.epsilon_star is not None and result.epsilon_star.ratio == F(24, 7)
    report = result.parametric
    assert report is not None and report.attained is False
    limit = {v.name: v.value for v in report.limit}
    assert limit["pB"] == 1 and limit["pC"] == 1
    assert result.witness is not None and result.witness.loss.ratio is not None
    assert F(24, 7) * F(999, 1000) < result.witness.loss.ratio < F(24, 7)


def test_five_diseases_is_violated_with_a_synthesized_p2() -> None:
    result = api.verify("most-common-of-five-diseases", "ln(2)", solver="z3")
    assert result.verdict is Verdict.VIOLATED
    values = point(result)
    assert set(values) == {"p1", "p2"} and 0 < values["p2"] < 1
    witness = result.witness
    assert witness is not None and witness.loss.ratio is not None and witness.loss.ratio > 2
    fixed = api.verify(
        "most-common-of-five-diseases", "ln(2)", params=[f"p1={values['p1']}", f"p2={values['p2']}"]
    )
    assert fixed.verdict is Verdict.VIOLATED
    assert fixed.method.startswith("exact")


def test_notes_example_7_1_holds_at_the_notes_values_and_for_all_p1_p2() -> None:
    at_notes = api.epsilon("most-common-disease-secret-c")
    assert at_notes.epsilon_star is not None and at_notes.epsilon_star.ratio == F(911, 550)
    assert at_notes.witness is not None and at_notes.witness.output == ("start", "3")
    everywhere = api.verify(
        "most-common-disease-secret-c",
        "ln(2)",
        params=["p1 in (0, 1)", "p2 in (0, 1)"],
        solver="z3",
    )
    assert everywhere.verdict is Verdict.HOLDS
    value = api.epsilon("most-common-disease-secret-c", settings={"report": "value"})
    assert value.epsilon_star is not None and value.epsilon_star.ratio == 2
    assert value.witness is not None and value.witness.output == ("start", "0~")


def test_table_1_closed_forms_paper_and_conditioned() -> None:
    p = sympy.Symbol("p", real=True)
    paper = faier.api.closed_forms("count-independent-disease", settings={"priors": "paper"})
    (pair,) = paper.pairs
    rows = {row.outcome[0]: (row.left, row.right) for row in pair.rows}
    expected_with = {
        "0~": (4 - 3 * p) / (12 - 6 * p),
        "1~": (4 - 3 * p) / (12 - 6 * p),
        "2~": 2 / (6 - 3 * p),
    }
    expected_without = {
        "0~": (p**2 - 4 * p + 4) / 6,
        "1~": (-2 * p**2 + 2 * p + 1) / 6,
        "2~": (p**2 + 2 * p + 1) / 6,
    }
    for output, (left, right) in rows.items():
        assert sympy.simplify(left - expected_with[output]) == 0
        assert sympy.simplify(right - expected_without[output]) == 0
    secret = faier.api.closed_forms("count-independent-disease", output="2~")
    (pair,) = secret.pairs
    (row,) = pair.rows
    assert sympy.simplify(row.left - (1 + p) / 3) == 0
    assert sympy.simplify(row.right - (1 + p) / 6) == 0
    assert secret.supremum is not None and secret.supremum.exact == 2
    assert secret.supremum.attained is True


@pytest.mark.parametrize(
    ("target", "settings", "ratio"),
    [
        ("count-independent-disease", {}, F(2)),
        ("count-contagious-disease", {}, F(4)),
        ("most-common-disease", {}, F(40, 21)),
    ],
)
def test_supremum_of_the_loss(target: str, settings: dict[str, str], ratio: Fraction) -> None:
    result = api.epsilon(target, settings=settings, solver="z3")
    assert result.epsilon_star is not None and result.epsilon_star.ratio == ratio
