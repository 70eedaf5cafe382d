"""Claims written as expressions (``7/10``, ``ln(2)+1/10``) compare ratios with e^ε, not ε."""

from __future__ import annotations

import math

import pytest

import faier
from faier.engines.certified import balls
from faier.privacy.budget import Epsilon
from faier.results import Verdict


@pytest.mark.parametrize("text", ["7/10", "ln(2)+1/10", "3/2*ln(3)"])
def test_the_ball_encloses_e_to_the_epsilon(text: str) -> None:
    eps = Epsilon.parse(text)
    with balls.precision(balls.PRECISIONS[0]):
        low, high = balls.floats(balls.exp_epsilon_ball(eps, balls.PRECISIONS[0]))
    assert low <= math.exp(eps.value) <= high
    assert high - low < 1e-12


@pytest.mark.parametrize(
    ("target", "claims"),
    [
        # ε* = ε₀ = 0.7 exactly (separable densities): at 7/10 it holds
        ("histogram-laplace", {"7/10": Verdict.HOLDS, "69/100": Verdict.VIOLATED}),
        # ε* < 0.7 on {0,1,2}³ (discrete outputs, compared with balls)
        ("noisy-max-laplace", {"7/10": Verdict.HOLDS, "1/100": Verdict.VIOLATED}),
    ],
)
def test_expression_claims_decide_like_decimals(target: str, claims: dict[str, Verdict]) -> None:
    for text, verdict in claims.items():
        assert faier.verify(target, text, settings={"n": "3"}).verdict is verdict, text
