"""Path enumeration: exact probabilities, and bodies that use randomness other than ctx.draw."""

from __future__ import annotations

from fractions import Fraction

import pytest

from faier.mechanisms.handlers import (
    Context,
    Nondeterministic,
    distribution_of,
    enumerate_paths,
    guarded,
)
from faier.model.distribution import bernoulli


def two_coins(ctx: Context) -> int:
    first = ctx.draw(bernoulli(Fraction(1, 3)))
    second = ctx.draw(bernoulli(Fraction(1, 4))) if first else 0
    return int(first) + int(second)


def test_paths_and_probabilities_are_exact() -> None:
    paths = list(enumerate_paths(two_coins))
    assert sum(p for _, p in paths) == 1
    assert dict(distribution_of(two_coins).items) == {
        0: Fraction(2, 3),
        1: Fraction(1, 4),
        2: Fraction(1, 12),
    }


def test_a_distribution_that_changes_between_reruns_is_refused() -> None:
    calls = [0]

    def drifting(ctx: Context) -> int:
        calls[0] += 1
        first = ctx.draw(bernoulli(Fraction(1, 2)))
        return int(first) + int(ctx.draw(bernoulli(Fraction(1, 2 + calls[0]))))

    with pytest.raises(Nondeterministic, match="draw number 2"):
        distribution_of(drifting)


def test_a_result_that_changes_between_reruns_is_refused() -> None:
    calls = [0]

    def leaky(ctx: Context) -> int:
        calls[0] += 1
        return int(ctx.draw(bernoulli(Fraction(1, 2)))) + calls[0]

    with pytest.raises(Nondeterministic, match="the same draws gave 2 and then 3"):
        distribution_of(leaky)


def test_the_guard_names_the_mechanism() -> None:
    calls = [0]

    def leaky(ctx: Context) -> int:
        calls[0] += 1
        return calls[0]

    with pytest.raises(Nondeterministic, match=r"^mechanism 'leaky' is not deterministic"):
        guarded("leaky", lambda: distribution_of(leaky))
