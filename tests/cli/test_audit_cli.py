"""``faier audit``: exit codes, the JSON envelope, the HTML report and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from faier.cli.main import app
from faier.results import ENVELOPE_KEYS

runner = CliRunner()
CORPUS = Path(__file__).parent.parent / "auditing" / "audit_corpus.py"


@pytest.fixture
def numbers(tmp_path: Path) -> Path:
    path = tmp_path / "numbers.csv"
    path.write_text("value\n0.2\n0.5\n0.9\n", encoding="utf-8")
    return path


def test_a_violation_exits_1_with_the_witness_in_json(numbers: Path) -> None:
    result = runner.invoke(
        app,
        ["audit", f"{CORPUS}:raw_data_noised", "--epsilon", "1", "--data", str(numbers), "--json"],
    )
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert tuple(data)[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert data["command"] == "audit" and data["verdict"] == "violated"
    witness = data["witness"]
    assert witness["D"] == [0.2, 0.5, 0.9] and len(witness["D_prime"]) == 4
    assert witness["loss"]["exact"] is True
    assert [t["line"] for t in witness["loss"]["terms"]] == [20]


def test_no_violation_exits_0_and_never_says_holds(numbers: Path, tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    args = ["audit", f"{CORPUS}:budget_split", "-e", "1", "--data", str(numbers)]
    result = runner.invoke(app, [*args, "--budget", "12", "--json", "--report", str(page)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] is None
    assert data["outcome"].startswith("no violation found in 12 pairs")
    assert "no violation found" in page.read_text(encoding="utf-8")
    plain = runner.invoke(app, [*args, "--budget", "12"])
    assert plain.exit_code == 0 and "holds for every" not in plain.stdout
    assert data["proof"] is None and "after a release was converted" not in data["no_proof"]
    assert "float() of an unreleased traced value" in data["no_proof"]


def test_a_proved_function_holds_with_exit_0_and_says_what_the_proof_rests_on(
    numbers: Path,
) -> None:
    args = ["audit", f"{CORPUS}:clipped_data_noised", "-e", "1", "--data", str(numbers)]
    result = runner.invoke(app, [*args, "--budget", "12", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "holds"
    assert data["outcome"].startswith("holds for every add-remove neighbouring pair")
    assert data["proof"]["loss_bound"] == "1" and data["proof"]["charges"][0]["line"] == 25
    assert any("rounding" in r for r in data["proof"]["rests_on"])
    plain = runner.invoke(app, [*args, "--budget", "12"])
    assert plain.exit_code == 0 and "line 25: shift ≤ 1" in plain.stdout


def test_function_arguments_are_passed(numbers: Path) -> None:
    args = ["audit", f"{CORPUS}:scale_floored", "-e", "2", "--data", str(numbers)]
    assert runner.invoke(app, [*args, "--arg", "epsilon=2"]).exit_code == 1
    assert runner.invoke(app, [*args, "--arg", "epsilon=0.5", "--budget", "5"]).exit_code == 0


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--neighbours", "every-query"], "--neighbours"),
        (["--bounds", "1:0"], "--bounds"),
        (["--arg", "not an assignment"], "--arg"),
        (["--budget", "0"], "--budget"),
    ],
)
def test_bad_options_are_bad_input(numbers: Path, extra: list[str], message: str) -> None:
    result = runner.invoke(
        app, ["audit", f"{CORPUS}:clipped_data_noised", "-e", "1", "--data", str(numbers), *extra]
    )
    assert result.exit_code == 2
    assert message in result.output


def test_a_missing_function_or_data_file_is_bad_input(numbers: Path, tmp_path: Path) -> None:
    missing = runner.invoke(app, ["audit", f"{CORPUS}:nowhere", "-e", "1", "--data", str(numbers)])
    assert missing.exit_code == 2 and "nowhere" in missing.output
    no_data = runner.invoke(
        app,
        ["audit", f"{CORPUS}:clipped_data_noised", "-e", "1", "--data", str(tmp_path / "x.csv")],
    )
    assert no_data.exit_code == 2 and "x.csv" in no_data.output


def test_an_installed_module_function_is_a_target(numbers: Path) -> None:
    pytest.importorskip("diffprivlib")
    args = ["audit", "diffprivlib.tools:mean", "-e", "1", "--data", str(numbers)]
    result = runner.invoke(app, [*args, "--arg", "epsilon=1", "--arg", "bounds=(0, 1)", "--json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["witness"]["change"] == "add nan"
    assert data["witness"]["loss"]["epsilon_star"] == "inf"


def test_the_terminal_table_names_the_witness_line(numbers: Path) -> None:
    result = runner.invoke(
        app, ["audit", f"{CORPUS}:budget_spent_twice", "-e", "1", "--data", str(numbers)]
    )
    assert result.exit_code == 1
    assert "witness" in result.stdout and "audit_corpus.py:" in result.stdout
    assert "ε* of the pair" in result.stdout and "(exact)" in result.stdout
