"""Hidden Markov models (FAIER papers §2) with the forward algorithm.

States emit an observation, then move: the probability of observing
ω0…ωk from an initial information state π is Σ_s α_k(s) with
α_0(s) = π(s)·o(s, ω0) and α_{t+1}(s') = Σ_s α_t(s)·p(s, s')·o(s', ω_{t+1}).
Probabilities are exact (Fractions) or, in parametric models, sympy
expressions of declared parameters until those are fixed.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import overload

from faier.errors import ModelError
from faier.model.parameters import Parameter
from faier.model.probability import Probability, is_symbolic, substitute

Vector = tuple[Probability, ...]
Row = Sequence[Probability]
Matrix = tuple[Row, ...]
"""Rows as dense tuples, or as :class:`SparseRow` where most entries are 0."""

ZERO = Fraction(0)


class SparseRow(Sequence[Probability]):
    """A row kept by its non-zero entries, read like the dense tuple it stands for.

    A model file's transitions over n states would be n² Fractions densely
    (200 000 absorbing states: 4·10¹⁰); kept sparsely they are as many as the
    file writes.  Code that only needs the non-zero entries reads
    :func:`entries`, which is O(non-zeros) here and O(n) for a tuple.
    """

    __slots__ = ("_entries", "_size")

    def __init__(self, size: int, entries: Mapping[int, Probability]) -> None:
        self._size = size
        self._entries = {i: p for i, p in sorted(entries.items()) if is_symbolic(p) or p != 0}
        if any(not 0 <= i < size for i in self._entries):
            raise ModelError(f"a sparse row of {size} entries has an index outside it")

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Probability: ...

    @overload
    def __getitem__(self, index: slice) -> Vector: ...

    def __getitem__(self, index: int | slice) -> Probability | Vector:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._size)))
        position = index + self._size if index < 0 else index
        if not 0 <= position < self._size:
            raise IndexError("sparse row index out of range")
        return self._entries.get(position, ZERO)

    def __iter__(self) -> Iterator[Probability]:
        return (self._entries.get(i, ZERO) for i in range(self._size))

    def items(self) -> Iterable[tuple[int, Probability]]:
        """The non-zero entries (position, probability), by position."""
        return self._entries.items()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SparseRow):
            return self._size == other._size and self._entries == other._entries
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._size and all(
                self._entries.get(i, ZERO) == p for i, p in enumerate(other)
            )
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._size, tuple(self._entries.items())))

    def __repr__(self) -> str:
        return f"SparseRow({self._size}, {self._entries!r})"


def entries(row: Row) -> Iterable[tuple[int, Probability]]:
    """A row's non-zero entries (position, probability), by position."""
    if isinstance(row, SparseRow):
        return row.items()
    return ((i, p) for i, p in enumerate(row) if is_symbolic(p) or p != 0)


def _check_names(kind: str, names: Sequence[str]) -> None:
    if not names:
        raise ModelError(f"an HMM needs at least one {kind}")
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name:
            raise ModelError(f"{kind} names must be non-empty strings, got {name!r}")
        if name in seen:
            raise ModelError(f"{kind} {name!r} is declared twice")
        seen.add(name)


def _check_stochastic(rows: Matrix, width: int, what: str, row_names: Sequence[str]) -> None:
    if len(rows) != len(row_names):
        raise ModelError(f"{what} has {len(rows)} rows for {len(row_names)} states")
    for name, row in zip(row_names, rows, strict=True):
        if len(row) != width:
            raise ModelError(f"{what} row of state {name!r} has {len(row)} entries, not {width}")
        values = [p for _, p in entries(row)]
        if any(is_symbolic(p) for p in values):
            continue
        if any(p < 0 for p in values) or sum(values, Fraction(0)) != 1:
            raise ModelError(f"{what} row of state {name!r} is not a probability distribution")


MAX_HORIZON = 100_000
"""The longest observation sequences faier searches; a longer horizon is bad input (the
search takes a step per length, so 10⁹ would never end), and leaving the horizon out
asks for the unbounded-loss certificate instead."""


@dataclass(frozen=True)
class HMM:
    """A Markov chain over ``states`` whose states emit ``observations``."""

    states: tuple[str, ...]
    observations: tuple[str, ...]
    transition: Matrix
    emission: Matrix
    initial: Mapping[str, Vector] = field(default_factory=dict, hash=False)
    parameters: tuple[Parameter, ...] = ()

    def __post_init__(self) -> None:
        _check_names("state", self.states)
        _check_names("observation", self.observations)
        _check_stochastic(self.transition, len(self.states), "transition", self.states)
        _check_stochastic(self.emission, len(self.observations), "emission", self.states)
        for name, vector in self.initial.items():
            if len(vector) != len(self.states):
                raise ModelError(f"initial distribution {name!r} has the wrong length")
            if not any(is_symbolic(p) for p in vector) and (
                any(p < 0 for p in vector) or sum(vector, Fraction(0)) != 1
            ):
                raise ModelError(f"initial distribution {name!r} does not sum to 1")

    @functools.cached_property
    def _positions(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.states)}

    def state_index(self, name: str) -> int:
        """Position of a state, with a clear error for unknown names."""
        try:
            return self._positions[name]
        except KeyError:
            shown = ", ".join(self.states[:12]) + (", ..." if len(self.states) > 12 else "")
            raise ModelError(f"unknown state {name!r}", fix=f"states are {shown}") from None

    def observation_index(self, name: str) -> int:
        """Position of an observation, with a clear error for unknown names."""
        try:
            return self.observations.index(name)
        except ValueError:
            raise ModelError(
                f"unknown observation {name!r}",
                fix=f"observations are {', '.join(self.observations)}",
            ) from None

    @property
    def is_parametric(self) -> bool:
        """True while some probability still depends on an unfixed parameter."""
        rows = (*self.transition, *self.emission, *self.initial.values())
        return any(is_symbolic(p) for row in rows for _, p in entries(row))

    def point_mass(self, state: str) -> Vector:
        """The information state that is certain to be in ``state``."""
        i = self.state_index(state)
        return tuple(Fraction(1 if j == i else 0) for j in range(len(self.states)))

    def forward(self, initial: Vector, observations: Sequence[str]) -> list[Vector]:
        """The forward vectors α_0 … α_k for an observation sequence (FAIER papers eqs. 2, 3)."""
        n = len(self.states)
        alphas: list[Vector] = []
        previous: Vector | None = None
        for t, name in enumerate(observations):
            w = self.observation_index(name)
            if t == 0:
                predicted: list[Probability] = list(initial)
            else:
                assert previous is not None
                predicted = [Fraction(0)] * n
                for s in range(n):
                    if previous[s] == 0:
                        continue
                    for s2, p in entries(self.transition[s]):
                        predicted[s2] = predicted[s2] + previous[s] * p
            alpha = tuple(predicted[s] * self.emission[s][w] for s in range(n))
            alphas.append(alpha)
            previous = alpha
        return alphas

    def probability(self, initial: Vector, observations: Sequence[str]) -> Probability:
        """Pr(ω | π) by the forward algorithm."""
        if not observations:
            return Fraction(1)
        return sum(self.forward(initial, observations)[-1], Fraction(0))

    def instantiate(self, values: Mapping[str, Fraction]) -> HMM:
        """The same HMM with some parameters fixed to exact values."""
        for name in values:
            if name not in {p.name for p in self.parameters}:
                raise ModelError(f"the model has no parameter {name!r}")

        def fix(row: Row) -> Vector:
            return tuple(substitute(p, values) for p in row)

        def fix_row(row: Row) -> Row:
            if isinstance(row, SparseRow):
                return SparseRow(len(row), {i: substitute(p, values) for i, p in row.items()})
            return tuple(substitute(p, values) for p in row)

        return HMM(
            states=self.states,
            observations=self.observations,
            transition=tuple(fix_row(r) for r in self.transition),
            emission=tuple(fix(r) for r in self.emission),
            initial={k: fix(v) for k, v in self.initial.items()},
            parameters=tuple(p for p in self.parameters if p.name not in values),
        )
