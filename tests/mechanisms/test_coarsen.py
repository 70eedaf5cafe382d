"""Coarsening a program's released numbers: a function of its output alone."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import faier
from faier.errors import SpecError
from faier.mechanisms.coarsen import (
    Bucket,
    Hidden,
    bucket,
    coarsen,
    coarsened,
    cut_points,
    partitions,
)


def test_buckets_read_as_intervals() -> None:
    assert str(Bucket(None, Fraction(0))) == "< 0"
    assert str(Bucket(Fraction(0), None)) == "≥ 0"
    assert str(Bucket(Fraction(0), Fraction(4))) == "in [0, 4)"
    assert str((False, Bucket(None, Fraction(0)))) == "(False, < 0)"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-0.5, Bucket(None, Fraction(0))), (0.0, Bucket(Fraction(0), Fraction(4)))],
)
def test_a_number_lands_in_the_half_open_interval(value: float, expected: Bucket) -> None:
    assert bucket(value, (Fraction(0), Fraction(4))) == expected
    assert bucket(4.0, (Fraction(0), Fraction(4))) == Bucket(Fraction(4), None)


def test_only_released_numbers_are_replaced() -> None:
    """Flags, indices and labels are not released numbers; tuples and lists are walked."""
    output = (True, 0.5, [-3.5, 2], "a", None, Fraction(7, 2), Fraction(4, 2), 3.0)
    cut = (Fraction(0), Fraction(1))
    assert coarsen(output, cut) == (
        True,
        Bucket(Fraction(0), Fraction(1)),
        (Bucket(None, Fraction(0)), 2),
        "a",
        None,
        Bucket(Fraction(1), None),
        2,
        3,
    )


def test_the_map_reads_the_value_not_its_type() -> None:
    """2, 2.0 and Fraction(2) are one output (equal and hashed alike): one image."""
    cut = (Fraction(0),)
    assert coarsen(2, cut) == coarsen(2.0, cut) == coarsen(Fraction(2), cut) == 2
    assert coarsen(float("inf"), cut) == Bucket(Fraction(0), None)


@faier.program(inputs=faier.grid(3, 2))
def _noisy_answers(q, ctx):  # type: ignore[no-untyped-def]
    out = []
    for a in q:
        v = a + ctx.draw(faier.laplace(0, 2))
        out.append(v if v > 1 else False)
    return tuple(out)


def test_the_coarsened_program_is_the_program_then_the_map() -> None:
    """Same seed, same draws: the coarsened run's output is the original's, coarsened."""
    cuts = (Fraction(-1), Fraction(2))
    coarse = coarsened(_noisy_answers, cuts)
    for seed in range(20):
        x = (seed % 3, 1, 2)
        original = _noisy_answers.sample(x, np.random.default_rng(seed))
        assert coarse.sample(x, np.random.default_rng(seed)) == coarsen(original, cuts)
    assert coarse.inputs == _noisy_answers.inputs and "cut at -1, 2" in coarse.name


def test_coarsening_needs_a_cut_point() -> None:
    with pytest.raises(SpecError, match="at least one cut point"):
        coarsened(_noisy_answers, ())


def test_cut_points_start_at_zero_and_stay_few() -> None:
    assert cut_points([Fraction(1), Fraction(17)], [Fraction(2), Fraction(8)]) == (
        Fraction(0),
        Fraction(1),
        Fraction(-1),
        Fraction(17),
        Fraction(-17),
        Fraction(-2),
    )
    assert partitions((Fraction(0), Fraction(1), Fraction(-1))) == [
        (Fraction(0),),
        (Fraction(-1), Fraction(0), Fraction(1)),
    ]
    assert partitions(()) == []


def test_past_the_first_released_numbers_the_others_are_left_out() -> None:
    cuts = (Fraction(0),)
    out = coarsen((0.5, False, -2.5, 1.5), cuts, released=1)
    assert out == (Bucket(Fraction(0), None), False, Hidden(), Hidden())
    assert str(out) == "(≥ 0, False, ·, ·)"
    assert coarsen((0.5, -2.5), cuts, released=2) == coarsen((0.5, -2.5), cuts)
