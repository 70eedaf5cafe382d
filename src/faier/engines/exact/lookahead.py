"""Exact futures of the last steps: a pruning bound that is the true best, not a relaxation.

The classic bound max_s a(s)/b(s) supposes that a continuation can put all
its weight on the one state of largest ratio; on random sparse HMMs no
continuation of a few steps comes near that (sparse random family, 200
states: prefixes of length 5 have classic bounds of 1.28–9.3 where the best
continuation of the remaining five steps reaches 0.87–1.18), so nothing was
pruned before the last levels and the frontier grew by the alphabet's size
per step.

With j steps left the best loss is computable exactly in one product: every
word w of length j has the columns f^L_w = L_w·1 and f^R_w = R_w·1 (the
probability of emitting w from each state, per side), and the prefix·w
loss is (a·f^L_w)/(b·f^R_w).  So for j ≤ J (the lookahead depth: all words
up to J make at most :data:`MAX_WORDS` columns; none on large dense systems,
see :func:`lookahead_depth`) the bound is the maximum of
those ratios, exact; for j > J a continuation u·v with |u| = J has loss at
most that of u times the gain bound κ^{j−J} of v (:mod:`pruning`), which is
smaller than |a|/|b|·κ^j whenever the first J steps cannot gain κ^J.  Every
continuation the search can take is a word here (halted runs and zero-mass
words only drop out), so the bound is sound; a word of zero probability on
the π side adds nothing.

The columns are kept two ways: float64 (the frontier's screen, built from
the same float matrices, so their error is that of J more steps) and exact,
built only when a decision near an incumbent needs them.  Such decisions go
straight to exact integers, not to certified balls: most are exact ties (a
prefix on the witness's path has the incumbent as its bound), which balls
cannot settle, and converting the columns to balls cost more than the exact
dot products (dense random HMM, 200 states: 1.5 s against 0.3 s).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from faier.engines.exact.integer_vectors import IntegerVector
from faier.engines.exact.sequence_mode import Rows, SequenceSystem, _flint, _integer_rows
from faier.results import Loss

if TYPE_CHECKING:
    from faier.engines.exact.float_frontier import FloatMatrix

MAX_WORDS = 128
"""Columns over all lengths 1..J per side: 3 symbols give J = 4, 4 symbols J = 3."""

DENSE_FROM = 64
"""Systems this large whose matrices are a quarter non-zero get no lookahead."""

Floats = NDArray[np.float64]


def lookahead_depth(system: SequenceSystem, horizon: int) -> int:
    """The largest J ≤ horizon whose words of length 1..J number at most :data:`MAX_WORDS`.

    0 (no lookahead) where even J = 2 is too many: one step ahead is what the
    next level computes anyway; and 0 on dense systems (from
    :data:`DENSE_FROM` states, a quarter of a matrix non-zero): they mix in a
    step, so the words that share a first symbol have losses within 10⁻¹⁰ of
    one another, every one of them goes to an exact decision near the
    incumbent, and at thousands of bits those cost more than the few prefixes
    saved (random dense HMM, 500 states, horizon 10: 8 s of search without
    the lookahead, 32 s with it, 197 against 185 prefixes).
    """
    n = system.size
    if n >= DENSE_FROM and any(
        4 * sum(len(row) for row in rows) >= n * n for rows in (*system.left, *system.right)
    ):
        return 0
    symbols, words, depth = len(system.symbols), 0, 0
    while depth < horizon and words + symbols ** (depth + 1) <= MAX_WORDS:
        depth += 1
        words += symbols**depth
    return depth if depth >= 2 else 0


@dataclass(frozen=True)
class Column:
    """An exact column ``numerators[s] / den`` (dense over the states)."""

    numerators: tuple[int, ...]
    den: int


def _steps(rows: Rows, columns: list[Column]) -> list[Column]:
    """rows·f for every column f, exactly (unreduced): scale[s]·Σ_t N[s][t]·f[t] over den·f.den.

    A dense matrix multiplies all columns in one FLINT product (one per column
    took 0.27 s of a 200-state search).
    """
    matrix = _integer_rows(rows)
    if matrix.dense is not None:
        flint = _flint()
        rows_of_table = zip(*(f.numerators for f in columns), strict=True)
        table = flint.fmpz_mat([list(row) for row in rows_of_table])
        product = matrix.dense * table
        every = [int(x) for x in product.entries()]
        count = len(columns)
        sums = [every[i::count] for i in range(count)]
    else:
        sums = [[sum(p * f.numerators[t] for t, p in row) for row in matrix.rows] for f in columns]
    return [
        Column(tuple(k * x for k, x in zip(matrix.scale, column, strict=True)), matrix.den * f.den)
        for column, f in zip(sums, columns, strict=True)
    ]


def _dot(vector: IntegerVector, column: Column) -> int:
    f = column.numerators
    return sum(x * f[s] for s, x in vector.entries())


@dataclass
class Lookahead:
    """The future columns of one system for every word of length 1..depth."""

    system: SequenceSystem
    depth: int
    _exact: dict[tuple[int, int, int], Column] = field(default_factory=dict)
    _floats: dict[int, tuple[Floats, Floats]] = field(default_factory=dict)

    @property
    def symmetric(self) -> bool:
        return all(
            left is right for left, right in zip(self.system.left, self.system.right, strict=True)
        )

    def words(self, length: int) -> int:
        """How many words of this length: the columns are indexed 0..words − 1."""
        return int(len(self.system.symbols) ** length)

    def column(self, side: int, length: int, index: int) -> Column:
        """The exact column of word ``index`` (first symbol index // words(length − 1),
        then the word index % words(length − 1)) on the π (0) or τ (1) side, memoised."""
        if side == 1 and self.symmetric:
            side = 0
        key = (side, length, index)
        if key not in self._exact:
            if length == 0:
                self._exact[key] = Column((1,) * self.system.size, 1)
            else:
                symbol, rest = divmod(index, self.words(length - 1))
                rows = (self.system.left, self.system.right)[side][symbol]
                self._exact[key] = _steps(rows, [self.column(side, length - 1, rest)])[0]
        return self._exact[key]

    def float_columns(
        self, length: int, left: tuple[FloatMatrix, ...], right: tuple[FloatMatrix, ...]
    ) -> tuple[Floats, Floats]:
        """The same columns in float64 (n × words), from the frontier's float matrices."""
        if length not in self._floats:
            if length == 0:
                ones = np.ones((self.system.size, 1))
                self._floats[0] = (ones, ones)
            else:
                fl, fr = self.float_columns(length - 1, left, right)
                new_left = np.column_stack([np.asarray(m @ fl) for m in left])
                new_right = (
                    new_left
                    if self.symmetric
                    else np.column_stack([np.asarray(m @ fr) for m in right])
                )
                self._floats[length] = (new_left, new_right)
        return self._floats[length]

    def exact_bound(
        self, a: IntegerVector, b: IntegerVector, length: int, words: Iterable[int] | None = None
    ) -> Loss:
        """max over the words w of this length of (a·f^L_w)/(b·f^R_w) exactly (0: none possible).

        ``words`` restricts the maximum to those word indices: the float
        frontier passes the few whose float ratio could reach the incumbent,
        since the others cannot change a decision (dense random HMM, 200
        states: all 120 columns exactly cost 0.5 s, a few cost milliseconds).
        """
        best = Loss(Fraction(0))
        for index in range(self.words(length)) if words is None else words:
            left = self.column(0, length, index)
            top = _dot(a, left)
            if top == 0:
                continue
            right = self.column(1, length, index)
            bottom = _dot(b, right)
            if bottom == 0:
                return Loss(None)
            candidate = Loss(Fraction(top * b.den * right.den, bottom * a.den * left.den))
            if candidate.exceeds(best):
                best = candidate
        return best


def smaller(x: Loss, y: Loss) -> Loss:
    """min(x, y) of two bounds."""
    return y if x.exceeds(y) else x


def combined(lookahead: Loss, gain: Loss | None) -> Loss:
    """A J-step lookahead bound times the gain bound of the steps after it (∞ if either is)."""
    if gain is None or gain.ratio is None or lookahead.ratio is None:
        return Loss(None)
    return Loss(lookahead.ratio * gain.ratio)
