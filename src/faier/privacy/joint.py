"""A data model given as an explicit joint table: every possible data set and its weight.

The most general correlated prior a user can write: any dependence between
records, written out.  Conditioning on a secret keeps the data sets where it
holds and divides by their total weight.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from faier.errors import SpecError
from faier.privacy.correlated import (
    Conditioned,
    Dataset,
    Query,
    RecordSecret,
    check_record,
    grouped_by_query,
)
from faier.privacy.weights import Weight, is_symbolic, is_zero, names, simplified, total, weight


@dataclass(frozen=True)
class JointTable:
    """Records with one or more attributes, and a weight for each listed data set.

    Data sets left out have weight 0; the weights must sum to 1 (for every
    parameter value, when they mention parameters).
    """

    record_names: tuple[str, ...]
    rows: tuple[tuple[Dataset, Weight], ...]

    def __post_init__(self) -> None:
        if not self.record_names or len(set(self.record_names)) != len(self.record_names):
            raise SpecError("a joint table needs distinct record names")
        seen: set[Dataset] = set()
        for dataset, _ in self.rows:
            if len(dataset) != len(self.record_names):
                raise SpecError(
                    f"data set {dataset} does not have {len(self.record_names)} records",
                    fix=f"records: {', '.join(self.record_names)}",
                )
            if dataset in seen:
                raise SpecError(f"data set {dataset} is listed twice", fix="list it once")
            seen.add(dataset)
        mass = simplified(total(w for _, w in self.rows))
        if is_symbolic(mass) or mass != 1:
            raise SpecError(
                f"the joint table's weights sum to {mass}, not 1",
                fix="make the weights sum to 1 for every parameter value",
            )

    @classmethod
    def of(
        cls,
        records: Sequence[str],
        table: Mapping[tuple[str, ...], object],
    ) -> JointTable:
        """One attribute per record: ``{("sick", "healthy"): "p*(1-c)", ...}``."""
        rows = tuple(
            (tuple((("value", v),) for v in values), weight(w, where=f"joint table {values}"))
            for values, w in table.items()
        )
        return cls(tuple(records), tuple((d, w) for d, w in rows if not is_zero(w)))

    @property
    def records(self) -> tuple[str, ...]:
        return self.record_names

    def attributes(self, record: str) -> tuple[str, ...]:
        r = self.record_names.index(record)
        return tuple(dict.fromkeys(a for d, _ in self.rows for a, _ in d[r]))

    def parameters(self) -> set[str]:
        return names(w for _, w in self.rows)

    def joint(self) -> Iterator[tuple[Dataset, Weight]]:
        return iter(self.rows)

    def conditioned(self, secret: RecordSecret, query: Query) -> Conditioned:
        r = check_record(self, secret)
        kept = [(d, w) for d, w in self.rows if secret.holds(d[r])]
        mass = total(w for _, w in kept)
        return Conditioned.normalised(grouped_by_query(iter(kept), query), mass)

    def describe(self) -> str:
        return f"a joint table over {len(self.record_names)} records ({len(self.rows)} data sets)"
