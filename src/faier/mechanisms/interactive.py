"""Interactive mechanisms: the adversary supplies one query answer per step.

Above Threshold and the sparse vector variants read a stream of query
answers and emit one observation per answer until they halt.  A mechanism is
``step(state, answer, ctx) -> (next_state, observation)``; returning
:data:`HALTED` as the next state ends the run.  Exploring it gives a finite
letter-driven automaton whose equal program states are merged; the exact
engine runs two copies of it, one per side of a neighbour pair.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from faier.errors import BudgetExceeded, MechanismError
from faier.mechanisms.handlers import Context, SamplingContext, enumerate_paths, guarded


@dataclass(frozen=True)
class Halted:
    """The state of a mechanism that has stopped."""

    def __repr__(self) -> str:
        return "HALTED"


HALTED = Halted()
END = "■"
"""Observation of a halted run (the observer sees the mechanism has stopped)."""

DEFAULT_MAX_AUTOMATON_STATES = 200_000

Move = tuple[int, int, Fraction]
"""(observation index, next state index, probability)."""


@dataclass(frozen=True)
class LetterAutomaton:
    """Explored interactive mechanism: per state and letter, (obs, next, p) moves."""

    states: tuple[Hashable, ...]
    letters: tuple[Hashable, ...]
    observations: tuple[str, ...]
    starts: Mapping[str, int]
    moves: tuple[tuple[tuple[Move, ...], ...], ...]
    halted: int


@dataclass(frozen=True)
class Interactive:
    """A mechanism over a stream of adversary-chosen query answers."""

    name: str
    letters: tuple[Hashable, ...]
    starts: Mapping[str, Hashable]
    step: Callable[[Any, Any, Context], tuple[Any, Hashable]]
    doc: str = ""
    default_horizon: int = 6
    output_name: Callable[[Hashable], str] = field(default=str)

    def letter_pairs(self, delta: int = 1) -> tuple[tuple[Hashable, Hashable], ...]:
        """Answer pairs (x, x') a neighbour pair may produce for one query: |x − x'| ≤ Δ."""
        pairs: list[tuple[Hashable, Hashable]] = []
        for x in self.letters:
            for y in self.letters:
                if isinstance(x, int) and isinstance(y, int):
                    if abs(x - y) <= delta:
                        pairs.append((x, y))
                elif x == y:
                    pairs.append((x, y))
        return tuple(pairs)

    def _paths(self, state: Hashable, letter: Hashable) -> list[tuple[Any, Fraction]]:
        """Every (next state, observation) of one step, with exact probabilities."""
        return guarded(
            self.name, lambda: list(enumerate_paths(lambda ctx: self.step(state, letter, ctx)))
        )

    def _sample_step(self, state: Any, answer: Hashable, ctx: Context) -> tuple[Any, Hashable]:
        return guarded(self.name, lambda: self.step(state, answer, ctx))

    def automaton(self, *, max_states: int | None = None) -> LetterAutomaton:
        """Explore every reachable program state from every start, merging equal ones."""
        limit = max_states or DEFAULT_MAX_AUTOMATON_STATES
        index: dict[Hashable, int] = {HALTED: 0}
        states: list[Hashable] = [HALTED]
        observations: dict[str, int] = {END: 0}
        starts = {}
        for label, state in self.starts.items():
            if state not in index:
                index[state] = len(states)
                states.append(state)
            starts[label] = index[state]
        moves: list[tuple[tuple[Move, ...], ...]] = []
        cursor = 0
        while cursor < len(states):
            state = states[cursor]
            per_letter: list[tuple[Move, ...]] = []
            for letter in self.letters:
                if state is HALTED:
                    per_letter.append(((0, 0, Fraction(1)),))
                    continue
                merged: dict[tuple[int, int], Fraction] = {}
                paths = self._paths(state, letter)
                for result, p in paths:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise MechanismError(
                            f"step of {self.name!r} must return (next_state, observation), "
                            f"got {result!r}"
                        )
                    nxt, obs = result
                    if nxt not in index:
                        if len(states) >= limit:
                            raise BudgetExceeded(f"more than {limit} program states")
                        index[nxt] = len(states)
                        states.append(nxt)
                    name = self.output_name(obs)
                    o = observations.setdefault(name, len(observations))
                    key = (o, index[nxt])
                    merged[key] = merged.get(key, Fraction(0)) + p
                per_letter.append(tuple((o, t, p) for (o, t), p in merged.items()))
            moves.append(tuple(per_letter))
            cursor += 1
        return LetterAutomaton(
            states=tuple(states),
            letters=self.letters,
            observations=tuple(observations),
            starts=starts,
            moves=tuple(moves),
            halted=0,
        )

    def sample(
        self, start: str, answers: Sequence[Hashable], rng: np.random.Generator
    ) -> tuple[Hashable, ...]:
        """One random run on a fixed answer stream; stops when the mechanism halts."""
        if start not in self.starts:
            raise MechanismError(f"unknown start {start!r}; choose one of {', '.join(self.starts)}")
        ctx = SamplingContext(rng)
        state = self.starts[start]
        out: list[Hashable] = []
        for answer in answers:
            state, obs = self._sample_step(state, answer, ctx)
            out.append(obs)
            if state is HALTED:
                break
        return tuple(out)
