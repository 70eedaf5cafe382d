"""Built-in examples: parameters, defaults, and the same answers as the model files."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import faier
from faier.errors import SpecError
from faier.examples import EXAMPLES, find_example

MODELS = Path(faier.__file__).parent / "examples" / "models"


def test_every_example_builds_with_defaults() -> None:
    for example in EXAMPLES:
        problem = example.problem()
        assert problem.name == example.name


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"q": "1"}, "has no parameter 'q'"),
        ({"n": "abc"}, "expected an integer"),
        ({"ties": "best"}, "is not a choice"),
        ({"n": "0"}, "at least 1"),
        ({"alpha": "x"}, "expected a number"),
        ({"scenario": "diseases", "n": "4"}, "three diseases"),
    ],
)
def test_bad_settings(settings: dict[str, str], message: str) -> None:
    example = find_example("noisy-max")
    assert example is not None
    with pytest.raises(SpecError, match=message):
        example.problem(settings)


def test_model_files_agree_with_built_in_mechanisms() -> None:
    geometric = faier.epsilon(str(MODELS / "geometric.yaml"))
    assert geometric.epsilon_star is not None and geometric.epsilon_star.ratio == 2
    contagious = faier.epsilon(str(MODELS / "geometric-contagious.yaml"))
    built_in = faier.epsilon("geometric", settings={"scenario": "contagious"})
    assert contagious.epsilon_star == built_in.epsilon_star
    assert built_in.epsilon_star is not None and built_in.epsilon_star.ratio == 4
    noisy = faier.epsilon(str(MODELS / "noisy-max-3.yaml"))
    assert noisy.epsilon_star is not None and noisy.epsilon_star.ratio == Fraction(24, 7)
    assert noisy.epsilon_star == faier.epsilon("noisy-max", settings={"n": "3"}).epsilon_star


def test_sparse_vector_and_histogram_are_reachable() -> None:
    svt = faier.epsilon("sparse-vector", horizon=3)
    assert [h.loss.ratio for h in svt.horizons] == [2, 4, 8]
    isvt1 = faier.epsilon("sparse-vector", settings={"variant": "isvt1"}, horizon=1)
    assert isvt1.epsilon_star is not None and isvt1.epsilon_star.infinite
    histogram = faier.verify("histogram", "ln(2)")
    assert histogram.verdict is faier.Verdict.HOLDS
