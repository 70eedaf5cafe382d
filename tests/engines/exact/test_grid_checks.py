"""Grid search checks the hand-written grid tables against the mechanism's own semantics.

A wrong entry in a column that is never rechecked could hide the true
maximiser, so before the float screen uses a table, every column of a small
grid and a seeded sample of a large one are compared with the exact output
distribution (and ``grid_column`` with it on the same columns).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.engines.exact.grid_search import (
    FULL_CHECK_INPUTS,
    SAMPLED_COLUMNS,
    GridSearch,
)
from faier.errors import InternalError, MechanismError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.library.noisy_max import NoisyMax
from faier.mechanisms.library.noisy_max import noisy_max as library_noisy_max
from faier.mechanisms.program import Program
from faier.model.distribution import Distribution
from faier.privacy.neighbours import EveryQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Loss

F = Fraction


def noisy_max(n: int, ties: str) -> NoisyMax:
    """Noisy Max without its query symmetry, so that the grid search (and its table) runs.

    With the symmetry declared the search goes over orbits, which never reads
    ``grid_table`` and calls ``grid_column`` on sorted inputs only
    (test_orbit_search.py checks that path).
    """
    return replace(library_noisy_max(n, ties), symmetry=None)


Table = np.ndarray[Any, np.dtype[np.float64]]
ROWS = ((F(1, 2), F(1, 2)), (F(1, 3), F(2, 3)), (F(1, 6), F(5, 6)), (F(1, 9), F(8, 9)))
"""Four inputs on a line: the largest loss is 2, output 0 on input 1 against input 2."""


@dataclass(frozen=True)
class Tabled(Program[int]):
    """A user's mechanism with its own grid table, wrong in column ``wrong`` if given."""

    rows: tuple[tuple[Fraction, ...], ...] = ()
    wrong: int | None = None

    def grid_outputs(self) -> tuple[int, ...]:
        return tuple(range(len(self.rows[0])))

    def grid_table(self) -> Table:
        table = np.array([[float(p) for p in row] for row in self.rows]).T
        if self.wrong is not None:
            table[:, self.wrong] = (1 / 7, 6 / 7)  # a distribution, but not this input's
        return table


def tabled(wrong: int | None = None) -> Tabled:
    dists = {x: Distribution.of(dict(enumerate(row))) for x, row in enumerate(ROWS)}

    def body(x: int, ctx: Context) -> int:
        return ctx.draw(dists[x])

    inputs = InputSpace(tuple(range(len(ROWS))), "four answers")
    return Tabled("tabled", body, inputs, rows=ROWS, wrong=wrong)


def unchecked(mechanism: Any) -> GridSearch:
    """The search with the table accepted as it is (what the screen saw before the check)."""
    search = GridSearch.prepare(mechanism, EveryQuery(1))
    assert search is not None
    outputs = list(mechanism.grid_outputs())
    table = mechanism.grid_table()
    assert search._accept(outputs, table.reshape(len(outputs), *search.grid.shape))
    return search


def test_a_wrong_column_that_is_never_rechecked_is_caught() -> None:
    """Column 3 is wrong, yet the screen never rechecks it: only the table check sees it."""
    search = unchecked(tabled(wrong=3))
    best = list(search.run(Budget()))[-1]
    assert (best.left, best.right, best.loss) == (1, 2, Loss(F(2))) and 3 not in search.exact
    with pytest.raises(MechanismError, match=r"'tabled'.*input 3") as caught:
        epsilon(Problem("lie", tabled(wrong=3), DifferentialPrivacy()))
    assert caught.value.fix is not None and "grid_table" in caught.value.fix


def test_a_right_table_is_checked_on_every_column_of_a_small_grid() -> None:
    result = epsilon(Problem("ok", tabled(), DifferentialPrivacy()))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 2
    assert "checked exactly on all 4 columns" in result.method


def _noisy_max_with(monkeypatch: pytest.MonkeyPatch, wrong: list[int]) -> None:
    """Make NoisyMax.grid_table move 1% of output 1's mass to output 2 in the ``wrong`` columns."""
    right = NoisyMax.grid_table

    def table(self: NoisyMax) -> Table | None:
        full = right(self)
        assert full is not None
        flat = full.reshape(full.shape[0], -1)
        moved = flat[0, wrong] * 0.01
        flat[0, wrong] -= moved
        flat[1, wrong] += moved
        return full

    monkeypatch.setattr(NoisyMax, "grid_table", table)


def test_a_library_table_wrong_off_the_maximiser_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Noisy Max n = 3 (27 inputs, all checked): one wrong column that the screen skips."""
    mechanism = noisy_max(3, "uniform")
    problem = Problem("nm", mechanism, DifferentialPrivacy())
    witness = epsilon(problem).witness
    assert witness is not None
    wrong = 5  # input (0, 1, 2)
    assert [0, 1, 2] not in (witness.left_value, witness.right_value)
    _noisy_max_with(monkeypatch, [wrong])
    search = unchecked(noisy_max(3, "uniform"))
    list(search.run(Budget()))
    assert wrong not in search.exact  # the screen alone would not have looked at it
    with pytest.raises(InternalError, match=r"grid table of 'discrete noisy max.*\(0, 1, 2\)"):
        epsilon(Problem("nm", noisy_max(3, "uniform"), DifferentialPrivacy()))


def test_the_seeded_sample_catches_a_table_wrong_in_many_columns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Noisy Max n = 5 (243 inputs): wrong on every third input, the sample of 12 sees it."""
    size = 3**5
    assert size > FULL_CHECK_INPUTS
    search = GridSearch.prepare(noisy_max(5, "uniform"), EveryQuery(1))
    assert search is not None
    sample = search.sample()
    assert len(sample) == SAMPLED_COLUMNS and sample == search.sample()  # seeded
    wrong = [x for x in range(size) if x % 3 == 1 and len(set(np.unravel_index(x, (3,) * 5))) > 1]
    assert set(wrong) & set(sample)
    _noisy_max_with(monkeypatch, wrong)
    with pytest.raises(InternalError, match="grid table of 'discrete noisy max"):
        epsilon(Problem("nm", noisy_max(5, "uniform"), DifferentialPrivacy()))


def test_a_wrong_exact_column_is_caught_on_the_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    right = NoisyMax.grid_column

    def column(self: NoisyMax, x: tuple[int, ...]) -> dict[int, Fraction]:
        out = right(self, x)
        if x[0] == 2:
            out[1], out[2] = out[2], out[1]
        return out

    monkeypatch.setattr(NoisyMax, "grid_column", column)
    with pytest.raises(InternalError, match="grid_column gives"):
        epsilon(Problem("nm", noisy_max(5, "uniform"), DifferentialPrivacy()))


def test_the_method_says_what_the_verdict_rests_on() -> None:
    small = epsilon(Problem("nm", noisy_max(3, "uniform"), DifferentialPrivacy()))
    assert "checked exactly on all 27 columns" in small.method
    large = epsilon(Problem("nm", noisy_max(5, "uniform"), DifferentialPrivacy()))
    assert f"checked exactly on {SAMPLED_COLUMNS} of 243 columns (seeded)" in large.method


def test_the_sample_is_sorted_distinct_grid_inputs() -> None:
    search = GridSearch.prepare(noisy_max(6, "first"), EveryQuery(1))
    assert search is not None
    sample = search.sample()
    assert sample == sorted(set(sample)) and sample[0] >= 0 and sample[-1] < 3**6


@dataclass(frozen=True)
class Misshapen(Tabled):
    """A user's table of the wrong shape: the user's mistake (exit 2), not faier's."""

    def grid_table(self) -> Table:
        return np.ones((1, 1))


def test_a_user_table_of_the_wrong_shape_is_bad_input() -> None:
    base = tabled()
    bad = Misshapen(base.name, base.body, base.inputs, rows=ROWS)
    with pytest.raises(MechanismError, match=r"its grid table has shape \(1, 1\)") as caught:
        epsilon(Problem("shape", bad, DifferentialPrivacy()))
    assert caught.value.where == "mechanism 'tabled'"
