"""faier.assert_private: exact where faier decides the mechanism, statistical otherwise."""

from __future__ import annotations

import doctest
import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import faier
from faier import assertions
from faier.core import engine as registry
from faier.errors import MechanismError, SpecError
from faier.mechanisms.sampled import vectorised

KEEP = Fraction(3, 4)


@faier.program(inputs=faier.scalars(1))
def randomized_response(x: int, ctx: Any) -> int:
    """Report the bit with probability 3/4, the other with 1/4: ε* = ln 3."""
    return x if ctx.draw(faier.bernoulli(KEEP)) else 1 - x


@faier.program(inputs=faier.grid(2, 2))
def noisy_sum(x: tuple[int, int], ctx: Any) -> int:
    """The sum of two counts with truncated 1/2-geometric noise."""
    return int(ctx.draw(faier.truncated_geometric(Fraction(1, 2), 4, x[0] + x[1])))


@vectorised(neighbours="one-query")
def noisy_first(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    """The first count with Laplace noise of scale 1/ε₀: ε* = ε₀."""
    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)


def brute_force_rr() -> tuple[Fraction, Fraction, Fraction]:
    """By hand: Pr[0 | 0] = 3/4, Pr[0 | 1] = 1/4, so e^ε* = 3."""
    p, q = KEEP, 1 - KEEP
    return p, q, p / q


def test_exact_holds_at_the_brute_force_epsilon() -> None:
    _, _, ratio = brute_force_rr()
    assurance = faier.assert_private(randomized_response, epsilon=f"ln({ratio})")
    assert assurance == faier.Assurance("holds", "exact", "ln(3)", target="randomized_response")


def test_exact_failure_shows_verdict_epsilon_star_and_the_witness_exactly() -> None:
    p, q, ratio = brute_force_rr()
    with pytest.raises(AssertionError) as failure:
        faier.assert_private(randomized_response, epsilon="1.0986")  # just below ln 3
    text = str(failure.value)
    assert text.startswith("randomized_response is not ε = 1.0986 private: violated (exact)")
    assert f"ln({ratio}) ≈ {math.log(ratio):.4f}" in text
    assert "inputs: 0  vs  1" in text
    assert "output: 0" in text
    assert f"Pr[output | 0] = {p}" in text
    assert f"Pr[output | 1] = {q}" in text
    assert f"ratio = {ratio}" in text


def test_inputs_restrict_the_pairs_given_as_lists_or_arrays() -> None:
    # [0, 0] vs [0, 1]: sums 0 and 1, one step of the 1/2-geometric: ratio 2 at most
    for pair in (([0, 0], [0, 1]), (np.array([0, 0]), np.array([0, 1]))):
        assert faier.assert_private(noisy_sum, "ln(2)", inputs=[pair]).verdict == "holds"
    with pytest.raises(AssertionError, match="inputs: \\[0, 0\\]  vs  \\[1, 1\\]"):
        faier.assert_private(noisy_sum, "ln(2)")
    with pytest.raises(SpecError, match="not an input of noisy_sum"):
        faier.assert_private(noisy_sum, "ln(2)", inputs=[([0, 9], [0, 1])])


def test_approximate_dp_is_decided_exactly() -> None:
    # δ(ε) at ε = 0 is the total variation distance: |3/4 − 1/4| = 1/2
    assert faier.assert_private(randomized_response, 0, delta="1/2").verdict == "holds"
    with pytest.raises(AssertionError, match="δ = 49/100"):
        faier.assert_private(randomized_response, 0, delta="49/100")


def test_built_in_examples_and_files_are_targets(tmp_path: Any) -> None:
    assert faier.assert_private("geometric", "ln(2)").method == "exact"
    source = tmp_path / "rr.py"
    source.write_text(
        "import faier\n"
        "@faier.program(inputs=faier.scalars(1))\n"
        "def rr(x, ctx):\n"
        "    return x if ctx.draw(faier.bernoulli('3/4')) else 1 - x\n"
    )
    assert faier.assert_private(source, "ln(3)").verdict == "holds"
    with pytest.raises(AssertionError, match="rr is not ε = ln\\(2\\) private"):
        faier.assert_private(str(source), "ln(2)")


def test_statistical_method_on_a_faier_program_says_so_with_p_value_and_seed() -> None:
    held = faier.assert_private(
        randomized_response, "ln(3)", method="statistical", seed=5, samples=4000
    )
    assert held.verdict == "no evidence against" and held.method == "statistical"
    assert held.seed == 5 and held.p_value is not None and held.p_value > 0.005
    with pytest.raises(AssertionError) as failure:
        faier.assert_private(
            randomized_response, "ln(2)", method="statistical", seed=5, samples=4000
        )
    text = str(failure.value)
    assert "statistical evidence, p = " in text and "≤ α/2 = 0.005" in text
    assert "seed     5 (replay: seed=5, or pytest --faier-seed 5)" in text
    assert "Pr[output | 0] ≈ " in text or "Pr[output | 1] ≈ " in text


def test_sampled_mechanisms_are_tested_statistically_and_the_seed_replays() -> None:
    held = faier.assert_private(noisy_first, epsilon=0.5, samples=4000, seed=11)
    assert (held.method, held.verdict) == ("statistical", "no evidence against")
    failures = []
    for _ in range(2):
        with pytest.raises(AssertionError) as failure:
            faier.assert_private(noisy_first, 0.25, mechanism_epsilon=0.5, samples=4000, seed=11)
        failures.append(str(failure.value))
    assert failures[0] == failures[1]
    assert "noise set for ε₀ = 0.5" in failures[0]
    assert assertions.failures[-1].seed == 11 and assertions.failures[-1].reproducible


def test_the_false_failure_rate_is_at_most_alpha() -> None:
    """A mechanism exactly at its claim (Laplace at ε = ε₀) fails at most α of the time."""
    alpha, runs = 0.2, 60
    failed = 0
    for seed in range(runs):
        try:
            faier.assert_private(noisy_first, 0.5, samples=2000, seed=seed, alpha=alpha)
        except AssertionError:
            failed += 1
    # binomial(60, 0.2): mean 12, sd 3.1; the thinned mean is conservative, so far fewer
    assert failed <= 21


def test_bad_requests_are_bad_input() -> None:
    with pytest.raises(SpecError, match="can only be run, not computed"):
        faier.assert_private(noisy_first, 0.5, method="exact")
    with pytest.raises(SpecError, match="checks pure ε-DP"):
        faier.assert_private(noisy_first, 0.5, delta="0.01")
    with pytest.raises(SpecError, match="unknown method"):
        faier.assert_private(randomized_response, 1, method="exhaustive")
    with pytest.raises(SpecError, match="no ε to assert"):
        faier.assert_private(randomized_response)
    with pytest.raises(SpecError, match="cannot test a dict"):
        faier.assert_private({}, 1)


def test_certified_without_the_engine_is_a_clear_not_available(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    present = registry.names
    monkeypatch.setattr(registry, "names", lambda: tuple(n for n in present() if n != "certified"))
    with pytest.raises(SpecError, match=r"certified engine .* is not available"):
        faier.assert_private(randomized_response, "ln(3)", method="certified")
    assert faier.assert_private(randomized_response, "ln(3)").method == "exact"


def test_certified_decides_continuous_noise_when_the_engine_is_there() -> None:
    laplace = getattr(faier, "laplace", None)
    if "certified" not in registry.names() or laplace is None:
        pytest.skip("this faier has no certified engine")

    @faier.program(inputs=faier.scalars(2))
    def above_half(x: int, ctx: Any) -> bool:
        """Whether x + Lap(1) exceeds 1/2: loss e^1 on the lower tail."""
        return bool(ctx.draw(laplace(x, 1)) > 0.5)

    assert faier.assert_private(above_half, 1).method == "certified"
    with pytest.raises(AssertionError, match="violated \\(certified\\)"):
        faier.assert_private(above_half, "0.9")


def test_a_mechanism_that_raises_is_bad_input_not_a_failure() -> None:
    @vectorised()
    def broken(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
        raise ValueError("no")

    with pytest.raises(MechanismError, match="no"):
        faier.assert_private(broken, 1, samples=100, seed=1)


def test_interactive_mechanisms_are_decided_over_a_horizon() -> None:
    # Above Threshold: ε*(2) = 2·ln 2 (FAIER journal; ε*(K) = K·ln 2)
    assert faier.assert_private("above-threshold", "2*ln(2)", horizon=2).verdict == "holds"
    with pytest.raises(AssertionError, match=r"ε\*       ln\(4\) ≈ 1\.3863"):
        faier.assert_private("above-threshold", "ln(2)", horizon=2)


def test_unknown_is_a_failure_that_says_why() -> None:
    with pytest.raises(AssertionError, match="unknown") as failure:
        faier.assert_private(
            "noisy-max", "ln(300)", settings={"n": "10", "ties": "first"}, timeout=0.05
        )
    assert "timeout of 0.05 s reached" in str(failure.value)


def test_the_module_example_runs() -> None:
    assert doctest.testmod(assertions).failed == 0


def test_unknown_priors_go_to_the_smt_engine_and_the_witness_names_its_prior() -> None:
    # FAIER journal Ex. 6.2: ln 2-Pufferfish private for every prior pA, pB, pC in (0, 1)
    assert faier.assert_private("most-common-disease", "ln(2)").method == "smt"
    with pytest.raises(AssertionError) as failure:
        faier.assert_private("most-common-disease", "ln(3/2)")
    text = str(failure.value)
    assert "violated (smt)" in text and "inputs: John has A  vs  John has not A" in text
    ratio = Fraction(text.split("ratio = ")[1].split()[0])
    assert ratio > Fraction(3, 2)
    assert "  at       pA = " in text


@settings(max_examples=5, deadline=None)
@given(
    keep=st.fractions(min_value=Fraction(11, 20), max_value=Fraction(19, 20), max_denominator=20)
)
def test_exact_and_statistical_agree_on_randomized_response(keep: Fraction) -> None:
    """e^ε* = keep/(1 − keep) by hand; the exact engine finds it, the tester does not object."""
    ratio = keep / (1 - keep)

    @faier.program(inputs=faier.scalars(1))
    def rr(x: int, ctx: Any) -> int:
        return x if ctx.draw(faier.bernoulli(keep)) else 1 - x

    assert faier.assert_private(rr, f"ln({ratio})").verdict == "holds"
    with pytest.raises(AssertionError, match=f"ratio = {ratio}"):
        faier.assert_private(rr, f"ln({ratio})/2")
    held = faier.assert_private(
        rr, f"ln({ratio})", method="statistical", samples=2000, seed=1, alpha=1e-6
    )
    assert held.verdict == "no evidence against"
