"""Neighbour relations list exactly the pairs their definitions say."""

from __future__ import annotations

import itertools

import pytest

from faier.errors import SpecError
from faier.privacy.neighbours import (
    AddRemove,
    EveryQuery,
    ExplicitPairs,
    OneQuery,
    neighbour_pairs,
    parse_neighbours,
)


def brute(
    relation: EveryQuery | OneQuery, inputs: list[tuple[int, ...]]
) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(x, y) for x in inputs for y in inputs if relation.related(x, y)}


@pytest.mark.parametrize("relation", [EveryQuery(1), EveryQuery(2), OneQuery(1), OneQuery(2)])
def test_generated_pairs_equal_definition(relation: EveryQuery | OneQuery) -> None:
    inputs = list(itertools.product(range(4), repeat=2))
    assert set(neighbour_pairs(relation, inputs)) == brute(relation, inputs)


def test_scalars_and_counts() -> None:
    assert set(neighbour_pairs(EveryQuery(1), [0, 1, 2])) == {(0, 1), (1, 0), (1, 2), (2, 1)}
    grid = list(itertools.product(range(3), repeat=3))
    assert len(list(neighbour_pairs(OneQuery(1), grid))) == 3 * 2 * 2 * 9


def test_add_remove() -> None:
    inputs = [(), ("a",), ("b",), ("a", "b")]
    pairs = set(neighbour_pairs(AddRemove(), inputs))
    assert ((), ("a",)) in pairs and (("a", "b"), ("b",)) in pairs
    assert ((), ("a", "b")) not in pairs and (("a",), ("b",)) not in pairs


def test_explicit_pairs_are_symmetric_and_checked() -> None:
    assert set(neighbour_pairs(ExplicitPairs(((0, 1),)), [0, 1])) == {(0, 1), (1, 0)}
    with pytest.raises(SpecError):
        list(neighbour_pairs(ExplicitPairs(((0, 5),)), [0, 1]))


def test_parse() -> None:
    assert parse_neighbours("every-query") == EveryQuery(1)
    assert parse_neighbours("one-query:2") == OneQuery(2)
    assert parse_neighbours("add-remove") == AddRemove()
    for bad in ["nearby", "every-query:x", "one-query:0"]:
        with pytest.raises(SpecError):
            parse_neighbours(bad)
