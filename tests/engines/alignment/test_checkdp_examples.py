"""CheckDP's benchmark in examples/checkdp: the verdicts the alignment engine gives.

A sample of the rows (the whole table is ``benchmarks/proofs.py``): proofs carry
the scope "all inputs", refutations the certified engine's witness.  The three
buggy mechanisms that are private at the grid's n = 3 (BadSVT 4, BadGapSVT) or
release what the certified engine cannot integrate (BadAdaptiveSVT) are refuted
at the length where the loop's cost passes ε, and the last two through a
coarsening of their released numbers; each witness's two probabilities (or
densities) are recomputed here by numerical integration with mpmath at 30
digits, from the programs' definitions, independently of the engine.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import mpmath
import pytest

import faier
from faier.cli.main import main
from faier.core.problem import Problem
from faier.mechanisms.loader import load_module
from faier.results import Enclosure, Verdict

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "checkdp"


@pytest.mark.parametrize(
    ("name", "claim"),
    [("noisy_max", "1"), ("sparse_vector", "1"), ("gap_svt", "1"), ("smart_sum", "2")],
)
def test_correct_mechanisms_are_proved_for_every_input(name: str, claim: str) -> None:
    result = faier.verify(str(EXAMPLES / f"{name}.py"), claim, engine="alignment")
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None and result.proof.scope == "all inputs"
    assert result.proof.data["queries"] == "every n"


@pytest.mark.parametrize(
    ("name", "claim"),
    [("bad_partial_sum", "1"), ("bad_svt1", "1"), ("bad_noisy_max4", "1"), ("bad_smart_sum", "2")],
)
def test_buggy_mechanisms_are_refuted_with_a_certified_witness(name: str, claim: str) -> None:
    result = faier.verify(str(EXAMPLES / f"{name}.py"), claim, engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert result.certified_witness is not None
    assert result.proof is None


def _smart_sum(m: int, t: int) -> Problem:
    module = load_module(EXAMPLES / "smart_sum.py")
    problem: Problem = module.smart_sum_with(m, t)
    return problem


def test_smart_sum_is_proved_for_every_n_m_and_t() -> None:
    """CheckDP's alignment: each draw cancels the change of what it is added to — the
    current query, and at a block's end the block sum, which differs by δ while it holds
    the moved query — so the cost is |δ| where the query is read and |δ| where its block
    ends: 2.  The branches on the counter are choices, so the proof is the same for every
    block length M and cut-off T."""
    for m, t in ((2, 2), (3, 7), (1, 0)):
        result = faier.verify(_smart_sum(m, t), "2", engine="alignment")
        assert result.verdict is Verdict.HOLDS
        assert result.proof is not None and result.proof.scope == "all inputs"
        data = result.proof.data
        assert data["queries"] == "every n"
        assert [(s["constant"], s["companion"]) for s in data["shifts"]] == [("0", "1")] * 2
        assert data["distances"] == {"block": "0", "following": "0"}
        assert data["moved"] == {"block": ["0", "1"], "following": ["0", "0"]}
        assert data["largest_cost"] == "2"
        assert data["counter_branches"] == ["line 23 `i > T`", "line 25 `(i + 1) % M == 0`"]
        assert data["companions"] == {"line 26": "block + q[i]"}


def test_smart_sum_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``faier verify smart_sum.py -e 2 --engine alignment``: exit 0, every input and n."""
    path = str(EXAMPLES / "smart_sum.py")
    with pytest.raises(SystemExit) as caught:
        main(["verify", path, "-e", "2", "--engine", "alignment", "--json"])
    assert caught.value.code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "holds" and data["scope"] == "all inputs"
    assert data["proof"]["queries"] == "every n"
    assert data["privacy"].endswith("every real input, every number of queries")
    with pytest.raises(SystemExit) as caught:
        main(["verify", path, "-e", "2", "--engine", "alignment"])
    assert caught.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert "counter branches (line 23 `i > T`; line 25 `(i + 1) % M == 0`)" in shown
    assert "block while it holds the moved query: aligned value = value + δ" in shown


def test_smart_sum_below_its_bound_is_refuted_on_the_grid() -> None:
    """The grid of 2 queries has ε* = 2 exactly (the certified engine): a claim of 3/2
    gets no proof, and the certified witness refutes it."""
    grid = faier.epsilon(str(EXAMPLES / "smart_sum.py"), engine="certified").epsilon_star
    assert isinstance(grid, Enclosure) and grid.closed_form == "2"
    result = faier.verify(str(EXAMPLES / "smart_sum.py"), "3/2", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert result.certified_witness is not None and result.proof is None


# ---------------------------------------------------------------- independent integrals


@pytest.fixture(autouse=True)
def _thirty_digits() -> Iterator[None]:
    """The integrals below at 30 digits (restored after each test)."""
    with mpmath.workdps(30):
        yield


def _density(scale: int, t: mpmath.mpf) -> mpmath.mpf:
    """The Laplace(0, scale) density at t."""
    return mpmath.exp(-abs(t) / scale) / (2 * scale)


def _below(scale: int, t: mpmath.mpf) -> mpmath.mpf:
    """Pr[Laplace(0, scale) < t]."""
    half = mpmath.mpf(1) / 2
    return half * mpmath.exp(t / scale) if t < 0 else 1 - half * mpmath.exp(-t / scale)


def _bad_svt4(q: list[int]) -> mpmath.mpf:
    """Density of (⊥, ⊥, ⊥, ⊥, released 0) on five answers: threshold T = 1 + Lap(2), each
    ⊥ a noisy answer q + Lap(4) below T, the released one at 0 (so T ≤ 0)."""

    def joint(t: mpmath.mpf) -> mpmath.mpf:
        return _density(2, t - 1) * mpmath.fprod(_below(4, t - a) for a in q[:4])

    return _density(4, mpmath.mpf(0) - q[4]) * mpmath.quad(joint, [-mpmath.inf, 0])


def _bad_gap_svt(q: list[int]) -> mpmath.mpf:
    """Pr[(< 0, ⊥ ×7, < 0)] on nine answers: T = 1 + Lap(2); answers 1 and 9 released
    (q + Lap(8) ≥ T) below 0, answers 2–8 below T."""

    def released_below_zero(a: int, t: mpmath.mpf) -> mpmath.mpf:
        return _below(8, mpmath.mpf(0) - a) - _below(8, t - a)

    def joint(t: mpmath.mpf) -> mpmath.mpf:
        middle = mpmath.fprod(_below(8, t - a) for a in q[1:8])
        return (
            _density(2, t - 1)
            * released_below_zero(q[0], t)
            * middle
            * released_below_zero(q[8], t)
        )

    return mpmath.quad(joint, [-mpmath.inf, -1, 0])


def _bad_adaptive_svt(q: list[int]) -> mpmath.mpf:
    """Pr[(⊥, ⊥, ⊥, < 0)] on four answers: T = 1 + Lap(2); a ⊥ answer has q + Lap(8) below
    T + 16 and q + Lap(4) below T; the fourth is the far-above release q + Lap(8) ≥ T + 16,
    below 0 (a released gap is never below 0)."""

    def joint(t: mpmath.mpf) -> mpmath.mpf:
        bottoms = mpmath.fprod(_below(8, t + 16 - a) * _below(4, t - a) for a in q[:3])
        top = _below(8, mpmath.mpf(0) - q[3]) - _below(8, t + 16 - q[3])
        return _density(2, t - 1) * bottoms * top

    return mpmath.quad(joint, [-mpmath.inf, -17, -16])


def _holds(enclosure: Enclosure, value: mpmath.mpf) -> bool:
    """The certified interval contains the integral (to the integrator's 10⁻²⁰)."""
    slack = abs(value) * mpmath.mpf("1e-20")
    return bool(enclosure.lower - slack <= value <= enclosure.upper + slack)


def test_bad_svt4_is_violated_at_five_queries_with_its_density_recomputed() -> None:
    """Private at n ≤ 4 (the loop's alignment costs 1/4 per query), so refuted at n = 5:
    the density ratio of (⊥⁴, 0) is e^(5/4) > e."""
    result = faier.verify(str(EXAMPLES / "bad_svt4.py"), "1", engine="alignment")
    assert result.verdict is Verdict.VIOLATED and result.exit_code == 1
    assert result.proof is None
    assert "at n = 5 queries" in result.privacy and "its input grid has 3" in result.privacy
    witness = result.certified_witness
    assert witness is not None and witness.measure == "density"
    assert (witness.left_value, witness.right_value) == ([0] * 5, [1] * 5)
    assert witness.output == "(False, False, False, False, Fraction(0, 1))"
    p, q = _bad_svt4([0] * 5), _bad_svt4([1] * 5)
    assert _holds(witness.p, p) and _holds(witness.q, q)
    assert witness.p.closed_form == "1/768·e^(-1/2)"
    assert witness.q.closed_form == "1/768·e^(-7/4)"
    assert abs(mpmath.log(p / q) - mpmath.mpf(5) / 4) < mpmath.mpf("1e-20")


def test_bad_gap_svt_is_violated_at_nine_queries_through_a_coarsening() -> None:
    """Each ⊥ costs 1/8, so n = 9; the certified engine cannot decide two released numbers
    under branches, but decides the program with each released number cut at 0, whose
    event (< 0, ⊥ ×7, < 0) has loss exactly 9/8."""
    result = faier.verify(str(EXAMPLES / "bad_gap_svt.py"), "1", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert "at n = 9 queries" in result.privacy
    witness = result.certified_witness
    assert witness is not None and witness.measure == "Pr"
    assert (witness.left_value, witness.right_value) == ([0] * 9, [1] * 9)
    assert witness.output == (
        "(< 0, False, False, False, False, False, False, False, < 0), each released number "
        "replaced by where it lies among the cut point 0"
    )
    p, q = _bad_gap_svt([0] * 9), _bad_gap_svt([1] * 9)
    assert _holds(witness.p, p) and _holds(witness.q, q)
    assert witness.p.closed_form == "1/219648·e^(-1/2)"
    assert witness.q.closed_form == "1/219648·e^(-13/8)"
    assert abs(mpmath.log(p / q) - mpmath.mpf(9) / 8) < mpmath.mpf("1e-20")
    # ε* is only bounded below by the event: the interval's upper end is ∞
    assert result.enclosure is not None and math.isinf(result.enclosure.upper)
    assert result.enclosure.lower <= 9 / 8 < result.enclosure.lower + 1e-12
    assert "ε* ≥ 9/8" in result.method and "a lower bound" in result.method


def test_bad_adaptive_svt_is_violated_at_four_queries_through_a_coarsening() -> None:
    """Released gaps q + η₂ − (1 + η₁) are sums of noise the certified engine refuses; cut
    at 0, three ⊥ (3/8 each) then the far-above release below 0 (1/8) give 5/4."""
    result = faier.verify(str(EXAMPLES / "bad_adaptive_svt.py"), "1", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert "at n = 4 queries" in result.privacy
    witness = result.certified_witness
    assert witness is not None
    assert (witness.left_value, witness.right_value) == ([0] * 4, [1] * 4)
    assert witness.output.startswith("(False, False, False, < 0), each released number")
    p, q = _bad_adaptive_svt([0] * 4), _bad_adaptive_svt([1] * 4)
    assert _holds(witness.p, p) and _holds(witness.q, q)
    assert witness.p.closed_form == "1/11648·e^(-41/2)"
    assert witness.q.closed_form == "1/11648·e^(-87/4)"
    assert abs(mpmath.log(p / q) - mpmath.mpf(5) / 4) < mpmath.mpf("1e-20")
    assert "ε* ≥ 5/4" in result.method


def test_the_cli_says_violated_with_the_coarsened_event(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(EXAMPLES / "bad_adaptive_svt.py")
    with pytest.raises(SystemExit) as caught:
        main(["verify", path, "--epsilon", "1", "--engine", "alignment", "--json"])
    assert caught.value.code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "violated"
    assert data["witness"]["inputs"] == [[0, 0, 0, 0], [1, 1, 1, 1]]
    assert "cut point 0" in data["witness"]["output"]
    assert data["epsilon_star"]["upper"] == "inf"


def test_auto_keeps_the_grid_verdict_and_says_where_the_cost_passes_epsilon() -> None:
    """Under auto, BadSVT 4 holds on its grid of 3 queries (so it does), the alignment engine
    adds its proof at n = 3, and the note names n = 5 for the alignment engine to decide."""
    result = faier.verify(str(EXAMPLES / "bad_svt4.py"), "1")
    assert result.verdict is Verdict.HOLDS and "grid" in result.privacy
    assert result.proof is not None and result.proof.data["queries"] == 3
    note = result.proof.data["every_n"]
    assert "at n = 5" in note and "'--engine alignment' looks there" in note
