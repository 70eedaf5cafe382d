"""One definition, several interpretations: enumeration, merged states, sampling, HMM."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import reference as ref
from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.errors import MechanismError
from faier.mechanisms import Done, Program, StepProgram, grid, program
from faier.mechanisms.handlers import distribution_of, enumerate_paths
from faier.mechanisms.library.noisy_max import noisy_max
from faier.model.distribution import Distribution, bernoulli, truncated_geometric
from faier.model.values import show_input
from faier.privacy.specs import Comparison, Pufferfish

HALF = Fraction(1, 2)


def test_enumerate_paths_covers_every_choice_once() -> None:
    def body(ctx):  # type: ignore[no-untyped-def]
        a = ctx.draw(bernoulli(Fraction(1, 3)))
        if a:
            return "a"
        return ctx.draw(Distribution.uniform(["x", "y", "z"]))

    paths = list(enumerate_paths(body))
    assert len(paths) == 4 and sum(p for _, p in paths) == 1
    assert distribution_of(body).as_dict() == {
        "a": Fraction(1, 3),
        "x": Fraction(2, 9),
        "y": Fraction(2, 9),
        "z": Fraction(2, 9),
    }


@pytest.mark.parametrize("ties", ["first", "uniform", "value"])
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_step_program_matches_brute_force(n: int, ties: str) -> None:
    mechanism = noisy_max(n, ties)
    for x in itertools.product(range(3), repeat=n):
        assert mechanism.output_distribution(x).as_dict() == ref.noisy_max_distribution(x, ties)


def test_merging_keeps_states_polynomial() -> None:
    mechanism = noisy_max(8, "uniform")
    assert mechanism.reachable_states((1,) * 8) < 8 * 4 * 8 * 8
    assert 3**8 > 6000


def test_program_and_step_program_agree() -> None:
    @program(inputs=grid(2, 2))
    def path_max(x, ctx):  # type: ignore[no-untyped-def]
        noisy = [ctx.draw(truncated_geometric(HALF, 2, v)) for v in x]
        best = max(noisy)
        return noisy.index(best) + 1

    stepwise = noisy_max(2, "first")
    for x in grid(2, 2):
        assert path_max.output_distribution(x) == stepwise.output_distribution(x)


def test_sampling_follows_the_exact_distribution() -> None:
    mechanism = noisy_max(3, "uniform")
    rng = np.random.default_rng(7)
    x = (0, 1, 2)
    counts = Counter(mechanism.sample(x, rng) for _ in range(6000))
    exact = mechanism.output_distribution(x).as_dict()
    for output, p in exact.items():
        assert abs(counts[output] / 6000 - float(p)) < 0.03


def test_to_hmm_gives_the_same_epsilon_as_distribution_mode() -> None:
    mechanism = noisy_max(3, "uniform")
    hmm = mechanism.to_hmm()
    assert len(hmm.states) < 27 * 27
    names = [show_input(x) for x in mechanism.inputs]
    pairs = tuple(
        Comparison(Distribution.point(a), Distribution.point(b), a, b)
        for a in names
        for b in names
        if a < b
        and all(
            abs(int(u) - int(v)) <= 1
            for u, v in zip(a[1:-1].split(","), b[1:-1].split(","), strict=True)
        )
    )
    # The HMM's named initial distributions are point masses on start states.
    as_initial = tuple(
        Comparison(
            Distribution.of(
                {s: p for s, p in zip(hmm.states, hmm.initial[c.left_name], strict=True) if p}
            ),
            Distribution.of(
                {s: p for s, p in zip(hmm.states, hmm.initial[c.right_name], strict=True) if p}
            ),
            c.left_name,
            c.right_name,
        )
        for c in pairs
    )
    result = epsilon(Problem("hmm", hmm, Pufferfish(as_initial), horizon=5))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == Fraction(24, 7)


def test_user_code_errors_name_the_mechanism() -> None:
    def boom(state, ctx):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("oops")

    mechanism: StepProgram[int, int] = StepProgram("boom", lambda x: 0, boom, grid(1, 1))
    with pytest.raises(MechanismError, match=r"boom.*ZeroDivisionError"):
        mechanism.output_distribution((0,))

    def loop(state, ctx):  # type: ignore[no-untyped-def]
        return state

    forever: StepProgram[int, int] = StepProgram(
        "loop", lambda x: 0, loop, grid(1, 1), max_steps=50
    )
    with pytest.raises(MechanismError, match="did not stop"):
        forever.output_distribution((0,))
    assert Done(1).output == 1
    assert isinstance(
        Program("p", lambda x, ctx: x, grid(1, 1)).output_distribution((0,)), Distribution
    )
