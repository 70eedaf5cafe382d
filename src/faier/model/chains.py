"""Labelled Markov chains and Markov decision processes (dpCTL* models).

States carry sets of atomic propositions; probabilities are exact.  An MDP
offers, in each state, named actions, each with its own distribution.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from faier.errors import ModelError
from faier.model.checked import CheckedChoices, CheckedRows


def _check_distribution(row: Mapping[str, Fraction], states: frozenset[str], where: str) -> None:
    for target, p in row.items():
        if target not in states:
            raise ModelError(f"transition to unknown state {target!r}", where=where)
        if not isinstance(p, Fraction) or p < 0:
            raise ModelError(
                f"probability {p!r} of {target!r} is not a non-negative rational", where=where
            )
    if sum(row.values(), Fraction(0)) != 1:
        raise ModelError(
            f"probabilities sum to {sum(row.values(), Fraction(0))}, not 1", where=where
        )


@dataclass(frozen=True)
class MarkovChain:
    """A discrete-time Markov chain with labelled states."""

    states: tuple[str, ...]
    transitions: Mapping[str, Mapping[str, Fraction]]
    labels: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        known = frozenset(self.states)
        if len(known) != len(self.states):
            raise ModelError("a state is declared twice")
        checked = isinstance(self.transitions, CheckedRows)
        for state in self.states:
            if state not in self.transitions:
                raise ModelError(f"state {state!r} has no outgoing distribution")
            if not checked:
                _check_distribution(self.transitions[state], known, f"transitions of {state!r}")
        for state in self.labels:
            if state not in known:
                raise ModelError(f"label given for unknown state {state!r}")

    def label(self, state: str) -> frozenset[str]:
        """The atomic propositions true in a state."""
        return self.labels.get(state, frozenset())


@dataclass(frozen=True)
class MDP:
    """A Markov decision process: per state, actions with their distributions."""

    states: tuple[str, ...]
    actions: Mapping[str, Mapping[str, Mapping[str, Fraction]]]
    labels: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        known = frozenset(self.states)
        if len(known) != len(self.states):
            raise ModelError("a state is declared twice")
        if isinstance(self.actions, CheckedChoices):
            return
        for state in self.states:
            choices = self.actions.get(state)
            if not choices:
                raise ModelError(f"state {state!r} has no action")
            for action, row in choices.items():
                _check_distribution(row, known, f"action {action!r} of {state!r}")
        for state in self.labels:
            if state not in known:
                raise ModelError(f"label given for unknown state {state!r}")

    def label(self, state: str) -> frozenset[str]:
        """The atomic propositions true in a state."""
        return self.labels.get(state, frozenset())
