"""Certifying a tester's candidates: P(M(D1) ∈ E) and P(M(D2) ∈ E) computed exactly.

The tester only estimates.  Where the mechanism has a discrete model, the
exact engine computes both probabilities of a candidate (D1, D2, E) as
rationals, so each tested ε gets a definite answer (FAIER journal §7.3.1, its
Fig. 4e discussion): the candidate is a *real* counterexample when
P(D1 ∈ E) > e^ε·P(D2 ∈ E) exactly, and *spurious* otherwise.

* One-shot programs: the exact engine's distribution mode gives (P, Q) for
  every output of the comparison; E collects its outputs.
* Interactive mechanisms on fixed answer streams: the exact engine's
  sequence system gives each transcript's (P, Q) from its step matrices
  (a run that halts early ends with the halting observation); E collects
  its transcripts.  The transcripts are listed from the explored automaton
  and their probabilities cross-checked against it.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import distribution_mode, sequence_mode
from faier.engines.statistical.discrete import transcript_distribution
from faier.engines.statistical.reports import Candidate
from faier.errors import InternalError, SpecError
from faier.mechanisms.interactive import Interactive, LetterAutomaton
from faier.mechanisms.program import Program, StepProgram
from faier.mechanisms.sampled import Outputs
from faier.model.distribution import Distribution
from faier.privacy.specs import Comparison, InteractiveDP
from faier.results import Enclosure, Loss, loss_of


@dataclass(frozen=True)
class ExactEvent:
    """Both probabilities of a candidate's event, as exact rationals."""

    p: Fraction
    q: Fraction

    @property
    def loss(self) -> Loss:
        """e^loss = p/q (∞ when q = 0 < p)."""
        return loss_of(self.p, self.q)

    def show_p(self) -> str:
        return str(self.p)

    def show_q(self) -> str:
        return str(self.q)

    def show_loss(self) -> str:
        return "-∞" if self.p == 0 else self.loss.show()

    def to_json(self) -> dict[str, Any]:
        return {
            "p": str(self.p),
            "q": str(self.q),
            "loss": self.loss.to_json(),
            "p_enclosure": _exact_enclosure(self.p).to_json(),
            "q_enclosure": _exact_enclosure(self.q).to_json(),
        }


def _exact_enclosure(value: Fraction) -> Enclosure:
    """A rational as a certified float interval (rounded outward), its value the closed form."""
    low = high = float(value)
    if Fraction(low) > value:
        low = math.nextafter(low, -math.inf)
    if Fraction(high) < value:
        high = math.nextafter(high, math.inf)
    return Enclosure(low, high, str(value))


class Certifier:
    """Computes exact event probabilities for one problem, reusing its exact tables."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.system: sequence_mode.SequenceSystem | None = None
        self.automaton: LetterAutomaton | None = None
        self.starts: dict[str, int] = {}

    def exact(self, candidate: Candidate) -> ExactEvent:
        mechanism = self.problem.mechanism
        if isinstance(mechanism, Program | StepProgram):
            return self._one_shot(mechanism, candidate)
        if isinstance(mechanism, Interactive):
            return self._interactive(mechanism, candidate)
        raise SpecError(f"{self.problem.name} has no discrete mechanism to certify with")

    def _one_shot(
        self, mechanism: Program[Any] | StepProgram[Any, Any], candidate: Candidate
    ) -> ExactEvent:
        left, right = candidate.left.prior, candidate.right.prior
        assert left is not None and right is not None
        comparison = Comparison(left, right, candidate.left.label, candidate.right.label)
        compared = next(distribution_mode.compare_outputs(mechanism, [comparison], Budget()))
        outputs = list(compared.outcomes)
        inside = candidate.event.mask(Outputs.from_values(outputs))
        p = sum(
            (compared.outcomes[o][0] for o, hit in zip(outputs, inside, strict=True) if hit),
            Fraction(0),
        )
        q = sum(
            (compared.outcomes[o][1] for o, hit in zip(outputs, inside, strict=True) if hit),
            Fraction(0),
        )
        return ExactEvent(p, q)

    def _interactive(self, mechanism: Interactive, candidate: Candidate) -> ExactEvent:
        privacy = self.problem.privacy
        assert isinstance(privacy, InteractiveDP)
        if self.system is None:
            self.system, self.starts = sequence_mode.interactive_system(
                mechanism, delta=privacy.delta
            )
        if self.automaton is None:
            self.automaton = mechanism.automaton()
        system = self.system
        start = dict(candidate.left.args)["start"]
        streams = tuple(candidate.left.value), tuple(candidate.right.value)
        tables = [transcript_distribution(self.automaton, start, s) for s in streams]
        transcripts = list(dict.fromkeys([*tables[0], *tables[1]]))
        inside = candidate.event.mask(Outputs.from_values(transcripts))
        point: Distribution[Hashable] = Distribution.point(start)
        begin = self.starts[start]
        comparison = sequence_mode.SequenceComparison(
            {begin: Fraction(1)}, {begin: Fraction(1)}, Comparison(point, point, start, start)
        )
        symbols = {(s.answers, s.observation): k for k, s in enumerate(system.symbols)}
        end = next(k for k, s in enumerate(system.symbols) if s.answers is None)
        p = q = Fraction(0)
        for transcript, hit in zip(transcripts, inside, strict=True):
            if not hit:
                continue
            path = _path(transcript, streams, symbols, end)
            tp, tq = sequence_mode.recompute(system, comparison, path)
            expected = (
                tables[0].get(transcript, Fraction(0)),
                tables[1].get(transcript, Fraction(0)),
            )
            if (tp, tq) != expected:
                raise InternalError(
                    f"transcript {transcript} has probabilities {tp}, {tq} in the "
                    f"exact engine but {expected[0]}, {expected[1]} in the automaton"
                )
            p, q = p + tp, q + tq
        return ExactEvent(p, q)


def _path(
    transcript: Sequence[str],
    streams: tuple[tuple[Any, ...], tuple[Any, ...]],
    symbols: dict[tuple[Any, str], int],
    end: int,
) -> list[int]:
    """Step symbols of a transcript; a run that stopped early ends with the halting symbol."""
    path = [symbols[((streams[0][i], streams[1][i]), obs)] for i, obs in enumerate(transcript)]
    if len(transcript) < len(streams[0]):
        path.append(end)
    return path
