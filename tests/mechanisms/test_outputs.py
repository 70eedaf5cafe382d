from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pytest

from faier.errors import MechanismError
from faier.mechanisms.outputs import hashable_output


@dataclass(frozen=True)
class Noisy:
    """A stand-in for an engine's symbolic number."""

    name: str


def _named(value: Noisy) -> str:
    return f"released {value.name}"


def test_lists_become_tuples_at_every_depth() -> None:
    value = [1, [Fraction(1, 2), ("a", [True])]]
    assert hashable_output(value, Noisy, _named) == (1, (Fraction(1, 2), ("a", (True,))))


def test_symbolic_parts_are_converted_where_they_stand() -> None:
    value = [Noisy("x"), (2, Noisy("y"))]
    assert hashable_output(value, Noisy, _named) == ("released x", (2, "released y"))
    assert hashable_output(Noisy("z"), Noisy, _named) == "released z"


def test_a_hashable_output_is_returned_as_it_is() -> None:
    output = frozenset({1, 2})
    assert hashable_output(output, Noisy, _named) is output


@pytest.mark.parametrize("value", [{"a": 1}, [1, {2}], ({"x"},)])
def test_what_cannot_be_hashed_is_the_mechanisms_error(value: object) -> None:
    with pytest.raises(MechanismError, match="is not hashable") as caught:
        hashable_output(value, Noisy, _named)
    assert caught.value.fix == "return a tuple, number, bool or string"
