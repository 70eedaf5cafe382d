"""Neighbouring datasets to try: adversarial candidates first, then seeded random ones.

Add/remove changes the number of records by one; replace-one keeps it and
changes one record.  The adversarial candidates are the records an auditor
tries by hand (the bounds and beyond them, 0, ±1, ±1e308, NaN, ±inf, a new
category), the datasets at the edges (empty, a single record, a duplicate)
and the records whose removal matters most (the extremes of each column, the
only member of a category).  The random phase draws records inside the
bounds with a seeded generator; :func:`pushed` moves a candidate record
further out, for the search's climbing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from faier.auditing.data import Dataset, Record
from faier.errors import SpecError

RELATIONS = ("add-remove", "replace-one")
NEW_CATEGORY = "faier-new-category"


@dataclass(frozen=True)
class Bounds:
    """Per-column (low, high) for numeric columns; ``from_data`` says where they came from."""

    columns: tuple[tuple[float, float] | None, ...]
    from_data: bool

    def show(self, dataset: Dataset) -> str:
        parts = [
            f"{name} in [{b[0]:g}, {b[1]:g}]"
            for name, b in zip(dataset.columns, self.columns, strict=True)
            if b is not None
        ]
        origin = " (the data's own range)" if self.from_data else ""
        return ", ".join(parts) + origin


def read_relation(text: str) -> str:
    name = text.strip().lower().replace("_", "-")
    aliases = {
        "add-remove": "add-remove",
        "addremove": "add-remove",
        "replace-one": "replace-one",
        "replace": "replace-one",
        "substitute": "replace-one",
    }
    if name not in aliases:
        raise SpecError(
            f"unknown neighbour relation {text!r}",
            where="--neighbours",
            fix="add-remove or replace-one",
        )
    return aliases[name]


def read_bounds(given: dict[str, tuple[float, float]] | None, dataset: Dataset) -> Bounds:
    """The user's bounds (a column name, or ``*`` for every numeric column), else the data's."""
    given = dict(given or {})
    columns: list[tuple[float, float] | None] = []
    unknown = set(given) - set(dataset.columns) - {"*"}
    if unknown:
        raise SpecError(
            f"no column {sorted(unknown)[0]!r}",
            where="--bounds",
            fix=f"columns: {', '.join(dataset.columns)}, or LOW:HIGH for all",
        )
    for i, name in enumerate(dataset.columns):
        if not dataset.records or dataset.numeric(i):
            if name in given or "*" in given:
                columns.append(given.get(name, given.get("*")))
            else:
                values = [float(r[i]) for r in dataset.records if math.isfinite(float(r[i]))]
                columns.append((min(values), max(values)) if values else (0.0, 1.0))
        else:
            columns.append(None)
    return Bounds(tuple(columns), not given)


def parse_bounds(
    raw: list[str] | tuple[str, ...] | dict[str, Any] | None,
) -> dict[str, tuple[float, float]]:
    """``LOW:HIGH`` (every column) or ``COLUMN=LOW:HIGH``, repeatable; or a mapping."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return {str(k): _pair(v, str(k)) for k, v in raw.items()}
    found: dict[str, tuple[float, float]] = {}
    for text in raw:
        name, sep, span = str(text).rpartition("=")
        found[name.strip() if sep else "*"] = _pair(span, str(text))
    return found


def _pair(value: Any, text: str) -> tuple[float, float]:
    try:
        if isinstance(value, str):
            low, high = (float(v) for v in value.split(":"))
        else:
            low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise SpecError(
            f"cannot read bounds {text!r}", where="--bounds", fix="write LOW:HIGH, e.g. 0:1"
        ) from None
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise SpecError(
            f"bounds {text!r} are not a finite interval", where="--bounds", fix="LOW ≤ HIGH"
        )
    return low, high


@dataclass(frozen=True)
class Neighbour:
    """One pair to try: D, D′ and what changed."""

    left: Dataset
    right: Dataset
    change: str
    record: Record | None = None
    """The record added or put in (for climbing)."""
    position: int | None = None


def _values(bounds: tuple[float, float] | None) -> list[float]:
    low, high = bounds or (0.0, 1.0)
    width = (high - low) or 1.0
    found = [
        low,
        high,
        high + width,
        low - width,
        high + 10 * width,
        0.0,
        1.0,
        -1.0,
        1e308,
        -1e308,
        math.nan,
        math.inf,
        -math.inf,
    ]
    unique: list[float] = []
    for v in found:
        if not any((math.isnan(v) and math.isnan(u)) or v == u for u in unique):
            unique.append(v)
    return unique


def _categories(dataset: Dataset, column: int) -> list[Any]:
    seen: list[Any] = []
    for r in dataset.records:
        if r[column] not in seen:
            seen.append(r[column])
    return seen


def candidate_records(dataset: Dataset, bounds: Bounds) -> Iterator[tuple[Record, str]]:
    """Adversarial records, each with a short description."""
    template = (
        dataset.records[0]
        if dataset.records
        else tuple(0.0 if b is not None else NEW_CATEGORY for b in bounds.columns)
    )
    numeric = [i for i, b in enumerate(bounds.columns) if b is not None]
    longest = max((len(_values(bounds.columns[i])) for i in numeric), default=0)
    for n in range(longest):
        record = list(template)
        for i in numeric:
            record[i] = _values(bounds.columns[i])[min(n, len(_values(bounds.columns[i])) - 1)]
        yield tuple(record), _show(record)
    if len(numeric) > 1:
        for i in numeric:
            for v in _values(bounds.columns[i])[:5]:
                record = list(template)
                record[i] = v
                yield tuple(record), _show(record)
    for i, b in enumerate(bounds.columns):
        if b is None:
            for category in [NEW_CATEGORY, *_categories(dataset, i)]:
                record = list(template)
                record[i] = category
                yield tuple(record), _show(record)


def _show(record: list[Any] | Record) -> str:
    shown = [
        repr(v) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)
        for v in record
    ]
    return shown[0] if len(shown) == 1 else "(" + ", ".join(shown) + ")"


def _key_positions(dataset: Dataset, bounds: Bounds) -> list[int]:
    """Records whose removal or replacement matters: first, last, extremes, lone categories."""
    positions: list[int] = [0, len(dataset) - 1] if dataset.records else []
    for i, b in enumerate(bounds.columns):
        column = [r[i] for r in dataset.records]
        if b is not None and column:
            finite = [j for j, v in enumerate(column) if math.isfinite(float(v))]
            if finite:
                positions.append(min(finite, key=lambda j: float(column[j])))
                positions.append(max(finite, key=lambda j: float(column[j])))
        elif column:
            for category in _categories(dataset, i):
                if column.count(category) == 1:
                    positions.append(column.index(category))
    unique: list[int] = []
    for p in positions:
        if p not in unique:
            unique.append(p)
    return unique


def adversarial(dataset: Dataset, bounds: Bounds, relation: str) -> Iterator[Neighbour]:
    """The adversarial pairs, in the order they are tried."""
    records = list(dataset.records)
    candidates = list(candidate_records(dataset, bounds))
    if relation == "add-remove":
        for record, shown in candidates:
            yield Neighbour(
                dataset, dataset.with_records([*records, record]), f"add {shown}", record
            )
        for p in _key_positions(dataset, bounds):
            removed = records[:p] + records[p + 1 :]
            yield Neighbour(
                dataset, dataset.with_records(removed), f"remove record {p} ({_show(records[p])})"
            )
        if records:
            first = records[0]
            yield Neighbour(
                dataset,
                dataset.with_records([*records, first]),
                f"add a duplicate of record 0 ({_show(first)})",
                first,
            )
            yield Neighbour(
                dataset.with_records([first]),
                dataset.with_records([]),
                f"a single record ({_show(first)}) against the empty dataset",
            )
            for record, shown in candidates[:6]:
                yield Neighbour(
                    dataset.with_records([]),
                    dataset.with_records([record]),
                    f"the empty dataset against one record {shown}",
                    record,
                )
    else:
        positions = _key_positions(dataset, bounds)
        for record, shown in candidates:
            for p in positions[:2]:
                changed = [*records[:p], record, *records[p + 1 :]]
                yield Neighbour(
                    dataset,
                    dataset.with_records(changed),
                    f"replace record {p} ({_show(records[p])}) by {shown}",
                    record,
                    p,
                )
        if len(candidates) > 1:
            low, high = candidates[0][0], candidates[1][0]
            yield Neighbour(
                dataset.with_records([low]),
                dataset.with_records([high]),
                f"a single record: {_show(low)} against {_show(high)}",
                high,
                0,
            )


def random_neighbour(
    dataset: Dataset, bounds: Bounds, relation: str, rng: np.random.Generator
) -> Neighbour:
    """One seeded random pair: a record inside the bounds added, removed or put in."""
    template = dataset.records[0] if dataset.records else None
    record: list[Any] = []
    for i, b in enumerate(bounds.columns):
        if b is not None:
            record.append(float(rng.uniform(b[0], b[1])))
        else:
            options = [NEW_CATEGORY, *_categories(dataset, i)]
            record.append(
                options[int(rng.integers(len(options)))] if template is not None else NEW_CATEGORY
            )
    new = tuple(record)
    records = list(dataset.records)
    if relation == "add-remove" or not records:
        if records and rng.random() < 0.5:
            p = int(rng.integers(len(records)))
            return Neighbour(
                dataset,
                dataset.with_records(records[:p] + records[p + 1 :]),
                f"remove record {p} ({_show(records[p])})",
            )
        return Neighbour(dataset, dataset.with_records([*records, new]), f"add {_show(new)}", new)
    p = int(rng.integers(len(records)))
    changed = [*records[:p], new, *records[p + 1 :]]
    return Neighbour(
        dataset,
        dataset.with_records(changed),
        f"replace record {p} ({_show(records[p])}) by {_show(new)}",
        new,
        p,
    )


def pushed(neighbour: Neighbour, bounds: Bounds, factor: float) -> Neighbour | None:
    """The same change with its numeric values moved ``factor`` times further from the middle."""
    if neighbour.record is None:
        return None
    record = list(neighbour.record)
    for i, b in enumerate(bounds.columns):
        if b is not None and isinstance(record[i], float) and math.isfinite(record[i]):
            middle = (b[0] + b[1]) / 2
            record[i] = middle + (record[i] - middle) * factor
    new = tuple(record)
    left = neighbour.left
    records = list(left.records)
    if neighbour.position is None:
        return Neighbour(left, left.with_records([*records, new]), f"add {_show(new)}", new)
    p = neighbour.position
    changed = [*records[:p], new, *records[p + 1 :]]
    return Neighbour(
        left,
        left.with_records(changed),
        f"replace record {p} ({_show(records[p])}) by {_show(new)}",
        new,
        p,
    )
