"""Events: the sets of outputs the test counts, and counting thousands of them at once.

The search space follows StatDP §4.3 by output type, inferred from *all*
selection samples (the public StatDP code types each output column from one
run, so an iSVT 4 run that happens to start with ``False`` turns its floats
into bools and the test reports p = 1):

* categorical lists: Hamming distance to a noise-free output, the count of
  each value, and the length when lengths vary;
* numbers and numeric lists: intervals on each component, the average, the
  minimum and the maximum (the average alone when no output holds more
  than one number: the three coincide); equality events when a feature
  takes few values (integer outputs);
* mixed lists: cross products of a categorical count or length with an
  interval on the numeric average, minimum or maximum.

An event is a conjunction of :class:`Condition` on :class:`Feature` values.
Intervals are half-open, low ≤ v < high, on a grid of "nice" numbers
(multiples of 1, 2 or 5 × 10^k) spanning the central 99% of the pooled
samples, with ±∞ as ends.  A block counts all events of one feature (or one
pair of features) with one histogram and a cumulative sum, so the selector
never loops over events per sample.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from faier.errors import MechanismError
from faier.mechanisms.sampled import ABSENT, NUMBER, Outputs

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Derived = tuple[IntArray, BoolArray]
Elementwise = Callable[[FloatArray], Derived]

DISCRETE_LIMIT = 64
"""A feature with at most this many distinct values gets equality events."""
GRID_POINTS = 16
"""Target number of grid steps across the central range of a numeric feature."""
MAX_COMPONENTS = 20
"""Interval events on at most this many list positions."""
NO_MATCH = -3
"""A category code that no output slot carries."""

VALUE, AVG, MIN, MAX, COUNT, LENGTH, HAMMING = (
    "value",
    "avg",
    "min",
    "max",
    "count",
    "length",
    "hamming",
)


def show_value(value: Any) -> str:
    """Outputs as people write them: ``[False, 1.5]``, ``2``, ``⊤``."""
    if isinstance(value, tuple | list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def show_number(x: float) -> str:
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:g}"


def json_number(x: float) -> float | str:
    """JSON has no infinity: ±∞ is written as the strings "inf" and "-inf"."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


@dataclass(frozen=True)
class Reference:
    """A fixed output ω0 (a noise-free run) that Hamming distances are measured to."""

    value: tuple[Any, ...]

    def arrays(self, out: Outputs, width: int) -> tuple[FloatArray, npt.NDArray[np.int16]]:
        """ω0 as (numbers, codes) in the category numbering of ``out``, padded to ``width``."""
        numbers = np.full(width, np.nan)
        codes = np.full(width, ABSENT, dtype=np.int16)
        index = {c: k for k, c in enumerate(out.categories)}
        for j, item in enumerate(self.value[:width]):
            if isinstance(item, int | float) and not isinstance(item, bool):
                codes[j], numbers[j] = NUMBER, float(item)
            else:
                codes[j] = index.get(item, NO_MATCH)
        return numbers, codes


def numeric_summaries(out: Outputs) -> dict[str, FloatArray]:
    """Average, minimum and maximum of each output's numbers (NaN where it has none)."""
    numeric = out.codes == NUMBER
    count = numeric.sum(axis=1)
    none = count == 0
    total = np.where(numeric, out.numbers, 0.0).sum(axis=1)
    low = np.where(numeric, out.numbers, np.inf).min(axis=1)
    high = np.where(numeric, out.numbers, -np.inf).max(axis=1)
    return {
        AVG: np.asarray(np.where(none, np.nan, total / np.maximum(count, 1)), np.float64),
        MIN: np.asarray(np.where(none, np.nan, low), np.float64),
        MAX: np.asarray(np.where(none, np.nan, high), np.float64),
    }


@dataclass(frozen=True)
class Feature:
    """One number per output that events are defined on (NaN where undefined)."""

    kind: str
    index: int = 0
    category: Hashable = None
    reference: Reference | None = None
    scalar: bool = False

    @property
    def codes_only(self) -> bool:
        """Whether the values depend on the category codes alone (not on numbers)."""
        if self.kind == HAMMING:
            assert self.reference is not None
            return not any(
                isinstance(v, int | float) and not isinstance(v, bool) for v in self.reference.value
            )
        return self.kind in (COUNT, LENGTH)

    def values(self, out: Outputs) -> FloatArray:
        if self.kind == VALUE:
            if self.index >= out.width:
                return np.full(out.n, np.nan)
            column = out.codes[:, self.index] == NUMBER
            return np.asarray(np.where(column, out.numbers[:, self.index], np.nan), np.float64)
        if self.kind in (AVG, MIN, MAX):
            return numeric_summaries(out)[self.kind]
        if self.kind == COUNT:
            if self.category not in out.categories:
                return np.zeros(out.n)
            code = out.categories.index(self.category)
            return np.asarray((out.codes == code).sum(axis=1), dtype=np.float64)
        if self.kind == LENGTH:
            return out.lengths.astype(np.float64)
        if self.kind == HAMMING:
            assert self.reference is not None
            width = max(out.width, len(self.reference.value))
            padded = out.padded(width)
            numbers, codes = self.reference.arrays(out, width)
            differ = (padded.codes != codes) | (
                (padded.codes == NUMBER) & (padded.numbers != numbers)
            )
            return np.asarray(differ.sum(axis=1), dtype=np.float64)
        raise MechanismError(f"unknown feature {self.kind!r}")

    def describe(self) -> str:
        if self.kind == VALUE:
            return "ω" if self.scalar else f"ω[{self.index}]"
        if self.kind in (AVG, MIN, MAX):
            return f"{self.kind}(ω)"
        if self.kind == COUNT:
            return f"ω.count({show_value(self.category)})"
        if self.kind == LENGTH:
            return "len(ω)"
        assert self.reference is not None
        return f"hamming(ω, {show_value(self.reference.value)})"


@dataclass(frozen=True)
class Condition:
    """``low ≤ feature < high``, or ``feature == low`` when ``equals``."""

    feature: Feature
    low: float
    high: float
    equals: bool = False

    def mask(self, features: Features) -> BoolArray:
        v = features(self.feature)
        if self.equals:
            return np.asarray(v == self.low)
        with np.errstate(invalid="ignore"):
            return np.asarray((v >= self.low) & (v < self.high))

    def describe(self) -> str:
        f = self.feature
        if f.kind == COUNT and f.scalar and self.equals:
            sign = "=" if self.low == 1 else "≠"
            return f"ω {sign} {show_value(f.category)}"
        if self.equals:
            return f"{f.describe()} = {show_number(self.low)}"
        if math.isinf(self.low):
            return f"{f.describe()} < {show_number(self.high)}"
        if math.isinf(self.high):
            return f"{f.describe()} ≥ {show_number(self.low)}"
        return f"{f.describe()} ∈ [{show_number(self.low)}, {show_number(self.high)})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"feature": self.feature.describe()}
        if self.equals:
            out["equals"] = self.low
        else:
            out["low"], out["high"] = json_number(self.low), json_number(self.high)
        return out


@dataclass(frozen=True)
class Event:
    """A set of outputs: those meeting every condition."""

    conditions: tuple[Condition, ...]

    def mask(self, out: Outputs, features: Features | None = None) -> BoolArray:
        values = features or Features(out)
        result = np.ones(out.n, dtype=bool)
        for condition in self.conditions:
            result &= condition.mask(values)
        return result

    def count(self, out: Outputs, features: Features | None = None) -> int:
        return int(self.mask(out, features).sum())

    def describe(self) -> str:
        return " and ".join(c.describe() for c in self.conditions)

    def to_json(self) -> dict[str, Any]:
        return {
            "description": self.describe(),
            "conditions": [c.to_json() for c in self.conditions],
        }


def _distinct_rows(codes: npt.NDArray[np.int16]) -> tuple[IntArray, IntArray] | None:
    """First index of each distinct row and each row's distinct index (None if too wide to key)."""
    base = int(codes.max(initial=0)) + 3
    width = codes.shape[1]
    if width * math.log2(base) >= 62:
        return None
    weights = base ** np.arange(width, dtype=np.int64)
    keys = ((codes.astype(np.int64) + 2) * weights).sum(axis=1)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return np.asarray(first, dtype=np.int64), np.asarray(inverse, dtype=np.int64).ravel()


class Features:
    """Feature values of one batch of outputs, each computed once (also for a slice of rows).

    Category codes repeat: lists of ⊤/⊥, discrete outputs drawn from a
    table, or the ⊥-prefix of iSVT 4's outputs take few distinct rows.
    Features that depend on the codes alone are computed once per distinct
    row and gathered.
    """

    def __init__(self, out: Outputs, rows: slice | None = None) -> None:
        self.out = out
        self.rows = rows
        self.memo: dict[Feature, FloatArray] = {}
        self.parent: Features | None = None
        self.derived: dict[Any, Derived] = {}
        self.summaries: dict[str, FloatArray] | None = None
        self.distinct: tuple[Outputs, IntArray] | None = None
        self.numeric = False
        if rows is None:
            self.numeric = bool((out.codes == NUMBER).any())
            found = _distinct_rows(out.codes)
            if found is not None:
                self.distinct = out.take(found[0]), found[1]

    def _summaries(self) -> dict[str, FloatArray]:
        """Average, minimum and maximum of the outputs' numbers, computed together once."""
        if self.summaries is None:
            self.summaries = numeric_summaries(self.out)
        return self.summaries

    def _rows(self, feature: Feature) -> tuple[Outputs, IntArray] | None:
        """The distinct rows and the gather index, if this feature may use them."""
        return self.distinct if self.by_rows(feature) else None

    def by_rows(self, feature: Feature) -> bool:
        """Whether the feature is computed per distinct row (and gathered)."""
        return self.distinct is not None and (not self.numeric or feature.codes_only)

    def __call__(self, feature: Feature) -> FloatArray:
        found = self.memo.get(feature)
        if found is None:
            if self.parent is not None:
                found = self.parent(feature)[self.rows]
            elif feature.kind in (AVG, MIN, MAX) and not self.by_rows(feature):
                found = self._summaries()[feature.kind]
            elif (rows := self._rows(feature)) is not None:
                found = feature.values(rows[0])[rows[1]]
            else:
                found = feature.values(self.out)
            self.memo[feature] = found
        return found

    def observed(self, feature: Feature) -> FloatArray:
        """The feature's values, each distinct row's once when rows repeat (for typing)."""
        if (rows := self._rows(feature)) is not None:
            return feature.values(rows[0])
        return self(feature)

    def elementwise(self, feature: Feature, key: Any, compute: Elementwise) -> Derived:
        """``compute`` of the feature's values (grid cells), per distinct row when rows repeat."""
        marker = (key, feature)
        found = self.derived.get(marker)
        if found is None:
            if self.parent is not None:
                whole = self.parent.elementwise(feature, key, compute)
                found = (whole[0][self.rows], whole[1][self.rows])
            elif (rows := self._rows(feature)) is not None:
                support, inverse = rows
                index, valid = compute(feature.values(support))
                found = (index[inverse], valid[inverse])
            else:
                found = compute(self(feature))
            self.derived[marker] = found
        return found

    def part(self, rows: slice) -> Features:
        """The same outputs restricted to ``rows``, sharing computed values."""
        child = Features(self.out, rows)
        child.parent = self
        return child


@dataclass(frozen=True)
class DiscreteBlock:
    """``feature = v`` for each of a few observed values v."""

    feature: Feature
    points: tuple[float, ...]

    @property
    def size(self) -> int:
        return len(self.points)

    def indices(self, features: Features) -> Derived:
        """Index of each output's value among the points, and whether it is one of them."""
        table = np.asarray(self.points)

        def compute(v: FloatArray) -> Derived:
            index = np.searchsorted(table, v).clip(0, len(table) - 1)
            return index.astype(np.int64), np.asarray(table[index] == v)

        return features.elementwise(self.feature, ("indices", self.points), compute)

    def count(self, features: Features) -> IntArray:
        index, valid = self.indices(features)
        return np.bincount(index[valid], minlength=self.size).astype(np.int64)

    def condition(self, k: int) -> Condition:
        return Condition(self.feature, self.points[k], self.points[k], equals=True)

    def event(self, k: int) -> Event:
        return Event((self.condition(k),))


@dataclass(frozen=True)
class IntervalBlock:
    """``low ≤ feature < high`` for every pair of grid points (and ±∞)."""

    feature: Feature
    grid: tuple[float, ...]

    @property
    def bounds(self) -> tuple[float, ...]:
        return (-math.inf, *self.grid, math.inf)

    @property
    def pairs(self) -> tuple[IntArray, IntArray]:
        low, high = np.triu_indices(len(self.grid) + 2, k=1)
        return low.astype(np.int64), high.astype(np.int64)

    @property
    def size(self) -> int:
        cells = len(self.grid) + 2
        return cells * (cells - 1) // 2

    def cells(self, features: Features) -> Derived:
        """Grid cell of each output's value, and whether it has one."""
        grid = np.asarray(self.grid)

        def compute(v: FloatArray) -> Derived:
            finite = ~np.isnan(v)
            cell = np.searchsorted(grid, np.where(finite, v, 0.0), side="right")
            return cell.astype(np.int64), finite

        return features.elementwise(self.feature, ("cells", self.grid), compute)

    def count(self, features: Features) -> IntArray:
        cell, finite = self.cells(features)
        hist = np.bincount(cell[finite], minlength=len(self.grid) + 1)
        cumulative = np.concatenate(([0], np.cumsum(hist)))
        low, high = self.pairs
        return np.asarray(cumulative[high] - cumulative[low], dtype=np.int64)

    def condition(self, k: int) -> Condition:
        low, high = self.pairs
        bounds = self.bounds
        return Condition(self.feature, bounds[low[k]], bounds[high[k]])

    def event(self, k: int) -> Event:
        return Event((self.condition(k),))


@dataclass(frozen=True)
class CrossBlock:
    """``categorical feature = v`` and ``low ≤ numeric feature < high`` (mixed lists)."""

    left: DiscreteBlock
    right: IntervalBlock

    @property
    def size(self) -> int:
        return self.left.size * self.right.size

    def count(self, features: Features) -> IntArray:
        index, valid = self.left.indices(features)
        cell, finite = self.right.cells(features)
        width = len(self.right.grid) + 1
        keep = valid & finite
        hist = np.bincount(index[keep] * width + cell[keep], minlength=self.left.size * width)
        grid = hist.reshape(self.left.size, width)
        cumulative = np.concatenate((np.zeros((self.left.size, 1), np.int64), grid.cumsum(1)), 1)
        low, high = self.right.pairs
        return np.asarray((cumulative[:, high] - cumulative[:, low]).ravel(), dtype=np.int64)

    def event(self, k: int) -> Event:
        a, b = divmod(k, self.right.size)
        return Event((self.left.condition(a), self.right.condition(b)))


@dataclass(frozen=True)
class EventSpace:
    """Every candidate event, numbered; counts come block by block."""

    blocks: tuple[DiscreteBlock | IntervalBlock | CrossBlock, ...]
    description: str

    @property
    def size(self) -> int:
        return sum(b.size for b in self.blocks)

    def count(self, features: Features) -> IntArray:
        if not self.blocks:
            return np.zeros(0, dtype=np.int64)
        return np.concatenate([b.count(features) for b in self.blocks])

    def event(self, k: int) -> Event:
        for block in self.blocks:
            if k < block.size:
                return block.event(k)
            k -= block.size
        raise IndexError(k)


def nice_grid(low: float, high: float, points: int = GRID_POINTS) -> tuple[float, ...]:
    """Multiples of a 1-2-5 step covering [low, high] in about ``points`` steps."""
    if not high > low:
        return (float(low),)
    raw = (high - low) / points
    scale = 10.0 ** math.floor(math.log10(raw))
    step = next(m * scale for m in (1, 2, 5, 10) if m * scale >= raw)
    start, stop = math.floor(low / step), math.ceil(high / step)
    return tuple(float(round(k * step, 12)) for k in range(start, stop + 1))


def _pooled(feature: Feature, samples: Sequence[Features], observed: bool) -> FloatArray:
    """Every sample's value, or each distinct row's once (enough to find the distinct values)."""
    values = np.concatenate([s.observed(feature) if observed else s(feature) for s in samples])
    return np.asarray(values[~np.isnan(values)], dtype=np.float64)


def _distinct(values: FloatArray) -> FloatArray | None:
    """The distinct values when there are at most DISCRETE_LIMIT of them, else None."""
    if values.size == 0:
        return values
    if len(np.unique(values[:4096])) > DISCRETE_LIMIT:
        return None
    if np.all(values == np.round(values)):
        low = values.min()
        if values.max() - low < 10 * DISCRETE_LIMIT:
            seen = np.flatnonzero(np.bincount((values - low).astype(np.int64)))
            distinct = seen + low
            return distinct.astype(np.float64) if len(distinct) <= DISCRETE_LIMIT else None
    distinct = np.unique(values)
    return distinct if len(distinct) <= DISCRETE_LIMIT else None


def _block(feature: Feature, samples: Sequence[Features]) -> DiscreteBlock | IntervalBlock | None:
    values = _pooled(feature, samples, observed=True)
    if values.size == 0:
        return None
    distinct = _distinct(values)
    if distinct is not None:
        return DiscreteBlock(feature, tuple(float(v) for v in distinct))
    if any(s.by_rows(feature) for s in samples):
        values = _pooled(feature, samples, observed=False)
    low, high = np.quantile(values, [0.005, 0.995])
    return IntervalBlock(feature, nice_grid(float(low), float(high)))


def infer_space(computed: Sequence[Features], references: Sequence[Reference]) -> EventSpace:
    """The event search space for these outputs, typed from every sample."""
    samples = [f.out for f in computed]
    kinds = {s.is_list for s in samples}
    if len(kinds) != 1:
        raise MechanismError(
            "inconsistent output types: the mechanism returns lists on some inputs "
            "and single values on others",
            fix="return the same kind of output on every input",
        )
    is_list = kinds.pop()
    categories = sorted(
        {c for s in samples for c in s.categories if (s.codes == s.categories.index(c)).any()},
        key=lambda c: (type(c).__name__, str(c)),
    )
    has_number = any((s.codes == NUMBER).any() for s in samples)
    lengths = np.concatenate([s.lengths for s in samples])
    variable = bool(lengths.min() != lengths.max())
    width = int(lengths.max())
    categorical = [Feature(COUNT, category=c, scalar=not is_list) for c in categories]
    numeric: list[Feature] = []
    if has_number:
        numeric = [Feature(VALUE, i, scalar=not is_list) for i in range(min(width, MAX_COMPONENTS))]
        most = max(int((s.codes == NUMBER).sum(axis=1).max(initial=0)) for s in samples)
        if is_list and width > 1:
            # With at most one number per output, its average, minimum and maximum coincide.
            numeric += [Feature(AVG)] if most <= 1 else [Feature(AVG), Feature(MIN), Feature(MAX)]
    if is_list and categories:
        distinct_refs = dict.fromkeys(r.value for r in references)
        categorical += [Feature(HAMMING, reference=Reference(v)) for v in distinct_refs]
    if is_list and variable:
        categorical.append(Feature(LENGTH))
    blocks: list[DiscreteBlock | IntervalBlock | CrossBlock] = []
    counted: list[DiscreteBlock] = []
    summaries: list[IntervalBlock] = []
    for feature in (*categorical, *numeric):
        block = _block(feature, computed)
        if block is None or block.size == 0:
            continue
        blocks.append(block)
        if isinstance(block, DiscreteBlock) and feature.kind in (COUNT, LENGTH):
            counted.append(block)
        if isinstance(block, IntervalBlock) and feature.kind in (AVG, MIN, MAX, VALUE):
            summaries.append(block)
    if is_list and categories and has_number:
        wanted = [s for s in summaries if s.feature.kind != VALUE] or summaries[:1]
        blocks += [CrossBlock(c, s) for c in counted for s in wanted]
    kind = "list" if is_list else "single value"
    parts = [p for p, on in (("categorical", categories), ("numeric", has_number)) if on]
    described = f"{' and '.join(parts) or 'constant'} {kind}"
    if is_list:
        described += f"s of length {'≤ ' if variable else ''}{width}"
    return EventSpace(tuple(blocks), described)
