"""Sampled mechanisms: outputs as columns, checked; user functions wrapped with clear errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from faier.errors import MechanismError
from faier.mechanisms.sampled import (
    ABSENT,
    NUMBER,
    Argument,
    Outputs,
    Sampled,
    blackbox,
    concat,
    vectorised,
)

RNG = np.random.default_rng(0)
QUERIES = np.array([1.0, 2.0])


def test_python_values_become_columns() -> None:
    out = Outputs.from_values([(True, 1.5), (False,), ("x", 2)])
    assert out.is_list and out.width == 2
    assert out.lengths.tolist() == [2, 1, 2]
    assert out.categories == (False, True, "x")
    assert out.codes[1, 1] == ABSENT and out.codes[0, 1] == NUMBER
    assert [out.value(i) for i in range(3)] == [(True, 1.5), (False,), ("x", 2)]


def test_arrays_become_columns() -> None:
    assert not Outputs.from_array(np.arange(3)).is_list
    bools = Outputs.from_array(np.array([[True, False]]))
    assert bools.categories == (False, True) and bools.value(0) == (True, False)


def test_concat_unifies_categories_and_widths() -> None:
    joined = concat([Outputs.from_values([("b",)]), Outputs.from_values([("a", "b", 1)])])
    assert joined.categories == ("a", "b")
    assert [joined.value(i) for i in range(2)] == [("b",), ("a", "b", 1)]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([1.0, math.inf], "non-finite number"),
        ([1.0, math.nan], "non-finite number"),
        ([(1, 2), 3], "inconsistent output types"),
        ([((1, 2),)], "nested list"),
        ([{"a": 1}], "unhashable dict"),
    ],
)
def test_bad_python_outputs(values: list[Any], message: str) -> None:
    with pytest.raises(MechanismError, match=message):
        Outputs.from_values(values)


def test_non_finite_array_outputs() -> None:
    with pytest.raises(MechanismError, match="non-finite number"):
        Outputs.from_array(np.array([1.0, np.nan]))


def test_vectorised_decorator() -> None:
    @vectorised(neighbours="one-query", arguments=[Argument("T", "branch")])
    def shifted(queries: np.ndarray, epsilon: float, n: int, rng: Any, T: float) -> np.ndarray:
        """Adds T to the first answer."""
        return np.full(n, queries[0] + T)

    assert isinstance(shifted, Sampled) and shifted.name == "shifted"
    assert shifted.doc == "Adds T to the first answer."
    out = shifted.sample(QUERIES, 1.0, 3, RNG, (("T", 0.5),))
    assert out.numbers[:, 0].tolist() == [1.5, 1.5, 1.5]


def test_blackbox_decorator_batches_a_scalar_function() -> None:
    @blackbox()
    def coin(queries: list[float], epsilon: float, rng: Any) -> bool:
        return bool(rng.random() < 0.5)

    out = coin.sample(QUERIES, 1.0, 200, RNG, ())
    assert out.n == 200 and set(out.categories) == {False, True}


def test_wrong_number_of_rows() -> None:
    broken = Sampled("short", vectorised=lambda q, e, n, rng: np.zeros(n - 1))
    with pytest.raises(MechanismError, match=r"shape \(n,\) or \(n, L\) with n = 5"):
        broken.sample(QUERIES, 1.0, 5, RNG, ())


def test_a_crash_names_the_mechanism() -> None:
    def crash(queries: list[float], epsilon: float, rng: Any) -> float:
        raise ZeroDivisionError("boom")

    with pytest.raises(MechanismError, match="'crash' raised ZeroDivisionError: boom"):
        blackbox()(crash).sample(QUERIES, 1.0, 3, RNG, ())


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Sampled("none"), "neither a sampler nor a definition"),
        (lambda: Sampled("x", reference=abs, neighbours="add-remove"), "declares neighbours"),
        (lambda: Argument("T", "threshold"), "role 'threshold'"),
    ],
)
def test_bad_declarations(make: Any, message: str) -> None:
    with pytest.raises(MechanismError, match=message):
        make()
