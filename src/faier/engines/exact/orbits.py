"""Orbits of the grid {0..m}^n and of its neighbour pairs under permutations of the positions.

The symmetric group S_n acts on input vectors by moving answers between
positions; the every-query and one-query ±Δ neighbour relations are
invariant under it (|x_i − y_i| is permuted along).  So:

* an **input orbit** is a multiset of n answers; its representative is the
  sorted vector, the first member in grid order.  There are C(n+m, m).
* a **pair orbit** is an orbit of neighbour pairs (x, y) under simultaneous
  permutation.  With x sorted, the permutations that fix x (those inside
  each block of equal answers) still act on y, so the orbit is x together
  with, for each block of answer a, the multiset of answers y takes there.
  Its representative y is ascending inside each block: the first member in
  the neighbour order of :func:`faier.privacy.neighbours.neighbour_pairs`
  (every-query: lexicographic in y; one-query: by position, then step).

Representatives are produced in search order, a block of rows at a time,
so memory stays bounded by ``ROWS`` vectors whatever the number of orbits.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from faier.privacy.neighbours import EveryQuery, OneQuery

Ints = npt.NDArray[np.int64]
Relation = EveryQuery | OneQuery

ROWS = 1 << 14
"""Neighbour representatives generated at a time."""


@dataclass(frozen=True)
class InputOrbits:
    """The input orbits of {0..top}^n: sorted representatives in grid order."""

    n: int
    top: int
    reps: Ints
    """(orbits, n): row r is the r-th multiset as a sorted vector, rows in grid order."""
    counts: Ints
    """(orbits, top + 1): how often each answer occurs in row r."""
    codes: Ints
    """Sorted codes Σ_a counts[a]·(n+1)^a of the rows ..."""
    positions: Ints
    """... and the row each sorted code belongs to."""

    @classmethod
    def of(cls, n: int, top: int) -> InputOrbits:
        reps = np.array(
            list(itertools.combinations_with_replacement(range(top + 1), n)), dtype=np.int64
        ).reshape(-1, n)
        counts = np.stack([(reps == a).sum(axis=1) for a in range(top + 1)], axis=1)
        codes = counts @ ((n + 1) ** np.arange(top + 1, dtype=np.int64))
        order = np.argsort(codes)
        return cls(n, top, reps, counts, codes[order], order)

    @staticmethod
    def count(n: int, top: int) -> int:
        """How many orbits {0..top}^n has: C(n + top, top)."""
        return math.comb(n + top, top)

    @staticmethod
    def fits(n: int, top: int) -> bool:
        """Whether the count codes fit int64."""
        return (top + 1) * math.log2(n + 1) < 62

    def __len__(self) -> int:
        return len(self.reps)

    def rep(self, r: int) -> tuple[int, ...]:
        return tuple(int(v) for v in self.reps[r])

    def index(self, ys: Ints) -> Ints:
        """The orbit of each row of ``ys`` (any order inside a row)."""
        weights = (self.n + 1) ** np.arange(self.top + 1, dtype=np.int64)
        codes = np.zeros(len(ys), dtype=np.int64)
        for a in range(self.top + 1):
            codes += (ys == a).sum(axis=1) * weights[a]
        return self.positions[np.searchsorted(self.codes, codes)]

    def size(self, r: int) -> int:
        """How many inputs orbit r holds: the multinomial n! / Π counts!."""
        size = math.factorial(self.n)
        for c in self.counts[r].tolist():
            size //= math.factorial(c)
        return size


@functools.lru_cache(maxsize=512)
def _block_choices(values: tuple[int, ...], size: int) -> Ints:
    """Every ascending vector of ``size`` entries from ``values``, in lexicographic order."""
    rows = list(itertools.combinations_with_replacement(values, size))
    return np.array(rows, dtype=np.int64).reshape(len(rows), size)


def _blocks(rep: tuple[int, ...], top: int, delta: int) -> list[tuple[int, int, tuple[int, ...]]]:
    """(start, length, answers y may take) per block of equal answers of a sorted ``rep``."""
    blocks = []
    start = 0
    for a, group in itertools.groupby(rep):
        length = len(list(group))
        values = tuple(range(max(0, a - delta), min(top, a + delta) + 1))
        blocks.append((start, length, values))
        start += length
    return blocks


def pair_count(rep: tuple[int, ...], top: int, relation: Relation) -> int:
    """How many pair orbits have x = ``rep`` (sorted)."""
    blocks = _blocks(rep, top, relation.delta)
    if isinstance(relation, OneQuery):
        return sum(len(values) - 1 for _, _, values in blocks)
    return math.prod(math.comb(length + len(v) - 1, length) for _, length, v in blocks) - 1


def pair_orbits(rep: tuple[int, ...], top: int, relation: Relation) -> Iterator[Ints]:
    """The representatives y of the pair orbits with x = ``rep``, in neighbour order.

    Yields (rows, n) arrays of at most ``ROWS`` rows; y = x itself is left out.
    """
    blocks = _blocks(rep, top, relation.delta)
    x = np.array(rep, dtype=np.int64)
    if isinstance(relation, OneQuery):
        rows = []
        for start, _, values in blocks:
            for v in values:
                if v != rep[start]:
                    y = x.copy()
                    y[start] = v
                    rows.append(y)
        if rows:
            yield np.stack(rows)
        return
    choices = [_block_choices(values, length) for _, length, values in blocks]
    radix = [len(c) for c in choices]
    total = math.prod(radix)
    identity = 0  # the product index of y = x: every block keeps its own answer
    for block, (start, length, values) in enumerate(blocks):
        constant = _constant_choice(values.index(rep[start]), length, len(values))
        identity = identity * radix[block] + constant
    for lo in range(0, total, ROWS):
        index = np.arange(lo, min(total, lo + ROWS), dtype=np.int64)
        index = index[index != identity]
        if not len(index):
            continue
        ys = np.empty((len(index), len(rep)), dtype=np.int64)
        rest = index
        for block in reversed(range(len(blocks))):
            start, length, _ = blocks[block]
            ys[:, start : start + length] = choices[block][rest % radix[block]]
            rest = rest // radix[block]
        yield ys


def _constant_choice(k: int, length: int, size: int) -> int:
    """The position of (v_k, …, v_k) among the ascending choices of ``length`` of ``size`` values.

    Lexicographic order lists first the choices that start with a smaller value
    v_j (j < k): the other length − 1 entries then come from the size − j values
    from v_j on, C(length − 1 + size − j − 1, size − j − 1) ways; the constant
    choice is the first of those that start with v_k.
    """
    return sum(math.comb(length - 1 + size - j - 1, size - j - 1) for j in range(k))
