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

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

from faier.errors import BudgetExceeded, MechanismError
from faier.mechanisms.handlers import (
    Context,
    SamplingContext,
    distribution_of,
    enumerate_paths,
    guarded,
)
from faier.mechanisms.inputs import Input, InputSpace
from faier.mechanisms.symmetry import PermuteQueries
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.values import show_input

OutT = TypeVar("OutT", bound=Hashable)
S = TypeVar("S", bound=Hashable)
R = TypeVar("R")

SILENT = "·"
"""Observation of a step that outputs nothing yet."""

DEFAULT_MAX_STEPS = 10_000
MEMO_LIMIT = 1_000_000


@dataclass(frozen=True)
class Done(Generic[OutT]):
    """Returned by a step to end the run with an output."""

    output: OutT


@dataclass(frozen=True)
class Program(Generic[OutT]):
    """A one-shot mechanism ``body(x, ctx) -> output``."""

    name: str
    body: Callable[[Any, Context], OutT]
    inputs: InputSpace
    doc: str = ""
    output_name: Callable[[OutT], str] = field(default=str)
    symmetry: PermuteQueries | None = None
    """Declared symmetry in the queries (docs/MECHANISMS.md), checked before it is used."""

    def output_distribution(self, x: Input, *, max_states: int | None = None) -> Distribution[OutT]:
        """Exact output distribution on input ``x`` (every path enumerated)."""
        return guarded(
            self.name,
            lambda: distribution_of(lambda ctx: self.body(x, ctx), max_paths=max_states),
        )

    def sample(self, x: Input, rng: np.random.Generator) -> OutT:
        """One random run on ``x``."""
        return guarded(self.name, lambda: self.body(x, SamplingContext(rng)))


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
    symmetry: PermuteQueries | None = None
    """Declared symmetry in the queries (docs/MECHANISMS.md), checked before it is used."""
    _memo: dict[Any, list[tuple[Any, Fraction]]] = field(
        default_factory=dict, compare=False, repr=False
    )
    _integer_memo: dict[Any, tuple[int, list[tuple[Any, int]]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def _successors(self, state: S) -> list[tuple[S | Done[OutT], Fraction]]:
        """One step's outcomes; memoised, since inputs share program states."""
        cached = self._memo.get(state)
        if cached is None:
            cached = guarded(
                self.name, lambda: list(enumerate_paths(lambda ctx: self.step(state, ctx)))
            )
            if len(self._memo) < MEMO_LIMIT:
                self._memo[state] = cached
        return cached

    def _integer_successors(self, state: S) -> tuple[int, list[tuple[S | Done[OutT], int]]]:
        """One step's outcomes as integer numerators over one denominator (memoised)."""
        cached = self._integer_memo.get(state)
        if cached is None:
            outcomes = self._successors(state)
            den = math.lcm(*(q.denominator for _, q in outcomes))
            cached = (den, [(r, q.numerator * (den // q.denominator)) for r, q in outcomes])
            if len(self._integer_memo) < MEMO_LIMIT:
                self._integer_memo[state] = cached
        return cached

    def output_distribution(self, x: Input, *, max_states: int | None = None) -> Distribution[OutT]:
        """Exact output distribution on ``x``, propagating merged program states.

        A layer's probabilities are integer numerators over one common
        denominator, reduced once per output at the end: Fractions reduced
        by two gcds per product and one per sum, most of a run (Noisy Max,
        n = 13: 0.05 s a run in Fractions).
        """
        layer: dict[S, int] = {self._start(x): 1}
        den = 1
        outputs: dict[OutT, int] = {}
        out_den = 1
        explored = 0
        for _ in range(self.max_steps):
            if not layer:
                return Distribution.from_pairs(
                    (out, Fraction(p, out_den)) for out, p in outputs.items()
                )
            explored += len(layer)
            if max_states is not None and explored > max_states:
                raise BudgetExceeded(f"more than {max_states} program states on input {x!r}")
            steps = [(p, self._integer_successors(state)) for state, p in layer.items()]
            common = math.lcm(*(step_den for _, (step_den, _) in steps))
            den *= common
            if outputs and common > 1:
                outputs = {out: p * common for out, p in outputs.items()}
            out_den = den
            following: dict[S, int] = {}
            for p, (step_den, outcomes) in steps:
                scale = p * (common // step_den)
                for result, q in outcomes:
                    pq = scale * q
                    if isinstance(result, Done):
                        out = result.output
                        outputs[out] = outputs.get(out, 0) + pq
                    else:
                        following[result] = following.get(result, 0) + pq
            layer = following
        raise MechanismError(
            f"mechanism {self.name!r} did not stop within {self.max_steps} steps on {x!r}",
            fix="one-shot mechanisms must stop; write a looping mechanism as an interactive one",
        )

    def _sample_step(self, state: S, ctx: Context) -> S | Done[OutT]:
        return guarded(self.name, lambda: self.step(state, ctx))

    def sample(self, x: Input, rng: np.random.Generator) -> OutT:
        """One random run on ``x``."""
        ctx = SamplingContext(rng)
        state: S | Done[OutT] = guarded(self.name, lambda: self.start(x))
        for _ in range(self.max_steps):
            if isinstance(state, Done):
                return state.output
            state = self._sample_step(state, ctx)
        raise MechanismError(f"mechanism {self.name!r} did not stop within {self.max_steps} steps")

    def _start(self, x: Input) -> S:
        return guarded(self.name, lambda: self.start(x))

    def to_hmm(self, inputs: Sequence[Input] | None = None) -> HMM:
        """The mechanism as an HMM over merged program states (FAIER papers Fig. 2 style).

        One state per distinct reachable program state (observing ``·``) and
        one per output (observing the output, absorbing); each input is a
        named initial distribution on its start state, and equal program
        states reached from different inputs are one HMM state.  Observations
        are per step, so the HMM also shows *when* the output appears; for
        mechanisms whose runs all take the same number of steps (Noisy Max)
        its sequences of length steps + 1 carry exactly the output distribution.
        """
        chosen = tuple(self.inputs.values if inputs is None else inputs)
        names: dict[Any, str] = {}
        rows: dict[str, dict[str, Fraction]] = {}
        outputs: dict[str, str] = {}
        frontier: list[Any] = []
        starts: dict[str, str] = {}
        for x in chosen:
            start = self._start(x)
            if start not in names:
                names[start] = f"s{len(names)}"
                frontier.append(start)
            starts[show_input(x)] = names[start]
        while frontier:
            state = frontier.pop()
            row: dict[str, Fraction] = {}
            for result, p in self._successors(state):
                if isinstance(result, Done):
                    label = self.output_name(result.output)
                    target = outputs.setdefault(label, f"out:{label}")
                else:
                    if result not in names:
                        names[result] = f"s{len(names)}"
                        frontier.append(result)
                    target = names[result]
                row[target] = row.get(target, Fraction(0)) + p
            rows[names[state]] = row
        for target in outputs.values():
            rows[target] = {target: Fraction(1)}
        states = tuple(rows)
        observations = (SILENT, *outputs)
        emitting = {target: label for label, target in outputs.items()}
        transition = tuple(tuple(rows[s].get(t, Fraction(0)) for t in states) for s in states)
        emission = tuple(
            tuple(Fraction(1 if o == emitting.get(s, SILENT) else 0) for o in observations)
            for s in states
        )
        initial = {
            name: tuple(Fraction(1 if state == start else 0) for state in states)
            for name, start in starts.items()
        }
        return HMM(states, observations, transition, emission, initial)

    def reachable_states(self, x: Input) -> int:
        """How many distinct program states a run on ``x`` visits (merging at work)."""
        layer: set[Any] = {self.start(x)}
        seen = 0
        while layer:
            seen += len(layer)
            layer = {r for s in layer for r, _ in self._successors(s) if not isinstance(r, Done)}
        return seen


OneShot = Program[Any] | StepProgram[Any, Any]


def program(
    *,
    inputs: InputSpace | Iterable[Hashable],
    name: str | None = None,
    output_name: Callable[[Any], str] = str,
    symmetry: PermuteQueries | None = None,
) -> Callable[[Callable[[Any, Context], Any]], Program[Any]]:
    """Decorator: ``@program(inputs=grid(2, 2))`` over ``def mech(x, ctx): ...``.

    ``symmetry=permute_queries("index")`` declares that permuting the answers
    permutes the outputs along (:class:`PermuteQueries`); the exact engine then
    searches inputs up to permutation, after checking the claim on a sample.
    """
    space = inputs if isinstance(inputs, InputSpace) else InputSpace(tuple(inputs), "given inputs")

    def wrap(body: Callable[[Any, Context], Any]) -> Program[Any]:
        return Program(
            name=name or body.__name__,
            body=body,
            inputs=space,
            doc=(body.__doc__ or "").strip(),
            output_name=output_name,
            symmetry=symmetry,
        )

    return wrap
