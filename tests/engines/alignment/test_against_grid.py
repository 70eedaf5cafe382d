"""A proof for every input never coexists with a larger ε* on the grid (hypothesis).

Random small programs of the supported shape (an argmax, a noisy threshold test,
released noisy answers, a released noisy sum, a sparse vector loop and Noisy Max
as one loop — both proved for every n when proved —, SmartSum with a random block
length and a loop releasing every m-th query — both branching on the loop counter,
a choice in the proof for every n —; Laplace or exponential
noise of a random scale) are given to the alignment engine at a random ε; whenever it
proves the claim, the certified engine's ε* over the grid {0,1}ⁿ (an interval
whose lower end is rounded down) must not exceed that ε, nor, for a proof for
every n, over {0,1}³ where the certified engine decides it; and the program with
its released numbers coarsened (cut at −1 and 0) must not be violated at ε.  About
1–2 s an example, so a few examples only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import faier
from faier.core.problem import Problem
from faier.mechanisms.coarsen import coarsened
from faier.mechanisms.program import Program
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Verdict

SHAPES = ("argmax", "threshold", "release", "sum", "loop", "max_loop", "blocks", "thinned")


def _blocks(noise: Any, m: int) -> Callable[[Any, Any], Any]:
    """SmartSum with block length m: branches on the counter (choices for every n)."""

    def body(q: Any, ctx: Any) -> Any:
        out, following, block = [], 0, 0
        for i in range(len(q)):
            if (i + 1) % m == 0:
                following = block + q[i] + ctx.draw(noise)
                block = 0
            else:
                following = following + q[i] + ctx.draw(noise)
                block = block + q[i]
            out.append(following)
        return tuple(out)

    return body


def _thinned(noise: Any, m: int) -> Callable[[Any, Any], Any]:
    """Every m-th query released: its cost grows with n under every-query neighbours."""

    def body(q: Any, ctx: Any) -> Any:
        out = []
        for i in range(len(q)):
            if i % m == 0:
                out.append(q[i] + ctx.draw(noise))
        return tuple(out)

    return body


def _max_loop(noise: Any) -> Callable[[Any, Any], Any]:
    """Report Noisy Max as one loop (proved for every n by guessing the winner)."""

    def body(q: Any, ctx: Any) -> Any:
        best, top = 0, None
        for i in range(len(q)):
            noisy = q[i] + ctx.draw(noise)
            if i == 0 or noisy > top:
                best, top = i, noisy
        return best

    return body


def _loop(noise: Any, below: Any) -> Callable[[Any, Any], Any]:
    """A sparse vector loop with cutoff 1 (the alignment engine proves it for every n)."""

    def body(q: Any, ctx: Any) -> Any:
        threshold = 1 + ctx.draw(noise)
        out = []
        for i in range(len(q)):
            if q[i] + ctx.draw(below) >= threshold:
                out.append(True)
                break
            out.append(False)
        return tuple(out)

    return body


def _body(shape: str, noise: Any) -> Callable[[Any, Any], Any]:
    def body(q: Any, ctx: Any) -> Any:
        if shape == "argmax":
            best, top = 0, None
            for i in range(len(q)):
                value = q[i] + ctx.draw(noise)
                if i == 0 or value > top:
                    best, top = i, value
            return best
        if shape == "threshold":
            threshold = 1 + ctx.draw(noise)
            return tuple(a + ctx.draw(noise) >= threshold for a in q)
        if shape == "release":
            return tuple(a + ctx.draw(noise) for a in q)
        return sum(q) + ctx.draw(noise)

    return body


@st.composite
def programs(draw: st.DrawFn) -> tuple[Problem, str]:
    shape = draw(st.sampled_from((*SHAPES, "loop", "max_loop")))
    n = draw(st.integers(1, 2))
    scale = draw(st.sampled_from([Fraction(1), Fraction(2), Fraction(3, 2), Fraction(4)]))
    exponential = shape in ("argmax", "max_loop") and draw(st.booleans())
    noise = faier.exponential(scale) if exponential else faier.laplace(0, scale)
    if shape == "blocks":  # longer blocks release sums of noise the grid engine refuses
        body = _blocks(noise, draw(st.integers(1, 2)))
    elif shape == "thinned":
        body = _thinned(noise, draw(st.integers(1, 3)))
    elif shape == "max_loop":
        body = _max_loop(noise)
    elif shape == "loop":
        below = faier.laplace(0, draw(st.sampled_from([Fraction(1), Fraction(2), Fraction(4)])))
        body = _loop(noise, below)
    else:
        body = _body(shape, noise)
    program = faier.program(inputs=faier.grid(n, 1), name=f"{shape}-{n}")(body)
    relation = OneQuery(1) if draw(st.booleans()) else EveryQuery(1)
    claim = draw(st.sampled_from(["1/2", "1", "3/2", "2"]))
    return Problem(program.name, program, DifferentialPrivacy(relation)), claim


@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_a_proof_never_coexists_with_a_larger_grid_epsilon(case: tuple[Problem, str]) -> None:
    problem, claim = case
    result = faier.verify(problem, claim, engine="alignment")
    if result.verdict is not Verdict.HOLDS:
        return
    grid = faier.epsilon(problem, engine="certified")
    assert grid.enclosure is not None
    assert grid.enclosure.lower <= float(Fraction(claim)) * (1 + 1e-12)
    # nor with a violation of its coarsening (the refutation's post-processing)
    assert isinstance(problem.mechanism, Program)
    coarse = Problem(problem.name, coarsened(problem.mechanism, (-1, 0)), problem.privacy)
    assert faier.verify(coarse, claim, engine="certified").verdict is not Verdict.VIOLATED
    if result.proof is not None and result.proof.data["queries"] == "every n":
        # a proof for every n covers 3 queries too, where the grid engine decides it
        longer = replace(problem, mechanism=replace(problem.mechanism, inputs=faier.grid(3, 1)))
        beyond = faier.epsilon(longer, engine="certified")
        if beyond.enclosure is not None:
            assert beyond.enclosure.lower <= float(Fraction(claim)) * (1 + 1e-12)
