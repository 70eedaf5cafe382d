"""Closed forms against independent numeric integration (scipy quad) and their own identities."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

import faier
from faier.engines.certified.exppoly import ExpSum, Piecewise, density
from faier.engines.certified.integrate import probability
from faier.engines.certified.symbolic import paths

B = Fraction(20, 7)


def lap_pdf(t: float, b: float) -> float:
    return math.exp(-abs(t) / b) / (2 * b)


def lap_cdf(t: float, b: float) -> float:
    return 0.5 * math.exp(t / b) if t < 0 else 1 - 0.5 * math.exp(-t / b)


def exp_pdf(t: float, b: float) -> float:
    return math.exp(-t / b) / b if t >= 0 else 0.0


def exp_cdf(t: float, b: float) -> float:
    return 1 - math.exp(-t / b) if t >= 0 else 0.0


def quad(f, breaks) -> float:  # type: ignore[no-untyped-def]
    """∫_ℝ f split at the kinks (the tails to ±∞)."""
    points = sorted(set(breaks))
    edges = [-math.inf, *points, math.inf]
    return sum(
        integrate.quad(f, a, b, epsabs=1e-15, epsrel=1e-13, limit=200)[0]
        for a, b in itertools.pairwise(edges)
    )


def argmax_reference(q: tuple[int, ...], noise: str) -> list[float]:
    """Pr[argmax = i] = ∫ f(t − q_i) Π_{j≠i} F(t − q_j) dt: the star formula, not paths."""
    b = float(B)
    pdf, cdf = (lap_pdf, lap_cdf) if noise == "laplace" else (exp_pdf, exp_cdf)
    out = []
    for i in range(len(q)):

        def f(t: float, i: int = i) -> float:
            value = pdf(t - q[i], b)
            for j in range(len(q)):
                if j != i:
                    value *= cdf(t - q[j], b)
            return value

        out.append(quad(f, [float(v) for v in q]))
    return out


def closed_form_argmax(q: tuple[int, ...], noise: str) -> dict[int, ExpSum]:
    draw = faier.laplace(0, B) if noise == "laplace" else faier.exponential(B)

    def body(ctx):  # type: ignore[no-untyped-def]
        noisy = [v + ctx.draw(draw) for v in q]
        best = 0
        for i in range(1, len(noisy)):
            if noisy[i] > noisy[best]:
                best = i
        return best

    out: dict[int, ExpSum] = {}
    for path in paths(body):
        value = probability(path.noise, path.constraints)
        out[path.output] = out.get(path.output, ExpSum(())) + value
    return out


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("q", [(0, 1, 2), (2, 2, 0), (1, 1, 1), (0, 2, 1, 2)])
def test_noisy_max_closed_forms_match_numeric_integration(q: tuple[int, ...], noise: str) -> None:
    exact = closed_form_argmax(q, noise)
    assert sum((v for v in exact.values()), ExpSum(())) == ExpSum.rational(1)
    reference = argmax_reference(q, noise)
    for i, value in enumerate(reference):
        assert exact.get(i, ExpSum(())).approx() == pytest.approx(value, rel=1e-9, abs=1e-13)


def test_two_laplace_draws_compare_by_symmetry() -> None:
    def body(ctx):  # type: ignore[no-untyped-def]
        return ctx.draw(faier.laplace(0, 3)) > ctx.draw(faier.laplace(0, Fraction(1, 2)))

    found = {p.output: probability(p.noise, p.constraints) for p in paths(body)}
    assert found[True] == ExpSum.rational(Fraction(1, 2))


def test_laplace_tail_is_its_closed_form() -> None:
    def body(ctx):  # type: ignore[no-untyped-def]
        return ctx.draw(faier.laplace(1, 2)) >= 4

    found = {p.output: probability(p.noise, p.constraints) for p in paths(body)}
    assert found[True] == ExpSum.exp(Fraction(-3, 2)).scaled(Fraction(1, 2))


def test_sparse_vector_matches_numeric_integration() -> None:
    """SVT with cutoff 1: Pr[⊥…⊥⊤ at k] = ∫ f₀(z) Π_{i<k} F(T+z−qᵢ) (1 − F(T+z−q_k)) dz."""
    from faier.mechanisms.library.statdp import sparse

    q, threshold = (0, 2, 1), Fraction(1)
    program = sparse("svt", 3, 2, Fraction(7, 10), cutoff=1, threshold=threshold)
    exact: dict[object, ExpSum] = {}
    for path in paths(lambda ctx: program.body(q, ctx)):
        exact[path.output] = exact.get(path.output, ExpSum(())) + probability(
            path.noise, path.constraints
        )
    bt, bq = 2 / 0.7, 4 / 0.7
    for k in range(len(q) + 1):

        def f(z: float, k: int = k) -> float:
            value = lap_pdf(z, bt)
            for i in range(min(k, len(q))):
                value *= lap_cdf(1 + z - q[i], bq)
            if k < len(q):
                value *= 1 - lap_cdf(1 + z - q[k], bq)
            return value

        output = tuple([False] * k + ([True] if k < len(q) else []))
        assert exact[output].approx() == pytest.approx(quad(f, [0.0, -1.0, 1.0]), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.fractions(min_value=-3, max_value=3, max_denominator=5),
    st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=5),
    st.fractions(min_value=-3, max_value=3, max_denominator=5),
)
def test_cumulative_of_a_density_is_its_cdf(loc: Fraction, scale: Fraction, at: Fraction) -> None:
    cdf = density("laplace", loc, scale).cumulative()
    value = cdf.pieces[cdf.piece_index(at)]
    from faier.engines.certified.exppoly import piece_at

    assert piece_at(value, at).approx() == pytest.approx(
        lap_cdf(float(at - loc), float(scale)), rel=1e-12
    )
    assert density("laplace", loc, scale).total() == ExpSum.rational(1)
    assert density("exponential", loc, scale).total() == ExpSum.rational(1)


def test_indicator_and_shift_compose() -> None:
    box = Piecewise.indicator(Fraction(0), Fraction(2))
    assert box.combine(density("exponential", Fraction(0), Fraction(1))).total() == (
        ExpSum.rational(1) - ExpSum.exp(Fraction(-2))
    )
    shifted = density("laplace", Fraction(0), Fraction(1)).shift(Fraction(3))
    assert shifted.at(Fraction(-3)) == ExpSum.rational(Fraction(1, 2))
    assert float(np.float64(shifted.total().approx())) == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(
    st.fractions(min_value=-2, max_value=2, max_denominator=4),
    st.fractions(min_value=Fraction(1, 2), max_value=3, max_denominator=4),
    st.fractions(min_value=-2, max_value=2, max_denominator=4),
    st.fractions(min_value=Fraction(1, 2), max_value=3, max_denominator=4),
    st.fractions(min_value=-3, max_value=3, max_denominator=4),
    st.sampled_from(["laplace", "exponential"]),
)
def test_difference_of_two_noises_against_quad(
    loc_x: Fraction, scale_x: Fraction, loc_y: Fraction, scale_y: Fraction, c: Fraction, kind: str
) -> None:
    """Pr[X − Y ≥ c] = ∫ f_X(x)·F_Y(x − c) dx, for Laplace X and Laplace or exponential Y."""
    other = (
        faier.laplace(loc_y, scale_y) if kind == "laplace" else faier.exponential(scale_y, loc_y)
    )

    def body(ctx):  # type: ignore[no-untyped-def]
        return ctx.draw(faier.laplace(loc_x, scale_x)) - ctx.draw(other) >= c

    found = {p.output: probability(p.noise, p.constraints) for p in paths(body)}
    cdf = lap_cdf if kind == "laplace" else exp_cdf

    def f(x: float) -> float:
        return lap_pdf(x - float(loc_x), float(scale_x)) * cdf(
            x - float(c) - float(loc_y), float(scale_y)
        )

    expected = quad(f, [float(loc_x), float(c + loc_y)])
    assert found.get(True, ExpSum(())).approx() == pytest.approx(expected, rel=1e-8, abs=1e-12)
    assert (found.get(True, ExpSum(())) + found.get(False, ExpSum(()))) == ExpSum.rational(1)


@settings(max_examples=20, deadline=None)
@given(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)),
    st.fractions(min_value=Fraction(1, 4), max_value=2, max_denominator=4),
    st.fractions(min_value=-1, max_value=3, max_denominator=2),
)
def test_sparse_vector_paths_against_quad(
    q: tuple[int, int, int], eps0: Fraction, t: Fraction
) -> None:
    """Every output of SVT (cutoff 1) at random ε₀, threshold and answers, against quad."""
    from faier.mechanisms.library.statdp import sparse

    program = sparse("svt", 3, 3, eps0, cutoff=1, threshold=t)
    exact: dict[object, ExpSum] = {}
    for path in paths(lambda ctx: program.body(q, ctx)):
        exact[path.output] = exact.get(path.output, ExpSum(())) + probability(
            path.noise, path.constraints
        )
    assert sum(exact.values(), ExpSum(())) == ExpSum.rational(1)
    bt, bq = float(2 / eps0), float(4 / eps0)
    for k in range(len(q) + 1):

        def f(z: float, k: int = k) -> float:
            value = lap_pdf(z, bt)
            for i in range(min(k, len(q))):
                value *= lap_cdf(float(t) + z - q[i], bq)
            if k < len(q):
                value *= 1 - lap_cdf(float(t) + z - q[k], bq)
            return value

        output = tuple([False] * k + ([True] if k < len(q) else []))
        kinks = [0.0, *(v - float(t) for v in q)]
        assert exact.get(output, ExpSum(())).approx() == pytest.approx(
            quad(f, kinks), rel=1e-8, abs=1e-13
        )


def test_pairs_of_zero_loss_do_not_hide_the_largest_loss() -> None:
    """x[0] + Lap(1) on {0,1}²: neighbours moving x[1] have loss 0, those moving x[0] loss 1
    (the density ratio at v = 0 is e), so ε = 1/2 is violated whichever pair is listed first."""
    from faier.core.problem import Problem
    from faier.privacy.neighbours import EveryQuery
    from faier.privacy.specs import DifferentialPrivacy
    from faier.results import Verdict

    @faier.program(inputs=faier.grid(2, 1))
    def first(x: tuple[int, int], ctx: Any) -> Any:
        return x[0] + ctx.draw(faier.laplace(0, 1))

    sup = max(lap_pdf(v, 1.0) / lap_pdf(v - 1, 1.0) for v in np.linspace(-5, 5, 1001))
    assert sup == pytest.approx(math.e)
    problem = Problem("first", first, DifferentialPrivacy(EveryQuery(1)))
    violated = faier.verify(problem, "1/2")
    assert violated.verdict is Verdict.VIOLATED
    assert violated.certified_witness is not None
    assert violated.certified_witness.ratio.lower > math.exp(0.5)
    assert faier.verify(problem, "1").verdict is Verdict.HOLDS
    star = faier.epsilon(problem).enclosure
    assert star is not None and star.closed_form == "1"


def test_a_claim_the_balls_cannot_tell_from_the_loss_is_unknown_not_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Released numbers (Laplace and integer noise): an undecided e^ε* > e^ε never holds."""
    from faier.core.problem import Problem
    from faier.engines.certified import discrete_shift, engine
    from faier.privacy.neighbours import EveryQuery
    from faier.privacy.specs import DifferentialPrivacy
    from faier.results import Verdict

    @faier.program(inputs=faier.grid(2, 1))
    def laplace_count(x: tuple[int, int], ctx: Any) -> Any:
        return x[0] + ctx.draw(faier.laplace(0, 1))

    @faier.program(inputs=faier.grid(2, 1))
    def integer_count(x: tuple[int, int], ctx: Any) -> Any:
        return x[0] + ctx.draw(faier.discrete_laplace(1))

    monkeypatch.setattr(engine, "loss_exceeds", lambda loss, eps: None)
    monkeypatch.setattr(discrete_shift, "loss_exceeds", lambda loss, eps: None)
    for mechanism in (laplace_count, integer_count):
        problem = Problem(mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)))
        result = faier.verify(problem, "2")
        assert result.verdict is Verdict.UNKNOWN
        assert result.reason is not None and "could not be told apart" in result.reason
