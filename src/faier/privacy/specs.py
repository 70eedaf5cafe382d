"""Privacy questions as lists of comparisons (π, τ) over a mechanism's inputs.

DP compares point masses on neighbouring inputs; Pufferfish compares the
prior conditioned on each secret of a discriminative pair.  Either way an
engine only ever sees :class:`Comparison` values, both orders included.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from faier.errors import SpecError
from faier.model.distribution import Distribution
from faier.model.values import show_input
from faier.privacy.neighbours import EveryQuery, NeighbourRelation, neighbour_pairs

InputT = TypeVar("InputT", bound=Hashable)


@dataclass(frozen=True)
class Comparison(Generic[InputT]):
    """Two initial information states whose output distributions must stay close."""

    left: Distribution[InputT]
    right: Distribution[InputT]
    left_name: str
    right_name: str
    kind: str = "inputs"

    def swapped(self) -> Comparison[InputT]:
        """The same pair in the other order."""
        return Comparison(self.right, self.left, self.right_name, self.left_name, self.kind)


class Priors(Protocol):
    """Two named priors over inputs (a :class:`Comparison`, or its symbolic counterpart)."""

    @property
    def left(self) -> Any: ...
    @property
    def right(self) -> Any: ...
    @property
    def left_name(self) -> str: ...
    @property
    def right_name(self) -> str: ...


def check_priors_on(pair: Priors, known: set[Any]) -> None:
    """Refuse a prior that puts mass outside the mechanism's inputs."""
    for prior, name in ((pair.left, pair.left_name), (pair.right, pair.right_name)):
        for x in prior.support():
            if x not in known:
                raise SpecError(
                    f"prior {name!r} puts mass on {show_input(x)}, which is not an input"
                )


@dataclass(frozen=True)
class DifferentialPrivacy:
    """Pure or approximate DP over a neighbour relation."""

    neighbours: NeighbourRelation = field(default_factory=EveryQuery)

    def comparisons(self, inputs: Sequence[Hashable]) -> list[Comparison[Hashable]]:
        """Point-mass comparisons for every ordered neighbour pair."""
        out = [
            Comparison(Distribution.point(x), Distribution.point(y), show_input(x), show_input(y))
            for x, y in neighbour_pairs(self.neighbours, inputs)
        ]
        if not out:
            raise SpecError(
                f"no two inputs are neighbours under '{self.neighbours.describe()}'",
                fix="choose another neighbour relation or a larger input space",
            )
        return out

    def describe(self) -> str:
        return f"differential privacy, neighbours: {self.neighbours.describe()}"


@dataclass(frozen=True)
class Pufferfish:
    """Pufferfish privacy given directly as pairs of initial distributions."""

    pairs: tuple[Comparison[Hashable], ...]
    description: str = "Pufferfish privacy"

    def comparisons(self, inputs: Sequence[Hashable]) -> list[Comparison[Hashable]]:
        """Each pair in both orders, checking the distributions live on the inputs."""
        known = set(inputs)
        out: list[Comparison[Hashable]] = []
        for pair in self.pairs:
            check_priors_on(pair, known)
            out.extend((pair, pair.swapped()))
        if not out:
            raise SpecError("a Pufferfish specification needs at least one pair of priors")
        return out

    def describe(self) -> str:
        return self.description


@dataclass(frozen=True)
class InteractiveDP:
    """DP of an interactive mechanism: per query the answers differ by at most Δ.

    The adversary chooses every answer pair (adaptively: the transcript records
    the answers) and every prefix of the output is observable.  Public inputs
    such as the threshold are the same on both sides.
    """

    delta: int = 1

    def describe(self) -> str:
        return f"differential privacy, neighbours: every query ±{self.delta}, adaptive"


PrivacySpec = DifferentialPrivacy | Pufferfish | InteractiveDP
