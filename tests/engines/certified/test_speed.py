"""The certified engine's fast paths agree with the slow ones and with brute force."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import faier
from faier.engines.certified import argmax, balls, densities, supremum
from faier.engines.certified.exppoly import ExpSum, Piecewise
from faier.engines.certified.integrate import probability
from faier.engines.certified.symbolic import Path, paths
from faier.mechanisms.program import Program


def _curve(name: str, x: tuple[int, ...], eps0: Fraction) -> Piecewise:
    """The density of the released number of a built-in example on input x (Noisy Max's
    value; iSVT 4's answer when the last query is the first above the threshold)."""
    problem = faier.load_problem(name, settings={"n": str(len(x)), "eps0": str(eps0)})
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    found = densities.line_densities(list(paths(lambda ctx: mechanism.body(x, ctx))))
    curves = [g for _, g in sorted(found.items(), key=lambda kv: len(str(kv[0])))]
    curve = [g for g in curves if isinstance(g, Piecewise)][-1]
    return curve


def _sampled_sup(g: Piecewise, h: Piecewise) -> float:
    """max g/h over a fine grid of rationals, evaluated exactly and rounded."""
    best = 0.0
    for k in range(-1600, 1601):
        v = Fraction(k, 40)
        q = h.at(v)
        if not q.is_zero:
            best = max(best, g.at(v).approx() / q.approx())
    return best


def _enclosed(g: Piecewise, h: Piecewise, start: float) -> tuple[float, float]:
    """(certified lower bound, proved upper bound) of sup g/h, as the engine's ε* loop."""
    threshold = start
    for _ in range(5):
        outcome = supremum.prove_below(g, h, threshold)
        assert not outcome.unbounded
        if outcome.proved:
            return outcome.lower, threshold
        threshold = max(threshold, outcome.lower) * (1 + 5e-10)
    raise AssertionError("the search did not settle")


inputs = st.lists(st.integers(0, 2), min_size=2, max_size=3)
steps = st.lists(st.sampled_from((-1, 0, 1)), min_size=3, max_size=3)
scales = st.sampled_from((Fraction(7, 10), Fraction(1, 2), Fraction(3, 2)))


@settings(max_examples=12, deadline=None)
@given(inputs, steps, scales, st.sampled_from(("noisy-max-laplace-value", "isvt4-laplace")))
def test_supremum_encloses_the_sampled_ratio(
    x: list[int], step: list[int], eps0: Fraction, name: str
) -> None:
    """The proved upper bound is above every sampled ratio, the lower bound below the
    proved one, and a threshold just under a sampled ratio is never proved."""
    y = tuple(a + s for a, s in zip(x, step, strict=False))
    g, h = _curve(name, tuple(x), eps0), _curve(name, y, eps0)
    sampled = _sampled_sup(g, h)
    lower, upper = _enclosed(g, h, sampled)
    assert sampled <= upper * (1 + 1e-12) and lower <= upper
    assert (upper - max(lower, sampled)) / upper <= 1e-9
    assert not supremum.prove_below(g, h, sampled * (1 - 1e-6)).proved


def test_remembered_searches_agree_with_fresh_ones() -> None:
    """A pair met again as a permutation or a shift of one searched before reuses that
    search; the answer is the fresh search's, with its point moved along."""
    supremum._SEARCHED.clear()  # a search's lower bound depends on the points it visited
    eps0 = Fraction(7, 10)
    base = [((0, 1, 2), (1, 1, 1)), ((0, 0, 2), (1, 0, 1)), ((2, 0), (1, 1))]
    for x, y in base:
        g, h = (
            _curve("noisy-max-laplace-value", x, eps0),
            _curve("noisy-max-laplace-value", y, eps0),
        )
        with balls.precision(balls.PRECISIONS[0]):
            fresh = supremum._prove_below(g, h, 3.0, supremum.LIMIT).answer(3.0, 0)
        assert fresh is not None
        for moved_x, moved_y, shift in (
            (x[::-1], y[::-1], 0),
            (tuple(v + 1 for v in x), tuple(v + 1 for v in y), 1),
        ):
            g2 = _curve("noisy-max-laplace-value", moved_x, eps0)
            h2 = _curve("noisy-max-laplace-value", moved_y, eps0)
            supremum.prove_below(g, h, 3.0)
            again = supremum.prove_below(g2, h2, 3.0)
            assert (again.proved, again.lower) == (fresh.proved, fresh.lower)
            if isinstance(fresh.point, Fraction | int) and not isinstance(fresh.point, bool):
                assert again.point == fresh.point + shift
            raised = supremum.prove_below(g2, h2, 4.0)
            assert raised.proved and math.isclose(raised.lower, fresh.lower)


def _run(name: str, x: tuple[int, ...], eps0: Fraction) -> list[Path]:
    problem = faier.load_problem(name, settings={"n": str(len(x)), "eps0": str(eps0)})
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    return list(paths(lambda ctx: mechanism.body(x, ctx)))


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=2, max_size=5),
    scales,
    st.sampled_from(("laplace", "exponential")),
)
def test_argmax_stars_equal_the_sum_over_paths(x: list[int], eps0: Fraction, noise: str) -> None:
    """Each output's star integral is exactly the sum of its paths' integrals, and for the
    released value the merged density is exactly the sum of the paths' densities."""
    run = _run(f"noisy-max-{noise}", tuple(x), eps0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argmax, "MIN_PATHS", 0)
        stars = argmax.merged(run)
        assert stars is not None and len(stars) == len(x)
        summed: dict[object, ExpSum] = {}
        for path in run:
            value = probability(path.noise, path.constraints)
            summed[path.output] = summed.get(path.output, ExpSum(())) + value
        merged = {star.output: probability(star.noise, star.constraints) for star in stars}
        assert merged == summed
        valued = _run(f"noisy-max-{noise}-value", tuple(x), eps0)
        merged_density = densities.line_densities(valued)
        patch.setattr(argmax, "MIN_PATHS", 10**9)
        assert densities.line_densities(valued) == merged_density


def test_sparse_vector_paths_are_not_merged() -> None:
    """SVT's outputs are not argmax events: the merge is refused, paths kept."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argmax, "MIN_PATHS", 0)
        for name in ("isvt1-laplace", "isvt2-laplace", "svt-laplace", "isvt4-laplace"):
            assert argmax.merged(_run(name, (0, 1, 2), Fraction(7, 10))) is None
