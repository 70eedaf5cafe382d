"""Gaussian noise in the certified engine, against scipy quad and the normal CDF.

Every ball the engine computes must contain the value scipy integrates
independently (within quad's own error estimate); verdicts at a claimed
(ε, δ) are pinned against δ(ε) brute-forced from those quad values.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from collections.abc import Callable, Hashable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import ndtr
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.core.budget import Budget
from faier.engines.certified import engine, intervals
from faier.examples.registry import find_example
from faier.results import Verdict

runner = CliRunner()
SIGMA = 2.0


def _table(name: str, settings: dict[str, str]) -> intervals.BallTable:
    example = find_example(name)
    assert example is not None
    table = engine._table(example.problem(settings), Budget(None, None))
    assert isinstance(table, intervals.BallTable)
    return table


def _contains(ball: Any, value: float, error: float) -> bool:
    return float(ball.lower()) - error - 1e-15 <= value <= float(ball.upper()) + error + 1e-15


def _quad(f: Callable[[float], float]) -> tuple[float, float]:
    value, error = integrate.quad(f, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-13, limit=200)
    return float(value), float(error)


def pdf(t: float, mean: float, sigma: float) -> float:
    return math.exp(-(((t - mean) / sigma) ** 2) / 2) / (sigma * math.sqrt(2 * math.pi))


def cdf(t: float, mean: float, sigma: float) -> float:
    return float(ndtr((t - mean) / sigma))


def argmax_gaussian(q: tuple[int, ...]) -> list[tuple[float, float]]:
    """Pr[argmax = k] = ∫ φ(t − q_k) Π_{j≠k} Φ(t − q_j) dt (σ = 2) by quad, with its error."""
    out = []
    for k in range(len(q)):

        def f(t: float, k: int = k) -> float:
            value = pdf(t, q[k], SIGMA)
            for j in range(len(q)):
                if j != k:
                    value *= cdf(t, q[j], SIGMA)
            return value

        out.append(_quad(f))
    return out


@pytest.fixture(scope="module")
def reference() -> dict[tuple[int, ...], list[tuple[float, float]]]:
    """Noisy Max's output probabilities on {0,1,2}³ by quad, with their errors."""
    return {x: argmax_gaussian(x) for x in itertools.product(range(3), repeat=3)}


@pytest.mark.parametrize(("n", "count"), [(3, 27), (4, 12)])
def test_noisy_max_probabilities_contain_quad(
    n: int, count: int, reference: dict[tuple[int, ...], list[tuple[float, float]]]
) -> None:
    """n = 3: each path a star; n = 4: the chains of each output merged into one star."""
    table = _table("noisy-max-gaussian", {"n": str(n)})
    assert ("merged" in table.method) is (n == 4)
    for x, dist in list(zip(table.inputs, table.values, strict=True))[:count]:
        assert isinstance(x, tuple)
        expected = reference[x] if n == 3 else argmax_gaussian(x)
        for k, (value, error) in enumerate(expected):
            assert _contains(dist[k + 1], value, error), (x, k, dist[k + 1], value)
            assert float(dist[k + 1].rad()) < 1e-15


def test_sparse_vector_probabilities_contain_quad() -> None:
    """SVT (cutoff 1): Pr[⊥…⊥⊤] = ∫ φ_T(t − 1) Π_{i<k} Φ_q(t − q_i)·(1 − Φ_q(t − q_k)) dt."""
    table = _table("svt-gaussian", {"n": "3"})
    for x, dist in list(zip(table.inputs, table.values, strict=True))[::4]:
        assert isinstance(x, tuple)
        for output, ball in dist.items():
            assert isinstance(output, tuple)

            def f(t: float, out: tuple[Hashable, ...] = output, x: Any = x) -> float:
                value = pdf(t, 1, 2)
                for q, top in zip(x, out, strict=False):
                    below = cdf(t, q, 4)
                    value *= (1 - below) if top else below
                return value

            value, error = _quad(f)
            assert _contains(ball, value, error), (x, output, ball, value)


def _pairs(reference: dict[tuple[int, ...], list[float]]) -> list[tuple[list[float], list[float]]]:
    out = []
    for x in reference:
        for step in itertools.product((-1, 0, 1), repeat=3):
            y = tuple(a + s for a, s in zip(x, step, strict=True))
            if any(step) and y in reference:
                out.append((reference[x], reference[y]))
    return out


@pytest.fixture(scope="module")
def reference_pairs(
    reference: dict[tuple[int, ...], list[tuple[float, float]]],
) -> list[tuple[list[float], list[float]]]:
    return _pairs({x: [v for v, _ in values] for x, values in reference.items()})


def _delta(pairs: list[tuple[list[float], list[float]]], eps: float) -> float:
    return max(
        sum(max(0.0, a - math.exp(eps) * b) for a, b in zip(p, q, strict=True)) for p, q in pairs
    )


def test_noisy_max_verdicts_at_n3(reference_pairs: list[tuple[list[float], list[float]]]) -> None:
    """Pure ε* ≈ 1.0799677 and δ(1/2) ≈ 0.1490135 from quad; verdicts on both sides."""
    star = max(math.log(a / b) for p, q in reference_pairs for a, b in zip(p, q, strict=True))
    assert star == pytest.approx(1.0799676730937, rel=1e-10)
    result = faier.epsilon("noisy-max-gaussian", settings={"n": "3"})
    assert result.enclosure is not None
    assert result.enclosure.lower - 1e-12 <= star <= result.enclosure.upper + 1e-12
    assert result.enclosure.upper - result.enclosure.lower < 1e-9
    assert faier.verify("noisy-max-gaussian", "1.08", settings={"n": "3"}).verdict is Verdict.HOLDS
    low = faier.verify("noisy-max-gaussian", "1.079", settings={"n": "3"})
    assert low.verdict is Verdict.VIOLATED and low.certified_witness is not None
    assert low.certified_witness.ratio.lower > math.exp(1.079)

    delta = _delta(reference_pairs, 0.5)
    assert delta == pytest.approx(0.14901353053360, rel=1e-9)
    holds = faier.verify("noisy-max-gaussian", "0.5", settings={"n": "3"}, delta="0.1491")
    assert holds.verdict is Verdict.HOLDS
    fails = faier.verify("noisy-max-gaussian", "0.5", settings={"n": "3"}, delta="0.149")
    assert fails.verdict is Verdict.VIOLATED
    w = fails.certified_witness
    assert w is not None and w.p.lower - math.exp(0.5) * w.q.upper > 0.149


def test_least_epsilon_for_delta(reference_pairs: list[tuple[list[float], list[float]]]) -> None:
    result = faier.epsilon("noisy-max-gaussian", settings={"n": "3"}, delta="0.01")
    e = result.enclosure
    assert e is not None and result.exit_code == 0
    assert 0 < e.upper - e.lower < 1e-9 * e.upper
    assert _delta(reference_pairs, e.lower - 1e-7) > 0.01 > _delta(reference_pairs, e.upper + 1e-7)
    assert e.lower == pytest.approx(1.0495084655, rel=1e-9)


def _analytic(mu: float, eps: float) -> float:
    """Balle and Wang 2018, Thm 8, in scipy."""
    return float(
        stats.norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * stats.norm.cdf(-mu / 2 - eps / mu)
    )


def test_gaussian_mechanism_delta_against_scipy() -> None:
    """σ = 2, one-query neighbours: μ = 1/2; δ(1) by the formula and by integrating
    max(0, p − e·q) over the line."""
    by_formula = _analytic(0.5, 1.0)
    by_quad, _ = _quad(lambda v: max(0.0, pdf(v, 1, 2) - math.e * pdf(v, 0, 2)))
    assert by_formula == pytest.approx(by_quad, rel=1e-8)
    assert by_formula == pytest.approx(0.006829594983114575, rel=1e-12)
    settings = {"n": "3"}
    holds = faier.verify("histogram-gaussian", "1", settings=settings, delta="0.00683")
    assert holds.verdict is Verdict.HOLDS
    fails = faier.verify("histogram-gaussian", "1", settings=settings, delta="0.00682")
    assert fails.verdict is Verdict.VIOLATED and fails.certified_witness is not None
    assert fails.certified_witness.p.lower == pytest.approx(stats.norm.cdf(0.25 - 2), rel=1e-12)
    least = faier.epsilon("histogram-gaussian", settings=settings, delta="1e-5")
    e = least.enclosure
    assert e is not None and e.upper - e.lower < 1e-9
    assert _analytic(0.5, e.lower) > 1e-5 > _analytic(0.5, e.upper)
    # a larger grid step: answers 0..2 with σ = 1/2 gives μ = 2
    wide = faier.epsilon("histogram-gaussian", settings={"n": "2", "sigma": "1/2"}, delta="1e-5")
    assert wide.enclosure is not None
    assert _analytic(2.0, wide.enclosure.lower) > 1e-5 > _analytic(2.0, wide.enclosure.upper)


def test_gaussian_mechanism_has_no_pure_epsilon() -> None:
    result = faier.epsilon("histogram-gaussian", settings={"n": "2"})
    assert result.enclosure is not None and math.isinf(result.enclosure.lower)
    assert result.exit_code == 0
    verdict = faier.verify("histogram-gaussian", "3", settings={"n": "2"})
    assert verdict.verdict is Verdict.VIOLATED
    w = verdict.certified_witness
    assert w is not None and w.measure == "density" and w.ratio.lower > math.exp(3)


def test_cli_verify_and_epsilon_with_delta() -> None:
    base = ["--set", "n=3"]
    ok = runner.invoke(
        app, ["verify", "noisy-max-gaussian", *base, "--epsilon", "0.5", "--delta", "0.1491"]
    )
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(
        app, ["verify", "noisy-max-gaussian", *base, "--epsilon", "0.5", "--delta", "0.149"]
    )
    assert bad.exit_code == 1, bad.output
    out = runner.invoke(app, ["epsilon", "noisy-max-gaussian", *base, "--delta", "0.01", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    star = data["epsilon_star"]
    assert data["delta"] == "1/100"
    assert star["lower"] <= star["upper"] and star["upper"] - star["lower"] < 1e-9
    laplace = runner.invoke(app, ["epsilon", "svt-laplace", *base, "--delta", "0.01", "--json"])
    assert laplace.exit_code == 0, laplace.output
    assert json.loads(laplace.output)["epsilon_star"]["lower"] < 0.4240314464886281


def test_laplace_threshold_with_gaussian_queries_against_quad() -> None:
    """Mixed noise: Lap(0, 2) threshold, N(0, 2²) queries; every output against quad."""

    def body(ctx: Any) -> Any:
        t = ctx.draw(faier.laplace(0, 2))
        return tuple(q + ctx.draw(faier.gaussian(0, 2)) >= t for q in (0, 1, 3))

    dist = _one_input_table(body)
    assert len(dist) == 8
    for output, ball in dist.items():

        def f(t: float, output: Any = output) -> float:
            value = math.exp(-abs(t) / 2) / 4
            for q, top in zip((0, 1, 3), output, strict=True):
                below = cdf(t, q, 2)
                value *= (1 - below) if top else below
            return value

        parts = [
            integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-13) for a, b in ((-80, 0), (0, 80))
        ]
        value, error = sum(v for v, _ in parts), sum(e for _, e in parts)
        assert _contains(ball, value, error), (output, ball, value)


@pytest.mark.parametrize(("name", "n"), [("svt-laplace", 3), ("noisy-max-exponential", 4)])
def test_integrals_agree_with_closed_forms(name: str, n: int) -> None:
    """Laplace/exponential paths integrated by acb.integral overlap their exact closed forms."""
    import flint

    from faier.engines.certified import balls, gaussian

    example = find_example(name)
    assert example is not None
    mechanism = example.problem({"n": str(n)}).mechanism
    budget = Budget(None, None)
    exact = engine.build_table(mechanism, budget)  # type: ignore[arg-type]
    assert isinstance(exact, engine.Table)
    runs = engine._runs(mechanism, budget)  # type: ignore[arg-type]
    integrated = gaussian.ball_table(name, exact.inputs, runs, budget)
    with balls.precision(128):
        for closed, dist in zip(exact.exact, integrated.values, strict=True):
            for output, value in closed.items():
                assert dist[output].overlaps(balls.ball(value))
                assert dist[output].rad() < flint.arb(1e-15)


def test_unsupported_shapes_are_unknown_with_the_reason(tmp_path: Path) -> None:
    source = tmp_path / "sum.py"
    source.write_text(
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(2, 1))\n"
        "def sums(x, ctx):\n"
        "    a = ctx.draw(faier.gaussian(0, 2))\n"
        "    return x[0] + a + ctx.draw(faier.gaussian(0, 2)) >= 1\n"
    )
    result = faier.verify(str(source), "1")
    assert result.verdict is Verdict.UNKNOWN and "not a difference" in (result.reason or "")
    released = tmp_path / "value.py"
    released.write_text(
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(2, 1))\n"
        "def value(x, ctx):\n"
        "    a = x[0] + ctx.draw(faier.gaussian(0, 2))\n"
        "    b = x[1] + ctx.draw(faier.gaussian(0, 2))\n"
        "    return a if a >= b else b\n"
    )
    answer = faier.epsilon(str(released), delta="0.01")
    assert answer.exit_code == 3 and "under branches" in (answer.reason or "")


def test_interval_decisions_refine_and_stay_sound() -> None:
    """A ratio whose ball straddles e^ε is refined, then unknown; never a verdict from overlap."""
    import flint

    from faier.core.problem import Problem
    from faier.mechanisms.inputs import grid
    from faier.mechanisms.program import Program
    from faier.privacy.budget import Epsilon
    from faier.privacy.neighbours import EveryQuery
    from faier.privacy.specs import DifferentialPrivacy

    program: Program[Any] = Program(name="hand", body=lambda x, ctx: 0, inputs=grid(1, 1))
    problem = Problem("hand", program, DifferentialPrivacy(EveryQuery(1)))
    asked: list[int] = []

    def loose(bits: int) -> intervals.BallTable:
        """Pr[a] = 0.6 ± 0.01 on one input, 0.4 ± 0.01 on the other, at any precision."""
        asked.append(bits)
        p, q = flint.arb("0.6 +/- 0.01"), flint.arb("0.4 +/- 0.01")
        values = ({"a": p, "b": 1 - p}, {"a": q, "b": 1 - q})
        return intervals.BallTable(((0,), (1,)), ("a", "b"), values, "hand", bits, loose)

    table = loose(64)
    asked.clear()
    budget = Budget(None, None)
    # the ratio 1.5 ± 0.06 straddles e^ln(3/2): every precision is tried, then unknown
    answer = intervals.verify(problem, Epsilon.parse("ln(3/2)"), table, budget)
    assert answer.verdict is Verdict.UNKNOWN and asked == list(intervals.LADDER[1:])
    assert intervals.verify(problem, Epsilon.parse("1/2"), table, budget).verdict is Verdict.HOLDS
    low = intervals.verify(problem, Epsilon.parse("1/4"), table, budget)
    assert low.verdict is Verdict.VIOLATED
    star = intervals.epsilon(problem, table, budget).enclosure
    assert star is not None and star.lower < math.log(1.5) < star.upper
    # δ(0) is the total variation 0.2 ± 0.02: undecided at 1/5, decided at 1/4 and 1/10
    for delta, verdict in ((5, Verdict.UNKNOWN), (4, Verdict.HOLDS), (10, Verdict.VIOLATED)):
        result = intervals.verify_delta(
            problem, Epsilon.parse("0"), Fraction(1, delta), table, budget
        )
        assert result.verdict is verdict


def test_ranking_is_unknown_not_merged(tmp_path: Path) -> None:
    """A full ranking's paths are chains whose per-output stars coincide: not an argmax."""
    source = tmp_path / "rank.py"
    source.write_text(
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(3, 1))\n"
        "def ranking(x, ctx):\n"
        "    noisy = [q + ctx.draw(faier.gaussian(0, 2)) for q in x]\n"
        "    order = [0, 1, 2]\n"
        "    for i in range(3):\n"
        "        for j in range(2 - i):\n"
        "            if noisy[order[j]] < noisy[order[j + 1]]:\n"
        "                order[j], order[j + 1] = order[j + 1], order[j]\n"
        "    return tuple(order)\n"
    )
    result = faier.epsilon(str(source))
    assert result.exit_code == 3 and "overlap" in (result.reason or "")


def _one_input_table(body: Callable[[Any], Any]) -> dict[Hashable, Any]:
    from faier.engines.certified import gaussian, symbolic

    run = list(symbolic.paths(body))
    table = gaussian.ball_table("property", ((0,),), [run], Budget(None, None))
    return table.values[0]


@settings(max_examples=10, deadline=None)
@given(
    q=st.lists(st.integers(0, 3), min_size=4, max_size=4),
    sigma=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(3)]),
)
def test_argmax_merge_against_quad(q: list[int], sigma: Fraction) -> None:
    def body(ctx: Any) -> Any:
        noisy = [v + ctx.draw(faier.gaussian(0, sigma)) for v in q]
        best = 0
        for i in range(1, len(noisy)):
            if noisy[i] > noisy[best]:
                best = i
        return best

    dist = _one_input_table(body)
    s = float(sigma)
    for k in range(len(q)):

        def f(t: float, k: int = k) -> float:
            value = pdf(t, q[k], s)
            for j in range(len(q)):
                if j != k:
                    value *= cdf(t, q[j], s)
            return value

        value, error = _quad(f)
        assert _contains(dist[k], value, error), (q, sigma, k, dist[k], value)


@settings(max_examples=10, deadline=None)
@given(
    q=st.lists(st.integers(-2, 3), min_size=3, max_size=3),
    noisy=st.lists(st.booleans(), min_size=3, max_size=3),
    extra=st.lists(st.none() | st.integers(-1, 2), min_size=3, max_size=3),
    threshold=st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1)]),
    sigmas=st.sampled_from([(Fraction(1), Fraction(2)), (Fraction(2), Fraction(1, 2))]),
)
@example(  # a leaf's bounds switch at t = 1: the reference quad must split there too
    q=[0, 0, -2],
    noisy=[False, False, True],
    extra=[None, None, 1],
    threshold=Fraction(0),
    sigmas=(Fraction(2), Fraction(1, 2)),
)
def test_threshold_stars_against_quad(
    q: list[int],
    noisy: list[bool],
    extra: list[int | None],
    threshold: Fraction,
    sigmas: tuple[Fraction, Fraction],
) -> None:
    """Queries (noisy or not) against a noisy threshold and, some, against a public constant:
    leaves with bounds that switch between t + offset and a constant, centre boxes."""
    s_t, s_q = sigmas

    def body(ctx: Any) -> Any:
        t = threshold + ctx.draw(faier.gaussian(0, s_t))
        out: list[Any] = []
        for value, has_noise, c in zip(q, noisy, extra, strict=True):
            v = value + ctx.draw(faier.gaussian(0, s_q)) if has_noise else Fraction(value)
            above = v >= t
            out.append(above if c is None else (above, v >= c))
        return tuple(out)

    dist = _one_input_table(body)
    total = 0.0
    for output, ball in dist.items():

        def f(t: float, output: Any = output) -> float:
            value = pdf(t, float(threshold), float(s_t))
            for bit, v, has_noise, c in zip(output, q, noisy, extra, strict=True):
                above, beyond = (bit, None) if c is None else bit
                low, high = -math.inf, math.inf
                if above:
                    low = max(low, t - v)
                else:
                    high = min(high, t - v)
                if c is not None:
                    if beyond:
                        low = max(low, c - v)
                    else:
                        high = min(high, c - v)
                if has_noise:
                    value *= max(0.0, cdf(high, 0, float(s_q)) - cdf(low, 0, float(s_q)))
                elif not low <= 0 <= high:
                    return 0.0
            return value

        centre, spread = float(threshold), 14 * float(s_t)
        marks = sorted({float(v) for v in q} | {float(c) for c in extra if c is not None})
        edges = [centre - spread, *[m for m in marks if abs(m - centre) < spread], centre + spread]
        value = error = 0.0
        for a, b in itertools.pairwise(edges):
            part, err = integrate.quad(f, a, b, epsabs=1e-13, epsrel=1e-12, limit=200)
            value, error = value + part, error + err
        total += value
        assert _contains(ball, value, error + 1e-12), (output, ball, value)
    assert total == pytest.approx(1.0, abs=1e-9)


@functools.cache
def laplace_table(name: str) -> tuple[Any, intervals.BallTable, float, Any]:
    """An exact table at n = 3 as balls, its exact ε*, and float p, q per pair (for δ)."""
    example = find_example(name)
    assert example is not None
    problem = example.problem({"n": "3"})
    table = engine._table(problem, Budget(None, None))
    assert isinstance(table, engine.Table)
    balls_table = intervals.from_exact(table.inputs, table.outputs, table.exact, name)
    star = engine.epsilon(problem, Budget(None, None)).enclosure
    assert star is not None
    s = engine.screen(table, problem)
    p, q = s.values[s.pairs[:, 0]], s.values[s.pairs[:, 1]]
    return problem, balls_table, star.middle, (p, q)


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["svt-laplace", "isvt2-laplace"]),
    eps=st.fractions(Fraction(0), Fraction(3, 2), max_denominator=1000),
    delta=st.fractions(Fraction(0), Fraction(1, 5), max_denominator=10_000),
)
def test_interval_decisions_agree_with_exact_ones(
    name: str, eps: Fraction, delta: Fraction
) -> None:
    """The ball layer on exact closed forms agrees with the exact ε* and δ(ε)."""
    from faier.privacy.budget import Epsilon

    problem, table, star, (p, q) = laplace_table(name)
    budget = Budget(None, None)
    claim = Epsilon.parse(str(eps))
    pure = intervals.verify(problem, claim, table, budget).verdict
    if abs(float(eps) - star) > 1e-9:
        assert pure is (Verdict.HOLDS if float(eps) > star else Verdict.VIOLATED)
    gap = float(np.maximum(p - math.exp(float(eps)) * q, 0.0).sum(axis=1).max())
    approx = intervals.verify_delta(problem, claim, delta, table, budget).verdict
    if abs(gap - float(delta)) > 1e-9:
        assert approx is (Verdict.HOLDS if gap < float(delta) else Verdict.VIOLATED)
    least = intervals.epsilon_delta(problem, delta, table, budget).enclosure
    assert least is not None
    if gap > float(delta) + 1e-9:
        assert least.lower > float(eps) - 1e-12
    elif gap < float(delta) - 1e-9:
        assert least.upper <= float(eps) + 1e-9
