"""CheckDP's benchmark in examples/checkdp: the verdicts the alignment engine gives at n = 3.

A sample of the rows (the whole table is ``benchmarks/proofs.py``): proofs carry
the scope "all inputs", refutations the certified engine's witness.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import faier
from faier.core.problem import Problem
from faier.mechanisms.loader import load_module
from faier.mechanisms.program import Program
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


def test_bad_adaptive_svt_is_unknown_naming_what_the_certified_engine_refuses() -> None:
    """No alignment exists in the templates, and the near-threshold branch releases the
    gap q + η₂ − (1 + η₁), a sum of two noise variables whose density the certified
    engine does not compute: no witness, so "unknown" saying so, never "violated"."""
    result = faier.verify(str(EXAMPLES / "bad_adaptive_svt.py"), "1", engine="alignment")
    assert result.verdict is Verdict.UNKNOWN
    assert result.proof is None and result.certified_witness is None
    assert result.reason is not None
    assert "the input grid: unknown (" in result.reason
    assert "a released number is a sum of 2 noise variables" in result.reason


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


def test_smart_sum_below_its_bound_is_refuted_on_the_grid() -> None:
    """The grid of 2 queries has ε* = 2 exactly (the certified engine): a claim of 3/2
    gets no proof, and the certified witness refutes it."""
    grid = faier.epsilon(str(EXAMPLES / "smart_sum.py"), engine="certified").epsilon_star
    assert isinstance(grid, Enclosure) and grid.closed_form == "2"
    result = faier.verify(str(EXAMPLES / "smart_sum.py"), "3/2", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert result.certified_witness is not None and result.proof is None


def test_bad_adaptive_svt_is_violated_through_a_post_processing() -> None:
    """Bucketing each released number (a function of the output alone) leaves a program the
    certified engine decides; its certified witness is one for BadAdaptiveSVT too, by the
    post-processing inequality.  ε* = 5/4 = 3·(3/8) + 1/8 on the pair: three ⊥ answers at
    3/8 each, then the far-above release q + η₃ at 1/8."""
    path = str(EXAMPLES / "bad_adaptive_svt_bucketed.py")
    result = faier.verify(path, "1", engine="certified")
    assert result.verdict is Verdict.VIOLATED
    assert result.certified_witness is not None
    star = faier.epsilon(path, engine="certified").epsilon_star
    assert isinstance(star, Enclosure) and star.closed_form == "5/4"
    assert star.lower <= 1.25 <= star.upper


def test_the_bucketed_body_is_bad_adaptive_svt_unchanged() -> None:
    """The post-processed file runs BadAdaptiveSVT's own body: same source, line for line."""
    import inspect

    bucketed = faier.load_problem(str(EXAMPLES / "bad_adaptive_svt_bucketed.py"))
    plain = faier.load_problem(str(EXAMPLES / "bad_adaptive_svt.py"))
    assert isinstance(bucketed.mechanism, Program) and isinstance(plain.mechanism, Program)
    inner = bucketed.mechanism.body.__globals__["bad_adaptive_svt"]
    body = inspect.getsource(plain.mechanism.body).splitlines()[2:]
    assert inspect.getsource(inner).splitlines()[2:] == body
