"""Discrete Laplace and discrete Gaussian noise: samplers, certified masses, verdicts.

Independent computations: float sums of the unnormalised weights over a wide
window (brute force), the exact engine's truncated geometric mechanism (FAIER
papers §4.1) at α = e^{−1/t} rounded to 40 digits, and the pmf itself for the
samplers.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import discrete_window, lattice
from faier.errors import MechanismError
from faier.privacy.neighbours import EveryQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Verdict

pytest.importorskip("flint")

T = Fraction(10, 7)  # discrete Laplace scale for ε₀ = 0.7


def _weights(kind: str, scale: float, loc: int, span: int = 200) -> dict[int, float]:
    """Brute force: the pmf from float weights over loc ± span (the rest is below 1e-30)."""
    ks = range(loc - span, loc + span + 1)
    if kind == "discrete_laplace":
        w = {k: math.exp(-abs(k - loc) / scale) for k in ks}
    else:
        w = {k: math.exp(-((k - loc) ** 2) / (2 * scale * scale)) for k in ks}
    z = math.fsum(w.values())
    return {k: v / z for k, v in w.items()}


def _contains(ball: Any, value: float, slack: float = 1e-12) -> bool:
    return float(ball.lower()) - slack <= value <= float(ball.upper()) + slack


@pytest.mark.parametrize(
    "dist",
    [
        faier.discrete_laplace(0, T),
        faier.discrete_laplace(3, Fraction(1, 3)),
        faier.discrete_gaussian(0, Fraction(3, 2)),
        faier.discrete_gaussian(-2, 7),
    ],
)
def test_masses_contain_the_brute_force_sums(dist: Any) -> None:
    pmf = _weights(dist.kind, float(dist.scale), int(dist.loc))
    loc = int(dist.loc)
    for low, high in [(loc, loc), (loc - 3, loc + 2), (None, loc - 1), (loc + 2, None)]:
        brute = math.fsum(
            p for k, p in pmf.items() if (low is None or k >= low) and (high is None or k <= high)
        )
        assert _contains(lattice.mass(dist, low, high, 128), brute)
    assert _contains(lattice.mass(dist, None, None, 128), 1.0, 0.0)


def test_the_gaussian_normaliser_is_a_certified_theta_sum() -> None:
    sigma = Fraction(5, 2)
    z = lattice.normaliser(faier.discrete_gaussian(0, sigma), 256)
    exact = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * mpmath.mpf(2.5) ** 2)))
    assert abs(float(z.mid()) - float(exact)) < 1e-14
    assert float(z.rad()) < 1e-60


@pytest.mark.parametrize(
    "dist", [faier.discrete_laplace(1, T), faier.discrete_gaussian(2, Fraction(3, 2))]
)
def test_exact_samplers_follow_the_pmf(dist: Any) -> None:
    rng = np.random.default_rng(7)
    draws = np.array([dist.sample(rng) for _ in range(6000)])
    pmf = _weights(dist.kind, float(dist.scale), int(dist.loc))
    for k in range(int(dist.loc) - 3, int(dist.loc) + 4):
        p = pmf[k]
        assert abs((draws == k).mean() - p) < 5 * math.sqrt(p * (1 - p) / 6000)
    again = np.array([dist.sample(np.random.default_rng(7)) for _ in range(5)])
    assert (again == again[0]).all()  # a seed replays a draw


def test_bad_parameters_are_bad_input() -> None:
    with pytest.raises(MechanismError, match="integer"):
        faier.discrete_laplace(Fraction(1, 2), 1)
    with pytest.raises(MechanismError, match="positive"):
        faier.discrete_gaussian(0, 0)


def _clamped(top: int, scale: Fraction = T) -> faier.Program[Any]:
    @faier.program(inputs=faier.scalars(top))
    def clamped(x: int, ctx: Any) -> Any:
        return min(max(x + ctx.draw(faier.discrete_laplace(0, scale)), 0), top)

    return clamped


def _problem(mechanism: Any) -> Problem:
    return Problem(mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)))


def test_clamped_discrete_laplace_is_the_exact_engines_truncated_geometric() -> None:
    top = 3
    with mpmath.workdps(50):
        alpha = Fraction(mpmath.nstr(mpmath.exp(-mpmath.mpf(7) / 10), 40))
    geometric = faier.load_problem("geometric", settings={"alpha": str(alpha), "m": str(top)})
    table = discrete_window.enclosed_table(_problem(_clamped(top)), 0, 256, Budget())
    assert table.complete  # clamping is followed into both tails: nothing is left over
    for i, x in enumerate(table.inputs):
        exact = geometric.mechanism.output_distribution(x)  # type: ignore[union-attr]
        for output, p in exact.items:
            ball = table.probabilities[i][output]
            assert abs(float(ball.mid()) - float(p)) < 1e-30 and float(ball.rad()) < 1e-60
    star = faier.epsilon(geometric).epsilon_star
    assert star is not None and star.ratio is not None
    ours = faier.epsilon(_problem(_clamped(top)))
    assert ours.enclosure is not None
    assert ours.enclosure.lower <= math.log(star.ratio) <= ours.enclosure.upper
    assert ours.enclosure.upper - ours.enclosure.lower < 1e-15
    assert ours.enclosure.closed_form == "7/10"  # ln(1/α) = 1/t, from the exact numerators


def test_clamped_verdicts_on_both_sides_of_one_over_t() -> None:
    problem = _problem(_clamped(3))
    assert faier.verify(problem, "0.71").verdict is Verdict.HOLDS
    violated = faier.verify(problem, "0.69")
    assert violated.verdict is Verdict.VIOLATED
    assert violated.certified_witness is not None
    assert violated.certified_witness.ratio.lower > math.exp(0.69)


def test_small_programs_against_brute_force() -> None:
    @faier.program(inputs=faier.scalars(2))
    def branchy(x: int, ctx: Any) -> Any:
        k = ctx.draw(faier.discrete_laplace(0, T))
        g = ctx.draw(faier.discrete_gaussian(1, Fraction(3, 2)))
        if x + k > g:  # two noisy integers compared: the tails are not followed
            return "above"
        return "even" if abs(k) == x else "other"

    pl = _weights("discrete_laplace", float(T), 0, 60)
    pg = _weights("discrete_gaussian", 1.5, 1, 60)
    result = discrete_window.ball_table(_problem(branchy), 16, 128, Budget())
    for i, x in enumerate(result.inputs):
        brute: dict[str, float] = {}
        for k, a in pl.items():
            for g, b in pg.items():
                out = "above" if x + k > g else ("even" if abs(k) == x else "other")
                brute[out] = brute.get(out, 0.0) + a * b
        for out, p in brute.items():
            assert _contains(result.values[i][out], p)


def test_released_count_has_the_closed_form_loss() -> None:
    @faier.program(inputs=faier.scalars(3))
    def count(x: int, ctx: Any) -> Any:
        return 2 * x + ctx.draw(faier.discrete_laplace(0, 3))

    result = faier.epsilon(_problem(count))
    assert result.enclosure is not None and result.enclosure.closed_form == "2/3"
    assert faier.verify(_problem(count), "2/3").verdict is Verdict.HOLDS  # the boundary, exactly
    assert faier.verify(_problem(count), "0.66").verdict is Verdict.VIOLATED


def _delta(kind: str, scale: float, shift: int, eps: float) -> float:
    """δ(ε) of the noise against itself shifted, summed directly in floats."""
    pmf = _weights(kind, scale, 0, 400)
    return math.fsum(max(0.0, pmf[k] - math.exp(eps) * pmf.get(k - shift, 0.0)) for k in pmf)


def _gaussian_delta(sigma: float, shift: int, eps: float) -> float:
    return _delta("discrete_gaussian", sigma, shift, eps)


@pytest.mark.parametrize(
    ("kind", "scale", "eps"),
    [
        ("discrete_gaussian", 2, 0.5),
        ("discrete_gaussian", Fraction(3, 2), 1.0),
        ("discrete_gaussian", 5, 0.1),
        ("discrete_laplace", 2, 0.3),
        ("discrete_laplace", Fraction(10, 7), 0.1),
    ],
)
def test_delta_of_a_released_count_against_a_direct_sum(kind: str, scale: Any, eps: float) -> None:
    noise = (
        faier.discrete_gaussian(0, scale)
        if kind == "discrete_gaussian"
        else (faier.discrete_laplace(0, scale))
    )

    @faier.program(inputs=faier.scalars(1))
    def noisy(x: int, ctx: Any) -> Any:
        return x + ctx.draw(noise)

    delta = _delta(kind, float(scale), 1, eps)
    above = faier.verify(_problem(noisy), str(eps), delta=str(delta * (1 + 1e-6)))
    below = faier.verify(_problem(noisy), str(eps), delta=str(delta * (1 - 1e-6)))
    assert above.verdict is Verdict.HOLDS
    assert below.verdict is Verdict.VIOLATED
    pure = faier.epsilon(_problem(noisy))
    assert pure.epsilon_star is not None
    if kind == "discrete_gaussian":  # pure ε: ∞
        assert pure.epsilon_star.infinite
    else:  # discrete Laplace at scale t over ±1: ε* = 1/t exactly
        assert not pure.epsilon_star.infinite
        assert pure.enclosure is not None and pure.enclosure.closed_form == str(1 / Fraction(scale))
        assert pure.epsilon_star.value == pytest.approx(float(1 / Fraction(scale)), rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    st.builds(Fraction, st.integers(1, 60), st.integers(1, 12)),
    st.integers(1, 4),
)
def test_truncated_geometric_epsilon_is_one_over_t(scale: Fraction, top: int) -> None:
    result = faier.epsilon(_problem(_clamped(top, scale)))
    assert result.enclosure is not None
    assert result.enclosure.lower <= float(1 / scale) * (1 + 1e-15)
    assert result.enclosure.upper >= float(1 / scale) * (1 - 1e-15)
    assert result.enclosure.closed_form == str(1 / scale)


def test_unresolved_mass_blocks_holds_but_not_violations() -> None:
    @faier.program(inputs=faier.scalars(1))
    def leaky(x: int, ctx: Any) -> Any:
        k = ctx.draw(faier.discrete_laplace(0, 1))
        return int(k) % 2 == 0 or x == 1  # parity of the tails is not followed

    result = faier.verify(_problem(leaky), "100")  # False is impossible on 1, up to the tails
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason is not None and "could not be followed" in result.reason
    assert faier.verify(_problem(leaky), "0.1").verdict is Verdict.VIOLATED


def test_cli_reaches_the_engine(tmp_path: Path) -> None:
    source = tmp_path / "clamped.py"
    source.write_text(
        "from fractions import Fraction\nimport faier\n\n"
        "@faier.program(inputs=faier.scalars(3))\n"
        "def clamped(x, ctx):\n"
        "    return min(max(x + ctx.draw(faier.discrete_laplace(0, Fraction(10, 7))), 0), 3)\n"
    )
    runner = CliRunner()
    held = runner.invoke(app, ["verify", str(source), "--epsilon", "0.71"])
    assert held.exit_code == 0, held.output
    assert runner.invoke(app, ["verify", str(source), "--epsilon", "0.69"]).exit_code == 1
    boundary = runner.invoke(app, ["verify", str(source), "--epsilon", "0.7"])
    assert boundary.exit_code == 0, boundary.output  # e^ε* = 1/α exactly: decided exactly
    out = runner.invoke(app, ["epsilon", str(source), "--json"])
    star = json.loads(out.output)["epsilon_star"]
    assert star["lower"] <= 0.7 <= star["upper"]


def test_least_epsilon_for_a_delta_against_a_direct_sum() -> None:
    @faier.program(inputs=faier.scalars(2))
    def noisy(x: int, ctx: Any) -> Any:
        return x + ctx.draw(faier.discrete_gaussian(0, 2))

    low, high = 0.0, 5.0
    for _ in range(60):  # the float δ(ε) is decreasing in ε: bisect it
        middle = (low + high) / 2
        low, high = (middle, high) if _gaussian_delta(2.0, 1, middle) > 0.01 else (low, middle)
    result = faier.epsilon(_problem(noisy), delta="0.01")
    assert result.enclosure is not None
    assert result.enclosure.lower - 1e-9 <= low <= result.enclosure.upper + 1e-9
    assert result.enclosure.upper - result.enclosure.lower < 1e-8


@settings(max_examples=20, deadline=None)
@given(
    st.sampled_from(["discrete_laplace", "discrete_gaussian"]),
    st.builds(Fraction, st.integers(1, 40), st.integers(1, 10)),
    st.integers(-3, 3),
    st.integers(0, 4),
    st.integers(-2, 6),
)
def test_window_enclosures_contain_brute_force(
    kind: str, scale: Fraction, low: int, span: int, threshold: int
) -> None:
    """Clamp to [low, low + span], then compare with a threshold: every output's ball holds
    the float sum over the noise's support up to where its weights fall below e^(−60)."""
    high = low + span
    noise = (
        faier.discrete_laplace(0, scale)
        if kind == "discrete_laplace"
        else (faier.discrete_gaussian(0, scale))
    )

    @faier.program(inputs=faier.scalars(2))
    def shaped(x: int, ctx: Any) -> Any:
        v = min(max(x + ctx.draw(noise), low), high)
        return (v, v >= threshold)

    table = discrete_window.enclosed_table(_problem(shaped), 0, 128, Budget())
    assert table.complete and not table.open_paths
    pmf = _weights(kind, float(scale), 0, max(200, int(60 * scale)))
    for i, x in enumerate(table.inputs):
        brute: dict[Any, float] = {}
        for k, p in pmf.items():
            v = min(max(x + k, low), high)
            brute[(v, v >= threshold)] = brute.get((v, v >= threshold), 0.0) + p
        for output, p in brute.items():
            if p > 1e-300:
                assert _contains(table.probabilities[i][output], p, 1e-12 * max(p, 1e-3))


def test_report_noisy_max_with_discrete_laplace_against_brute_force() -> None:
    """Argmax of three counts plus discrete Laplace noise (ties to the first): the noisy
    counts' tails are compared with each other, summed as difference constraints."""
    scale = Fraction(10, 7)

    @faier.program(inputs=faier.grid(3, 1))
    def argmax(x: Any, ctx: Any) -> Any:
        best, index = None, 0
        for i, v in enumerate(x):
            noisy = v + ctx.draw(faier.discrete_laplace(0, scale))
            if best is None or noisy > best:
                best, index = noisy, i
        return index

    pmf = _weights("discrete_laplace", float(scale), 0, 50)
    ks = np.array(list(pmf))
    w = np.array(list(pmf.values()))
    weight = w[:, None, None] * w[None, :, None] * w[None, None, :]
    result = discrete_window.ball_table(_problem(argmax), 0, 128, Budget())
    brute = {}
    for x in result.inputs:
        noisy = np.stack(
            np.broadcast_arrays(
                *(x[i] + np.reshape(ks, [-1 if j == i else 1 for j in range(3)]) for i in range(3))
            )
        )
        winner = np.argmax(noisy, axis=0)  # the first maximal index, as the program
        brute[x] = [float(weight[winner == i].sum()) for i in range(3)]
    for i, x in enumerate(result.inputs):
        for o in range(3):
            assert _contains(result.values[i][o], brute[x][o], 1e-9)
    star = faier.epsilon(_problem(argmax)).enclosure
    assert star is not None and star.upper - star.lower < 1e-12
    pairs = [
        (x, y)
        for x in brute
        for y in brute
        if x != y and max(abs(a - b) for a, b in zip(x, y, strict=True)) <= 1
    ]
    best = max(math.log(brute[x][o] / brute[y][o]) for x, y in pairs for o in range(3))
    assert abs(star.lower - best) < 1e-7


def test_built_in_examples() -> None:
    assert faier.verify("noisy-max-discrete-laplace", "0.7").verdict is Verdict.HOLDS
    assert faier.verify("noisy-max-discrete-laplace", "0.56").verdict is Verdict.VIOLATED
    assert faier.verify("svt-discrete-laplace", "0.7").verdict is Verdict.HOLDS
    count = faier.epsilon("count-discrete-laplace", settings={"eps0": "1/2"}).enclosure
    assert count is not None and count.closed_form == "1/2"
    gaussian = faier.verify("count-discrete-gaussian", "1", delta="0.01")
    assert gaussian.verdict is Verdict.HOLDS


def test_sparse_vector_with_discrete_laplace_against_brute_force() -> None:
    """The built-in svt-discrete-laplace at n = 2, ε₀ = 2 (scales 1 and 2): every query
    is compared with the noisy threshold, a star of difference constraints."""
    problem = faier.load_problem("svt-discrete-laplace", settings={"n": "2", "eps0": "2"})
    table = discrete_window.ball_table(problem, 0, 64, Budget())
    span = 50
    ks = np.arange(-span, span + 1)
    threshold = np.array(list(_weights("discrete_laplace", 1.0, 0, span).values()))
    query = np.array(list(_weights("discrete_laplace", 2.0, 0, span).values()))
    weight = threshold[:, None, None] * query[None, :, None] * query[None, None, :]
    t = 1 + ks[:, None, None]
    for i, x in enumerate(table.inputs):
        first = x[0] + ks[None, :, None] >= t
        second = x[1] + ks[None, None, :] >= t
        brute = {
            (True,): weight[np.broadcast_to(first, weight.shape)].sum(),
            (False, True): weight[np.broadcast_to(~first & second, weight.shape)].sum(),
            (False, False): weight[np.broadcast_to(~first & ~second, weight.shape)].sum(),
        }
        for output, p in brute.items():
            assert _contains(table.values[i][output], float(p), 1e-9)


def test_a_continuous_number_next_to_integer_noise_is_unknown_not_bad_input(
    tmp_path: Path,
) -> None:
    """The engine's own refusal, raised while the program runs, is no fault of the program."""
    path = tmp_path / "mixed.py"
    path.write_text(
        "import faier\n\n\n"
        "@faier.program(inputs=faier.grid(2, 1))\n"
        "def mixed(x, ctx):\n"
        "    count = x[0] + ctx.draw(faier.discrete_laplace(2))\n"
        "    noisy = x[1] + ctx.draw(faier.laplace(0, 2))\n"
        "    return (count >= 1, noisy)\n"
    )
    for args in (["epsilon", str(path)], ["verify", str(path), "--epsilon", "1"]):
        result = CliRunner().invoke(app, [*args, "--json"])
        assert result.exit_code == 3, result.output
        assert "released next to integer noise" in json.loads(result.output)["reason"]


@pytest.mark.parametrize("noise", ["discrete_gaussian", "discrete_laplace"])
def test_a_constant_output_holds_at_epsilon_zero(noise: str) -> None:
    """Clamping to one value: every path ends in it, so its probability is exactly 1
    (a ball around 1 left ε = 0 undecided at 1024 bits under discrete Gaussian noise)."""

    @faier.program(inputs=faier.grid(2, 2))
    def constant(x: tuple[int, int], ctx: Any) -> Any:
        v = x[0] + ctx.draw(getattr(faier, noise)(2))
        return min(max(v, 1), 1)

    problem = Problem("constant", constant, DifferentialPrivacy(EveryQuery(1)))
    assert faier.verify(problem, "0").verdict is faier.Verdict.HOLDS
    star = faier.epsilon(problem).enclosure
    assert star is not None and star.upper < 1e-300
