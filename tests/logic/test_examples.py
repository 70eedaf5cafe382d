"""The built-in dpCTL* examples: each builds, its suggested formulas give the paper's answers."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from faier.errors import SpecError
from faier.logic import check
from faier.logic.examples import (
    LOGIC_EXAMPLES,
    build_example,
    subsampling_majority,
    truncated_geometric,
)
from faier.results import Verdict

EXPECTED = {
    "survey": Verdict.HOLDS,
    "geometric": Verdict.HOLDS,
    "subsampling-majority": Verdict.VIOLATED,
    "double-survey": Verdict.HOLDS,
    "interactive-survey": Verdict.HOLDS,
    "above-threshold": Verdict.HOLDS,
}


@pytest.mark.parametrize("name", list(LOGIC_EXAMPLES))
def test_suggested_formulas(name: str) -> None:
    model = build_example(name)
    assert model.neighbours.pairs
    for formula in LOGIC_EXAMPLES[name].formulas:
        assert check(model, formula).verdict is EXPECTED[name], formula


def test_truncated_geometric_rows_sum_to_one() -> None:
    for alpha in (Fraction(1, 2), Fraction(1, 4), Fraction(2, 3)):
        for top in (1, 2, 5):
            for value in range(top + 1):
                assert sum(truncated_geometric(alpha, top, value).values()) == 1


@pytest.mark.parametrize(
    ("name", "settings", "words"),
    [
        ("survey", {"n": "3"}, "no parameter 'n'"),
        ("geometric", {"alpha": "3/2"}, r"not in \(0, 1\)"),
        ("geometric", {"top": "1.5"}, "not a whole number"),
        ("geometric", {"alpha": "x"}, "not a number"),
        ("above-threshold", {"top": "0"}, "below 1"),
        ("subsampling-majority", {"delta": "1"}, "strictly between 0 and 1"),
        ("subsampling-majority", {"epsilon": "ln(2)", "delta": "1/1000"}, "too many"),
        ("subsampling-majority", {"epsilon": "-1"}, "negative"),
    ],
)
def test_bad_parameters(name: str, settings: dict[str, str], words: str) -> None:
    with pytest.raises(SpecError, match=words):
        build_example(name, settings)


def test_subsampling_parameters() -> None:
    small = subsampling_majority(2, "8*ln(2)", "1/2", m=4)
    assert "m = 4" in small.description and small.initial == ("rr", "rb", "bb")
    explicit = build_example("subsampling-majority", {"n": "2", "q": "1/2", "m": "3"})
    assert "q = 1/2, m = 3" in explicit.description


def test_no_example_name_looks_like_a_model_file() -> None:
    """``loading.build_file`` tells a PRISM or JANI file from an example by its suffix alone,
    so ``faier check FILE.pm`` never loads the examples."""
    from faier.logic import files, prism

    suffixes = {*prism.SUFFIXES, *prism.JANI_SUFFIXES, *files.SUFFIXES}
    for name in LOGIC_EXAMPLES:
        assert Path(name).suffix.lower() not in suffixes, name
