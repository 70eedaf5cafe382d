"""Datasets an audited function receives, held as records so neighbours can be built.

A dataset is kept as a tuple of records (a record is a tuple of column values)
plus the form the user's function expects (a numpy vector or matrix, a list
of scalars, a list of dicts), so adding, removing or replacing one record and
handing the result back in the user's own form are one operation each.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from faier.errors import SpecError

Record = tuple[Any, ...]

JSON_RECORDS = 200
"""Records a dataset lists in JSON; a larger one gives its count and its first records."""


@dataclass(frozen=True)
class Dataset:
    """Records and the form they are handed to the function in."""

    records: tuple[Record, ...]
    columns: tuple[str, ...]
    form: str
    """How the function receives it: vector, matrix (numpy), scalars, rows, dicts or dataframe."""
    integer: bool = False
    """A numpy vector or matrix of integers (made float when a candidate is not whole)."""
    frame: Any = None
    """The DataFrame class a ``dataframe`` form is rebuilt with."""

    def __len__(self) -> int:
        return len(self.records)

    def with_records(self, records: Sequence[Record]) -> Dataset:
        return replace(self, records=tuple(records))

    def numeric(self, column: int) -> bool:
        """Whether a column holds numbers (every value a bool-free int or float)."""
        values = [r[column] for r in self.records]
        return bool(values) and all(_is_number(v) for v in values)

    def materialise(self) -> Any:
        """The dataset in the form the function takes."""
        import numpy as np

        if self.form in ("vector", "matrix"):
            whole = self.integer and all(
                _is_number(v) and float(v).is_integer() for r in self.records for v in r
            )
            dtype = np.int64 if whole else np.float64
            if self.form == "vector":
                return np.array([r[0] for r in self.records], dtype=dtype)
            return np.array(self.records, dtype=dtype).reshape(len(self.records), len(self.columns))
        if self.form == "scalars":
            return [r[0] for r in self.records]
        if self.form == "rows":
            return [list(r) for r in self.records]
        dicts = [dict(zip(self.columns, r, strict=True)) for r in self.records]
        if self.form == "dataframe" and self.frame is not None:
            return self.frame(dicts, columns=list(self.columns))
        return dicts

    def show(self, limit: int = 8) -> str:
        """``[1.0, 0.5, nan] (3 records)``: short, for witnesses."""
        shown = [_show_record(r) for r in self.records[:limit]]
        more = f", … ({len(self.records)} records)" if len(self.records) > limit else ""
        return "[" + ", ".join(shown) + more + "]"

    def to_json(self, limit: int | None = None) -> Any:
        """The records (a list), or past ``limit`` records their count and the first ones."""
        limit = JSON_RECORDS if limit is None else limit
        shown = [
            _json_record(r) if len(self.columns) > 1 else _json_value(r[0])
            for r in self.records[:limit]
        ]
        if len(self.records) <= limit:
            return shown
        return {"records": len(self.records), "first": shown}


def _is_number(value: Any) -> bool:
    import numpy as np

    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _json_value(value: Any) -> Any:
    if _is_number(value):
        number = float(value)
        if math.isnan(number):
            return "nan"
        if math.isinf(number):
            return "inf" if number > 0 else "-inf"
        return int(value) if float(value).is_integer() and abs(number) < 2**53 else number
    return value if isinstance(value, str | bool | type(None)) else str(value)


def _json_record(record: Record) -> list[Any]:
    return [_json_value(v) for v in record]


def _show_record(record: Record) -> str:
    values = [repr(v) if isinstance(v, str) else f"{_json_value(v)}" for v in record]
    return values[0] if len(values) == 1 else "(" + ", ".join(values) + ")"


def from_value(data: Any, where: str = "data") -> Dataset:
    """A dataset from a Python value: numpy array, DataFrame, list of records or scalars."""
    import numpy as np

    if hasattr(data, "columns") and hasattr(data, "to_dict"):
        columns = tuple(str(c) for c in data.columns)
        rows = tuple(tuple(r[c] for c in data.columns) for r in data.to_dict("records"))
        return Dataset(rows, columns, "dataframe", frame=type(data))
    if isinstance(data, np.ndarray):
        integer = np.issubdtype(data.dtype, np.integer)
        if data.ndim == 1:
            return Dataset(tuple((v.item(),) for v in data), ("value",), "vector", integer)
        if data.ndim == 2:
            columns = tuple(f"column {i}" for i in range(data.shape[1]))
            rows = tuple(tuple(v.item() for v in row) for row in data)
            return Dataset(rows, columns, "matrix", integer)
        raise SpecError(
            f"a {data.ndim}-dimensional array is not a dataset", where=where, fix="one record a row"
        )
    if isinstance(data, list | tuple):
        if all(isinstance(r, dict) for r in data) and data:
            columns = tuple(str(k) for k in data[0])
            if any(tuple(str(k) for k in r) != columns for r in data):
                raise SpecError(
                    "records have different keys", where=where, fix="give every record every key"
                )
            return Dataset(tuple(tuple(r.values()) for r in data), columns, "dicts")
        if all(isinstance(r, list | tuple) for r in data) and data:
            width = len(data[0])
            if any(len(r) != width for r in data):
                raise SpecError(
                    "rows have different lengths", where=where, fix="give every row every column"
                )
            columns = tuple(f"column {i}" for i in range(width))
            return Dataset(tuple(tuple(r) for r in data), columns, "rows")
        return Dataset(tuple((v,) for v in data), ("value",), "scalars")
    raise SpecError(
        f"cannot audit on a {type(data).__name__}",
        where=where,
        fix="give a numpy array, a DataFrame, a list of records or a .csv/.npy/.json file",
    )


def load(path: Path) -> Dataset:
    """A dataset from a CSV (header row), ``.npy`` or JSON file; numbers become numpy arrays."""
    import numpy as np

    where = str(path)
    if not path.is_file():
        raise SpecError("file not found", where=where, fix="check the --data path")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            return from_value(np.load(path, allow_pickle=False), where)
        if suffix == ".json":
            raw = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(raw, list) and raw and all(isinstance(v, int | float) for v in raw):
                return from_value(np.array(raw), where)
            rows = isinstance(raw, list) and raw and all(isinstance(v, list) for v in raw)
            if rows and all(isinstance(x, int | float) for v in raw for x in v):
                return from_value(np.array(raw), where)
            return from_value(raw, where)
        if suffix == ".csv":
            return _csv(path)
    except (ValueError, OSError) as exc:
        raise SpecError(f"cannot read the dataset: {exc}", where=where) from None
    raise SpecError(
        f"unknown dataset format {suffix or '(none)'}", where=where, fix="use .csv, .npy or .json"
    )


def _csv(path: Path) -> Dataset:
    import numpy as np

    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise SpecError("the CSV file is empty", where=str(path), fix="a header row, then records")
    header, body = rows[0], [r for r in rows[1:] if r]
    if any(len(r) != len(header) for r in body):
        raise SpecError(
            "rows have different lengths from the header", where=str(path), fix="one value a column"
        )
    values = [[_cell(v) for v in r] for r in body]
    if all(isinstance(v, int | float) for r in values for v in r) and body:
        array = np.array(values)
        return from_value(array[:, 0] if len(header) == 1 else array, str(path))
    return from_value([dict(zip(header, r, strict=True)) for r in values], str(path))


def _cell(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text
