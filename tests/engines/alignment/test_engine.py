"""The alignment engine: proofs for every input, refutations with the certified witness."""

from __future__ import annotations

from fractions import Fraction

import pytest

import faier
from faier.core.problem import Problem
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Verdict


def _noisy_max(scale: Fraction, release_value: bool = False) -> faier.Program:  # type: ignore[name-defined]
    @faier.program(inputs=faier.grid(3, 2), name="nm")
    def body(q, ctx):  # type: ignore[no-untyped-def]
        best, top = 0, None
        for i in range(len(q)):
            noisy = q[i] + ctx.draw(faier.laplace(0, scale))
            if i == 0 or noisy > top:
                best, top = i, noisy
        return top if release_value else best

    return body


@faier.program(inputs=faier.grid(3, 2))
def svt(q, ctx):  # type: ignore[no-untyped-def]
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out = []
    for answer in q:
        if answer + ctx.draw(faier.laplace(0, 4)) >= threshold:
            out.append(True)
            break
        out.append(False)
    return tuple(out)


@faier.program(inputs=faier.grid(2, 2))
def histogram(q, ctx):  # type: ignore[no-untyped-def]
    return tuple(a + ctx.draw(faier.laplace(0, 1)) for a in q)


def _problem(mechanism, relation=None) -> Problem:  # type: ignore[no-untyped-def]
    return Problem(mechanism.name, mechanism, DifferentialPrivacy(relation or EveryQuery(1)))


def test_noisy_max_is_proved_for_every_input_with_cvc5_agreeing() -> None:
    result = faier.verify(_problem(_noisy_max(Fraction(2))), "1", engine="alignment")
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None and result.proof.scope == "all inputs"
    assert result.to_json()["scope"] == "all inputs"
    assert result.proof.data["largest_cost"] == "1"
    assert "cvc5" in result.proof.data["solvers"]


def test_sparse_vector_and_histogram_are_proved() -> None:
    assert faier.verify(_problem(svt), "1", engine="alignment").verdict is Verdict.HOLDS
    one = _problem(histogram, OneQuery(1))
    assert faier.verify(one, "1", engine="alignment").verdict is Verdict.HOLDS


def test_the_histogram_under_every_query_neighbours_needs_twice_the_budget() -> None:
    result = faier.verify(_problem(histogram), "1", engine="alignment")
    assert result.verdict is Verdict.VIOLATED  # ε* = 2 at [0,0] vs [1,1]
    assert result.proof is None
    assert result.certified_witness is not None


def test_released_maximum_is_refuted_by_the_certified_engine() -> None:
    result = faier.verify(_problem(_noisy_max(Fraction(2), True)), "1", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    assert result.certified_witness is not None
    assert "no alignment" in result.method


def test_a_claim_below_the_proof_is_not_proved() -> None:
    result = faier.verify(_problem(_noisy_max(Fraction(2))), "1/2", engine="alignment")
    assert result.verdict is not Verdict.HOLDS


def test_epsilon_is_refused() -> None:
    with pytest.raises(faier.errors.SpecError, match="computes no ε"):
        faier.epsilon(_problem(svt), engine="alignment")


def test_auto_adds_the_proof_to_a_claim_that_holds_on_the_grid() -> None:
    result = faier.verify(_problem(svt), "1")
    assert result.verdict is Verdict.HOLDS
    assert "grid" in result.privacy  # the certified engine's verdict, scope widened
    assert result.proof is not None and result.to_json()["scope"] == "all inputs"
    assert result.proof.data["queries"] == "every n"


def test_auto_keeps_the_grid_verdict_when_the_proof_would_take_long() -> None:
    @faier.program(inputs=faier.grid(6, 1))
    def long_max(q, ctx):  # type: ignore[no-untyped-def]
        noisy = [a + ctx.draw(faier.laplace(0, 2)) for a in q]
        best = 0
        for i in range(1, len(noisy)):
            if noisy[i] > noisy[best]:
                best = i
        return best

    result = faier.verify(_problem(long_max), "1")  # 32 paths: more than auto tries
    assert result.verdict is Verdict.HOLDS
    assert result.proof is None
