"""A data model as a Markov chain over a sequence of records (one per time step).

A person's state over time: X1 is drawn from ``initial``, each X(t+1) from
``transition[X(t)]`` (Song et al. 2017 in docs/REFERENCES.md).  A secret is
about one time step ("X3 = sick"); the discriminative pairs are two values of the same
step.  Conditioning is exact: a count query (how many steps are in a set of
values) is computed by a forward pass over (state, count so far), so the
work grows with T·|S|²·T rather than |S|^T; any other query enumerates the
sequences.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from faier.errors import SpecError
from faier.privacy.correlated import (
    Conditioned,
    Dataset,
    Query,
    RecordSecret,
    check_record,
    grouped_by_query,
)
from faier.privacy.weights import (
    Weight,
    expanded,
    is_symbolic,
    is_zero,
    names,
    simplified,
    total,
    weight,
)


@dataclass(frozen=True)
class MarkovChainData:
    """States, an initial distribution, a transition matrix and a length T."""

    states: tuple[str, ...]
    initial: Mapping[str, Weight] = field(hash=False)
    transition: Mapping[str, Mapping[str, Weight]] = field(hash=False)
    length: int
    step_names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.states or len(set(self.states)) != len(self.states):
            raise SpecError("a Markov chain needs distinct state names")
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length < 1:
            raise SpecError(
                f"the chain's length must be a positive whole number, got {self.length}"
            )
        if self.length > 1000:
            raise SpecError(
                f"a chain of {self.length} steps is longer than faier enumerates (1000)"
            )
        if not self.step_names:
            object.__setattr__(
                self, "step_names", tuple(f"X{t}" for t in range(1, self.length + 1))
            )
        if len(self.step_names) != self.length:
            raise SpecError(
                f"{len(self.step_names)} step names for a chain of length {self.length}"
            )
        self._check_row("initial", self.initial)
        for s in self.states:
            if s not in self.transition:
                raise SpecError(
                    f"the chain has no transition row for state {s!r}",
                    fix="give a row 'state: {next: probability}' for every state",
                )
            self._check_row(f"transition.{s}", self.transition[s])
        for s in self.transition:
            if s not in self.states:
                raise SpecError(f"transition row for an unknown state {s!r}")

    def _check_row(self, place: str, row: Mapping[str, Weight]) -> None:
        for s in row:
            if s not in self.states:
                raise SpecError(
                    f"{place}: unknown state {s!r}", fix=f"states: {', '.join(self.states)}"
                )
        mass = simplified(total(row.values()))
        if is_symbolic(mass) or mass != 1:
            raise SpecError(
                f"{place}: probabilities sum to {mass}, not 1",
                fix="make the row sum to 1 for every parameter value",
            )

    @classmethod
    def of(
        cls,
        states: Sequence[str],
        initial: Mapping[str, object],
        transition: Mapping[str, Mapping[str, object]],
        length: int,
    ) -> MarkovChainData:
        """Probabilities as numbers, text (``1-p``) or sympy expressions."""
        return cls(
            tuple(states),
            {s: weight(w, where=f"initial.{s}") for s, w in initial.items()},
            {
                s: {t: weight(w, where=f"transition.{s}.{t}") for t, w in row.items()}
                for s, row in transition.items()
            },
            length,
        )

    @property
    def records(self) -> tuple[str, ...]:
        return self.step_names

    def attributes(self, record: str) -> tuple[str, ...]:
        return ("value",)

    def parameters(self) -> set[str]:
        weights = [*self.initial.values()]
        weights += [w for row in self.transition.values() for w in row.values()]
        return names(weights)

    def step(self, s: str, t: str) -> Weight:
        return self.transition[s].get(t, Fraction(0))

    def joint(self) -> Iterator[tuple[Dataset, Weight]]:
        """Every sequence of positive weight (|S|^T of them at most)."""
        for seq in itertools.product(self.states, repeat=self.length):
            w: Weight = self.initial.get(seq[0], Fraction(0))
            for a, b in itertools.pairwise(seq):
                if is_zero(w):
                    break
                w = w * self.step(a, b)
            if not is_zero(w):
                yield tuple((("value", s),) for s in seq), w

    def conditioned(self, secret: RecordSecret, query: Query) -> Conditioned:
        at = check_record(self, secret)
        allowed = {s for s in self.states if secret.holds((("value", s),))}
        if query.counts is not None:
            grouped = self._counted(at, allowed, query)
        else:
            kept = ((d, w) for d, w in self.joint() if dict(d[at])["value"] in allowed)
            grouped = grouped_by_query(kept, query)
        return Conditioned.normalised(grouped, simplified(total(grouped.values())))

    def _counted(self, at: int, allowed: set[str], query: Query) -> dict[object, Weight]:
        """Forward pass over (state, count so far), the secret's step restricted."""
        assert query.counts is not None
        counted = {s for s in self.states if query.counts((("value", s),))}
        front: dict[tuple[str, int], Weight] = {}
        for s, w in self.initial.items():
            if not is_zero(w) and (at != 0 or s in allowed):
                front[(s, int(s in counted))] = w
        for t in range(1, self.length):
            nxt: dict[tuple[str, int], list[Weight]] = {}
            for (s, c), w in front.items():
                for u, p in self.transition[s].items():
                    if is_zero(p) or (t == at and u not in allowed):
                        continue
                    nxt.setdefault((u, c + int(u in counted)), []).append(w * p)
            front = {k: expanded(total(ws)) for k, ws in nxt.items()}
        out: dict[int, list[Weight]] = {}
        for (_, c), w in front.items():
            out.setdefault(c, []).append(w)
        return {query.of_count(c): expanded(total(ws)) for c, ws in sorted(out.items())}

    def describe(self) -> str:
        return f"a Markov chain over {len(self.states)} states, {self.length} steps"
