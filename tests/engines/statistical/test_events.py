"""Event search spaces: typed from all samples, counted in blocks that agree with each event."""

from __future__ import annotations

import math

import numpy as np
import pytest

from faier.engines.statistical.events import (
    COUNT,
    HAMMING,
    MAX,
    VALUE,
    Condition,
    CrossBlock,
    DiscreteBlock,
    Event,
    Feature,
    Features,
    IntervalBlock,
    Reference,
    infer_space,
    nice_grid,
)
from faier.errors import MechanismError
from faier.mechanisms.sampled import ABSENT, NUMBER, Outputs


def mixed_lists(rng: np.random.Generator, n: int, reveal: bool) -> Outputs:
    """iSVT 4-like outputs: ``False`` until a hit, then the hit's value (or all ``False``)."""
    stop = rng.integers(1, 6, n)
    codes = np.where(np.arange(5) < stop[:, None], 0, ABSENT).astype(np.int16)
    numbers = np.full((n, 5), np.nan)
    if reveal:
        hit = stop < 5
        codes[hit, stop[hit] - 1] = NUMBER
        numbers[hit, stop[hit] - 1] = rng.normal(size=hit.sum())
    return Outputs(numbers, codes, (False,), True)


def kinds(rng: np.random.Generator) -> dict[str, list[Outputs]]:
    n = 2000
    return {
        "index": [Outputs.from_array(rng.integers(1, 6, n)) for _ in range(2)],
        "value": [Outputs.from_array(rng.laplace(size=n)) for _ in range(2)],
        "vector": [Outputs.from_array(rng.laplace(size=(n, 4))) for _ in range(2)],
        "bools": [Outputs.from_array(rng.random((n, 6)) < 0.3) for _ in range(2)],
        "mixed": [mixed_lists(rng, n, reveal=False), mixed_lists(rng, n, reveal=True)],
        "strings": [Outputs.from_values(list(rng.choice(["⊥", "⊤", "2~"], n))) for _ in range(2)],
    }


@pytest.mark.parametrize("kind", ["index", "value", "vector", "bools", "mixed", "strings"])
def test_block_counts_agree_with_each_event(kind: str) -> None:
    rng = np.random.default_rng(0)
    samples = kinds(rng)[kind]
    references = [Reference(samples[0].value(0))] if samples[0].is_list else []
    space = infer_space([Features(s) for s in samples], references)
    assert space.size > 0
    chosen = sorted(set(np.linspace(0, space.size - 1, 400).astype(int)))
    for out in samples:
        counts = space.count(Features(out))
        assert [int(counts[k]) for k in chosen] == [space.event(k).count(out) for k in chosen]


def test_types_come_from_all_samples_not_the_first() -> None:
    """The first side never reveals a value; numeric and cross events must exist anyway."""
    rng = np.random.default_rng(1)
    samples = kinds(rng)["mixed"]
    assert not (samples[0].codes == NUMBER).any()
    space = infer_space([Features(s) for s in samples], [])
    assert "categorical and numeric" in space.description
    assert any(isinstance(b, CrossBlock) for b in space.blocks)
    described = [space.event(k).describe() for k in range(space.size)]
    assert any("ω.count(False) = " in d and "avg(ω)" in d for d in described)
    # one number per output: its minimum and maximum are its average, not separate events
    assert not any("max(ω)" in d for d in described)


def test_integer_outputs_get_equality_events() -> None:
    rng = np.random.default_rng(2)
    space = infer_space([Features(s) for s in kinds(rng)["index"]], [])
    assert all(isinstance(b, DiscreteBlock) for b in space.blocks)
    assert {space.event(k).describe() for k in range(space.size)} == {
        f"ω = {i}" for i in range(1, 6)
    }


def test_continuous_outputs_get_intervals_on_a_nice_grid() -> None:
    rng = np.random.default_rng(3)
    space = infer_space([Features(s) for s in kinds(rng)["vector"]], [])
    grids = [b.grid for b in space.blocks if isinstance(b, IntervalBlock)]
    assert grids and all(all(float(10 * g).is_integer() for g in grid) for grid in grids)
    assert {b.feature.kind for b in space.blocks} == {VALUE, "avg", "min", MAX}


def test_categorical_scalars_are_equality_events() -> None:
    rng = np.random.default_rng(4)
    space = infer_space([Features(s) for s in kinds(rng)["strings"]], [])
    described = {space.event(k).describe() for k in range(space.size)}
    assert {"ω = ⊤", "ω ≠ ⊤", "ω = 2~"} <= described


def test_inconsistent_kinds_across_inputs_are_bad_input() -> None:
    rng = np.random.default_rng(5)
    samples = [
        Outputs.from_array(rng.laplace(size=10)),
        Outputs.from_array(rng.laplace(size=(10, 2))),
    ]
    with pytest.raises(MechanismError, match="inconsistent output types"):
        infer_space([Features(s) for s in samples], [])


def test_hamming_distance_counts_differences_and_length() -> None:
    out = Outputs.from_values([(False, True), (False, False, False), (True,)])
    feature = Feature(HAMMING, reference=Reference((False, False)))
    assert feature.values(out).tolist() == [1.0, 1.0, 2.0]


def test_count_and_value_features() -> None:
    out = Outputs.from_values([(False, 1.5), (False, False), (2.0,)])
    assert Feature(COUNT, category=False).values(out).tolist() == [1.0, 2.0, 0.0]
    maximum = Feature(MAX).values(out)
    assert maximum[0] == 1.5 and math.isnan(maximum[1]) and maximum[2] == 2.0


def test_event_descriptions_read_like_statdps() -> None:
    count = Condition(Feature(COUNT, category=False), 9, 9, equals=True)
    value = Condition(Feature(MAX), -2.4, 2.4)
    assert Event((count, value)).describe() == "ω.count(False) = 9 and max(ω) ∈ [-2.4, 2.4)"
    assert Condition(Feature(VALUE, scalar=True), -math.inf, 0.0).describe() == "ω < 0"
    assert Condition(Feature(VALUE, 0), 1.0, math.inf).describe() == "ω[0] ≥ 1"


def test_json_has_no_infinities() -> None:
    condition = Condition(Feature(VALUE, scalar=True), -math.inf, 0.0)
    assert condition.to_json() == {"feature": "ω", "low": "-inf", "high": 0.0}


@pytest.mark.parametrize(
    ("low", "high", "step"), [(-3.2, 7.9, 1.0), (0.013, 0.09, 0.005), (-100, 100, 20.0)]
)
def test_nice_grid_uses_one_two_five_steps(low: float, high: float, step: float) -> None:
    grid = nice_grid(low, high)
    assert grid[0] <= low and grid[-1] >= high
    assert np.allclose(np.diff(grid), step)
    assert len(grid) <= 20


def test_nice_grid_of_a_constant_is_one_point() -> None:
    assert nice_grid(2.0, 2.0) == (2.0,)
