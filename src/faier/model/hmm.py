"""Hidden Markov models (FAIER papers §2) with the forward algorithm.

States emit an observation, then move: the probability of observing
ω0…ωk from an initial information state π is Σ_s α_k(s) with
α_0(s) = π(s)·o(s, ω0) and α_{t+1}(s') = Σ_s α_t(s)·p(s, s')·o(s', ω_{t+1}).
Probabilities are exact (Fractions) or, in parametric models, sympy
expressions of declared parameters until those are fixed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from faier.errors import ModelError
from faier.model.parameters import Parameter
from faier.model.probability import Probability, is_symbolic, substitute

Vector = tuple[Probability, ...]
Matrix = tuple[Vector, ...]


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
        if any(is_symbolic(p) for p in row):
            continue
        if any(p < 0 for p in row) or sum(row, Fraction(0)) != 1:
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

    def state_index(self, name: str) -> int:
        """Position of a state, with a clear error for unknown names."""
        try:
            return self.states.index(name)
        except ValueError:
            raise ModelError(
                f"unknown state {name!r}", fix=f"states are {', '.join(self.states)}"
            ) from None

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
        return any(is_symbolic(p) for row in rows for p in row)

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
                predicted = [
                    sum((previous[s] * self.transition[s][s2] for s in range(n)), Fraction(0))
                    for s2 in range(n)
                ]
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

        def fix(row: Vector) -> Vector:
            return tuple(substitute(p, values) for p in row)

        return HMM(
            states=self.states,
            observations=self.observations,
            transition=tuple(fix(r) for r in self.transition),
            emission=tuple(fix(r) for r in self.emission),
            initial={k: fix(v) for k, v in self.initial.items()},
            parameters=tuple(p for p in self.parameters if p.name not in values),
        )
