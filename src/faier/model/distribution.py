"""Finite distributions with exact rational probabilities.

A :class:`Distribution` is what a mechanism draws from and what an exact
computation returns.  It is immutable, keeps only outcomes of positive
probability, and checks that its probabilities sum to exactly one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from faier.errors import ModelError
from faier.model.probability import parse_number

T = TypeVar("T", bound=Hashable)
U = TypeVar("U", bound=Hashable)


def as_fraction(value: Fraction | int | str | float) -> Fraction:
    """An exact rational from a number or its text (``0.1`` is 1/10)."""
    try:
        return parse_number(value)[0]
    except ValueError as exc:
        raise ModelError(f"{value!r} is not a probability", fix="write 1/6 or 0.25") from exc


@dataclass(frozen=True)
class Distribution(Generic[T]):
    """Outcomes with positive exact probabilities summing to one."""

    items: tuple[tuple[T, Fraction], ...]

    def __post_init__(self) -> None:
        if len(self.items) == 1 and self.items[0][1] == 1:
            return
        total = Fraction(0)
        for outcome, p in self.items:
            if not isinstance(p, Fraction) or p <= 0 or p > 1:
                raise ModelError(f"probability {p!r} of outcome {outcome!r} is not in (0, 1]")
            total += p
        if total != 1:
            raise ModelError(f"probabilities sum to {total}, not 1")

    @classmethod
    def of(cls, weights: Mapping[T, Fraction | int | str | float]) -> Distribution[T]:
        """Build from a mapping; zero entries are dropped, equal outcomes must not repeat."""
        items = tuple((k, as_fraction(v)) for k, v in weights.items())
        for k, p in items:
            if p < 0:
                raise ModelError(f"probability {p} of outcome {k!r} is negative")
        return cls(tuple((k, p) for k, p in items if p != 0))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[T, Fraction]]) -> Distribution[T]:
        """Build from (outcome, probability) pairs, adding up repeated outcomes."""
        acc: dict[T, Fraction] = {}
        for k, p in pairs:
            acc[k] = acc.get(k, Fraction(0)) + p
        return cls(tuple((k, p) for k, p in acc.items() if p != 0))

    @classmethod
    def point(cls, outcome: T) -> Distribution[T]:
        """All mass on one outcome."""
        return cls(((outcome, Fraction(1)),))

    @classmethod
    def uniform(cls, outcomes: Iterable[T]) -> Distribution[T]:
        """Equal mass on each distinct outcome."""
        distinct = list(dict.fromkeys(outcomes))
        if not distinct:
            raise ModelError("a uniform distribution needs at least one outcome")
        p = Fraction(1, len(distinct))
        return cls(tuple((o, p) for o in distinct))

    def __iter__(self) -> Iterator[tuple[T, Fraction]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def support(self) -> tuple[T, ...]:
        """Outcomes of positive probability, in insertion order."""
        return tuple(k for k, _ in self.items)

    def prob(self, outcome: T) -> Fraction:
        """Probability of one outcome (0 when absent)."""
        for k, p in self.items:
            if k == outcome:
                return p
        return Fraction(0)

    def as_dict(self) -> dict[T, Fraction]:
        """A plain dict copy, for lookups in hot loops."""
        return dict(self.items)

    def map(self, f: Callable[[T], U]) -> Distribution[U]:
        """The image distribution under f (probabilities of equal images add up)."""
        return Distribution.from_pairs((f(k), p) for k, p in self.items)


def bernoulli(p: Fraction | int | str) -> Distribution[bool]:
    """True with probability p."""
    q = as_fraction(p)
    if not 0 <= q <= 1:
        raise ModelError(f"Bernoulli parameter {q} is not in [0, 1]")
    return Distribution.of({True: q, False: 1 - q})


def truncated_geometric(alpha: Fraction, m: int, center: int) -> Distribution[int]:
    """The truncated α-geometric mechanism over {0..m} on true answer ``center``.

    Interior outputs j get (1-α)/(1+α)·α^|j-center|; the two ends collect the
    tails, α^center/(1+α) at 0 and α^(m-center)/(1+α) at m (FAIER papers §4.1,
    dpCTL* §3.2).
    """
    if not 0 < alpha < 1:
        raise ModelError(f"geometric parameter α = {alpha} must lie strictly between 0 and 1")
    if m < 0 or not 0 <= center <= m:
        raise ModelError(f"true answer {center} is outside the range 0..{m}")
    if m == 0:
        return Distribution.point(0)
    weights: dict[int, Fraction] = {}
    for j in range(m + 1):
        if j == 0:
            weights[j] = alpha**center / (1 + alpha)
        elif j == m:
            weights[j] = alpha ** (m - center) / (1 + alpha)
        else:
            weights[j] = (1 - alpha) / (1 + alpha) * alpha ** abs(j - center)
    return Distribution.of(weights)
