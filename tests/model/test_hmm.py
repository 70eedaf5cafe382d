"""model/hmm.py: sparse rows read like the dense tuples they stand for, and an HMM built
from them computes what the dense one does."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from faier.errors import ModelError
from faier.model.hmm import HMM, SparseRow, entries

F = Fraction


def test_a_sparse_row_reads_as_its_dense_tuple() -> None:
    dense = (F(0), F(1, 3), F(0), F(2, 3))
    row = SparseRow(4, {1: F(1, 3), 3: F(2, 3), 2: F(0)})
    assert len(row) == 4 and tuple(row) == dense and row == dense and dense == row
    assert row[1] == F(1, 3) and row[0] == 0 and row[-1] == F(2, 3) and row[1:3] == dense[1:3]
    assert list(row.items()) == [(1, F(1, 3)), (3, F(2, 3))]  # zeros are not kept
    assert list(entries(row)) == list(entries(dense)) == [(1, F(1, 3)), (3, F(2, 3))]
    assert row == SparseRow(4, {3: F(2, 3), 1: F(1, 3)}) and hash(row) == hash(
        SparseRow(4, {3: F(2, 3), 1: F(1, 3)})
    )
    assert row != SparseRow(5, {1: F(1, 3), 3: F(2, 3)}) and row != dense[:3]
    with pytest.raises(IndexError):
        row[4]
    with pytest.raises(ModelError, match="index outside"):
        SparseRow(2, {2: F(1)})


def random_rows(rng: random.Random, n: int, width: int) -> list[tuple[Fraction, ...]]:
    rows = []
    for _ in range(n):
        weights = [rng.choice([0, 0, 1, 2, 3]) for _ in range(width)]
        weights[rng.randrange(width)] += 1
        total = sum(weights)
        rows.append(tuple(F(w, total) for w in weights))
    return rows


@given(st.integers(0, 10**6), st.integers(1, 6))
def test_an_hmm_with_sparse_rows_computes_what_the_dense_one_does(seed: int, n: int) -> None:
    rng = random.Random(seed)
    states = tuple(f"s{i}" for i in range(n))
    transition = random_rows(rng, n, n)
    emission = tuple(random_rows(rng, n, 2))
    dense = HMM(states, ("a", "b"), tuple(transition), emission)
    sparse = HMM(
        states,
        ("a", "b"),
        tuple(SparseRow(n, dict(entries(row))) for row in transition),
        emission,
    )
    assert sparse == dense
    start = dense.point_mass(states[rng.randrange(n)])
    for word in (["a"], ["a", "b"], ["b", "b", "a"]):
        assert sparse.probability(start, word) == dense.probability(start, word)


def test_a_sparse_row_that_is_no_distribution_is_refused() -> None:
    with pytest.raises(ModelError, match="not a probability distribution"):
        HMM(("s", "t"), ("a",), (SparseRow(2, {0: F(1, 2)}), (F(0), F(1))), ((F(1),), (F(1),)))
