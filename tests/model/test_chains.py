"""Labelled Markov chains and MDPs validate themselves."""

from __future__ import annotations

from fractions import Fraction

import pytest

from faier.errors import ModelError
from faier.model.chains import MDP, MarkovChain

HALF = Fraction(1, 2)


def test_markov_chain_accepts_a_stochastic_labelled_chain() -> None:
    chain = MarkovChain(
        ("s", "t"),
        {"s": {"s": HALF, "t": HALF}, "t": {"t": Fraction(1)}},
        {"t": frozenset({"done"})},
    )
    assert chain.label("t") == {"done"} and chain.label("s") == frozenset()


@pytest.mark.parametrize(
    ("transitions", "labels", "message"),
    [
        ({"s": {"s": HALF}}, {}, "not 1"),
        ({"s": {"u": Fraction(1)}}, {}, "unknown state"),
        ({}, {}, "no outgoing distribution"),
        ({"s": {"s": Fraction(1)}}, {"x": frozenset({"a"})}, "unknown state"),
    ],
)
def test_markov_chain_rejects(transitions: dict, labels: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ModelError, match=message):
        MarkovChain(("s",), transitions, labels)


def test_mdp_actions() -> None:
    mdp = MDP(
        ("s", "t"),
        {
            "s": {"L": {"s": Fraction(1)}, "H": {"t": Fraction(1)}},
            "t": {"stay": {"t": Fraction(1)}},
        },
    )
    assert tuple(mdp.actions["s"]) == ("L", "H")
    with pytest.raises(ModelError, match="no action"):
        MDP(("s",), {"s": {}})
    with pytest.raises(ModelError, match="not 1"):
        MDP(("s",), {"s": {"a": {"s": HALF}}})
