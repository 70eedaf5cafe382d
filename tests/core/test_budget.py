"""Hard deadlines nest: an inner one never cancels the deadline around it."""

from __future__ import annotations

import time

import pytest

from faier.core.budget import Budget, counted_from, hard_deadline
from faier.errors import BudgetExceeded


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_an_inner_deadline_that_ends_in_time_leaves_the_outer_one_armed() -> None:
    started = time.perf_counter()
    with pytest.raises(BudgetExceeded, match=r"timeout of 0\.2 s"), hard_deadline(0.2):
        with hard_deadline(5.0):
            pass
        _spin(10.0)
    assert time.perf_counter() - started < 5.0


def test_an_inner_deadline_longer_than_what_is_left_defers_to_the_outer_one() -> None:
    started = time.perf_counter()
    with (
        pytest.raises(BudgetExceeded, match=r"timeout of 0\.2 s"),
        hard_deadline(0.2),
        hard_deadline(30.0),
    ):
        _spin(10.0)
    assert time.perf_counter() - started < 5.0


def test_a_shorter_inner_deadline_fires_first_and_the_outer_one_still_fires() -> None:
    with pytest.raises(BudgetExceeded, match=r"timeout of 2 s"), hard_deadline(2.0):
        with pytest.raises(BudgetExceeded, match=r"timeout of 0\.1 s"), hard_deadline(0.1):
            _spin(10.0)
        _spin(30.0)


def test_budgets_made_inside_a_run_count_from_its_start() -> None:
    """The API loads a target, then runs an engine: the engine's timeout counts loading."""
    loaded_for = 5.0
    with counted_from(time.perf_counter() - loaded_for):
        inside = Budget(timeout=1)
        assert inside.elapsed() >= loaded_for
        with pytest.raises(BudgetExceeded, match=r"timeout of 1 s reached"):
            inside.check_time()
    Budget(timeout=1).check_time()  # outside: a fresh clock
