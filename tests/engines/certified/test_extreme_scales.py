"""Probabilities and ratios past the float range: no float may decide or prune.

Each program here has an output whose probability underflows float64 (Φ(−50) ≈
10⁻⁵⁴⁵, e^(−800)) or a density ratio past it (e^2000); the references are
mpmath at 60 digits or closed forms, computed apart from faier.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.core.problem import Problem
from faier.engines.certified import engine, supremum
from faier.privacy.neighbours import EveryQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Enclosure, Verdict

runner = CliRunner()


def _problem(mechanism: Any) -> Problem:
    return Problem(mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)))


def _gaussian_threshold() -> faier.Program[Any]:
    @faier.program(inputs=faier.scalars(1))
    def tiny_gaussian(x: int, ctx: Any) -> Any:
        return x + ctx.draw(faier.gaussian(0, Fraction(1, 100))) >= Fraction(1, 2)

    return tiny_gaussian


def _gaussian_reference() -> float:
    """ln(Φ(50)/Φ(−50)): the threshold 1/2 is 50 standard deviations from either input."""
    with mpmath.workdps(60):
        return float(mpmath.log(mpmath.ncdf(50) / mpmath.ncdf(-50)))


def _contains(enclosure: Any, value: float) -> bool:
    slack = 4e-16 * max(1.0, abs(value))
    return bool(enclosure.lower - slack <= value <= enclosure.upper + slack)


def test_gaussian_probability_below_the_float_range() -> None:
    truth = _gaussian_reference()  # ≈ 1254.83
    problem = _problem(_gaussian_threshold())
    star = faier.epsilon(problem)
    assert star.enclosure is not None and _contains(star.enclosure, truth)
    assert star.enclosure.upper - star.enclosure.lower < 1e-9 * truth
    witness = star.certified_witness
    assert witness is not None and witness.q.upper > 0  # Pr[False | 1] ≈ 1.08·10⁻⁵⁴⁵
    assert witness.q.closed_form is not None and "e-545" in witness.q.closed_form
    assert faier.verify(problem, "1254.8").verdict is Verdict.VIOLATED
    assert faier.verify(problem, "1254.9").verdict is Verdict.HOLDS


def test_discrete_gaussian_probability_below_the_float_range() -> None:
    sigma = Fraction(1, 40)

    @faier.program(inputs=faier.scalars(1))
    def tiny_discrete(x: int, ctx: Any) -> Any:
        return x + ctx.draw(faier.discrete_gaussian(0, sigma)) >= 1

    with mpmath.workdps(60):
        support = range(-6, 7)
        weight = {k: mpmath.exp(-mpmath.mpf(k * k) * 800) for k in support}  # 1/(2σ²) = 800

        def mass(keep: Any) -> Any:
            return mpmath.fsum(w for k, w in weight.items() if keep(k))

        # True: Pr[K ≥ 0] over Pr[K ≥ 1]; False: Pr[K < 1] over Pr[K < 0]
        truth = float(
            max(
                mpmath.log(mass(lambda k: k >= 0) / mass(lambda k: k >= 1)),
                mpmath.log(mass(lambda k: k < 1) / mass(lambda k: k < 0)),
            )
        )
    problem = _problem(tiny_discrete)
    star = faier.epsilon(problem)
    assert star.enclosure is not None and _contains(star.enclosure, truth)  # ≈ 800
    assert faier.verify(problem, "799.9").verdict is Verdict.VIOLATED
    assert faier.verify(problem, "800.1").verdict is Verdict.HOLDS


def test_density_ratio_past_the_float_range() -> None:
    """max(x₀ + L₀, x₁ + L₁), L ~ Laplace(1/1000): on the lower tail both densities
    carry e^(2v/b), so (0,0) against (1,1) has the supremum e^(2/b) = e^2000."""
    b = Fraction(1, 1000)

    @faier.program(inputs=faier.grid(2, 1))
    def sharp_value(x: tuple[int, ...], ctx: Any) -> Any:
        a = x[0] + ctx.draw(faier.laplace(0, b))
        c = x[1] + ctx.draw(faier.laplace(0, b))
        return a if a >= c else c

    problem = _problem(sharp_value)
    star = faier.epsilon(problem)
    assert star.enclosure is not None
    assert star.enclosure.lower <= 2000 <= star.enclosure.upper <= 2000 * (1 + 1e-9)
    assert faier.verify(problem, "1999.9").verdict is Verdict.VIOLATED
    assert faier.verify(problem, "2000.1").verdict is Verdict.HOLDS


def test_cli_prints_the_gaussian_loss(tmp_path: Path) -> None:
    source = tmp_path / "tiny.py"
    source.write_text(
        "from fractions import Fraction\nimport faier\n\n"
        "@faier.program(inputs=faier.scalars(1))\n"
        "def tiny(x, ctx):\n"
        "    return x + ctx.draw(faier.gaussian(0, Fraction(1, 100))) >= Fraction(1, 2)\n"
    )
    result = runner.invoke(app, ["epsilon", str(source), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["epsilon_star"]["lower"] > 1254.8
    verdict = runner.invoke(app, ["verify", str(source), "-e", "1254"])
    assert verdict.exit_code == 1


def test_the_screen_never_clears_a_comparison_it_cannot_read() -> None:
    """A log that is not a finite float (a ball not certainly positive) makes the
    comparison a candidate, whatever the threshold."""
    screen = engine.Screen(
        values=np.array([[1.0, 0.0], [0.0, 1.0]]),
        logs=np.array([[0.0, np.nan], [np.nan, 0.0]]),
        zero=np.zeros((2, 2), dtype=bool),
        pairs=np.array([[0, 1], [1, 0]]),
        infinite_ok=np.ones(2, dtype=bool),
    )
    found, infinite = engine._candidates(screen, 10.0)
    assert not infinite
    assert {(i, j, o) for _, i, j, o in found} == {(0, 1, 0), (0, 1, 1), (1, 0, 0), (1, 0, 1)}
    assert all(math.isinf(value) for value, *_ in found)


def test_supremum_threshold_past_the_float_range() -> None:
    """The branch and bound takes its threshold as a log: e^1000 against a ratio e^2."""
    from faier.engines.certified import densities

    @faier.program(inputs=faier.scalars(1))
    def shifted(x: int, ctx: Any) -> Any:
        return x + ctx.draw(faier.laplace(0, Fraction(1, 2)))

    curves = [densities.line_densities(list(_paths(shifted, x))) for x in (0, 1)]
    (g,) = curves[0].values()
    (h,) = curves[1].values()
    assert supremum.prove_log_below(g, h, 1000.0).proved
    outcome = supremum.prove_log_below(g, h, 1.0)
    assert not outcome.proved and outcome.log_lower <= 2.0 + 1e-12


def _paths(mechanism: Any, x: int) -> Any:
    from faier.engines.certified.symbolic import paths

    return paths(lambda ctx: mechanism.body(x, ctx))


def test_tester_certifies_an_event_loss_past_the_float_range(tmp_path: Path) -> None:
    """faier certify's witness ratio e^1254.8 is past the float range: a lower bound, not
    an overflow."""
    source = tmp_path / "tiny.py"
    source.write_text(
        "from fractions import Fraction\nimport faier\n\n"
        "@faier.program(inputs=faier.scalars(1))\n"
        "def tiny(x, ctx):\n"
        "    return x + ctx.draw(faier.gaussian(0, Fraction(1, 100))) >= Fraction(1, 2)\n"
    )
    args = ["--samples", "2000", "--selection-samples", "1000", "--epsilons", "1"]
    result = runner.invoke(
        app,
        [
            "certify",
            str(source),
            "--claimed",
            "1",
            *args,
            "--workers",
            "1",
            "--seed",
            "1",
            "--json",
        ],
    )
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert _contains(
        Enclosure(data["lower_bound"]["lower"], data["lower_bound"]["upper"]), _gaussian_reference()
    )


def test_gaussian_argmax_probability_far_below_the_tails_cut() -> None:
    """Noisy Max of three answers in {0, 1} with σ = 1/40: Pr[index 0 | (0, 1, 1)] =
    ∫ φ_σ(t)·Φ((t − 1)/σ)² dt ≈ 1.2·10⁻²³⁵, below the 2^(−520) that the centre's cut
    tails and the integrator's tolerance once added to every integral (ε* was then
    only "≥ 0").  Reference: mpmath quad around the integrand's peak at t = 2/3."""
    sigma = Fraction(1, 40)

    @faier.program(inputs=faier.grid(3, 1))
    def noisy_max(x: tuple[int, ...], ctx: Any) -> Any:
        noisy = [q + ctx.draw(faier.gaussian(0, sigma)) for q in x]
        best = 0
        for i in range(1, 3):
            if noisy[i] > noisy[best]:
                best = i
        return best

    with mpmath.workdps(25):
        s = mpmath.mpf(1) / 40

        def wins(shift: int) -> Any:
            """Pr[X₀ + shift > X₁ + 1 − shift, X₂ + 1 − shift] for the answers (s, 1−s, 1−s)."""
            gap = 1 - 2 * shift  # how far the others start above the first

            def integrand(t: Any) -> Any:
                return mpmath.npdf(t, 0, s) * mpmath.ncdf((t - gap) / s) ** 2

            peak = mpmath.mpf(2) / 3 * gap if gap > 0 else mpmath.mpf(0)
            points = [peak + mpmath.mpf(i) / 200 for i in range(-40, 41)]
            return mpmath.quad(integrand, points)

        truth = float(mpmath.log(wins(1) / wins(0)))  # (1, 0, 0) against (0, 1, 1)
    problem = _problem(noisy_max)
    star = faier.epsilon(problem)
    assert star.enclosure is not None and _contains(star.enclosure, truth)  # ≈ 540.9
    assert star.enclosure.upper - star.enclosure.lower < 1e-9 * truth


def test_a_log_ratio_is_never_a_dropped_nan() -> None:
    """e^(10⁻⁴⁰) − 1 cancels to a ball around 0 at 128 bits: its log ratio is taken at a
    higher precision (mpmath: ln(10⁻⁴⁰ + 10⁻⁸⁰/2 + …)), never a NaN that max() drops."""
    from faier.engines.certified.exppoly import ExpSum

    tiny = ExpSum.exp(Fraction(1, 10**40)) - ExpSum.rational(1)
    low, high = engine._log_ratio_floats(tiny, ExpSum.rational(1))
    with mpmath.workdps(60):
        truth = float(mpmath.log(mpmath.expm1(mpmath.mpf(10) ** -40)))
    assert low <= truth <= high and high - low < 1e-12
