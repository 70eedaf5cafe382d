"""Neighbour relations: symmetric closure made explicit, reflexive pairs implicit, names checked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from faier.errors import InputError, SpecError
from faier.logic.loading import load_neighbours
from faier.logic.neighbours import (
    NeighbourRelation,
    NeighbourSpec,
    matching_valuation,
    neighbour_spec_from_data,
    parse_neighbour_spec,
)

STATES = ("s0", "s1", "s2", "t0")
LABELS = {"in0": frozenset({"s0"}), "in1": frozenset({"s1"}), "in2": frozenset({"s2"})}


def test_symmetric_closure_is_explicit() -> None:
    relation = NeighbourRelation.from_pairs(STATES, [("s0", "s1"), ("s1", "s0"), ("s1", "s2")])
    assert relation.pairs == {("s0", "s1"), ("s1", "s0"), ("s1", "s2"), ("s2", "s1")}
    assert relation.added == 1
    assert relation.neighbours("s1") == ("s0", "s2")
    assert relation.related("t0", "t0") and not relation.related("s0", "s2")
    assert relation.unordered() == (("s0", "s1"), ("s1", "s2"))
    assert "symmetric closure added 1 of 4 orders" in relation.describe()


def test_self_pairs_are_implicit() -> None:
    assert NeighbourRelation.from_pairs(STATES, [("s0", "s0")]).pairs == frozenset()
    with pytest.raises(SpecError, match="paired with itself"):
        NeighbourRelation(STATES, frozenset({("s0", "s0")}))


def test_asymmetric_relation_is_rejected() -> None:
    with pytest.raises(SpecError, match="not 's1'~'s0'"):
        NeighbourRelation(STATES, frozenset({("s0", "s1")}))


def test_predicate() -> None:
    relation = NeighbourRelation.from_predicate(
        STATES, lambda s, t: s[0] == t[0] == "s" and int(t[1]) == int(s[1]) + 1
    )
    assert relation.unordered() == (("s0", "s1"), ("s1", "s2"))
    assert relation.added == 2


def test_spec_text() -> None:
    spec = parse_neighbour_spec("s0~s1; @in1~@in2")
    assert spec == NeighbourSpec((("s0", "s1"),), (("in1", "in2"),), "--neighbors")
    relation = spec.resolve(STATES, LABELS)
    assert relation.unordered() == (("s0", "s1"), ("s1", "s2"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("s0", "cannot read"),
        ("s0~", "cannot read"),
        ("s0~s1~s2", "cannot read"),
        ("@in0~s1", "pairs a label with a state"),
        (" ; ", "no neighbour pairs"),
    ],
)
def test_bad_spec_text(text: str, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        parse_neighbour_spec(text)


def test_unknown_names_are_rejected_with_a_suggestion() -> None:
    with pytest.raises(SpecError) as caught:
        parse_neighbour_spec("s0~s00").resolve(STATES, LABELS)
    assert "'s00', which is not a state" in caught.value.message
    assert caught.value.fix is not None and "did you mean" in caught.value.fix
    with pytest.raises(SpecError, match="label 'in7'"):
        parse_neighbour_spec("@in0~@in7").resolve(STATES, LABELS)


def test_data_and_files(tmp_path: object) -> None:
    spec = neighbour_spec_from_data(
        {"states": [["s0", "s1"]], "labels": [["in1", "in2"]]}, source="x"
    )
    assert spec.state_pairs == (("s0", "s1"),) and spec.label_pairs == (("in1", "in2"),)
    assert neighbour_spec_from_data([[0, 1]], source="x").state_pairs == (("0", "1"),)
    for bad, words in [
        ({"state": []}, "unknown key"),
        ({"states": [["a"]]}, "not a pair"),
        ({"states": "a~b"}, "list of pairs"),
        ("a~b", "list of pairs or a mapping"),
        ({}, "no neighbour pairs"),
    ]:
        with pytest.raises(SpecError, match=words):
            neighbour_spec_from_data(bad, source="x")
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "n.yaml").write_text("states: [[s0, s1]]\nlabels: [[in1, in2]]\n")
    assert load_neighbours(str(folder / "n.yaml")).resolve(STATES, LABELS).unordered() == (
        ("s0", "s1"),
        ("s1", "s2"),
    )
    (folder / "n.json").write_text('{"states": [["s0", "s1"]], "states": []}')
    with pytest.raises(InputError, match="appears twice"):
        load_neighbours(str(folder / "n.json"))
    with pytest.raises(SpecError, match="file not found"):
        load_neighbours(str(folder / "missing.yaml"))


@given(st.sets(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20))
def test_neighbours_come_from_an_index_in_model_order(raw: set[tuple[int, int]]) -> None:
    """The index gives what a scan of the states in model order gives."""
    states = tuple(f"s{i}" for i in (3, 0, 7, 1, 6, 2, 5, 4))
    relation = NeighbourRelation.from_pairs(states, [(f"s{a}", f"s{b}") for a, b in raw])
    for state in states:
        scanned = tuple(t for t in states if (state, t) in relation.pairs)
        assert relation.neighbours(state) == scanned


VALUED = ("x=0,y=0", "x=0,y=1", "x=1,y=0", "x=1,y=1")


def test_a_partial_valuation_in_any_order_names_the_states_it_matches() -> None:
    assert matching_valuation("y=1", VALUED) == ["x=0,y=1", "x=1,y=1"]
    assert matching_valuation(" y = 1 ,x=1", VALUED) == ["x=1,y=1"]
    assert matching_valuation("z=1", VALUED) == []
    assert matching_valuation("s0", VALUED) == []


def test_valuation_pairs_relate_states_that_differ_only_in_the_named_variables() -> None:
    relation = parse_neighbour_spec("x=0~x=1").resolve(VALUED, {})
    assert relation.unordered() == (("x=0,y=0", "x=1,y=0"), ("x=0,y=1", "x=1,y=1"))
    one = parse_neighbour_spec("y=1,x=0 ~ x=1,y=0").resolve(VALUED, {})
    assert one.unordered() == (("x=0,y=1", "x=1,y=0"),)
    with pytest.raises(SpecError, match="'x=2', which is not a state"):
        parse_neighbour_spec("x=0~x=2").resolve(VALUED, {})


def test_valuation_sides_that_pair_no_states_are_refused() -> None:
    """brp's 's=0~s=1' matched states but paired none (they differ in T and i too): it was
    dropped silently and D then said no neighbour relation was given."""
    states = ("i=0,s=0", "i=1,s=1", "i=2,s=1", "i=1,s=2")
    with pytest.raises(SpecError, match=r"s=0~s=1 pairs no two states") as refused:
        parse_neighbour_spec("s=0~s=1").resolve(states, {})
    assert "every variable in which the two states differ" in str(refused.value)
    assert parse_neighbour_spec("s=1~s=2").resolve(states, {}).unordered() == (
        ("i=1,s=1", "i=1,s=2"),
    )
    with pytest.raises(SpecError, match="pairs no two states"):
        parse_neighbour_spec("s=2~i=1,s=2").resolve(states, {})  # one state with itself
