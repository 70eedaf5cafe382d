"""Secrets, queries and Pufferfish specifications over correlated data models.

A data set is a tuple of records; each record is a tuple of (attribute,
value) pairs, all text.  A record may be absent: every attribute then has the
value :data:`ABSENT`.  A secret is a predicate over one record ("John is sick",
"John is absent", "John's age is over 60"); a discriminative pair is two
secrets.  A data model (:mod:`faier.privacy.joint`,
:mod:`faier.privacy.bayesnet`, :mod:`faier.privacy.markovdata`) conditions its
prior on a secret exactly and pushes it through the query the mechanism
reads, giving the Pufferfish comparison's two priors as rational functions of
the model's parameters together with the secrets' probabilities (Pufferfish
only compares secrets of non-zero probability).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from faier.errors import SpecError
from faier.model.parameters import Parameter
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish, SymbolicComparison, SymbolicDistribution
from faier.privacy.weights import Weight, divided, is_zero, sympified, total

ABSENT = "absent"
"""The value of every attribute of a record that is not in the data set."""

Row = tuple[tuple[str, str], ...]
Dataset = tuple[Row, ...]


def row(**values: str) -> Row:
    """A record from its attribute values: ``row(value="sick")``."""
    return tuple(values.items())


@dataclass(frozen=True)
class RecordSecret:
    """A predicate over one record: the record's attribute values in, true or false out."""

    record: str
    text: str
    test: Callable[[Mapping[str, str]], bool] = field(compare=False, repr=False)

    @classmethod
    def has(cls, record: str, value: str, attribute: str | None = None) -> RecordSecret:
        """``record`` has ``value`` (of ``attribute``; records with one attribute need none)."""

        def test(row: Mapping[str, str]) -> bool:
            if attribute is None:
                if len(row) != 1:
                    raise SpecError(
                        f"record {record!r} has attributes {', '.join(row)}: "
                        f"say which one has the value {value!r}",
                        fix=f"write e.g. '{record}.{next(iter(row))} = {value}'",
                    )
                return next(iter(row.values())) == value
            if attribute not in row:
                raise SpecError(
                    f"record {record!r} has no attribute {attribute!r}",
                    fix=f"its attributes are {', '.join(row)}",
                )
            return row[attribute] == value

        shown = f"{record}.{attribute}" if attribute else record
        return cls(record, f"{shown} = {value}", test)

    @classmethod
    def absent(cls, record: str) -> RecordSecret:
        """``record`` is not in the data set."""
        return cls(record, f"{record} absent", lambda row: all(v == ABSENT for v in row.values()))

    @classmethod
    def present(cls, record: str) -> RecordSecret:
        """``record`` is in the data set."""
        return cls(record, f"{record} present", lambda row: any(v != ABSENT for v in row.values()))

    @classmethod
    def where(
        cls, record: str, predicate: Callable[[Mapping[str, str]], bool], text: str
    ) -> RecordSecret:
        """Any predicate over the record's attribute values, described by ``text``."""
        return cls(record, text, predicate)

    def holds(self, record: Row) -> bool:
        return bool(self.test(dict(record)))


@dataclass(frozen=True)
class Query:
    """What the mechanism reads of a data set: its input (an HMM state, a program input).

    ``reads`` names the attributes it looks at (None: all); a Bayesian network
    sums the others out before enumerating, and the query then sees records
    holding only those.  ``counts`` marks the additive query "how many records
    satisfy a predicate over one record", which the Markov chain model
    computes without enumerating sequences.
    """

    name: str
    apply: Callable[[Dataset], Hashable] = field(compare=False, repr=False)
    reads: frozenset[str] | None = None
    counts: Callable[[Row], bool] | None = field(default=None, compare=False, repr=False)
    of_count: Callable[[int], Hashable] = field(default=int, compare=False, repr=False)

    def __call__(self, dataset: Dataset) -> Hashable:
        return self.apply(dataset)


def count(
    values: frozenset[str] | str, attribute: str = "value", *, as_text: bool = False
) -> Query:
    """The number of records whose ``attribute`` takes one of ``values``.

    ``as_text`` gives the count as text (``"2"``), the way model files name states.
    """
    wanted = frozenset({values}) if isinstance(values, str) else values

    def counts(record: Row) -> bool:
        return dict(record).get(attribute) in wanted

    def apply(dataset: Dataset) -> Hashable:
        n = sum(1 for record in dataset if counts(record))
        return str(n) if as_text else n

    shown = ", ".join(sorted(wanted))
    name = f"count of {attribute} in {{{shown}}}" if attribute != "value" else f"count of {shown}"
    return Query(name, apply, frozenset({attribute}), counts, str if as_text else int)


@dataclass(frozen=True)
class Conditioned:
    """Pr(query(D) = x | secret) for every x, and Pr(secret)."""

    weights: tuple[tuple[Hashable, Weight], ...]
    mass: Weight

    @classmethod
    def normalised(cls, grouped: Mapping[Hashable, Weight], mass: Weight) -> Conditioned:
        if is_zero(mass):
            return cls((), mass)
        items = tuple((x, divided(w, mass)) for x, w in grouped.items() if not is_zero(w))
        return cls(items, mass)

    def as_dict(self) -> dict[Hashable, Weight]:
        return dict(self.weights)


class CorrelatedModel(Protocol):
    """A prior over data sets that conditions exactly on secrets about one record."""

    @property
    def records(self) -> tuple[str, ...]: ...

    def attributes(self, record: str) -> tuple[str, ...]: ...

    def parameters(self) -> set[str]: ...

    def conditioned(self, secret: RecordSecret, query: Query) -> Conditioned: ...

    def describe(self) -> str: ...


def check_record(model: CorrelatedModel, secret: RecordSecret) -> int:
    """The record's position; an unknown record is bad input naming the known ones."""
    if secret.record not in model.records:
        raise SpecError(
            f"secret '{secret.text}' names an unknown record {secret.record!r}",
            fix=f"records: {', '.join(model.records)}",
        )
    return model.records.index(secret.record)


def grouped_by_query(
    pairs: Iterator[tuple[Dataset, Weight]], query: Query
) -> dict[Hashable, Weight]:
    """Add up the weights of data sets with the same query answer."""
    out: dict[Hashable, list[Weight]] = {}
    for dataset, w in pairs:
        out.setdefault(query(dataset), []).append(w)
    return {x: total(ws) for x, ws in out.items()}


def comparisons(
    model: CorrelatedModel,
    pairs: tuple[tuple[RecordSecret, RecordSecret], ...],
    query: Query,
) -> tuple[SymbolicComparison, ...]:
    """One comparison per discriminative pair, each secret's probability kept."""
    out = []
    for left, right in pairs:
        a = model.conditioned(left, query)
        b = model.conditioned(right, query)
        out.append(
            SymbolicComparison(
                SymbolicDistribution.of({x: sympified(w) for x, w in a.weights}),
                SymbolicDistribution.of({x: sympified(w) for x, w in b.weights}),
                left.text,
                right.text,
                "initial",
                sympified(a.mass),
                sympified(b.mass),
            )
        )
    return tuple(out)


def pufferfish(
    model: CorrelatedModel,
    pairs: tuple[tuple[RecordSecret, RecordSecret], ...],
    query: Query,
    parameters: tuple[Parameter, ...] = (),
    description: str = "",
) -> Pufferfish | ParametricPufferfish:
    """The Pufferfish question of a data model: rational when no parameter is unknown.

    Every parameter a probability mentions must be declared; those with a
    value are substituted.  Pairs with a secret of probability 0 are left
    out (Pufferfish only compares possible secrets); if none is left the
    question is bad input.
    """
    if not pairs:
        raise SpecError("a Pufferfish question needs at least one discriminative pair")
    text = description or f"Pufferfish over {model.describe()}"
    declared = {p.name for p in parameters}
    undeclared = model.parameters() - declared
    if undeclared:
        raise SpecError(
            f"the data model uses undeclared parameters {', '.join(sorted(undeclared))}",
            fix="declare each with a domain, e.g. Parameter('p')",
        )
    symbolic = comparisons(model, pairs, query)
    spec = ParametricPufferfish(symbolic, parameters, (), text)
    if spec.unknowns():
        return spec
    if spec.parameters:
        return spec.instantiate()
    rational = tuple(c for pair in symbolic if (c := pair.instantiate({})) is not None)
    if not rational:
        raise SpecError("every discriminative pair has a secret of probability 0 under the prior")
    return Pufferfish(rational, text)


__all__ = [
    "ABSENT",
    "Conditioned",
    "CorrelatedModel",
    "Dataset",
    "Query",
    "RecordSecret",
    "Row",
    "comparisons",
    "count",
    "pufferfish",
]
