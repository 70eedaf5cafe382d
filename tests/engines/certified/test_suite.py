"""StatDP's continuous suite decided by the certified engine, against independent references."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.mechanisms.library import continuous
from faier.results import Verdict

from .test_closed_forms import argmax_reference

runner = CliRunner()


@pytest.mark.parametrize(
    ("target", "verdict"),
    [
        ("noisy-max-laplace", Verdict.HOLDS),
        ("noisy-max-exponential", Verdict.HOLDS),
        ("histogram-laplace", Verdict.HOLDS),
        ("svt-laplace", Verdict.HOLDS),
        ("noisy-max-laplace-value", Verdict.VIOLATED),
        ("noisy-max-exponential-value", Verdict.VIOLATED),
        ("histogram-laplace-wrong-scale", Verdict.VIOLATED),
        ("isvt1-laplace", Verdict.VIOLATED),
        ("isvt2-laplace", Verdict.VIOLATED),
        ("isvt3-laplace", Verdict.VIOLATED),
        ("isvt4-laplace", Verdict.VIOLATED),
    ],
)
def test_suite_verdicts_at_statdp_epsilon(target: str, verdict: Verdict) -> None:
    result = faier.verify(target, "0.7", settings={"n": "3"})
    assert result.verdict is verdict
    assert "every neighbouring pair" in result.privacy
    if verdict is Verdict.VIOLATED:
        w = result.certified_witness
        assert w is not None
        # certified: the ratio's lower bound is above e^0.7
        assert w.ratio.lower > math.exp(0.7)
        assert w.p.lower <= w.p.upper and w.q.lower <= w.q.upper


def test_noisy_max_epsilon_against_brute_force_integration() -> None:
    """ε* over every-query ±1 neighbours of {0,1,2}³ from scipy quad on the star formula."""
    grid = list(itertools.product(range(3), repeat=3))
    table = {x: argmax_reference(x, "laplace") for x in grid}
    best = 0.0
    for x in grid:
        for step in itertools.product((-1, 0, 1), repeat=3):
            y = tuple(a + s for a, s in zip(x, step, strict=False))
            if any(step) and y in table:
                best = max(
                    best, max(math.log(p / q) for p, q in zip(table[x], table[y], strict=False))
                )
    result = faier.epsilon("noisy-max-laplace", settings={"n": "3"})
    enclosure = result.enclosure
    assert enclosure is not None
    assert enclosure.lower <= enclosure.upper
    assert (enclosure.upper - enclosure.lower) / enclosure.upper < 1e-9
    assert enclosure.middle == pytest.approx(best, rel=1e-8)
    assert enclosure.upper < 0.7  # the claim holds with room on this grid


def test_exact_boundaries_are_decided_exactly() -> None:
    """Exponential Noisy Max reaches ε₀ exactly and the histogram's ε* is ε₀ itself."""
    assert (
        faier.verify("noisy-max-exponential", "0.7", settings={"n": "3"}).verdict is Verdict.HOLDS
    )
    exponential = faier.epsilon("noisy-max-exponential", settings={"n": "3"}).enclosure
    assert exponential is not None and exponential.closed_form == "7/10"
    below = faier.verify("noisy-max-exponential", "0.6999999999", settings={"n": "3"})
    assert below.verdict is Verdict.VIOLATED
    histogram = faier.epsilon("histogram-laplace", settings={"n": "3"})
    assert histogram.enclosure is not None and histogram.enclosure.closed_form == "7/10"
    assert faier.verify("histogram-laplace", "0.7").verdict is Verdict.HOLDS
    assert faier.verify("histogram-laplace", "0.6999999999").verdict is Verdict.VIOLATED
    wrong = faier.epsilon("histogram-laplace-wrong-scale")
    assert wrong.enclosure is not None and wrong.enclosure.closed_form == "10/7"


def test_unbounded_losses_come_with_exact_zeros() -> None:
    for target in ("isvt1-laplace", "noisy-max-exponential-value"):
        result = faier.epsilon(target, settings={"n": "3"})
        assert result.epsilon_star is not None and result.epsilon_star.infinite
        w = result.certified_witness
        assert w is not None and w.q.closed_form == "0" and w.p.lower > 0


def test_witness_probabilities_agree_with_the_testers_sampler() -> None:
    """The tester's vectorised sampler lands inside 99.99 % Clopper–Pearson intervals."""
    result = faier.verify("isvt3-laplace", "0.7", settings={"n": "3"})
    w = result.certified_witness
    assert w is not None
    output = [s == "⊤" for s in w.output.strip("[]").split(", ")]
    rng = np.random.default_rng(7)
    for x, certified in ((w.left_value, w.p), (w.right_value, w.q)):
        sampled = continuous.isvt3(np.array(x, dtype=float), 0.7, 200_000, rng, N=1, T=1.0)
        codes = sampled.codes[:, : len(output)]
        absent_after = np.all(sampled.codes[:, len(output) :] < 0, axis=1)
        hits = int((np.all(codes == np.array(output, dtype=np.int16), axis=1) & absent_after).sum())
        low, high = stats.binomtest(hits, 200_000).proportion_ci(0.9999)
        assert low <= certified.lower and certified.upper <= high


def test_cli_json_gives_the_certified_interval() -> None:
    out = runner.invoke(app, ["epsilon", "noisy-max-laplace", "--set", "n=3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    star = data["epsilon_star"]
    assert star["lower"] <= star["value"] <= star["upper"] and star["ratio"] is None
    assert data["witness"]["p"]["lower"] > 0
    held = runner.invoke(app, ["verify", "noisy-max-laplace", "--set", "n=3", "--epsilon", "0.7"])
    assert held.exit_code == 0 and "holds" in held.stdout
    broken = runner.invoke(app, ["verify", "isvt1-laplace", "--epsilon", "0.7", "--json"])
    assert broken.exit_code == 1
    assert json.loads(broken.stdout)["epsilon_star"]["upper"] == "inf"


def test_a_users_program_with_laplace_noise(tmp_path: Path) -> None:
    source = tmp_path / "mine.py"
    source.write_text(
        "from fractions import Fraction\n"
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(2, 1))\n"
        "def above(x, ctx):\n"
        "    '''Is the noisy sum above 1? Lap(2) noise on a sum of sensitivity 2.'''\n"
        "    return x[0] + x[1] + ctx.draw(faier.laplace(0, 2)) >= 1\n"
    )
    result = faier.epsilon(str(source))
    assert result.enclosure is not None
    # Pr[S + X ≥ 1] for S = 0 vs S = 2: (e^{-1/2}/2) vs 1 − e^{-1/2}/2
    p, q = 1 - math.exp(-0.5) / 2, math.exp(-0.5) / 2
    assert result.enclosure.middle == pytest.approx(math.log(p / q), rel=1e-12)
    assert faier.verify(str(source), "ln(3)").verdict is Verdict.HOLDS
    assert faier.verify(str(source), "1").verdict is Verdict.HOLDS
    assert faier.verify(str(source), "0.8").verdict is Verdict.VIOLATED


def test_outside_the_closed_forms_is_unknown_with_the_reason(tmp_path: Path) -> None:
    source = tmp_path / "sum.py"
    source.write_text(
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(1, 1))\n"
        "def total(x, ctx):\n"
        "    return ctx.draw(faier.laplace(0, 1)) + ctx.draw(faier.laplace(0, 1)) >= x[0]\n"
    )
    result = faier.verify(str(source), "1")
    assert result.verdict is Verdict.UNKNOWN and "difference" in (result.reason or "")


def test_noisy_max_value_supremum_is_bounded_to_statdps_value() -> None:
    """Alg. 7 leaks ε₀·|Q|/2 (StatDP §5.1): the enclosure holds 21/20 and is narrow."""
    result = faier.epsilon("noisy-max-laplace-value", settings={"n": "3"})
    enclosure = result.enclosure
    assert enclosure is not None and result.exit_code == 0
    assert enclosure.lower <= 1.05 <= enclosure.upper
    assert (enclosure.upper - enclosure.lower) / enclosure.upper < 1e-9
    assert faier.verify("noisy-max-laplace-value", "1.1").verdict is Verdict.HOLDS
    below = faier.verify("noisy-max-laplace-value", "1.04")
    assert below.verdict is Verdict.VIOLATED
    w = below.certified_witness
    assert w is not None and w.measure == "density" and w.ratio.lower > math.exp(1.04)


def test_value_density_against_numeric_differentiation() -> None:
    """The output density of max(qᵢ + Xᵢ) is Σᵢ f(v − qᵢ) Π_{j≠i} F(v − q_j)."""
    from faier.engines.certified import densities
    from faier.engines.certified.symbolic import paths

    from .test_closed_forms import lap_cdf, lap_pdf

    problem = faier.load_problem("noisy-max-laplace-value", settings={"n": "3"})
    q = (0, 2, 1)
    curves = densities.line_densities(list(paths(lambda ctx: problem.mechanism.body(q, ctx))))
    (g,) = curves.values()
    b = 2 / 0.7
    for v in (-3.5, -0.25, 0.5, 1.5, 2.75, 6.0):
        expected = sum(
            lap_pdf(v - q[i], b) * math.prod(lap_cdf(v - q[j], b) for j in range(3) if j != i)
            for i in range(3)
        )
        from fractions import Fraction

        assert g.at(Fraction(v)).approx() == pytest.approx(expected, rel=1e-12)


def test_probabilities_below_float_range_are_decided_exactly(tmp_path: Path) -> None:
    """Pr = ½·e^(−1000) underflows to 0.0; the exact closed form still decides ε* = 1000."""
    source = tmp_path / "sharp.py"
    source.write_text(
        "from fractions import Fraction\n"
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(1, 1))\n"
        "def sharp(x, ctx):\n"
        "    return x[0] + ctx.draw(faier.laplace(0, Fraction(1, 1000))) >= 1\n"
    )
    result = faier.epsilon(str(source))
    assert result.enclosure is not None
    assert result.enclosure.lower <= 1000 <= result.enclosure.upper
    assert faier.verify(str(source), "1000").verdict is Verdict.HOLDS
    assert faier.verify(str(source), "999.9999").verdict is Verdict.VIOLATED


def test_epsilon_delta_for_discrete_outputs_against_quad() -> None:
    """max over pairs of Σ max(0, p − e^0.5·q) from quad; verify just above holds, below fails."""
    grid = list(itertools.product(range(3), repeat=3))
    table = {x: argmax_reference(x, "laplace") for x in grid}

    def delta_of(eps: float) -> float:
        worst = 0.0
        for x in grid:
            for step in itertools.product((-1, 0, 1), repeat=3):
                y = tuple(a + s for a, s in zip(x, step, strict=True))
                if any(step) and y in table:
                    pairs = zip(table[x], table[y], strict=True)
                    worst = max(worst, sum(max(0.0, p - math.exp(eps) * q) for p, q in pairs))
        return worst

    worst = delta_of(0.5)
    above = faier.verify(
        "noisy-max-laplace", "0.5", settings={"n": "3"}, delta=f"{worst + 1e-7:.12f}"
    )
    assert above.verdict is Verdict.HOLDS
    below = faier.verify(
        "noisy-max-laplace", "0.5", settings={"n": "3"}, delta=f"{worst - 1e-7:.12f}"
    )
    assert below.verdict is Verdict.VIOLATED and below.certified_witness is not None
    least = faier.epsilon("noisy-max-laplace", settings={"n": "3"}, delta="0.01")
    e = least.enclosure
    assert least.exit_code == 0 and e is not None and 0 < e.upper - e.lower < 1e-9
    # the least ε for δ = 1/100, by quad: δ(ε) crosses 1/100 inside the interval
    assert delta_of(e.lower - 1e-7) > 0.01 > delta_of(e.upper + 1e-7)
