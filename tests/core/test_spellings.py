from __future__ import annotations

import pytest

from faier.core.spellings import given_once
from faier.errors import SpecError


def test_the_value_under_any_one_spelling_is_the_options() -> None:
    assert given_once("epsilon", {"epsilon": "1", "eps": None, "claimed": None}) == "1"
    assert given_once("epsilon", {"epsilon": None, "eps": None, "claimed": 0.5}) == 0.5
    assert given_once("epsilon", {"epsilon": None, "eps": None}) is None
    assert given_once("pairs", {"pairs": []}) == []  # an empty value is given, not missing


def test_two_spellings_at_once_are_refused_naming_both_and_the_fix() -> None:
    with pytest.raises(SpecError) as caught:
        given_once("neighbours", {"neighbours": "every-query", "neighbors": "one-query"})
    error = caught.value
    assert error.message == (
        "neighbours is given twice, as neighbours='every-query' and neighbors='one-query'"
    )
    assert error.where == "neighbors"
    assert error.fix == (
        "pass it once, as neighbours= or as neighbors=: they are two spellings of one option"
    )


def test_the_first_two_given_are_named_and_the_place_can_be_a_flag() -> None:
    with pytest.raises(SpecError, match="as eps=1 and claimed=2") as caught:
        given_once("epsilon", {"epsilon": None, "eps": 1, "claimed": 2}, where="--claimed")
    assert caught.value.where == "--claimed"


def test_long_values_are_shortened_in_the_message() -> None:
    with pytest.raises(SpecError) as caught:
        given_once("pairs", {"pairs": list(range(1000)), "inputs": [(0, 1)]})
    message = caught.value.message
    assert len(message) < 120 and message.endswith("and inputs=[(0, 1)]")
