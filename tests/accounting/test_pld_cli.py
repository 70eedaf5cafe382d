"""``faier pld``: the table, the JSON envelope, bad input."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from faier.cli.main import app
from faier.results import ENVELOPE_KEYS

runner = CliRunner()


def test_json_carries_the_envelope_and_the_exact_k_fold_delta() -> None:
    args = ["pld", "geometric", "--set", "m=4", "--pair", "1;2", "--compose", "3"]
    result = runner.invoke(app, [*args, "-e", "ln(2)", "--delta", "1/10", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert tuple(data)[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert data["command"] == "pld" and data["verdict"] is None
    assert data["pair"]["inputs"] == [1, 2] and data["compositions"] == 3
    assert data["epsilon_star"]["ratio"] == "8"
    assert [(a["ratio"], a["p"]) for a in data["pld"]["losses"]] == [
        ("1/8", "1/27"),
        ("1/2", "2/9"),
        ("2", "4/9"),
        ("8", "8/27"),
    ]
    assert data["deltas"][0]["delta"]["delta"] == "2/9"
    assert data["epsilon_for_delta"]["ratio"] == "53/10"


def test_the_table_shows_losses_and_outputs() -> None:
    result = runner.invoke(app, ["pld", "geometric", "--pair", "1;2", "--no-accountant"])
    assert result.exit_code == 0, result.output
    assert "ln(2) ≈ 0.6931" in result.stdout and "0~" in result.stdout


def test_bad_pairs_are_bad_input() -> None:
    result = runner.invoke(app, ["pld", "geometric", "--pair", "0;2"])
    assert result.exit_code == 2 and "not neighbours" in result.output
    result = runner.invoke(app, ["pld", "geometric", "--pair", "1;2", "--compose", "0"])
    assert result.exit_code == 2 and "--compose" in result.output
