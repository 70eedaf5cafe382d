"""The tester's API as a DP library's author meets it: each friction found, fixed and pinned."""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import faier.testing as t
from faier.cli.main import app
from faier.engines.statistical.subjects import NOT_REPRODUCIBLE
from faier.errors import MechanismError, SpecError
from faier.mechanisms.sampled import blackbox, vectorised

FAST: dict[str, Any] = {"samples": 4000, "selection_samples": 1000, "seed": 3, "workers": 1}


@vectorised(neighbours="one-query")
def noisy_first(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    """The first count with Laplace noise of scale 1/ε₀: ε* = ε₀."""
    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)


record: list[Path] = []
"""The file where ``records_its_input`` writes its inputs (it runs in the test's forked child)."""


def seen() -> list[list[tuple[str, Any]]]:
    lines = record[0].read_text().splitlines() if record[0].exists() else []
    return [ast.literal_eval(line) for line in lines]


@blackbox()
def records_its_input(queries: list[Any], epsilon: float, rng: Any) -> float:
    with record[0].open("a") as out:
        out.write(repr([(type(v).__name__, v) for v in queries]) + "\n")
    return float(queries[0] + rng.laplace(scale=1 / epsilon))


def rejected(report: Any) -> list[bool]:
    return [p.rejected(0.05) for p in report.points]


def test_a_mechanism_object_is_a_target() -> None:
    report = t.statistical_test(noisy_first, claimed=0.5, epsilons="0.25,0.5", **FAST)
    assert rejected(report) == [True, False]


def test_a_file_calling_the_tester_on_itself_is_bad_input_not_a_recursion(tmp_path: Path) -> None:
    script = tmp_path / "selftest.py"
    script.write_text(
        "import faier.testing\n"
        "from faier.mechanisms.sampled import vectorised\n"
        "@vectorised()\n"
        "def m(queries, epsilon, n, rng):\n"
        "    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)\n"
        "faier.testing.statistical_test(__file__, claimed=1, samples=10, selection_samples=10)\n"
    )
    with pytest.raises(MechanismError, match="runs faier on itself") as error:
        t.statistical_test(str(script), claimed=1, samples=10, selection_samples=10)
    assert 'if __name__ == "__main__":' in (error.value.fix or "")


@pytest.mark.parametrize(
    "pair",
    [
        ([1, 1, 1], [0, 2, 2]),
        (np.array([1, 1, 1]), np.array([0, 2, 2])),
        ((1, 1, 1), (0, 2, 2)),
        "1,1,1;0,2,2",
    ],
    ids=["lists", "arrays", "tuples", "text"],
)
def test_pairs_as_lists_arrays_tuples_or_text(pair: Any) -> None:
    report = t.statistical_test(
        "noisy-max-laplace", claimed=0.5, pairs=[pair], epsilons=[0.5], **FAST
    )
    assert report.points[0].candidate.left.value in ((1, 1, 1), (0, 2, 2))


def test_float_inputs_are_neighbours_by_their_decimal_difference() -> None:
    for pair in [(1.5, 2.5), "1.5,1;2.5,1", ([1.3], [0.3])]:
        report = t.statistical_test(noisy_first, claimed=0.5, pairs=[pair], epsilons=[0.5], **FAST)
        assert len(report.points) == 1
    with pytest.raises(SpecError, match="not neighbours"):
        t.statistical_test(noisy_first, claimed=0.5, pairs=[(1.5, 2.75)], **FAST)


def test_lengths_as_an_int() -> None:
    report = t.statistical_test(noisy_first, claimed=0.5, lengths=1, epsilons=[0.5], **FAST)
    assert {len(p.candidate.left.value) for p in report.points} == {1}
    with pytest.raises(SpecError, match="--lengths"):
        t.statistical_test(noisy_first, claimed=0.5, lengths=0, **FAST)


@pytest.mark.parametrize("grid", [[-0.5], [math.nan], [math.inf], ["x"]])
def test_epsilon_lists_are_checked_as_the_cli_checks_them(grid: list[Any]) -> None:
    with pytest.raises(SpecError, match="--epsilons"):
        t.statistical_test(noisy_first, claimed=0.5, epsilons=grid, **FAST)


def test_epsilon_lists_are_accepted() -> None:
    report = t.statistical_test(noisy_first, claimed=0.5, epsilons=[0.25, 0.5], **FAST)
    assert [p.epsilon for p in report.points] == [0.25, 0.5]


def test_ragged_outputs_of_a_vectorised_sampler() -> None:
    @vectorised()
    def prefix(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
        """The answers up to a noisy cut: lists of different lengths."""
        cuts = np.clip(queries.sum() / 5 + rng.laplace(scale=1 / epsilon, size=n), 0, 5)
        return [list(queries[: int(c)]) for c in cuts]

    report = t.statistical_test(prefix, claimed=1, lengths=5, epsilons=[1.0], **FAST)
    assert report.points and "list" in report.space


def test_answers_reach_the_mechanism_as_printed(tmp_path: Path) -> None:
    record[:] = [tmp_path / "first"]
    t.statistical_test(
        records_its_input,
        claimed=1,
        lengths=1,
        epsilons=[1.0],
        samples=5,
        selection_samples=5,
        seed=1,
    )
    assert seen() and all(kind == "int" for q in seen() for kind, _ in q)
    record[:] = [tmp_path / "second"]
    t.statistical_test(
        records_its_input,
        claimed=1,
        pairs=[(1.5, 2.5)],
        epsilons=[1.0],
        samples=5,
        selection_samples=5,
        seed=1,
    )
    assert {tuple(v for _, v in q) for q in seen()} == {(1.5,), (2.5,)}


def test_the_mechanisms_noise_is_set_apart_from_the_claim() -> None:
    """Configured at ε = 1 (true loss 1), claimed 0.5: rejected at the claim, not at 1."""
    report = t.statistical_test(
        noisy_first, claimed=0.5, mechanism_epsilon=1, epsilons=[0.5, 1.0], **FAST
    )
    assert rejected(report) == [True, False]
    assert "noise set for ε₀ = 1" in report.privacy
    assert report.point_at(0.5) is not None


def test_a_library_with_its_own_random_source_is_detected() -> None:
    own = np.random.default_rng()

    @vectorised()
    def unseeded(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
        return queries[0] + own.laplace(scale=1 / epsilon, size=n)

    report = t.statistical_test(unseeded, claimed=1, lengths=1, epsilons=[1.0], **FAST)
    assert NOT_REPRODUCIBLE in report.notes
    seeded = t.statistical_test(noisy_first, claimed=1, lengths=1, epsilons=[1.0], **FAST)
    assert NOT_REPRODUCIBLE not in seeded.notes


def test_a_black_box_returning_none_is_bad_input() -> None:
    @blackbox()
    def forgot_return(queries: Any, epsilon: float, rng: Any) -> None:
        queries[0] + rng.laplace()

    @vectorised()
    def forgot_too(queries: Any, epsilon: float, n: int, rng: Any) -> None:
        return None

    for mechanism in (forgot_return, forgot_too):
        with pytest.raises(MechanismError, match="returned None"):
            t.statistical_test(mechanism, claimed=1, lengths=1, **FAST)


def test_cli_mechanism_epsilon_and_float_pairs(tmp_path: Path) -> None:
    source = tmp_path / "lib.py"
    source.write_text(
        "from faier.mechanisms.sampled import vectorised\n"
        "@vectorised(neighbours='one-query')\n"
        "def noisy_first(queries, epsilon, n, rng):\n"
        "    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)\n"
    )
    common = ["--samples", "4000", "--selection-samples", "1000", "--seed", "3", "--workers", "1"]
    result = CliRunner().invoke(
        app,
        [
            "test",
            str(source),
            "--claimed",
            "0.5",
            "--mechanism-epsilon",
            "1",
            "--epsilons",
            "0.5,1",
            "--pair",
            "1.5,1;2.5,1",
            "--json",
            *common,
        ],
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert [p["p_value"] <= 0.05 for p in body["points"]] == [True, False]
    assert body["points"][0]["inputs"] == [[1.5, 1], [2.5, 1]] or body["points"][0]["inputs"] == [
        [2.5, 1],
        [1.5, 1],
    ]
    missing = CliRunner().invoke(app, ["test", str(source), *common])
    assert missing.exit_code == 2 and "--claimed" in missing.output
