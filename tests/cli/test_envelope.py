"""Every ``--json`` output starts with the same envelope: command, verdict, exit code, time, version."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.results import ENVELOPE_KEYS

runner = CliRunner()

FAST_TEST = ["--samples", "3000", "--selection-samples", "1000", "--epsilons", "0.5,3"]
FAST_TEST += ["--seed", "1", "--workers", "1", "--thinnings", "5"]

COMMANDS = {
    "epsilon": (["epsilon", "noisy-max", "--set", "n=3"], None, 0),
    "verify": (["verify", "noisy-max", "--set", "n=5", "-e", "1.372"], "violated", 1),
    "check": (["check", "survey", "-f", "D{ln(3), 0}[X out1]"], "holds", 0),
    "test": (["test", "noisy-max", "--claimed", "ln(2)", *FAST_TEST], None, 0),
    "certify": (["certify", "noisy-max", "--claimed", "ln(2)", *FAST_TEST], "violated", 1),
    "bound": (["bound", "noisy-max", *FAST_TEST], None, 0),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_json_output_carries_the_envelope(command: str) -> None:
    args, verdict, code = COMMANDS[command]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == code, result.output
    data = json.loads(result.stdout)
    assert tuple(data)[: len(ENVELOPE_KEYS)] == ENVELOPE_KEYS
    assert data["command"] == command
    assert data["verdict"] == verdict
    assert data["exit_code"] == code
    assert data["faier_version"] == faier.__version__
    assert isinstance(data["seconds"], float) and data["seconds"] >= 0


def test_the_envelope_keeps_the_earlier_fields_where_they_were() -> None:
    result = runner.invoke(app, ["verify", "geometric", "-e", "ln(2)", "--json"])
    data = json.loads(result.stdout)
    body = list(data)[len(ENVELOPE_KEYS) :]
    assert body[:2] == ["target", "privacy"]
    assert {"epsilon", "epsilon_star", "witness", "method", "statistics"} <= set(body)
    assert data["verdict"] == "holds" and data["epsilon_star"]["ratio"] == "2"
