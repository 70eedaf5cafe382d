"""PLDs of an interactive mechanism on a pair of answer streams (a non-adaptive workload)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from typer.testing import CliRunner

import faier
import reference as ref
from faier.cli.main import app
from faier.errors import SpecError


def transcript(threshold: int, answers: tuple[int, ...], output: tuple[str, ...]) -> Fraction:
    """Pr[output | answers] of Above Threshold (defaults: threshold noise ¼-geometric, query
    noise ½-geometric over {0, 1, 2}), summed over the noisy threshold by hand."""
    total = Fraction(0)
    for noisy_t, p in ref.truncated_geometric_row(Fraction(1, 4), 2, threshold).items():
        for answer, seen in zip(answers, output, strict=False):
            row = ref.truncated_geometric_row(Fraction(1, 2), 2, answer)
            p *= sum(q for z, q in row.items() if (z >= noisy_t) == (seen == "⊤"))
        total += p
    return total


def outputs(length: int) -> list[tuple[str, ...]]:
    """Every transcript: ⊥ until a ⊤ ends it, or ⊥ throughout."""
    return [("⊥",) * k + ("⊤",) for k in range(length)] + [("⊥",) * length]


@pytest.mark.parametrize("threshold", [0, 1])
@pytest.mark.parametrize(
    ("left", "right"),
    [((1, 1, 1), (2, 2, 2)), ((0, 1, 2), (1, 0, 2)), ((2, 2), (1, 1))],
)
def test_every_loss_is_the_forward_sum_of_both_streams(
    threshold: int, left: tuple[int, ...], right: tuple[int, ...]
) -> None:
    start = f"threshold {threshold}"
    report = faier.pld("above-threshold", (start, list(left), list(right)))
    expected: dict[Fraction, tuple[Fraction, Fraction]] = {}
    for output in outputs(len(left)):
        p, q = transcript(threshold, left, output), transcript(threshold, right, output)
        if p or q:
            key = p / q if q else Fraction(-1)
            before = expected.get(key, (Fraction(0), Fraction(0)))
            expected[key] = (before[0] + p, before[1] + q)
    got = {
        (loss.ratio if loss.ratio is not None else Fraction(-1)): (loss.p, loss.q)
        for loss in report.single.atoms
    }
    assert got == expected
    assert report.single.left_value == list(left)


def test_the_worst_pair_of_epsilon_star_is_the_default() -> None:
    report = faier.pld("above-threshold", horizon=3)
    assert report.epsilon_star.ratio == 8  # ε*(3) = 3 ln 2
    assert report.single.left.startswith("threshold ")


def test_streams_compose_and_answer_from_the_cli() -> None:
    result = CliRunner().invoke(
        app,
        [
            "pld",
            "above-threshold",
            "--pair",
            "threshold 0: 1,1; 2,2",
            "--compose",
            "2",
            "--epsilon",
            "ln(2)",
            "--json",
            "--no-accountant",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["compositions"] == 2
    assert data["epsilon_star"]["ratio"] == "16"  # (ln 4) twice
    assert data["pair"]["inputs"] == [[1, 1], [2, 2]]


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("1,1;2,2", "has 3 starts"),
        ("threshold 9: 1;2", "no start 'threshold 9'"),
        ("threshold 0: 1,1;2", "not neighbouring answer streams"),
        ("threshold 0: 0,1;2,1", "not neighbouring answer streams"),
        ("threshold 0: 1,7;1,1", "answer 7 is not one the mechanism reads"),
        ("threshold 0: 1,x;1,1", "cannot read the answers"),
    ],
)
def test_streams_that_are_no_pair_are_bad_input(pair: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        faier.pld("above-threshold", pair)
    result = CliRunner().invoke(app, ["pld", "above-threshold", "--pair", pair])
    assert result.exit_code == 2
