"""Pufferfish priors derived from a data model by exact Bayesian conditioning.

A data set is a table: one row per record (person), one boolean column per
attribute (disease).  The attacker's prior says how each attribute is drawn:
independently per record with probability p, or shared by a whole group
(a contagious disease in a family: everyone has it with probability p, or no
one).  A secret fixes one cell ("John has A").  The mechanism sees a query of
the data set (counts per attribute); the comparison for a discriminative
pair is the query's distribution conditioned on each secret.

The FAIER papers (journal Ex. 4.5 and 6.2, conference Ex. 4 and 5) condition
on "count ≥ 1" where they mean "John has the disease"; this module conditions
on the secret itself.  docs/DISCREPANCIES.md compares
both.

These two shapes of prior are what the FAIER papers' examples need; any other
correlation (a joint table, a Bayesian network, a Markov chain over records)
is a model of :mod:`faier.privacy.correlated` and its neighbours.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError
from faier.model.distribution import Distribution
from faier.privacy.specs import Comparison, Pufferfish

Dataset = tuple[tuple[bool, ...], ...]


@dataclass(frozen=True)
class Independent:
    """Each record has the attribute independently with probability p."""

    p: Fraction

    def describe(self) -> str:
        return f"independent, p = {self.p}"


@dataclass(frozen=True)
class Contagious:
    """All records share the attribute: all have it with probability p, else none."""

    p: Fraction

    def describe(self) -> str:
        return f"shared by all records, p = {self.p}"


@dataclass(frozen=True)
class Attribute:
    """One boolean column of the data set and how the attacker believes it is drawn."""

    name: str
    prior: Independent | Contagious

    def __post_init__(self) -> None:
        if not 0 <= self.prior.p <= 1:
            raise SpecError(
                f"probability {self.prior.p} of attribute {self.name!r} is not in [0, 1]"
            )

    def column_distribution(self, records: int) -> Distribution[tuple[bool, ...]]:
        """Joint distribution of this attribute over all records."""
        p = self.prior.p
        if isinstance(self.prior, Contagious):
            return Distribution.of({(True,) * records: p, (False,) * records: 1 - p})
        weights: dict[tuple[bool, ...], Fraction] = {}
        for column in itertools.product((False, True), repeat=records):
            k = sum(column)
            weights[column] = p**k * (1 - p) ** (records - k)
        return Distribution.of(weights)


@dataclass(frozen=True)
class Secret:
    """A predicate on one cell: ``record`` has (or has not) ``attribute``."""

    record: str
    attribute: str
    value: bool = True

    def describe(self) -> str:
        return f"{self.record} {'has' if self.value else 'has not'} {self.attribute}"


@dataclass(frozen=True)
class DataModel:
    """Records, attributes, and the attacker's prior over data sets."""

    records: tuple[str, ...]
    attributes: tuple[Attribute, ...]

    def __post_init__(self) -> None:
        if not self.records or not self.attributes:
            raise SpecError("a data model needs at least one record and one attribute")
        if len(set(self.records)) != len(self.records):
            raise SpecError("record names must be distinct")
        if len({a.name for a in self.attributes}) != len(self.attributes):
            raise SpecError("attribute names must be distinct")

    def datasets(self) -> Distribution[Dataset]:
        """The prior over data sets (rows = records, columns = attributes)."""
        columns = [a.column_distribution(len(self.records)) for a in self.attributes]
        pairs: list[tuple[Dataset, Fraction]] = []
        for choice in itertools.product(*(c.items for c in columns)):
            probability = Fraction(1)
            for _, p in choice:
                probability *= p
            rows = tuple(tuple(col[r] for col, _ in choice) for r in range(len(self.records)))
            pairs.append((rows, probability))
        return Distribution.from_pairs(pairs)

    def holds(self, secret: Secret, dataset: Dataset) -> bool:
        """Whether a data set satisfies a secret."""
        try:
            r = self.records.index(secret.record)
            a = [x.name for x in self.attributes].index(secret.attribute)
        except ValueError:
            raise SpecError(
                f"secret '{secret.describe()}' names an unknown record or attribute",
                fix=f"records: {', '.join(self.records)}; attributes: "
                f"{', '.join(x.name for x in self.attributes)}",
            ) from None
        return dataset[r][a] == secret.value

    def counts(self, dataset: Dataset) -> tuple[int, ...]:
        """How many records have each attribute (the counting queries)."""
        return tuple(sum(row[a] for row in dataset) for a in range(len(self.attributes)))

    def conditioned(
        self, secret: Secret, query: Callable[[Dataset], Hashable]
    ) -> Distribution[Hashable] | None:
        """Pr(query(D) | secret); None when the secret has probability 0."""
        prior = self.datasets()
        mass = sum((p for d, p in prior if self.holds(secret, d)), Fraction(0))
        if mass == 0:
            return None
        return Distribution.from_pairs(
            (query(d), p / mass) for d, p in prior if self.holds(secret, d)
        )


def pufferfish_from_data(
    model: DataModel,
    pairs: tuple[tuple[Secret, Secret], ...],
    query: Callable[[Dataset], Hashable],
    description: str,
) -> Pufferfish:
    """Comparisons for each discriminative pair with non-zero secrets (Pufferfish def.)."""
    comparisons: list[Comparison[Hashable]] = []
    for s_i, s_j in pairs:
        left = model.conditioned(s_i, query)
        right = model.conditioned(s_j, query)
        if left is None or right is None:
            continue
        comparisons.append(Comparison(left, right, s_i.describe(), s_j.describe(), "initial"))
    if not comparisons:
        raise SpecError("every discriminative pair has a secret of probability 0 under the prior")
    return Pufferfish(tuple(comparisons), description)
