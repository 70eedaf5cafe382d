"""``faier test``, ``certify`` and ``bound`` in-process: outputs, exit codes, plots, bad input.

Exit codes: test 0 (evidence only), certify 1 (violated exactly) or 3,
bound 0 (exact ε*) or 3, 2 for bad input, 130 when interrupted.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from faier.cli.main import app
from faier.engines.statistical import tester

runner = CliRunner()
SMALL = ["--samples", "20000", "--selection-samples", "4000", "--seed", "1", "--workers", "1"]


def run(*args: str) -> Result:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def run_json(*args: str, code: int = 0) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_test_reports_p_values_and_no_verdict() -> None:
    data = run_json(
        "test", "noisy-max-laplace", "--claimed", "0.7", "--epsilons", "0.3,1.0", *SMALL
    )
    assert data["verdict"] is None and data["claimed_epsilon"] == 0.7
    low, high = data["points"]
    assert low["p_value"] < 1e-6 and high["p_value"] > 0.05
    assert len(low["inputs"][0]) == len(low["inputs"][1])
    assert low["event"]["description"].startswith("ω = ")
    assert set(low) >= {"epsilon", "p_value", "p_reverse", "counts", "samples", "pattern"}
    assert data["settings"]["seed"] == 1 and data["settings"]["epsilons"] == [0.3, 1.0]
    interval = data["loss_interval"]
    assert 0.3 < interval["low"] < interval["high"] and interval["confidence"] == 0.95
    assert data["search"]["output_type"] == "numeric single value"


def test_test_prints_what_the_p_values_mean() -> None:
    result = run("test", "svt-laplace", "--claimed", "0.7", "--epsilons", "0.2,0.7", *SMALL)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "p-values per tested ε" in text
    assert "at the claimed ε₀ = 0.7: p =" in text
    assert "they never show privacy" in text
    assert "arguments z3 MaxSMT" in text


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plots_are_written(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"curve{suffix}"
    result = run(
        "test",
        "noisy-max-exponential",
        "--claimed",
        "0.7",
        "--epsilons",
        "0:1:0.5",
        *SMALL,
        "--plot",
        str(path),
    )
    assert result.exit_code == 0, result.output
    head = path.read_bytes()[:200]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in head or b"<?xml" in head


def test_certify_exits_1_with_an_exact_witness() -> None:
    data = run_json(
        "certify",
        "noisy-max",
        "--set",
        "n=5",
        "--claimed",
        "ln(3)",
        "--epsilons",
        "1.3,1.4",
        *SMALL,
        code=1,
    )
    assert data["verdict"] == "violated"
    assert (data["witness"]["p"], data["witness"]["q"]) == ("1/5", "73/1440")
    assert [r["counterexample"] for r in data["certified"]] == ["real", "spurious"]
    assert data["lower_bound"]["ratio"] == "288/73"


def test_bound_gives_the_exact_epsilon() -> None:
    data = run_json("bound", "noisy-max", "--set", "n=5", "--epsilons", "1.2:1.5:0.1", *SMALL)
    assert data["exact"]["epsilon_star"]["ratio"] == "288/73"
    assert data["tester_interval"]["rejected"] < math.log(288 / 73)
    assert data["statistical_lower_bound"]["confidence"] == 0.95


def test_bound_text_shows_both_sides() -> None:
    result = run("bound", "noisy-max", "--set", "n=5", "--epsilons", "1.2:1.5:0.1", *SMALL)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "tester: ε* > 1.2" in text and "ln(288/73) ≈ 1.3725" in text


def test_bound_beyond_the_certified_lengths_is_statistical() -> None:
    data = run_json(
        "bound",
        "histogram-laplace-wrong-scale",
        "--claimed",
        "0.5",
        "--epsilons",
        "1,1.5",
        "--lengths",
        "10",
        *SMALL,
        code=3,
    )
    assert data["exact"] is None
    assert 1.5 < data["statistical_lower_bound"]["epsilon"] <= 2.0
    assert any("--lengths 5" in note for note in data["notes"])


def test_ctrl_c_prints_what_was_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    original = tester.thinned_pvalue

    def interrupt_on_third(*args: Any) -> float:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return original(*args)

    monkeypatch.setattr(tester, "thinned_pvalue", interrupt_on_third)
    result = run(
        "test", "noisy-max-laplace", "--claimed", "0.7", "--epsilons", "0.3,0.5,0.9", *SMALL
    )
    assert result.exit_code == 130
    text = " ".join(result.stdout.split())
    assert "interrupted while testing: 1 of 3 ε values tested" in text
    assert "│ 0.3 │" in result.stdout


def write(tmp_path: Path, source: str) -> str:
    path = tmp_path / "mechanism.py"
    path.write_text(source)
    return str(path)


VECTORISED = """
import numpy as np
from faier.mechanisms.sampled import vectorised

@vectorised(neighbours="one-query")
def noisy_first(queries, epsilon, n, rng):
    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)
"""

BLACKBOX = """
from faier.mechanisms.sampled import blackbox

@blackbox()
def coin_or_truth(queries, epsilon, rng):
    return bool(queries[0] >= 1) if rng.random() < 0.5 else bool(rng.random() < 0.5)
"""

PROGRAM = """
from fractions import Fraction
import faier

@faier.program(inputs=faier.grid(2, 2))
def noisy_sum(x, ctx):
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 4, x[0] + x[1]))
"""


def test_user_mechanism_files(tmp_path: Path) -> None:
    vectorised = run_json(
        "test", write(tmp_path, VECTORISED), "--claimed", "0.7", "--epsilons", "0.5,0.9", *SMALL
    )
    assert [p["p_value"] < 0.05 for p in vectorised["points"]] == [True, False]
    scalar = run_json(
        "test",
        write(tmp_path, BLACKBOX),
        "--claimed",
        "1",
        "--epsilons",
        "0.5,1.5",
        "--samples",
        "5000",
        "--selection-samples",
        "1000",
        "--seed",
        "1",
        "--workers",
        "1",
    )
    assert scalar["search"]["sampling"] == "one run of the scalar definition per sample"
    program = run_json("bound", write(tmp_path, PROGRAM), "--epsilons", "1:3:0.5", *SMALL)
    assert program["exact"]["epsilon_star"]["ratio"] == "4"


RAISES = """
from faier.mechanisms.sampled import blackbox

@blackbox()
def fragile(queries, epsilon, rng):
    return 1 / (queries[0] - 2)
"""

INCONSISTENT = """
from faier.mechanisms.sampled import blackbox

@blackbox()
def shapeshifter(queries, epsilon, rng):
    return [1.0] if rng.random() < 0.5 else 1.0
"""

INFINITE = """
import numpy as np
from faier.mechanisms.sampled import vectorised

@vectorised()
def overflow(queries, epsilon, n, rng):
    return np.full(n, np.inf)
"""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["test", "no-such-thing", "--claimed", "1"], "unknown target 'no-such-thing'"),
        (
            ["test", "svt-laplace", "--claimed", "0.7", "--epsilons", "1:0:1"],
            "--epsilons: '1:0:1' is an empty range",
        ),
        (
            ["test", "svt-laplace", "--claimed", "0.7", "--samples", "0"],
            "--samples: must be at least 1, got 0",
        ),
        (["test", "svt-laplace", "--claimed", "abc"], "--claimed: cannot read ε = 'abc'"),
        (["test", "svt-laplace", "--claimed", "0.7", "--pair", "1,1;3,3"], "are not neighbours"),
        (
            ["test", "svt-laplace", "--claimed", "0.7", "--pair", "1,1"],
            "--pair: cannot read the pair",
        ),
        (
            ["test", "svt-laplace", "--claimed", "0.7", "--lengths", "0"],
            "--lengths: lengths must be ≥ 1",
        ),
        (
            ["test", "svt-laplace", "--claimed", "0.7", "--set", "n=3"],
            "--set: svt-laplace takes no --set",
        ),
        (
            ["test", "noisy-max", "--claimed", "1", "--lengths", "3"],
            "--lengths: noisy-max has a fixed input space",
        ),
        (["bound", "svt-laplace"], "--claimed: svt-laplace sets its noise from the claimed ε₀"),
        (
            ["certify", "svt-laplace", "--claimed", "ln(2)"],
            "--claimed: the noise ε₀ of svt-laplace is not a positive rational",
        ),
        (
            ["test", "noisy-max-laplace", "--claimed", "0.7", "--plot", "curve.txt"],
            "--plot: cannot write a plot to 'curve.txt'",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = run(*args[:2], *SMALL, *args[2:])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
    assert result.stderr.strip().startswith("error:")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (RAISES, "input [2, 1, 1, 1, 1]: mechanism 'fragile' raised ZeroDivisionError"),
        (INCONSISTENT, "inconsistent output types"),
        (INFINITE, "non-finite number (inf)"),
    ],
)
def test_broken_mechanism_files_are_bad_input(tmp_path: Path, source: str, message: str) -> None:
    result = run("test", write(tmp_path, source), "--claimed", "1", "--lengths", "5", *SMALL)
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.stderr.split())
