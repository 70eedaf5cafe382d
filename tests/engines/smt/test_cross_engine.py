"""The SMT engine against the exact engine: same verdicts, witnesses that recompute.

At fixed parameter values both engines answer the same question.  Random
small HMMs (2–4 states, 2–3 observations, k ≤ 4) are checked with the FAIER
papers' Algorithm 1 (the solver chooses the sequence) and with the fast encoding;
with one unknown parameter the two encodings must agree with each other and
every synthesized witness must be a violation for the exact engine too.
Decimal ε (transcendental e^ε) are compared at ε* itself (a log form) and
just below and above it, for small losses and for losses up to e^700.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterator
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faier import api
from faier.core import parametric
from faier.core.problem import Problem
from faier.engines import exact, smt
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.parameters import Parameter
from faier.privacy.budget import Epsilon
from faier.privacy.specs import Comparison, Pufferfish
from faier.privacy.symbolic import ParametricPufferfish, SymbolicComparison, SymbolicDistribution
from faier.results import Result, Verdict

F = Fraction


@pytest.fixture(scope="module")
def pool() -> Iterator[smt.SolverPool]:
    with smt.SolverPool(("z3",)) as workers:
        yield workers


def forward(hmm: HMM, initial: dict[str, Fraction], sequence: tuple[str, ...]) -> Fraction:
    """Pr(sequence | initial) by the forward algorithm, written out here independently."""
    index = {s: i for i, s in enumerate(hmm.states)}
    alpha = [initial.get(s, F(0)) for s in hmm.states]
    for t, name in enumerate(sequence):
        w = hmm.observations.index(name)
        if t:
            alpha = [
                sum((alpha[s] * F(hmm.transition[s][u]) for s in range(len(alpha))), F(0))
                for u in range(len(alpha))
            ]
        alpha = [a * F(hmm.emission[s][w]) for s, a in enumerate(alpha)]
    del index
    return sum(alpha, F(0))


@st.composite
def distributions(draw: st.DrawFn, size: int, allow_zero: bool = True) -> tuple[Fraction, ...]:
    low = 0 if allow_zero else 1
    weights = draw(st.lists(st.integers(low, 4), min_size=size, max_size=size))
    if sum(weights) == 0:
        weights[0] = 1
    total = sum(weights)
    return tuple(F(w, total) for w in weights)


@st.composite
def questions(draw: st.DrawFn) -> tuple[HMM, dict[str, Fraction], dict[str, Fraction], int]:
    n = draw(st.integers(2, 4))
    m = draw(st.integers(2, 3))
    k = draw(st.integers(1, 4 if m == 2 else 3))
    states = tuple(f"s{i}" for i in range(n))
    observations = tuple(f"o{i}" for i in range(m))
    transition = tuple(draw(distributions(n)) for _ in range(n))
    emission = tuple(draw(distributions(m)) for _ in range(n))
    hmm = HMM(states, observations, transition, emission)
    left = dict(zip(states, draw(distributions(n)), strict=True))
    right = dict(zip(states, draw(distributions(n, allow_zero=False)), strict=True))
    return hmm, left, right, k


def problem_of(hmm: HMM, left: dict[str, Fraction], right: dict[str, Fraction], k: int) -> Problem:
    pair = Comparison(Distribution.of(left), Distribution.of(right), "π", "τ", "initial")
    return Problem("random", hmm, Pufferfish((pair,), "random pair"), k)


def check_witness(
    result: Result, hmm: HMM, priors: dict[str, dict[str, Fraction]], c: Fraction
) -> None:
    witness = result.witness
    assert witness is not None
    p = forward(hmm, priors[witness.left], witness.output)
    q = forward(hmm, priors[witness.right], witness.output)
    assert (witness.p, witness.q) == (p, q)
    assert p > c * q


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(question=questions(), c=st.sampled_from([F(1), F(3, 2), F(2), F(4)]))
def test_random_hmms_agree_with_the_exact_engine(
    question: tuple[HMM, dict[str, Fraction], dict[str, Fraction], int],
    c: Fraction,
    pool: smt.SolverPool,
) -> None:
    hmm, left, right, k = question
    problem = problem_of(hmm, left, right, k)
    eps = Epsilon.from_ratio(c)
    priors = {"π": left, "τ": right}
    expected = exact.verify(problem, eps)
    for encoding in ("faithful", "fast"):
        result = smt.verify(problem, eps, smt.SolverSettings(solver="z3", encoding=encoding), pool)
        assert result.verdict is expected.verdict, (encoding, result.reason)
        if result.verdict is Verdict.VIOLATED:
            check_witness(result, hmm, priors, c)
    star = smt.epsilon(problem, smt.SolverSettings(solver="z3"), pool)
    exact_star = exact.epsilon(problem)
    assert star.epsilon_star == exact_star.epsilon_star
    if star.witness is not None and star.epsilon_star is not None:
        assert star.witness.loss == star.epsilon_star


@st.composite
def parametric_questions(draw: st.DrawFn) -> tuple[Problem, int]:
    hmm, left, right, k = draw(questions())
    theta = sympy.Symbol("t", real=True)
    row = draw(st.integers(0, len(hmm.states) - 1))
    emission = list(hmm.emission)
    if len(hmm.observations) == 2:
        emission[row] = (theta, 1 - theta)
    else:
        emission[row] = (theta / 2, theta / 2, 1 - theta)
    parametric_hmm = HMM(
        hmm.states, hmm.observations, hmm.transition, tuple(emission), parameters=(Parameter("t"),)
    )
    pair = SymbolicComparison(
        SymbolicDistribution.of(left), SymbolicDistribution.of(right), "π", "τ"
    )
    privacy = ParametricPufferfish((pair,), (Parameter("t"),), (), "random pair")
    return Problem("random-parametric", parametric_hmm, privacy, min(k, 3)), draw(
        st.sampled_from([2, 4])
    )


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(question=parametric_questions())
def test_parametric_hmms_both_encodings_agree_and_witnesses_are_exact(
    question: tuple[Problem, int], pool: smt.SolverPool
) -> None:
    problem, ratio = question
    eps = Epsilon.from_ratio(F(ratio))
    verdicts = {}
    for encoding in ("fast", "faithful"):
        options = smt.SolverSettings(solver="z3", encoding=encoding, query_timeout=10)
        result = smt.verify(problem, eps, options, pool)
        verdicts[encoding] = result.verdict
        if result.verdict is Verdict.VIOLATED:
            assert result.parametric is not None
            (value,) = result.parametric.point
            assert 0 < value.value < 1
            fixed = parametric.at_point(problem, {"t": value.value})
            again = exact.verify(fixed, eps)
            assert again.verdict is Verdict.VIOLATED
            witness = result.witness
            assert witness is not None
            mechanism = fixed.mechanism
            assert isinstance(mechanism, HMM)
            comparisons = {c.left_name: c for c in fixed.privacy.comparisons(mechanism.states)}  # type: ignore[union-attr]
            chosen = comparisons[witness.left]
            for dist, value_of in ((chosen.left, witness.p), (chosen.right, witness.q)):
                vector = tuple(dist.prob(s) for s in mechanism.states)
                assert mechanism.probability(vector, witness.output) == value_of
    assert verdicts["fast"] is verdicts["faithful"] or Verdict.UNKNOWN in verdicts.values()


@pytest.mark.parametrize(
    ("target", "params"),
    [
        ("count-independent-disease", ["p=1/3"]),
        ("count-contagious-disease", ["p=3/4"]),
        ("most-common-disease", ["pA=1/10", "pB=9/10", "pC=1/2"]),
        ("most-common-disease-family", ["pA=1/2", "pB=1/2", "pC=1/2"]),
        ("most-common-of-five-diseases", ["p1=1/3", "p2=1/2"]),
    ],
)
def test_examples_at_fixed_values_agree_with_the_exact_engine(
    target: str, params: list[str]
) -> None:
    exact_result = api.verify(target, "ln(2)", params=params)
    assert exact_result.method.startswith("exact")
    smt_result = api.verify(target, "ln(2)", params=params, engine="smt", solver="z3")
    assert smt_result.verdict is exact_result.verdict
    if target != "most-common-of-five-diseases":
        star = api.epsilon(target, params=params)
        smt_star = api.epsilon(target, params=params, engine="smt", solver="z3")
        assert smt_star.epsilon_star == star.epsilon_star
    if exact_result.verdict is Verdict.VIOLATED:
        assert smt_result.witness is not None and smt_result.witness.loss.ratio is not None
        assert smt_result.witness.loss.ratio > 2
    if exact_result.verdict is Verdict.VIOLATED and target != "most-common-of-five-diseases":
        faithful = api.verify(
            target, "ln(2)", params=params, engine="smt", solver="z3", encoding="faithful"
        )
        assert faithful.verdict is Verdict.VIOLATED


def log_decimal(ratio: Fraction, places: int, rounding: str) -> str:
    """ln(ratio) rounded to ``places`` decimals in the given direction."""
    with decimal.localcontext() as context:
        context.prec = places + 30
        value = decimal.Decimal(ratio.numerator).ln() - decimal.Decimal(ratio.denominator).ln()
        return str(value.quantize(decimal.Decimal(1).scaleb(-places), rounding=rounding))


def around(ratio: Fraction | None, places: int) -> list[str]:
    """ε* = ln(ratio) as a log form, and decimals just below and just above it."""
    if ratio is None:
        return []
    above = log_decimal(ratio, places, decimal.ROUND_CEILING)
    assert not Epsilon.parse(above).exceeded_by(ratio)
    if ratio == 1:
        return [f"ln({ratio})", above]
    below = log_decimal(ratio, places, decimal.ROUND_FLOOR)
    assert Epsilon.parse(below).exceeded_by(ratio)
    return [below, f"ln({ratio})", above]


def assert_engines_agree(problem: Problem, texts: list[str], pool: smt.SolverPool) -> None:
    """Both encodings give the exact engine's verdict at every ε; witnesses exceed e^ε."""
    for text in texts:
        eps = Epsilon.parse(text)
        expected = exact.verify(problem, eps).verdict
        for encoding in ("fast", "faithful"):
            options = smt.SolverSettings(solver="z3", encoding=encoding)
            result = smt.verify(problem, eps, options, pool)
            assert result.verdict is expected, (text, encoding, result.reason)
            if result.witness is not None:
                assert eps.exceeded_by(result.witness.loss.ratio)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    question=questions(),
    places=st.sampled_from([2, 9, 30]),
    far=st.decimals(0, 700, places=4),
)
def test_random_hmms_agree_at_decimal_epsilons_around_the_loss(
    question: tuple[HMM, dict[str, Fraction], dict[str, Fraction], int],
    places: int,
    far: decimal.Decimal,
    pool: smt.SolverPool,
) -> None:
    problem = problem_of(*question)
    star = exact.epsilon(problem).epsilon_star
    assert star is not None
    assert_engines_agree(problem, [*around(star.ratio, places), str(far)], pool)


@st.composite
def large_losses(draw: st.DrawFn) -> tuple[HMM, dict[str, Fraction], dict[str, Fraction], int]:
    """Randomized response with rates 1/N down to 10^-(290/k), priors (near) point masses on
    either state: losses up to about 10^6·10^290 < e^690."""
    k = draw(st.integers(1, 3))
    sizes = []
    for _ in range(2):
        digits = draw(st.integers(1, 290 // k))
        sizes.append(10 ** (digits - 1) + 1 + draw(st.integers(0, 9 * 10 ** (digits - 1))))
    emission = ((1 - F(1, sizes[0]), F(1, sizes[0])), (F(1, sizes[1]), 1 - F(1, sizes[1])))
    transition = (draw(distributions(2)), draw(distributions(2)))
    hmm = HMM(("s0", "s1"), ("yes", "no"), transition, emission)
    mixing = st.sampled_from([F(0), F(1, 3), F(1, 10**6)])
    a, b = draw(mixing), draw(mixing)
    return hmm, {"s0": 1 - a, "s1": a}, {"s0": b, "s1": 1 - b}, k


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(question=large_losses(), places=st.sampled_from([3, 12, 30]))
def test_large_losses_agree_at_decimal_epsilons_up_to_700(
    question: tuple[HMM, dict[str, Fraction], dict[str, Fraction], int],
    places: int,
    pool: smt.SolverPool,
) -> None:
    problem = problem_of(*question)
    star = exact.epsilon(problem).epsilon_star
    assert star is not None and star.ratio is not None and star.ratio < F(10) ** 300
    assert smt.epsilon(problem, smt.SolverSettings(solver="z3"), pool).epsilon_star == star
    assert_engines_agree(problem, around(star.ratio, places), pool)
