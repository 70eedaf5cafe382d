"""(ε, δ) of the Laplace histogram in closed form, against scipy quad of max(0, p − e^ε·q)."""

from __future__ import annotations

import itertools
import math

import pytest
from scipy import integrate

import faier
from faier.results import Verdict


def hockey_stick(shift: float, scale: float, eps: float) -> float:
    """∫ max(0, Lap(0, b) − e^ε·Lap(shift, b)) by quad, split at the kinks."""

    def f(v: float) -> float:
        p = math.exp(-abs(v) / scale) / (2 * scale)
        q = math.exp(-abs(v - shift) / scale) / (2 * scale)
        return max(0.0, p - math.exp(eps) * q)

    edges = (-60.0, 0.0, shift, shift + 60.0)
    return sum(
        integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-13)[0] for a, b in itertools.pairwise(edges)
    )


@pytest.mark.parametrize(
    ("eps", "delta", "verdict"),
    [
        ("1/2", "0.0952", Verdict.HOLDS),
        ("1/2", "0.0951", Verdict.VIOLATED),
        ("7/10", "0", Verdict.HOLDS),
    ],
)
def test_histogram_delta_against_quad(eps: str, delta: str, verdict: Verdict) -> None:
    """histogram-laplace (ε₀ = 7/10, b = 10/7, one-query ±1): δ(1/2) = 1 − e^(−1/10)."""
    reference = hockey_stick(1.0, 10 / 7, 0.5)
    assert reference == pytest.approx(1 - math.exp(-0.1), rel=1e-10)
    result = faier.verify("histogram-laplace", eps, settings={"n": "3"}, delta=delta)
    assert result.verdict is verdict
    if verdict is Verdict.VIOLATED:
        w = result.certified_witness
        assert w is not None and w.p.lower - math.exp(0.5) * w.q.upper > 0.0951


def test_least_epsilon_for_delta_is_closed_form() -> None:
    result = faier.epsilon("histogram-laplace", settings={"n": "3"}, delta="0.1")
    e = result.enclosure
    assert e is not None and e.closed_form == "7/10 + 2·ln(9/10)"
    assert e.lower <= 0.7 + 2 * math.log(0.9) <= e.upper
    assert (
        hockey_stick(1.0, 10 / 7, e.lower - 1e-7) > 0.1 > hockey_stick(1.0, 10 / 7, e.upper + 1e-7)
    )
    zero = faier.epsilon("histogram-laplace", settings={"n": "3"}, delta="0.3")
    assert zero.enclosure is not None and zero.enclosure.upper == 0.0  # TV = 1 − e^(−0.35)


def test_several_differing_numbers_are_unknown(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    source = tmp_path / "pair.py"
    source.write_text(
        "import faier\n\n"
        "@faier.program(inputs=faier.grid(2, 1))\n"
        "def pair(x, ctx):\n"
        "    return tuple(q + ctx.draw(faier.laplace(0, 2)) for q in x)\n"
    )
    result = faier.verify(str(source), "1", delta="0.1")
    assert result.verdict is Verdict.UNKNOWN and "several" in (result.reason or "")


def test_exact_tables_at_an_epsilon_whose_exponential_is_no_closed_form() -> None:
    """ε = ln(2)/2: e^ε = √2 is no ExpSum, so the closed forms' balls decide δ(ε)."""
    near = "0.34657359027997264"  # ln(2)/2 to 17 digits, a rational claim decided exactly
    for delta, verdict in (("0.06977", Verdict.VIOLATED), ("0.06979", Verdict.HOLDS)):
        exact = faier.verify("noisy-max-laplace", near, settings={"n": "3"}, delta=delta)
        balls = faier.verify("noisy-max-laplace", "ln(2)/2", settings={"n": "3"}, delta=delta)
        assert exact.verdict is verdict and balls.verdict is verdict
