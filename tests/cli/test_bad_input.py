"""Bad input ends in exit code 2 and one clear line on stderr: where, what, and the fix.

Nothing is written to stdout (not even with --json), and no traceback is shown.
Bad model files are written into tmp_path; bad Python files live in tests/cli/data.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from faier.cli.main import app

DATA = Path(__file__).parent / "data"

runner = CliRunner()


def run(args: list[str]) -> Result:
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result


def model(emission_a: str = "{x: 1/2, y: 1/2}", extra: str = "", pairs: str = "[[a, b]]") -> str:
    """A small HMM file with states a, b and observations x, y; one part swapped out."""
    return (
        "states: [a, b]\n"
        "observations: [x, y]\n"
        f"{extra}"
        "emissions:\n"
        f"  a: {emission_a}\n"
        "  b: {x: 1/4, y: 3/4}\n"
        f"pairs: {pairs}\n"
        "horizon: 1\n"
    )


def case(
    id: str,
    args: list[str],
    expected: list[str],
    fix: str,
    files: dict[str, str] | None = None,
) -> object:
    """One bad input: the command, text the message must contain, and its fix hint.

    ``{tmp}`` and ``{data}`` in the arguments and the expected text stand for the
    test's tmp_path and tests/cli/data; ``files`` are written into tmp_path first.
    """
    return pytest.param(args, expected, fix, files or {}, id=id)


VERIFY = ["verify", "--epsilon", "1"]

CASES = [
    # --- model files ---------------------------------------------------------------------
    case(
        "fractions-sum-not-one",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "sum to 2/3"],
        "fractions must sum to exactly 1",
        {"model.yaml": model("{x: 1/3, y: 1/3}")},
    ),
    case(
        "decimals-sum-far-from-one",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "sum to 99/100"],
        "decimals to within 1e-6",
        {"model.yaml": model("{x: 0.33, y: 0.66}")},
    ),
    case(
        "negative-probability",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "'x' is negative"],
        "probabilities lie in [0, 1]",
        {"model.yaml": model("{x: -1/2, y: 3/2}")},
    ),
    case(
        "probability-above-one",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "above 1"],
        "probabilities lie in [0, 1]",
        {"model.yaml": model("{x: 3/2}")},
    ),
    case(
        "non-numeric-probability-word",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x:", "'half'"],
        "declare it under 'parameters'",
        {"model.yaml": model("{x: half, y: 1/2}")},
    ),
    case(
        "non-numeric-probability-symbol",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x:", "'1/2?' is not a probability"],
        "write a fraction like 1/6",
        {"model.yaml": model("{x: '1/2?', y: 1/2}")},
    ),
    case(
        "probability-is-a-list",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x:", "got a list"],
        "write a fraction like 1/6",
        {"model.yaml": model("{x: [1], y: 0}")},
    ),
    case(
        "unknown-observation",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "unknown observation 'w'"],
        "observations are x, y",
        {"model.yaml": model("{x: 1/2, w: 1/2}")},
    ),
    case(
        "unknown-state-in-emissions",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions:", "unknown state 'c'"],
        "states are a, b",
        {"model.yaml": model().replace("  b: {x: 1/4", "  c: {x: 1/4")},
    ),
    case(
        "misspelt-state-suggests-the-name",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions:", "unknown state 'bb'"],
        "did you mean 'b'?",
        {"model.yaml": model().replace("  b: {x: 1/4", "  bb: {x: 1/4")},
    ),
    case(
        "state-without-emissions",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions:", "no emissions for state 'b'"],
        "every state needs a row",
        {"model.yaml": model().replace("  b: {x: 1/4, y: 3/4}\n", "")},
    ),
    case(
        "transition-to-missing-state",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: transitions.a:", "unknown state 'c'"],
        "states are a, b",
        {"model.yaml": model(extra="transitions:\n  a: {a: 1/2, c: 1/2}\n")},
    ),
    case(
        "transition-from-missing-state",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: transitions:", "unknown state 'c'"],
        "states are a, b",
        {"model.yaml": model(extra="transitions:\n  c: {a: 1}\n")},
    ),
    case(
        "initial-over-unknown-states",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: initial.prior:", "unknown state 'z'"],
        "states are a, b",
        {"model.yaml": model(extra="initial:\n  prior: {a: 1/2, z: 1/2}\n")},
    ),
    case(
        "pair-of-unknown-names",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: pairs[0]:", "'c' is neither an initial distribution nor a state"],
        "names are a, b",
        {"model.yaml": model(pairs="[[a, c]]")},
    ),
    case(
        "misspelt-top-level-key",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml:", "unknown key 'transition'"],
        "did you mean 'transitions'?",
        {"model.yaml": model(extra="transition:\n  a: {b: 1}\n")},
    ),
    case(
        "states-not-a-list",  # the fix's '[a, b]' must survive the terminal's markup
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: states:", "got the number 5"],
        "write e.g. states: [a, b]",
        {"model.yaml": "states: 5\nobservations: [x]\nemissions: {}\n"},
    ),
    case(
        "parameter-without-value",
        ["epsilon", "{tmp}/model.yaml", "--engine", "exact"],
        ["{tmp}/model.yaml:", "parameters p have no value"],
        "--set p=1/3",
        {"model.yaml": 'parameters:\n  p: {domain: "(0, 1)"}\n' + model("{x: p, y: 1-p}")},
    ),
    case(
        "set-unknown-model-parameter",
        ["epsilon", "{tmp}/model.yaml", "--set", "q=1/2"],
        ["{tmp}/model.yaml: --set q:", "no parameter 'q'"],
        "declared parameters: none",
        {"model.yaml": model()},
    ),
    case(
        "model-without-horizon",
        ["epsilon", "{tmp}/model.yaml"],
        ["{tmp}/model.yaml:", "no horizon"],
        "pass --horizon K",
        {"model.yaml": model().replace("horizon: 1\n", "")},
    ),
    case(
        "model-file-does-not-exist",
        [*VERIFY, "{tmp}/missing.yaml"],
        ["{tmp}/missing.yaml: file not found"],
        "check the path",
    ),
    case(
        "malformed-yaml",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 2: not valid YAML"],
        "check the indentation and quoting",
        {"model.yaml": "states: [a, b\nobservations: [x, y]\n"},
    ),
    case(
        "malformed-json",
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json: line 3: not valid JSON"],
        "check commas, brackets and quotes",
        {"model.json": '{"states": ["a"],\n "observations": ["x"]\n "emissions": {}}\n'},
    ),
    case(
        "repeated-key",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line", "'horizon' appears twice"],
        "keep one of them",
        {"model.yaml": model() + "horizon: 2\n"},
    ),
    # --- Python mechanism files ----------------------------------------------------------
    case(
        "python-file-without-mechanism",
        [*VERIFY, "{data}/no_mechanism.py"],
        ["{data}/no_mechanism.py: defines no mechanism"],
        "decorate a function with @faier.program",
    ),
    case(
        "python-file-raises-at-import",
        [*VERIFY, "{data}/raises_at_import.py"],
        ["{data}/raises_at_import.py:6:", "raised KeyError while loading: 'beta'"],
        "fix the error in the file",
    ),
    case(
        "mechanism-raises-while-running",
        [*VERIFY, "{data}/raises_while_running.py"],
        [
            "{data}/raises_while_running.py:11:",
            "mechanism 'broken' raised ZeroDivisionError",
        ],
        "fix the mechanism so it runs on every input",
    ),
    case(
        "python-file-does-not-exist",
        [*VERIFY, "{tmp}/missing.py"],
        ["{tmp}/missing.py: file not found"],
        "check the path",
    ),
    case(
        "python-file-syntax-error",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1:", "raised SyntaxError while loading"],
        "fix the error in the file",
        {"broken.py": "def mechanism(x, ctx:\n    return x\n"},
    ),
    case(
        "two-mechanisms-without-name",
        [*VERIFY, "{data}/two_mechanisms.py"],
        ["{data}/two_mechanisms.py: defines 2 mechanisms (half, third)"],
        "choose one with --name NAME",
    ),
    case(
        "unknown-mechanism-name",
        [*VERIFY, "{data}/two_mechanisms.py", "--name", "quarter"],
        ["{data}/two_mechanisms.py: no mechanism named 'quarter'"],
        "defined: half, third",
    ),
    case(
        "set-on-a-python-file",
        [*VERIFY, "{data}/noisy_sum.py", "--set", "n=2"],
        ["--set n:", "noisy_sum.py has no parameter 'n'"],
        "--set applies to built-in examples and model-file parameters",
    ),
    case(
        "name-on-a-built-in-example",
        [*VERIFY, "geometric", "--name", "half"],
        ["--name half:", "'geometric' is not a Python mechanism file"],
        "leave --name out",
    ),
    # --- ε, δ and options ----------------------------------------------------------------
    case(
        "epsilon-does-not-parse",
        ["verify", "geometric", "--epsilon", "ln(two)"],
        ["--epsilon:", "cannot read ε = 'ln(two)'"],
        "ln(2), 4*ln(2), ln(24/7)",
    ),
    case(
        "epsilon-negative",
        ["verify", "geometric", "--epsilon", "-1"],
        ["--epsilon:", "ε = '-1' is negative"],
        "ε must be at least 0",
    ),
    case(
        "epsilon-empty",
        ["verify", "geometric", "--epsilon", ""],
        ["--epsilon:", "cannot read ε = ''"],
        "write a number like 1.372",
    ),
    case(
        "delta-outside-zero-one",
        ["epsilon", "geometric", "--delta", "2"],
        ["--delta:", "δ = 2 is not in [0, 1]"],
        "δ is a probability",
    ),
    case(
        "delta-does-not-parse",
        ["epsilon", "geometric", "--delta", "tiny"],
        ["--delta:", "cannot read δ = 'tiny'"],
        "1/100",
    ),
    case(
        "set-unknown-parameter",
        ["epsilon", "geometric", "--set", "q=1"],
        ["--set q=1:", "example 'geometric' has no parameter 'q'"],
        "its parameters are alpha, m, scenario, p",
    ),
    case(
        "set-integer-not-a-number",
        ["epsilon", "noisy-max", "--set", "n=abc"],
        ["--set n=abc:", "expected an integer"],
        "e.g. --set n=3",
    ),
    case(
        "set-integer-below-minimum",
        ["epsilon", "noisy-max", "--set", "n=0"],
        ["--set n=0:", "must be at least 1"],
        "e.g. --set n=3",
    ),
    case(
        "set-fraction-not-a-number",
        ["epsilon", "geometric", "--set", "alpha=half"],
        ["--set alpha=half:", "expected a number"],
        "e.g. --set alpha=1/2",
    ),
    case(
        "set-unknown-choice",
        ["epsilon", "noisy-max", "--set", "ties=best"],
        ["--set ties=best:", "'best' is not a choice"],
        "choose one of first, uniform, value",
    ),
    case(
        "set-without-equals",
        ["epsilon", "noisy-max", "--set", "n"],
        ["--set: needs NAME=VALUE, got 'n'"],
        "e.g. --set n=5",
    ),
    case(
        "horizon-zero",
        ["epsilon", "above-threshold", "--horizon", "0"],
        ["--horizon:", "must be at least 1, got 0"],
        "e.g. --horizon 4",
    ),
    case(
        "horizon-negative",
        ["verify", "above-threshold", "--horizon", "-2", "--epsilon", "1"],
        ["--horizon:", "got -2"],
        "e.g. --horizon 4",
    ),
    case(
        "unknown-target",
        ["epsilon", "noisy_max"],
        ["unknown target 'noisy_max'"],
        "give a built-in example (",
    ),
    case(
        "unknown-target-suffix",
        ["epsilon", "{tmp}/model.txt"],
        ["unknown target '{tmp}/model.txt'", "noisy-max"],
        "a model file (.yaml, .json) or a mechanism file (.py)",
    ),
    case(
        "unknown-neighbours",
        ["epsilon", "geometric", "--neighbors", "sideways"],
        ["--neighbors:", "unknown neighbour relation 'sideways'"],
        "every-query[:Δ], one-query[:Δ] or add-remove",
    ),
    case(
        "neighbours-bad-delta",
        ["epsilon", "geometric", "--neighbors", "every-query:x"],
        ["--neighbors:", "'every-query:x'"],
        "every-query:2",
    ),
    case(
        "neighbours-for-an-interactive-mechanism",
        ["epsilon", "above-threshold", "--horizon", "2", "--neighbors", "one-query"],
        ["--neighbors:", "above-threshold is interactive"],
        "every-query",
    ),
    case(
        "neighbours-for-a-pufferfish-scenario",
        ["epsilon", "geometric", "--set", "scenario=contagious", "--neighbors", "one-query"],
        ["--neighbors:", "Pufferfish"],
        "leave --neighbors out",
    ),
    case(
        "timeout-not-positive",
        ["epsilon", "geometric", "--timeout", "-1"],
        ["--timeout:", "the timeout must be positive"],
        "e.g. --timeout 60",
    ),
    case(
        "state-budget-zero",
        ["epsilon", "geometric", "--max-states", "0"],
        ["--max-states:", "at least 1, got 0"],
        "e.g. --max-states 100000",
    ),
]


def fill(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp)).replace("{data}", str(DATA))


@pytest.mark.parametrize(("args", "expected", "fix", "files"), CASES)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_bad_input_is_one_clear_message_and_exit_2(
    tmp_path: Path,
    args: list[str],
    expected: list[str],
    fix: str,
    files: dict[str, str],
    as_json: bool,
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    argv = [fill(a, tmp_path) for a in args] + (["--json"] if as_json else [])
    result = run(argv)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""  # nothing is half-written
    assert "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # one message, one line, however long
    message = lines[0]
    assert message.startswith("error: ")
    for text in expected:
        assert fill(text, tmp_path) in message
    assert message.endswith(")"), message  # the fix, in parentheses, comes last
    assert f"({fix}" in message or f" {fix}" in message, message


def test_every_bad_model_file_is_reported_at_its_place(tmp_path: Path) -> None:
    """The location inside the file names the section (emissions.a, transitions.a, …)."""
    path = tmp_path / "model.yaml"
    path.write_text(model("{x: 1/3, y: 1/3}"), encoding="utf-8")
    result = run(["epsilon", str(path)])
    assert result.stderr.split(": ")[1:3] == [str(path), "emissions.a"]


# --- what is accepted ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "ratio"),
    [
        # 0.333333 + 0.333333 + 0.333334 = 1: read exactly, against 1/3 each.
        ("{x: 0.333333, y: 0.333333, z: 0.333334}", "500001/500000"),
        # 0.999999 misses 1 by 1e-6: accepted, then divided by its sum: 1/3 each.
        ("{x: 0.333333, y: 0.333333, z: 0.333333}", "1"),
        ("{x: 1/3, y: 1/3, z: 1/3}", "1"),
    ],
    ids=["decimals-summing-to-one", "decimals-within-1e-6", "fractions"],
)
def test_rounded_decimal_rows_are_accepted(tmp_path: Path, row: str, ratio: str) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(
        "states: [a, b]\n"
        "observations: [x, y, z]\n"
        "emissions:\n"
        f"  a: {row}\n"
        "  b: {x: 1/3, y: 1/3, z: 1/3}\n"
        "pairs: [[a, b]]\n"
        "horizon: 1\n",
        encoding="utf-8",
    )
    result = run(["epsilon", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert json.loads(result.stdout)["epsilon_star"]["ratio"] == ratio


def test_usage_errors_are_exit_2_without_output() -> None:
    """Typer's own usage errors (missing or mistyped options) also exit 2."""
    for argv in (
        ["verify", "geometric"],  # no --epsilon
        ["epsilon", "geometric", "--timeout", "soon"],
        ["epsilon", "geometric", "--horizon", "two"],
        ["epsilon"],
        ["frobnicate"],
    ):
        result = run(argv)
        assert result.exit_code == 2, argv
        assert result.stdout == ""
        assert "Traceback" not in result.output


# --- the real executable ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["verify", str(DATA / "raises_while_running.py"), "--epsilon", "1"], "ZeroDivisionError"),
        (["verify", "geometric", "--epsilon", "ln(two)"], "cannot read ε"),
    ],
    ids=["mechanism-crash", "bad-epsilon"],
)
def test_console_script_shows_no_traceback(args: list[str], expected: str) -> None:
    """Outside the test runner: a real process, real stdout and stderr, no traceback."""
    command = [sys.executable, "-c", "from faier.cli.main import main; main()", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert expected in done.stderr
    assert len(done.stderr.splitlines()) == 1
