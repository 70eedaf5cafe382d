"""The argument generator: least noise, most diverging branches (z3), grid fallback."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from faier.engines import statistical
from faier.engines.statistical.arguments import choose, choose_start, grid_choices, new_context
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.sampled import Argument, Sampled, blackbox


def args(name: str, left: list[float], right: list[float]) -> dict[str, Any]:
    (choice,) = choose(SUITE[name], left, right, 0.7, 1)
    assert choice.method.startswith("z3 MaxSMT")
    return dict(choice.args)


def test_statdps_example_puts_the_threshold_between_the_answers() -> None:
    """StatDP §4.4.2: SVT on [1,1,1,1,1] vs [2,2,2,2,2]: N = 1 (least noise), T between 1 and 2."""
    found = args("svt-laplace", [1.0] * 5, [2.0] * 5)
    assert found == {"N": 1, "T": 1.5}


def test_a_cutoff_that_does_not_scale_the_noise_still_takes_its_least_value() -> None:
    assert args("isvt3-laplace", [1.0] * 10, [0.0] + [2.0] * 9)["N"] == 1


def test_diverging_branches_are_maximised() -> None:
    """iSVT 1 on one above rest below: T < 1 makes all but the first comparison differ."""
    (choice,) = choose(SUITE["isvt1-laplace"], [1.0] * 5, [2.0, 0.0, 0.0, 0.0, 0.0], 0.7, 1)
    assert dict(choice.args) == {"T": 0.5}
    assert choice.method == "z3 MaxSMT: 4 of 5 branch pairs diverge"


def test_the_answer_does_not_depend_on_what_ran_before() -> None:
    first = choose(SUITE["isvt2-laplace"], [1.0] * 5, [0.0, 0.0, 0.0, 2.0, 2.0], 0.7, 1)
    for name in ("svt-laplace", "isvt4-laplace"):
        choose(SUITE[name], [1.0] * 10, [2.0] * 10, 1.5, 1)
    again = choose(SUITE["isvt2-laplace"], [1.0] * 5, [0.0, 0.0, 0.0, 2.0, 2.0], 0.7, 1)
    assert first == again


def test_vectorised_black_boxes_fall_back_to_a_grid() -> None:
    mechanism = Sampled(
        "opaque",
        vectorised=lambda q, e, n, rng, T: np.zeros(n),
        arguments=(Argument("T", "branch"),),
    )
    choices = choose(mechanism, [1.0, 1.0], [2.0, 2.0], 1.0, 1)
    assert [dict(c.args)["T"] for c in choices] == [0.0, 0.75, 1.5, 2.25, 3.0]
    assert all(c.method == "grid fallback (no scalar definition)" for c in choices)


def test_code_concolic_execution_cannot_follow_falls_back() -> None:
    @blackbox(arguments=[Argument("T", "branch")])
    def indexes(queries: list[float], epsilon: float, rng: Any, T: Any) -> int:
        return [0, 1, 2, 3][T]

    choices = choose(indexes, [1.0], [2.0], 1.0, 1)
    assert len(choices) == 5 and "grid fallback" in choices[0].method
    assert "index" in choices[0].method


def test_grid_candidates_are_capped() -> None:
    mechanism = Sampled(
        "two",
        vectorised=abs,
        arguments=(Argument("A", "branch"), Argument("B", "noise", 1, 9, integer=True)),
    )
    assert len(grid_choices(mechanism, [1.0], [2.0], 1, "test")) == 9


def test_above_threshold_takes_the_threshold_that_separates_the_streams() -> None:
    choice = choose_start(above_threshold(), (1, 1, 1), (2, 2, 2))
    assert choice.args == (("start", "threshold 2"),)
    assert choice.method == "exhaustive over 3 starts: 3 steps diverge"


def test_without_z3_the_grid_takes_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "faier.engines.statistical.maxsmt", None)
    monkeypatch.delattr(statistical, "maxsmt", raising=False)
    choices = choose(SUITE["svt-laplace"], [1.0] * 5, [2.0] * 5, 0.7, 1)
    assert len(choices) == 9
    assert choices[0].method == "grid fallback (z3 is not installed: pip install 'faier[smt]')"
    assert new_context() is None
