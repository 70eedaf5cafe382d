"""Property tests: engines against brute force on random small models."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.program import Program
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.privacy.neighbours import ExplicitPairs
from faier.privacy.specs import Comparison, DifferentialPrivacy, Pufferfish


@st.composite
def stochastic_rows(
    draw: st.DrawFn, rows: int, width: int, zeros: bool = True
) -> tuple[tuple[Fraction, ...], ...]:
    out = []
    for _ in range(rows):
        weights = [draw(st.integers(0 if zeros else 1, 4)) for _ in range(width)]
        if sum(weights) == 0:
            weights[draw(st.integers(0, width - 1))] = 1
        total = sum(weights)
        out.append(tuple(Fraction(w, total) for w in weights))
    return tuple(out)


@st.composite
def hmms(draw: st.DrawFn) -> tuple[HMM, int]:
    n = draw(st.integers(2, 4))
    k = draw(st.integers(2, 3))
    states = tuple(f"s{i}" for i in range(n))
    obs = tuple(f"o{i}" for i in range(k))
    transition = draw(stochastic_rows(n, n))
    emission = draw(stochastic_rows(n, k))
    left, right = draw(stochastic_rows(2, n))
    hmm = HMM(states, obs, transition, emission, {"pi": left, "tau": right})
    return hmm, draw(st.integers(1, 4))


def path_sum(hmm: HMM, initial: tuple[Fraction, ...], seq: tuple[int, ...]) -> Fraction:
    """FAIER papers eq. (1): sum over all state sequences, no forward algorithm."""
    total = Fraction(0)
    for states in itertools.product(range(len(hmm.states)), repeat=len(seq)):
        p = initial[states[0]] * hmm.emission[states[0]][seq[0]]
        for t in range(1, len(seq)):
            p *= hmm.transition[states[t - 1]][states[t]] * hmm.emission[states[t]][seq[t]]
        total += p
    return total


def brute_loss(hmm: HMM, horizon: int) -> Fraction | None:
    best: Fraction | None = Fraction(0)
    for a, b in (("pi", "tau"), ("tau", "pi")):
        for seq in itertools.product(range(len(hmm.observations)), repeat=horizon):
            p = path_sum(hmm, hmm.initial[a], seq)
            q = path_sum(hmm, hmm.initial[b], seq)
            if p == 0:
                continue
            if q == 0:
                return None
            assert best is not None
            best = max(best, p / q)
    return best


def dist(vector: tuple[Fraction, ...], names: tuple[str, ...]) -> Distribution[str]:
    return Distribution.of({s: p for s, p in zip(names, vector, strict=True) if p})


@settings(max_examples=60, deadline=None)
@given(hmms())
def test_sequence_mode_matches_path_sum(case: tuple[HMM, int]) -> None:
    hmm, horizon = case
    pair = Comparison(
        dist(hmm.initial["pi"], hmm.states),
        dist(hmm.initial["tau"], hmm.states),
        "pi",
        "tau",
        "initial",
    )
    result = epsilon(Problem("h", hmm, Pufferfish((pair,)), horizon))
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == brute_loss(hmm, horizon)
    if result.witness is not None:
        names = result.witness.output
        seq = [hmm.observation_index(o) for o in names]
        start = hmm.initial["pi" if result.witness.left == "pi" else "tau"]
        assert hmm.probability(start, names) == result.witness.p == path_sum(hmm, start, tuple(seq))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_forward_equals_path_sum(data: st.DataObject) -> None:
    hmm, horizon = data.draw(hmms())
    seq = tuple(data.draw(st.integers(0, len(hmm.observations) - 1)) for _ in range(horizon))
    names = [hmm.observations[i] for i in seq]
    assert hmm.probability(hmm.initial["pi"], names) == path_sum(hmm, hmm.initial["pi"], seq)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_distribution_mode_matches_direct_ratio(data: st.DataObject) -> None:
    inputs = data.draw(st.integers(2, 4))
    outputs = data.draw(st.integers(2, 4))
    rows = data.draw(stochastic_rows(inputs, outputs))
    table = {x: Distribution.of({o: p for o, p in enumerate(rows[x]) if p}) for x in range(inputs)}
    mechanism: Program[int] = Program(
        "random", lambda x, ctx: ctx.draw(table[x]), InputSpace(tuple(range(inputs)), "random")
    )
    pairs = tuple((x, x + 1) for x in range(inputs - 1))
    result = epsilon(Problem("r", mechanism, DifferentialPrivacy(ExplicitPairs(pairs))))
    expected: Fraction | None = Fraction(0)
    for x, y in pairs:
        for a, b in ((x, y), (y, x)):
            for o in range(outputs):
                p, q = rows[a][o], rows[b][o]
                if p and not q:
                    expected = None
                elif p and expected is not None:
                    expected = max(expected, p / q)
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == expected
