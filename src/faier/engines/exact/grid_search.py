"""Distribution mode over a grid of query answers: a float64 screen, then exact rechecks.

DP over a grid input space with every-query or one-query ±Δ neighbours asks
for the largest P(ω|x)/P(ω|y) over neighbours x, y and outputs ω.  Instead
of enumerating neighbour pairs in exact arithmetic (3^n − 1 neighbours per
input for Noisy Max), the search

1. builds a float64 table P[ω, x] over the whole grid, from the mechanism's
   vectorised evaluator (:class:`GridEvaluator`) or, failing that, from the
   exact output distribution of every input;
2. takes, for every output, the neighbour minimum min_{y ~ x} P[ω, y]:
   per-axis shifts for one-query neighbours, a separable box minimum with
   x itself left out for every-query neighbours;
3. keeps every triple (x, y, ω) whose float ratio lies within ``MARGIN``
   of the float maximum, and recomputes those exactly through the
   mechanism's own ``output_distribution``: the exact maximum is ε*.

Why the screen never loses the maximiser: every table entry is a sum of
products of non-negative numbers, so there is no cancellation and each
entry is within relative error ``REL_ERROR`` of the exact value (a few
thousand roundings of 2^-53 each would still be below it).  A ratio of two
entries, divided in float, is then within 2·REL_ERROR + 2^-53 of its exact
value, so the exact maximiser's float ratio is at least the float maximum
times 1 − 5·REL_ERROR > 1 − ``MARGIN``.  Zeros are exact (0.0 means
probability 0, by the evaluator's contract or because the floats were
rounded from exact values), so P(ω|x) > 0 = P(ω|y), an infinite loss, is
found exactly.  Entries below ``TINY`` would leave the range where the
relative error bound holds; such tables are not used.

Why the table itself is trusted: ``grid_table`` (and ``grid_column``) are
hand-written shortcuts, so on every run a seeded sample of columns (every
column of a grid of at most ``FULL_CHECK_INPUTS`` inputs) is compared with
the mechanism's exact output distribution before the screen uses the table
(:meth:`GridSearch.verify`); the method text says how many.

Among exactly equal maxima the witness is the one the pair-by-pair search
reports: first input x in grid order, then neighbour y in
:func:`faier.privacy.neighbours.neighbour_pairs` order, then the output in
the order of x's exact distribution.
"""

from __future__ import annotations

import itertools
import math
import operator
import random
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NoReturn, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from faier.core.budget import Budget
from faier.engines.exact.symmetry_check import is_faiers
from faier.errors import InternalError, MechanismError
from faier.mechanisms.program import Program, StepProgram
from faier.model.distribution import Distribution
from faier.model.values import show_input
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import Comparison
from faier.results import Loss, loss_of

Table = npt.NDArray[np.float64]
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]
Mask = npt.NDArray[np.bool_]
Triples = tuple[Ints, Ints, Ints, Ints]
OneShot = Program | StepProgram  # type: ignore[type-arg]
Relation = EveryQuery | OneQuery

REL_ERROR = 1e-12
"""Largest relative error of a positive table entry an evaluator may have."""

MARGIN = 1e-9
"""Relative distance below the float maximum within which triples are rechecked exactly."""

TINY = 1e-200
"""Positive entries below this might have lost relative accuracy to underflow."""

MAX_TABLE_ENTRIES = 60_000_000
"""Outputs × inputs above this (about 480 MB of float64) use the pair-by-pair search."""

SUM_TOLERANCE = 1e-9
"""How far an evaluator's column (one input's outputs) may sum away from 1."""

FULL_CHECK_INPUTS = 64
"""Grids with at most this many inputs have every column checked against the semantics.

Small grids are where one wrong column is a large share of the table, and
64 exact runs of a small mechanism cost milliseconds (Noisy Max n = 3 with
m = 3, a 4×4×4 histogram)."""

SAMPLED_COLUMNS = 12
"""Columns checked against the semantics on larger grids.

A table wrong on half of its inputs escapes with probability 2^-12 < 0.03%,
on a quarter with (3/4)^12 ≈ 3%; the cost is 12 exact runs (about 0.13 s
for Noisy Max with n = 9 and 0.3 s with n = 12, where one run merges
O(n²·m) program states), the same order as building the table."""

CHECK_SEED = 11
"""Seed of the sampled columns: the same columns on every run, so results reproduce."""


@runtime_checkable
class GridEvaluator(Protocol):
    """A mechanism that can tabulate its output probabilities over its whole grid at once.

    ``grid_table()[k, i1, …, in]`` is Pr[``grid_outputs()[k]`` | input (i1, …, in)] in
    float64, for the input grid in ``itertools.product`` order.  The contract: 0.0
    exactly where the probability is 0, every other entry within relative error
    ``REL_ERROR`` of the exact value (sums of products of correctly rounded
    non-negative numbers meet it).  ``None`` means no trustworthy table (underflow).
    """

    def grid_outputs(self) -> Sequence[Hashable]:
        """Every output of positive probability on some input, in table order."""
        ...

    def grid_table(self) -> Table | None:
        """The float64 table of shape (outputs, *grid shape), or None."""
        ...


@runtime_checkable
class ExactColumns(Protocol):
    """A grid evaluator that also gives one input's exact distribution from closed forms.

    Cheaper than running the mechanism when many candidates tie and every
    input must be rechecked; the witness itself is still recomputed from the
    mechanism's own semantics (``engine._recheck``).
    """

    def grid_column(self, x: Any) -> Mapping[Hashable, Fraction]:
        """Pr[output | x] for every output of positive probability at grid point x, exactly."""
        ...


@dataclass(frozen=True)
class Grid:
    """An input space that is exactly {0..s1−1} × … × {0..sn−1} in product order."""

    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def index(self, flat: int) -> tuple[int, ...]:
        return tuple(int(i) for i in np.unravel_index(flat, self.shape))

    def comparisons(self, relation: Relation) -> int:
        """How many ordered neighbour pairs the grid has (what a pair search compares)."""
        d = relation.delta
        within = [sum(min(s - 1, a + d) - max(0, a - d) + 1 for a in range(s)) for s in self.shape]
        if isinstance(relation, EveryQuery):
            return math.prod(within) - self.size
        return sum(self.size // s * (w - s) for s, w in zip(self.shape, within, strict=True))


def grid_of(values: Sequence[Hashable]) -> Grid | None:
    """The grid the inputs enumerate (ints count as 1-vectors), or None if they are no grid."""
    if not values:
        return None
    last = values[-1]
    expected: Iterable[Hashable]
    if type(last) is int and all(type(v) is int for v in values):
        shape: tuple[int, ...] = (last + 1,)
        expected = range(last + 1)
    elif isinstance(last, tuple) and last and all(type(v) is int for v in last):
        shape = tuple(v + 1 for v in last)
        expected = itertools.product(*(range(s) for s in shape))
    else:
        return None
    if min(shape) < 1 or math.prod(shape) != len(values):
        return None
    if any(map(operator.ne, values, expected)):  # lazily: product() reuses its tuples
        return None
    return Grid(shape)


def _along(ndim: int, axis: int, start: int, stop: int) -> tuple[slice, ...]:
    index = [slice(None)] * ndim
    index[axis] = slice(start, stop)
    return tuple(index)


def _shifted_minimum(target: Table, source: Table, axis: int, steps: Sequence[int]) -> None:
    """target[…, i, …] = min(target[…, i, …], source[…, i + s, …]) for each step s, in place."""
    size = source.shape[axis]
    for s in steps:
        if abs(s) >= size:
            continue
        lo, hi = max(0, -s), min(size, size - s)
        view = target[_along(target.ndim, axis, lo, hi)]
        np.minimum(view, source[_along(source.ndim, axis, lo + s, hi + s)], out=view)


def neighbour_minimum(table: Table, relation: Relation) -> Table:
    """Per output and input x, the least entry over the neighbours y ≠ x (+inf if none).

    ``table`` has shape (outputs, *grid).  One-query neighbours differ on one axis
    by 1..Δ: shifts along each axis.  Every-query neighbours are the (2Δ+1)^n box
    minus x: with B_k the box minimum over axes k.. (B_n = table), the offsets
    whose first non-zero coordinate is on axis k contribute B_{k+1} shifted along
    axis k, so 2·n passes of 2Δ shifted minima replace the (2Δ+1)^n pairs.
    """
    steps = [s for s in range(-relation.delta, relation.delta + 1) if s]
    result = np.full(table.shape, np.inf)
    if isinstance(relation, OneQuery):
        for axis in range(1, table.ndim):
            _shifted_minimum(result, table, axis, steps)
        return result
    box = table
    for axis in reversed(range(1, table.ndim)):
        _shifted_minimum(result, box, axis, steps)
        if axis > 1:
            wider = box.copy()
            _shifted_minimum(wider, box, axis, steps)
            box = wider
    return result


@dataclass(frozen=True)
class Best:
    """An exact loss found by the search, with its witness triple and probabilities."""

    loss: Loss
    left: Hashable
    right: Hashable
    output: Hashable
    p: Fraction
    q: Fraction

    @property
    def comparison(self) -> Comparison[Hashable]:
        """The witness pair as the point-mass comparison a pair search would report."""
        return Comparison(
            Distribution.point(self.left),
            Distribution.point(self.right),
            show_input(self.left),
            show_input(self.right),
        )


class GridSearch:
    """One DP question over a grid, answered by the float screen and exact rechecks."""

    def __init__(
        self,
        mechanism: OneShot,
        grid: Grid,
        relation: Relation,
        evaluator: GridEvaluator | None,
    ) -> None:
        self.mechanism = mechanism
        self.grid = grid
        self.relation = relation
        self.evaluator = evaluator
        self.values = mechanism.inputs.values
        self.comparisons = grid.comparisons(relation)
        self.outputs: list[Hashable] = []
        self.table: Table = np.zeros((0, grid.size))
        self.exact: dict[int, dict[Hashable, Fraction]] = {}
        self.candidates = 0
        self.checked = 0

    @classmethod
    def prepare(cls, mechanism: OneShot, relation: Relation) -> GridSearch | None:
        """The search for this question, or None where the inputs are no grid with neighbours."""
        grid = grid_of(mechanism.inputs.values)
        if grid is None or grid.comparisons(relation) == 0:
            return None
        evaluator = mechanism if isinstance(mechanism, GridEvaluator) else None
        return cls(mechanism, grid, relation, evaluator)

    def describe(self) -> str:
        source = (
            "float64 table from the mechanism's grid evaluator"
            if self.evaluator is not None
            else "exact distribution per input, screened in float64"
        )
        if not self.checked:
            checked = ""
        elif self.checked == self.grid.size:
            checked = f", checked exactly on all {self.checked} columns"
        else:
            checked = f", checked exactly on {self.checked} of {self.grid.size} columns (seeded)"
        return (
            f"exact: grid search ({source}{checked}; {self.comparisons} neighbour pairs by "
            f"min-filter; {self.candidates} candidates rechecked exactly)"
        )

    def build(self, budget: Budget) -> bool:
        """Fill the float table; False where it cannot be trusted or is too large.

        A table from a hand-written shortcut (``grid_table``, or ``grid_column``
        for every input) is checked against the mechanism's semantics first.
        """
        if self.evaluator is None:
            built = self._build_from_exact(budget)
        else:
            outputs = list(self.evaluator.grid_outputs())
            if len(outputs) * self.grid.size > MAX_TABLE_ENTRIES:
                return False
            budget.spend(len(outputs) * self.grid.size)
            table = self.evaluator.grid_table()
            budget.check_time()
            built = table is not None and self._accept(outputs, table)
        if built and (self.evaluator is not None or isinstance(self.mechanism, ExactColumns)):
            self.verify(budget)
        return built

    def sample(self) -> list[int]:
        """The columns :meth:`verify` checks: all on small grids, else a seeded sample."""
        if self.grid.size <= FULL_CHECK_INPUTS:
            return list(range(self.grid.size))
        return sorted(random.Random(CHECK_SEED).sample(range(self.grid.size), SAMPLED_COLUMNS))

    def verify(self, budget: Budget) -> None:
        """Check the shortcuts against the mechanism's exact semantics on :meth:`sample`.

        The screen trusts every table column, but the exact rechecks only see
        the candidates' columns, so a wrong entry elsewhere could hide the
        maximiser; ``grid_column`` (used for the rechecks) is checked too.
        """
        for flat in self.sample():
            budget.check_time()
            x = self.values[flat]
            run = self.mechanism.output_distribution(x, max_states=budget.max_states)
            dist = {output: p for output, p in run.as_dict().items() if p}
            budget.spend(len(dist))
            if isinstance(self.mechanism, ExactColumns):
                column = {o: p for o, p in self.mechanism.grid_column(x).items() if p}
                if column != dist:
                    wrong = next(o for o in {**dist, **column} if column.get(o) != dist.get(o))
                    self._fault(
                        f"grid_column gives {column.get(wrong, 0)} for output {wrong!r}, "
                        f"exactly {dist.get(wrong, 0)}",
                        flat,
                    )
            if self.evaluator is not None:
                self._check_column(flat, dist)
            self.exact[flat] = dist
            self.checked += 1

    def _fault(self, detail: str, flat: int) -> NoReturn:
        """A shortcut disagrees with the semantics: faier's bug, or the user's mechanism's."""
        name, x = self.mechanism.name, self.values[flat]
        if is_faiers(self.mechanism):
            raise InternalError(f"the grid table of {name!r} on {x!r}: {detail}")
        raise MechanismError(
            f"its grid table disagrees with its own output distribution on input {x!r}: {detail}",
            where=f"mechanism {name!r}",
            fix="grid_table() and grid_column() must give the mechanism's exact probabilities",
        )

    def _malformed(self, detail: str) -> NoReturn:
        """A grid table of the wrong shape or not a probability table: whose bug it is."""
        name = self.mechanism.name
        if is_faiers(self.mechanism):
            raise InternalError(f"grid table of {name!r} {detail}")
        raise MechanismError(
            f"its grid table {detail}",
            where=f"mechanism {name!r}",
            fix="grid_table() returns float64 probabilities, one column per grid input",
        )

    def _accept(self, outputs: list[Hashable], table: Table) -> bool:
        if table.shape != (len(outputs), *self.grid.shape) or table.dtype != np.float64:
            self._malformed(
                f"has shape {table.shape} ({table.dtype}), "
                f"expected {(len(outputs), *self.grid.shape)} (float64)"
            )
        flat = table.reshape(len(outputs), self.grid.size)
        if not np.isfinite(flat).all() or (flat < 0).any():
            self._malformed("is not a probability table")
        if (np.abs(flat.sum(axis=0) - 1) > SUM_TOLERANCE).any():
            self._malformed("does not sum to 1 on every input")
        if ((flat > 0) & (flat < TINY)).any():
            return False
        self.outputs, self.table = outputs, flat
        return True

    def _build_from_exact(self, budget: Budget) -> bool:
        index: dict[Hashable, int] = {}
        for flat in range(self.grid.size):
            for output in self._exact(flat, budget):
                index.setdefault(output, len(index))
            if len(index) * self.grid.size > MAX_TABLE_ENTRIES:
                return False
        table = np.zeros((len(index), self.grid.size))
        for flat, dist in self.exact.items():
            for output, p in dist.items():
                value = float(p)
                if value < TINY:
                    return False
                table[index[output], flat] = value
        self.outputs, self.table = list(index), table
        return True

    def _exact(self, flat: int, budget: Budget) -> dict[Hashable, Fraction]:
        """The exact distribution of one input, checked against its table column."""
        dist = self.exact.get(flat)
        if dist is None:
            budget.check_time()
            x = self.values[flat]
            if isinstance(self.mechanism, ExactColumns):
                dist = dict(self.mechanism.grid_column(x))
            else:
                dist = self.mechanism.output_distribution(x, max_states=budget.max_states).as_dict()
            budget.spend(len(dist))
            self.exact[flat] = dist
            if self.evaluator is not None:
                self._check_column(flat, dist)
        return dist

    def _check_column(self, flat: int, dist: dict[Hashable, Fraction]) -> None:
        matched = 0
        for k, output in enumerate(self.outputs):
            value = float(self.table[k, flat])
            p = dist.get(output)
            if p is None:
                agrees = value == 0
            else:
                matched += 1
                agrees = abs(value - float(p)) <= 4 * REL_ERROR * float(p)
            if not agrees:
                self._fault(f"gives {value!r} for output {output!r}, exactly {p or 0}", flat)
        if matched != len(dist):
            missing = next(o for o in dist if o not in set(self.outputs))
            self._fault(f"has no row for output {missing!r}", flat)

    def run(self, budget: Budget) -> Iterator[Best]:
        """Yield each exact improvement; the last one is ε* with its witness."""
        outputs, size = len(self.outputs), self.grid.size
        full = self.table.reshape((outputs, *self.grid.shape))
        lowest = neighbour_minimum(full, self.relation).reshape(outputs, size)
        budget.check_time()
        positive = self.table > 0
        infinite = positive & (lowest == 0)
        if infinite.any():
            yield self._first_infinite(self._triples(infinite, None), budget)
            return
        ratio = np.zeros_like(self.table)
        np.divide(self.table, lowest, out=ratio, where=positive)
        threshold = float(ratio.max()) * (1 - MARGIN)
        yield from self._recheck(self._triples(ratio >= threshold, threshold), budget)

    def _triples(self, selected: Mask, threshold: float | None) -> Triples:
        """Neighbour triples of the selected (output, x), sorted in pair-search order.

        A neighbour y qualifies when P[ω, x]/P[ω, y] ≥ threshold, or, with no
        threshold, when P[ω, y] = 0 (an infinite loss).  Returns the arrays
        (x, rank of y among x's neighbours, y, output index).
        """
        ks, xs = np.nonzero(selected)
        px = self.table[ks, xs]
        shape = self.grid.shape
        d = self.relation.delta
        parts: list[tuple[Ints, Ints, Ints, Ints]] = [(xs[:0], xs[:0], xs[:0], ks[:0])]

        def qualifies(above: Floats, near: Floats) -> Mask:
            if threshold is None:
                return np.equal(near, 0)
            quotient = np.zeros_like(near)
            np.divide(above, near, out=quotient, where=near > 0)
            return np.greater_equal(quotient, threshold)

        if isinstance(self.relation, OneQuery):
            coords = np.unravel_index(xs, shape)
            steps = [s for s in range(-d, d + 1) if s]
            for axis, size in enumerate(shape):
                stride = math.prod(shape[axis + 1 :])
                for j, step in enumerate(steps):
                    moved = coords[axis] + step
                    inside = np.nonzero((moved >= 0) & (moved < size))[0]
                    k, x = ks[inside], xs[inside]
                    y = x + step * stride
                    chosen = qualifies(px[inside], self.table[k, y])
                    rank = np.full(int(chosen.sum()), axis * len(steps) + j)
                    parts.append((x[chosen], rank, y[chosen], k[chosen]))
        else:
            for k_, x_, p_ in zip(ks.tolist(), xs.tolist(), px.tolist(), strict=True):
                point = self.grid.index(x_)
                box = tuple(
                    slice(max(0, v - d), min(s, v + d + 1))
                    for v, s in zip(point, shape, strict=True)
                )
                near = self.table[k_].reshape(shape)[box]
                offsets = np.nonzero(qualifies(np.full(near.shape, p_), near))
                y = np.ravel_multi_index(
                    tuple(o + b.start for o, b in zip(offsets, box, strict=True)), shape
                )
                y = y[y != x_]  # the rank of y among x's neighbours is its grid position
                parts.append((np.full(len(y), x_), y, y, np.full(len(y), k_)))
        x, rank, y, k = (np.concatenate(column) for column in zip(*parts, strict=True))
        order = np.lexsort((k, rank, x))
        return x[order], rank[order], y[order], k[order]

    def _pairs(self, triples: Triples) -> Iterator[tuple[int, int, list[int]]]:
        """(x, y, output indices) per neighbour pair, in pair-search order."""
        x, rank, y, k = (column.tolist() for column in triples)
        start = 0
        for end in range(1, len(x) + 1):
            if end == len(x) or (x[end], rank[end]) != (x[start], rank[start]):
                yield x[start], y[start], k[start:end]
                start = end

    def _first_infinite(self, triples: Triples, budget: Budget) -> Best:
        """The first pair in pair-search order with an infinite loss, confirmed exactly."""
        x, y, _ = next(self._pairs(triples))
        left, right = self._exact(x, budget), self._exact(y, budget)
        self.candidates += 1
        for output, p in left.items():
            if output not in right:
                return Best(Loss(None), self.values[x], self.values[y], output, p, Fraction(0))
        self._fault("has a zero where the exact distribution has none", y)

    def _recheck(self, triples: Triples, budget: Budget) -> Iterator[Best]:
        """Exact ratios of every candidate, in pair-search order; strict improvements win.

        Ratios are compared by cross-multiplying numerators and denominators,
        which avoids a Fraction (and its gcd) per candidate.
        """
        top_num, top_den = 0, 1
        places: dict[int, dict[Hashable, int]] = {}
        for x, y, ks in self._pairs(triples):
            budget.check_time()
            left, right = self._exact(x, budget), self._exact(y, budget)
            place = places.get(x)
            if place is None:
                place = places[x] = {output: i for i, output in enumerate(left)}
            chosen = sorted(
                (self.outputs[k] for k in ks if self.outputs[k] in place),
                key=place.__getitem__,
            )
            for output in chosen:
                self.candidates += 1
                p, q = left[output], right.get(output, Fraction(0))
                num, den = p.numerator * q.denominator, p.denominator * q.numerator
                if num * top_den > top_num * den:  # den = 0 is an infinite ratio
                    top_num, top_den = num, den
                    loss = loss_of(p, q)
                    yield Best(loss, self.values[x], self.values[y], output, p, q)
