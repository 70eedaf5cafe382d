"""Options are read once, by the reader their spec declares, through the CLI and the API alike."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from faier.core.options import SPECS, Options
from faier.errors import SpecError
from faier.privacy.neighbours import OneQuery


def test_cli_text_and_python_values_read_the_same() -> None:
    from_text = Options.parse(
        settings=["n=5", "ties=uniform"],
        horizon="4",
        neighbours="one-query:2",
        delta="1/100",
        timeout="2.5",
        precision="1e-4",
        emit_smt2="out",
        params=["p=1/3"],
    )
    from_values = Options.parse(
        settings={"n": 5, "ties": "uniform"},
        horizon=4,
        neighbours=OneQuery(2),
        delta=Fraction(1, 100),
        timeout=2.5,
        precision=Fraction(1, 10000),
        emit_smt2=Path("out"),
        params=["p=1/3"],
    )
    assert from_text == from_values
    assert from_text.settings == {"n": "5", "ties": "uniform"}
    assert from_text.given()["horizon"] == 4


@pytest.mark.parametrize(
    ("raw", "flag", "message"),
    [
        ({"horizon": 0}, "--horizon", "must be at least 1"),
        ({"horizon": "four"}, "--horizon", "not a whole number"),
        ({"timeout": "-1"}, "--timeout", "must be positive"),
        ({"max_states": 0}, "--max-states", "at least 1"),
        ({"arithmetic": "decimal"}, "--arithmetic", "choose one of float, exact"),
        ({"solver": "yices"}, "--solver", "unknown solver 'yices'"),
        ({"delta": "2"}, "--delta", "not in [0, 1]"),
        ({"settings": ["n"]}, "--set", "needs NAME=VALUE"),
        ({"settings": ["n=1", "n=2"]}, "--set", "set twice"),
        ({"alpha": 1.5}, "--alpha", "strictly between 0 and 1"),
        ({"selection_samples": 1}, "--selection-samples", "at least 2"),
        ({"precision": "0"}, "--precision", "must be positive"),
    ],
)
def test_a_bad_value_names_its_flag(raw: dict[str, object], flag: str, message: str) -> None:
    with pytest.raises(SpecError) as caught:
        Options.parse(**raw)
    assert caught.value.where == flag and message in caught.value.render()


def test_an_unknown_option_is_a_type_error_as_for_any_keyword() -> None:
    with pytest.raises(TypeError, match="unknown option 'horizn'"):
        Options.parse(horizn=3)


def test_parse_starts_from_a_base_and_none_leaves_a_value() -> None:
    base = Options.parse(horizon=3, seed=7)
    assert Options.parse(base, horizon=None, timeout=1).horizon == 3
    assert Options.parse(base, horizon=5).seed == 7


def test_every_option_has_a_flag_and_help() -> None:
    for spec in SPECS.values():
        assert spec.flag.startswith("--") and spec.help
        assert spec.name in Options.__dataclass_fields__
