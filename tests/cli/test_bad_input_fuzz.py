"""Generated bad input: whatever the text, faier answers with an exit code, never a crash.

Mutated HMM model files, random Python mechanism files, mutated PRISM files and
random dpCTL* formulas go through the CLI in process.  The exit code is one of
0 holds, 1 violated, 2 bad input, 3 unknown (never 4, never an uncaught
exception), and bad input is one line on stderr that starts with ``error: ``,
with nothing on stdout.  tests/cli/test_bad_input.py pins the messages.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from faier.cli.main import app

runner = CliRunner()
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")  # compiling random Python

FUZZ = settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""≈ 50 examples per property keeps the file well under a minute."""

BUDGET = ["--timeout", "2", "--max-states", "2000"]
"""A mutation may make the search long (horizon: 10000000000): then the answer is 3."""

HMM = """\
name: fuzzed
states: [a, b, c]
observations: [x, y]
transitions:
  a: {b: 1/2, c: 1/2}
  b: {b: 1}
initial:
  prior: {a: 1/3, b: 2/3}
emissions:
  a: {x: 1/2, y: 1/2}
  b: {x: 0.25, y: 0.75}
  c: {x: 1}
pairs: [[a, b], [prior, c]]
horizon: 2
"""

PRISM = """\
dtmc

const double p = 3/4;

module survey
  s : [0..3];
  [] s=0 -> p : (s'=2) + 1-p : (s'=3);
  [] s=1 -> 1-p : (s'=2) + p : (s'=3);
  [] s>=2 -> 1 : (s'=s);
endmodule

init s<=1 endinit

label "pos" = s=0;
label "neg" = s=1;
label "out1" = s=2;
label "out0" = s=3;
"""

NUMBER = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?")

HMM_TOKENS = [
    "-1",
    "0",
    "2",
    "3/2",
    "1/0",
    "1e999999",
    "1e-9",
    "9" * 5000,
    ".nan",
    ".inf",
    "p",
    "1-p",
    "sqrt(2)",
    "2^100",
    "''",
    "[]",
    "{}",
    "null",
    "true",
    "0.333333",
    "10000000000",
    "2001-13-45",
    ":",
    "\t",
]
PRISM_TOKENS = [
    "-1",
    "0",
    "2",
    "3/2",
    "1/0",
    "0/0",
    "p",
    "q",
    "s",
    "s'",
    "true",
    "0.5",
    "(",
    ")",
    ";",
    "+",
    "->",
    "[]",
    "[a]",
    "ctmc",
    "mdp",
    "pta",
    "1000000",
    "const int",
]
FORMULA_TOKENS = [
    "D{ln(3), 0}[",
    "D{",
    "D{1}[",
    "}",
    "[",
    "]",
    "(",
    ")",
    "X",
    "F",
    "G",
    "U",
    "U<=2",
    "F<=3",
    "G<=1",
    "!",
    "&",
    "|",
    "->",
    "P>=0.5 [",
    "P=? [",
    "Pmin=? [",
    "P in (1/4, 3/4] [",
    "out1",
    "out0",
    "true",
    "false",
    '"out1"',
    "ln(2)",
    ",",
    "0",
    "1/2",
    "-1",
    "1e-3",
    "¬",
    "∧",
    "∨",
    "→",
    "=>",
    "<=",
    "*",
    "^",
]
PYTHON_FRAGMENTS = [
    "import faier",
    "import random",
    "import sys",
    "from fractions import Fraction",
    "@faier.program(inputs=faier.scalars(2))",
    "@faier.program(inputs=faier.grid(1, 2))",
    "@faier.program()",
    "def m(x, ctx):",
    "def n(x):",
    "    return x",
    "    return [x]",
    "    return None",
    "    return ctx.draw(faier.bernoulli(Fraction(1, 3))) + x",
    "    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, x))",
    "    return ctx.draw(faier.bernoulli(2))",
    "    return ctx.draw(5)",
    "    return x + random.random()",
    "    raise ValueError('no\\nno')",
    "    sys.exit(1)",
    "raise SystemExit(3)",
    "raise BaseException('odd')",
    "x = 1/0",
    "pass",
    "'''",
    "#",
    "\t",
    "",
]

_names = itertools.count()


def run(args: list[str]) -> Result:
    """The CLI in process; an exception that escapes it is a failure of the property."""
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        result.exc_info,
    )
    return result


def assert_clean_exit(result: Result, shown: str) -> None:
    """0, 1, 2 or 3; bad input is one 'error: ' line on stderr and nothing on stdout."""
    assert result.exit_code in {0, 1, 2, 3}, (shown, result.exit_code, result.output)
    assert "Traceback" not in result.output, shown
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, (shown, result.stderr)
        assert lines[0].startswith("error: "), (shown, result.stderr)
        assert result.stdout == "", (shown, result.stdout)


def write(folder: Path, suffix: str, content: str) -> Path:
    """A fresh file per example (a reused .py path could load stale bytecode)."""
    path = folder / f"fuzz{next(_names)}{suffix}"
    path.write_text(content, encoding="utf-8", errors="surrogatepass")
    return path


def mutations(tokens: list[str]) -> st.SearchStrategy[tuple[object, ...]]:
    """One edit of a text; positions are taken modulo the text's length when applied."""
    spot = st.integers(min_value=0, max_value=10_000)
    token = st.sampled_from(tokens) | st.text(max_size=6)
    return st.one_of(
        st.tuples(st.just("delete"), spot, st.integers(min_value=1, max_value=8)),
        st.tuples(st.just("swap-characters"), spot),
        st.tuples(st.just("delete-line"), spot),
        st.tuples(st.just("duplicate-line"), spot),
        st.tuples(st.just("swap-lines"), spot, spot),
        st.tuples(st.just("replace-number"), spot, token),
        st.tuples(st.just("insert"), spot, token),
    )


def mutate(text: str, edits: list[tuple[object, ...]]) -> str:
    for kind, *args in edits:
        lines = text.split("\n")
        at = int(args[0]) % max(len(text), 1)
        line = int(args[0]) % len(lines)
        if kind == "delete":
            text = text[:at] + text[at + int(args[1]) :]
        elif kind == "swap-characters" and len(text) > 1:
            at = min(at, len(text) - 2)
            text = text[:at] + text[at + 1] + text[at] + text[at + 2 :]
        elif kind == "delete-line":
            text = "\n".join(lines[:line] + lines[line + 1 :])
        elif kind == "duplicate-line":
            text = "\n".join(lines[: line + 1] + lines[line:])
        elif kind == "swap-lines":
            other = int(args[1]) % len(lines)
            lines[line], lines[other] = lines[other], lines[line]
            text = "\n".join(lines)
        elif kind == "replace-number":
            numbers = list(NUMBER.finditer(text))
            if numbers:
                found = numbers[int(args[0]) % len(numbers)]
                text = text[: found.start()] + str(args[1]) + text[found.end() :]
        elif kind == "insert":
            text = text[:at] + str(args[1]) + text[at:]
    return text


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_the_unmutated_files_are_accepted(folder: Path) -> None:
    """The fuzzed texts start from files faier accepts: the mutations make them bad."""
    model = run(["verify", str(write(folder, ".yaml", HMM)), "--epsilon", "ln(3)"])
    assert model.exit_code in {0, 1}, model.output
    prism = str(write(folder, ".pm", PRISM))
    chain = run(["check", prism, "--neighbors", "@pos~@neg", "--formula=D{ln(3), 0}[X out1]"])
    assert chain.exit_code == 0, chain.output


@FUZZ
@given(edits=st.lists(mutations(HMM_TOKENS), min_size=1, max_size=3), as_json=st.booleans())
def test_mutated_model_files(folder: Path, edits: list[tuple[object, ...]], as_json: bool) -> None:
    text = mutate(HMM, edits)
    path = write(folder, ".yaml", text)
    result = run(["verify", str(path), "--epsilon", "1", *BUDGET] + (["--json"] if as_json else []))
    assert_clean_exit(result, text)


@FUZZ
@given(
    text=st.text(max_size=200)
    | st.lists(st.sampled_from(PYTHON_FRAGMENTS), max_size=8).map("\n".join)
    | st.lists(st.sampled_from(PYTHON_FRAGMENTS) | st.text(max_size=10), max_size=8).map("\n".join),
    as_json=st.booleans(),
)
def test_random_mechanism_files(folder: Path, text: str, as_json: bool) -> None:
    path = write(folder, ".py", text)
    result = run(["verify", str(path), "--epsilon", "1", *BUDGET] + (["--json"] if as_json else []))
    assert_clean_exit(result, text)


@FUZZ
@given(edits=st.lists(mutations(PRISM_TOKENS), min_size=1, max_size=3), as_json=st.booleans())
def test_mutated_prism_files(folder: Path, edits: list[tuple[object, ...]], as_json: bool) -> None:
    text = mutate(PRISM, edits)
    path = write(folder, ".pm", text)
    args = ["check", str(path), "--neighbors", "@pos~@neg", "--formula=D{ln(3), 0}[X out1]"]
    result = run(args + (["--json"] if as_json else []))
    assert_clean_exit(result, text)


@FUZZ
@given(
    pieces=st.lists(st.sampled_from(FORMULA_TOKENS) | st.text(max_size=3), max_size=25),
    glue=st.sampled_from([" ", ""]),
    as_json=st.booleans(),
)
def test_random_formulas(pieces: list[str], glue: str, as_json: bool) -> None:
    formula = glue.join(pieces)
    result = run(["check", "survey", f"--formula={formula}"] + (["--json"] if as_json else []))
    assert_clean_exit(result, formula)
