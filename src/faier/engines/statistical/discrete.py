"""faier's discrete mechanisms, sampled from the same definitions the exact engine reads.

Sampling one run at a time through ``ctx.draw`` costs microseconds per run.
For a one-shot program the front end already computes the exact output
distribution of an input (program states merged), and for an interactive
mechanism on a fixed answer stream the explored automaton gives the exact
transcript distribution; drawing n outputs from such a table is one
``searchsorted`` over n uniforms.  When a table would be too large the
tester falls back to one run per sample (:class:`LoopRun`).

The noise-free run of StatDP's Hamming-distance events (§4.3) is the run in
which every draw takes its most likely outcome (for truncated geometric
noise: the true answer).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from faier.errors import BudgetExceeded, MechanismError, SpecError
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.handlers import guarded
from faier.mechanisms.interactive import HALTED, Interactive, LetterAutomaton
from faier.mechanisms.program import Done, Program, StepProgram
from faier.mechanisms.sampled import Outputs
from faier.model.distribution import Distribution

T = TypeVar("T", bound=Hashable)

MAX_TABLE = 1_000_000
"""Largest output table drawn from; beyond it each sample is one run."""


class ModeContext:
    """Draws the most likely outcome: the noise-free run.

    Among equally likely outcomes it takes the middle one, so that noise
    truncated to {0..m} that is flat around its centre (α = 1/2, m = 2,
    centre 1: 1/3 each) still returns the centre.
    """

    def draw(self, dist: Distribution[T]) -> T:
        if isinstance(dist, Continuous):
            return float(dist.loc)  # type: ignore[return-value]  # the mode of every family
        if not isinstance(dist, Distribution):
            raise MechanismError(f"draw() needs a faier Distribution, got {type(dist).__name__}")
        top = max(p for _, p in dist.items)
        best = [outcome for outcome, p in dist.items if p == top]
        return best[(len(best) - 1) // 2]


def noise_free_output(mechanism: Program[Any] | StepProgram[Any, Any], x: Hashable) -> Any:
    """The output of a one-shot program when every draw takes its most likely value."""
    ctx = ModeContext()
    if isinstance(mechanism, Program):
        return guarded(mechanism.name, mechanism.body, x, ctx)
    state: Any = guarded(mechanism.name, mechanism.start, x)
    for _ in range(mechanism.max_steps):
        if isinstance(state, Done):
            return state.output
        state = guarded(mechanism.name, mechanism.step, state, ctx)
    raise MechanismError(f"mechanism {mechanism.name!r} did not stop on {x!r}")


def noise_free_transcript(
    mechanism: Interactive, start: str, answers: Sequence[Hashable]
) -> tuple[str, ...]:
    """Observations of an interactive mechanism's noise-free run on an answer stream."""
    ctx = ModeContext()
    state: Any = mechanism.starts[start]
    out: list[str] = []
    for answer in answers:
        state, obs = guarded(mechanism.name, mechanism.step, state, answer, ctx)
        out.append(mechanism.output_name(obs))
        if state is HALTED:
            break
    return tuple(out)


def transcript_distribution(
    automaton: LetterAutomaton, start: str, answers: Sequence[Hashable], *, limit: int = MAX_TABLE
) -> dict[tuple[str, ...], Fraction]:
    """Exact distribution of the observations on a fixed answer stream (halting ends a run)."""
    letters = {x: i for i, x in enumerate(automaton.letters)}
    for answer in answers:
        if answer not in letters:
            raise SpecError(
                f"answer {answer!r} is not one the mechanism reads",
                fix=f"answers lie in {', '.join(map(str, automaton.letters))}",
            )
    layer: dict[tuple[int, tuple[str, ...]], Fraction] = {
        (automaton.starts[start], ()): Fraction(1)
    }
    done: dict[tuple[str, ...], Fraction] = {}
    for answer in answers:
        following: dict[tuple[int, tuple[str, ...]], Fraction] = {}
        for (state, seen), p in layer.items():
            for obs, target, q in automaton.moves[state][letters[answer]]:
                transcript = (*seen, automaton.observations[obs])
                if target == automaton.halted:
                    done[transcript] = done.get(transcript, Fraction(0)) + p * q
                else:
                    key = (target, transcript)
                    following[key] = following.get(key, Fraction(0)) + p * q
        if len(following) + len(done) > limit:
            raise BudgetExceeded(f"more than {limit} transcripts")
        layer = following
    for (_, transcript), p in layer.items():
        done[transcript] = done.get(transcript, Fraction(0)) + p
    return done


@dataclass(frozen=True, eq=False)
class Table:
    """An exact output distribution as a float CDF over its outputs, for drawing."""

    support: Outputs
    cdf: npt.NDArray[np.float64]

    @classmethod
    def of(cls, distribution: Mapping[Any, Fraction]) -> Table:
        outputs = list(distribution)
        probabilities = np.array([float(distribution[o]) for o in outputs])
        return cls(Outputs.from_values(outputs), np.cumsum(probabilities))

    def draw(self, n: int, rng: np.random.Generator) -> Outputs:
        rows = np.searchsorted(self.cdf, rng.random(n) * self.cdf[-1], side="right")
        return self.support.take(rows.clip(0, len(self.cdf) - 1))


@dataclass(frozen=True, eq=False)
class LoopRun:
    """One run per sample through the mechanism's own ``sample`` (slow, always possible)."""

    run: Callable[[np.random.Generator], Any]

    def draw(self, n: int, rng: np.random.Generator) -> Outputs:
        return Outputs.from_values([self.run(rng) for _ in range(n)])


def program_table(
    mechanism: Program[Any] | StepProgram[Any, Any], side: Distribution[Hashable]
) -> Table:
    """The exact output table of a one-shot program on an input (or a prior over inputs)."""
    mixed: dict[Any, Fraction] = {}
    for x, weight in side:
        for output, p in mechanism.output_distribution(x, max_states=MAX_TABLE).items:
            mixed[output] = mixed.get(output, Fraction(0)) + weight * p
            if len(mixed) > MAX_TABLE:
                raise BudgetExceeded(f"more than {MAX_TABLE} outputs")
    return Table.of(mixed)


def program_loop(
    mechanism: Program[Any] | StepProgram[Any, Any], side: Distribution[Hashable]
) -> LoopRun:
    """One run per sample; a prior side first draws its input."""
    inputs = [x for x, _ in side]
    cdf = np.cumsum([float(p) for _, p in side])

    def run(rng: np.random.Generator) -> Any:
        k = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), len(inputs) - 1)
        return mechanism.sample(inputs[k], rng)

    return LoopRun(run)


def interactive_loop(mechanism: Interactive, start: str, answers: Sequence[Hashable]) -> LoopRun:
    """One run per sample on a fixed answer stream, observations named as in the automaton."""
    stream = tuple(answers)

    def run(rng: np.random.Generator) -> tuple[str, ...]:
        return tuple(mechanism.output_name(o) for o in mechanism.sample(start, stream, rng))

    return LoopRun(run)
