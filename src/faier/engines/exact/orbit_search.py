"""Grid search over orbits: DP of a mechanism symmetric in its queries, inputs up to permutation.

When a mechanism declares ``symmetry=PermuteQueries(...)`` (docs/MECHANISMS.md),
``Pr[π·ω | π·x] = Pr[ω | x]`` for every permutation π of the positions, and the
every-query and one-query neighbour relations are invariant too, so the loss
``Pr[ω | x] / Pr[ω | y]`` of a triple (x, y, ω) is that of (π·x, π·y, π·ω).
The maximum over all triples is therefore the maximum over one triple per
orbit, and the search

1. checks the declaration exactly (:mod:`faier.engines.exact.symmetry_check`);
2. computes the exact column of every input orbit's representative (sorted
   vector) once, from the mechanism's closed-form ``grid_column`` where it has
   one (checked against its own runs by step 1) or from its exact semantics,
   and rounds it into a float64 table over orbits;
3. screens every pair orbit (:mod:`faier.engines.exact.orbits`) in float64:
   ``Pr[ω | y]`` is read from the column of y's representative along the
   permutation that sorts y; entries are rounded once from exact values, so
   the grid search's margin argument (:mod:`faier.engines.exact.grid_search`)
   applies unchanged and the exact maximiser is among the candidates;
4. recomputes every candidate within ``MARGIN`` of the float maximum exactly
   from the representatives' exact columns, and the final witness once more
   from the mechanism's own runs on both inputs (a mismatch is a wrong
   declaration or a wrong ``grid_column``, reported as such).

Memory is the orbit table (outputs × C(n+m, m)) plus ``orbits.ROWS`` neighbour
representatives at a time: no table over the (m+1)^n inputs.  Among exactly
equal maxima the witness is the one the pair-by-pair search reports (first
input in grid order, neighbour in pair order, output in the order of the
input's exact distribution), because each orbit's representatives are its
first members in those orders.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from faier.core.budget import Budget
from faier.engines.exact import orbits as orbit_space
from faier.engines.exact.grid_search import MARGIN, TINY, Best, ExactColumns, Grid, grid_of
from faier.engines.exact.symmetry_check import (
    check_declaration,
    check_stabilisers,
    fault,
    moved_output,
    nonzero,
)
from faier.errors import MechanismError
from faier.mechanisms.symmetry import DeclarationCheck, PermuteQueries, sorting_permutation
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.results import Loss, loss_of

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Relation = EveryQuery | OneQuery
Gather = Callable[[int, Ints], tuple[Floats, Floats]]

MAX_ORBITS = 200_000
"""Input orbits above this (one exact column each) are not searched by orbits."""

MAX_TABLE_ENTRIES = 60_000_000
"""Outputs × input orbits above this are not tabulated (as for the grid search)."""


class OrbitSearch:
    """One DP question over a symmetric mechanism's grid, answered orbit by orbit."""

    def __init__(
        self, mechanism: Any, symmetry: PermuteQueries, n: int, top: int, relation: Relation
    ) -> None:
        self.mechanism = mechanism
        self.symmetry = symmetry
        self.n, self.top = n, top
        self.relation = relation
        self.grid = Grid((top + 1,) * n)
        self.comparisons = self.grid.comparisons(relation)
        self.shortcut = isinstance(mechanism, ExactColumns)
        self.orbits: orbit_space.InputOrbits | None = None
        self.columns: list[dict[Hashable, Fraction]] = []
        self.outputs: list[Hashable] = []
        self.table: Floats = np.zeros((0, 0))
        self.pairs = 0
        self.declaration: DeclarationCheck | None = None
        self.candidates = 0
        self._columns: dict[tuple[int, ...], dict[Hashable, Fraction]] = {}

    @classmethod
    def prepare(cls, mechanism: Any, relation: Relation) -> OrbitSearch | None:
        """The search, or None where the mechanism declares no symmetry or nothing is gained."""
        symmetry = getattr(mechanism, "symmetry", None)
        if symmetry is None:
            return None
        shape = mechanism.inputs.shape
        if shape is None:
            found = grid_of(mechanism.inputs.values)
            shape = None if found is None else found.shape
        if shape is None or len(set(shape)) > 1:
            raise MechanismError(
                "it declares a symmetry in its queries, but its inputs are not vectors of "
                "answers from one range {0..m}",
                where=f"mechanism {mechanism.name!r}",
                fix="use inputs=faier.grid(n, m), or remove the symmetry declaration",
            )
        n, top = len(shape), shape[0] - 1
        if n < 2 or top < 1:
            return None  # no permutation moves anything
        if orbit_space.InputOrbits.count(n, top) > MAX_ORBITS:
            return None
        if not orbit_space.InputOrbits.fits(n, top):
            return None
        return cls(mechanism, symmetry, n, top, relation)

    def describe(self) -> str:
        count = orbit_space.InputOrbits.count(self.n, self.top)
        source = "closed-form grid_column" if self.shortcut else "exact distribution"
        text = (
            f"exact: grid search over orbits of permuting the queries ({count} input orbits "
            f"of {self.grid.size} inputs, {self.pairs} neighbour-pair orbits of "
            f"{self.comparisons} ordered pairs; {source} per orbit, screened in float64"
        )
        if self.declaration is not None:
            text += f"; {self.declaration.describe()} and on every orbit's equal answers"
        return text + f"; {self.candidates} candidates rechecked exactly)"

    def assumptions(self) -> tuple[str, ...]:
        """What the answer takes on trust: the declaration where a sample was checked."""
        found = None if self.declaration is None else self.declaration.assumption()
        return () if found is None else (found,)

    # --- building the orbit table -------------------------------------------------------------

    def _column(self, x: tuple[int, ...], budget: Budget) -> dict[Hashable, Fraction]:
        """The exact column of a representative, computed once (the check and the table
        both read it)."""
        known = self._columns.get(x)
        if known is not None:
            return known
        budget.check_time()
        if self.shortcut:
            column = nonzero(self.mechanism.grid_column(x))
        else:
            column = nonzero(
                self.mechanism.output_distribution(x, max_states=budget.max_states).as_dict()
            )
        budget.spend(len(column))
        self._columns[x] = column
        return column

    def build(self, budget: Budget) -> bool:
        """Check the declaration, tabulate every orbit; False where floats cannot be trusted."""
        orbits = orbit_space.InputOrbits.of(self.n, self.top)
        self.orbits = orbits
        self.pairs = sum(
            orbit_space.pair_count(orbits.rep(r), self.top, self.relation)
            for r in range(len(orbits))
        )
        self.declaration = check_declaration(
            self.mechanism,
            self.symmetry,
            self.n,
            self.top,
            [orbits.rep(r) for r in range(len(orbits))],
            lambda x: self._column(x, budget),
            self.shortcut,
            budget,
        )
        index: dict[Hashable, int] = {}
        if self.symmetry.kind == "index":
            index = {i: i - 1 for i in range(1, self.n + 1)}
        identity = tuple(range(self.n))
        for r in range(len(orbits)):
            rep = orbits.rep(r)
            column = self._column(rep, budget)
            for output in column:
                moved_output(self.mechanism, self.symmetry, identity, output, rep)
                index.setdefault(output, len(index))
            check_stabilisers(self.mechanism, self.symmetry, rep, column)
            self.columns.append(column)
            if len(index) * len(orbits) > MAX_TABLE_ENTRIES:
                self._columns.clear()
                return False
        self._columns.clear()
        table = np.zeros((len(index), len(orbits)))
        for r, column in enumerate(self.columns):
            for output, p in column.items():
                value = float(p)
                if value < TINY:
                    return False
                table[index[output], r] = value
        self.outputs, self.table = list(index), table
        return True

    # --- the float screen ---------------------------------------------------------------------

    def _gatherer(self) -> Gather:
        """(Pr[· | x], Pr[· | y] per row of ys) in float64, outputs in table order."""
        assert self.orbits is not None
        orbits, table = self.orbits, self.table
        if self.symmetry.kind == "index":
            # Pr[i | y] = Pr[j | rep(y)] for any j holding the answer y_i in rep(y):
            # by the first such j, W[s, v].
            first = np.stack(
                [np.argmax(orbits.reps == v, axis=1) for v in range(self.top + 1)], axis=1
            )
            w = table[first, np.arange(len(orbits))[:, None]]

            def by_index(r: int, ys: Ints) -> tuple[Floats, Floats]:
                s = orbits.index(ys)
                return table[:, r], w[s[:, None], ys]

            return by_index
        if self.symmetry.kind == "same":

            def same(r: int, ys: Ints) -> tuple[Floats, Floats]:
                return table[:, r], table[:, orbits.index(ys)].T

            return same
        place = {output: k for k, output in enumerate(self.outputs)}

        def moved(r: int, ys: Ints) -> tuple[Floats, Floats]:
            s = orbits.index(ys)
            out = np.zeros((len(ys), len(self.outputs)))
            for row, y in enumerate(ys.tolist()):
                perm = sorting_permutation(y)
                for k, output in enumerate(self.outputs):
                    target = place.get(moved_output(self.mechanism, self.symmetry, perm, output, y))
                    if target is not None:
                        out[row, k] = table[target, s[row]]
            return table[:, r], out

        return moved

    def _pair_orbits(self, r: int) -> Iterator[Ints]:
        assert self.orbits is not None
        return orbit_space.pair_orbits(self.orbits.rep(r), self.top, self.relation)

    def run(self, budget: Budget) -> Iterator[Best]:
        """Yield each exact improvement; the last one is ε* with its witness."""
        assert self.orbits is not None
        gather = self._gatherer()
        tops = np.full(len(self.orbits), -1.0)
        for r in range(len(self.orbits)):
            for ys in self._pair_orbits(r):
                budget.check_time()
                px, py = gather(r, ys)
                positive = np.broadcast_to(px > 0, py.shape)
                infinite = positive & (py == 0)
                if infinite.any():
                    rows = np.unique(np.nonzero(infinite)[0])
                    best = self._first_infinite(r, ys[rows[0]], budget)
                    self._confirm(best, budget)
                    yield best
                    return
                ratio = np.zeros(py.shape)
                np.divide(np.broadcast_to(px, py.shape), py, out=ratio, where=positive)
                tops[r] = max(tops[r], float(ratio.max(initial=0.0)))
        if not (tops > 0).any():
            return
        threshold = float(tops.max()) * (1 - MARGIN)
        found: Best | None = None
        for best in self._recheck(gather, tops, threshold, budget):
            found = best
            yield best
        if found is not None:
            self._confirm(found, budget)

    def _candidates(
        self, gather: Gather, tops: Floats, threshold: float, budget: Budget
    ) -> Iterator[tuple[int, tuple[int, ...], list[int]]]:
        """(orbit, neighbour representative, output indices) above the threshold, in order."""
        for r in np.nonzero(tops >= threshold)[0].tolist():
            for ys in self._pair_orbits(r):
                budget.check_time()
                px, py = gather(r, ys)
                ratio = np.zeros(py.shape)
                positive = np.broadcast_to(px > 0, py.shape)
                np.divide(np.broadcast_to(px, py.shape), py, out=ratio, where=positive)
                rows, ks = np.nonzero(ratio >= threshold)
                for row in np.unique(rows).tolist():
                    y = tuple(int(v) for v in ys[row])
                    yield r, y, ks[rows == row].tolist()

    def _right(self, y: tuple[int, ...], output: Hashable) -> Fraction:
        """Pr[output | y] exactly, from the column of y's representative."""
        assert self.orbits is not None
        perm = sorting_permutation(y)
        s = int(self.orbits.index(np.array([y], dtype=np.int64))[0])
        return self.columns[s].get(
            moved_output(self.mechanism, self.symmetry, perm, output, y), Fraction(0)
        )

    def _recheck(
        self, gather: Gather, tops: Floats, threshold: float, budget: Budget
    ) -> Iterator[Best]:
        """Exact ratios of every candidate in pair-search order; strict improvements win."""
        assert self.orbits is not None
        top_num, top_den = 0, 1
        for r, y, ks in self._candidates(gather, tops, threshold, budget):
            left = self.columns[r]
            place = {output: i for i, output in enumerate(left)}
            chosen = sorted(
                (self.outputs[k] for k in ks if self.outputs[k] in place), key=place.__getitem__
            )
            for output in chosen:
                self.candidates += 1
                p, q = left[output], self._right(y, output)
                num, den = p.numerator * q.denominator, p.denominator * q.numerator
                if num * top_den > top_num * den:  # den = 0 is an infinite ratio
                    top_num, top_den = num, den
                    yield Best(loss_of(p, q), self.orbits.rep(r), y, output, p, q)

    def _first_infinite(self, r: int, y_row: Ints, budget: Budget) -> Best:
        """The first output of x's column that y cannot produce, exactly."""
        assert self.orbits is not None
        y = tuple(int(v) for v in y_row)
        self.candidates += 1
        for output, p in self.columns[r].items():
            if not self._right(y, output):
                return Best(Loss(None), self.orbits.rep(r), y, output, p, Fraction(0))
        fault(
            self.mechanism, f"the orbit table has a zero on input {y!r} where its column has none"
        )

    def _confirm(self, best: Best, budget: Budget) -> None:
        """The witness once more from the mechanism's own runs on both inputs."""
        show = self.mechanism.output_name
        for x, claimed in ((best.left, best.p), (best.right, best.q)):
            budget.check_time()
            own = self.mechanism.output_distribution(x, max_states=budget.max_states)
            truth = own.prob(best.output)
            if truth != claimed:
                assert isinstance(x, tuple)
                rep = tuple(sorted(x))
                fault(
                    self.mechanism,
                    f"its declared symmetry ({self.symmetry.describe()}) or its grid_column "
                    f"fails on input {x!r}: Pr[{show(best.output)} | {x!r}] = {truth}, but its "
                    f"representative {rep!r} gives {claimed}",
                )
