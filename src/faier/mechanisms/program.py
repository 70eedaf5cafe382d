"""Mechanisms written once as Python code that draws from finite distributions.

Two one-shot forms share the same ``draw`` interface:

* :class:`Program`: ``body(x, ctx) -> output``.  Exact semantics by enumerating
  every execution path; simple, exponential in the number of draws.
* :class:`StepProgram`: ``start(x) -> state`` and ``step(state, ctx) -> state |
  Done(output)``.  Exact semantics layer by layer with equal program states
  merged, so Noisy Max over n queries keeps OutT(n³) states per input instead of
  3^n paths.

Both can also be sampled with a seeded generator, from the same definition.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

from faier.errors import BudgetExceeded, MechanismError
from faier.mechanisms.handlers import Context, SamplingContext, distribution_of, enumerate_paths
from faier.mechanisms.inputs import Input, InputSpace
from faier.model.distribution import Distribution

OutT = TypeVar("OutT", bound=Hashable)
S = TypeVar("S", bound=Hashable)
R = TypeVar("R")

DEFAULT_MAX_STEPS = 10_000


@dataclass(frozen=True)
class Done(Generic[OutT]):
    """Returned by a step to end the run with an output."""

    output: OutT


def _guarded(name: str, call: Callable[[], R]) -> R:
    """Run user code; turn its crash into a MechanismError naming the mechanism."""
    try:
        return call()
    except (BudgetExceeded, MechanismError):
        raise
    except Exception as exc:  # user code may raise anything
        raise MechanismError(
            f"mechanism {name!r} raised {type(exc).__name__}: {exc}",
            fix="fix the mechanism so it runs on every input of its input space",
        ) from exc


@dataclass(frozen=True)
class Program(Generic[OutT]):
    """A one-shot mechanism ``body(x, ctx) -> output``."""

    name: str
    body: Callable[[Any, Context], OutT]
    inputs: InputSpace
    doc: str = ""
    output_name: Callable[[OutT], str] = field(default=str)

    def output_distribution(self, x: Input, *, max_states: int | None = None) -> Distribution[OutT]:
        """Exact output distribution on input ``x`` (every path enumerated)."""
        return _guarded(
            self.name,
            lambda: distribution_of(lambda ctx: self.body(x, ctx), max_paths=max_states),
        )

    def sample(self, x: Input, rng: np.random.Generator) -> OutT:
        """One random run on ``x``."""
        return _guarded(self.name, lambda: self.body(x, SamplingContext(rng)))


@dataclass(frozen=True)
class StepProgram(Generic[S, OutT]):
    """A one-shot mechanism as a state machine whose equal states are merged."""

    name: str
    start: Callable[[Any], S]
    step: Callable[[S, Context], S | Done[OutT]]
    inputs: InputSpace
    doc: str = ""
    output_name: Callable[[OutT], str] = field(default=str)
    max_steps: int = DEFAULT_MAX_STEPS

    def _successors(self, state: S) -> list[tuple[S | Done[OutT], Fraction]]:
        return _guarded(self.name, lambda: list(enumerate_paths(lambda ctx: self.step(state, ctx))))

    def output_distribution(self, x: Input, *, max_states: int | None = None) -> Distribution[OutT]:
        """Exact output distribution on ``x``, propagating merged program states."""
        layer: dict[S, Fraction] = {_guarded(self.name, lambda: self.start(x)): Fraction(1)}
        outputs: dict[OutT, Fraction] = {}
        explored = 0
        for _ in range(self.max_steps):
            if not layer:
                return Distribution.from_pairs(outputs.items())
            explored += len(layer)
            if max_states is not None and explored > max_states:
                raise BudgetExceeded(f"more than {max_states} program states on input {x!r}")
            following: dict[S, Fraction] = {}
            for state, p in layer.items():
                for result, q in self._successors(state):
                    if isinstance(result, Done):
                        outputs[result.output] = outputs.get(result.output, Fraction(0)) + p * q
                    else:
                        following[result] = following.get(result, Fraction(0)) + p * q
            layer = following
        raise MechanismError(
            f"mechanism {self.name!r} did not stop within {self.max_steps} steps on {x!r}",
            fix="one-shot mechanisms must stop; write a looping mechanism as an interactive one",
        )

    def _sample_step(self, state: S, ctx: Context) -> S | Done[OutT]:
        return _guarded(self.name, lambda: self.step(state, ctx))

    def sample(self, x: Input, rng: np.random.Generator) -> OutT:
        """One random run on ``x``."""
        ctx = SamplingContext(rng)
        state: S | Done[OutT] = _guarded(self.name, lambda: self.start(x))
        for _ in range(self.max_steps):
            if isinstance(state, Done):
                return state.output
            state = self._sample_step(state, ctx)
        raise MechanismError(f"mechanism {self.name!r} did not stop within {self.max_steps} steps")

    def reachable_states(self, x: Input) -> int:
        """How many distinct program states a run on ``x`` visits (merging at work)."""
        layer: set[Any] = {self.start(x)}
        seen = 0
        while layer:
            seen += len(layer)
            layer = {r for s in layer for r, _ in self._successors(s) if not isinstance(r, Done)}
        return seen


OneShot = Program[Any] | StepProgram[Any, Any]
