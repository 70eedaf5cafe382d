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
LOGIC = Path(__file__).parents[1] / "logic" / "models"

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


PARAMETRIC = 'parameters:\n  p: {domain: "(0, 1/2)"}\n' + model("{x: p, y: 1-p}")
"""The same HMM with a parameter p in (0, 1/2) in the emissions of a."""


def mechanism(body: str, imports: str = "") -> str:
    """A Python file defining one mechanism, ``coin``, whose body (line 6) is ``body``."""
    first = f"import faier, {imports}" if imports else "import faier"
    return f"{first}\n\n\n@faier.program(inputs=faier.scalars(2))\ndef coin(x, ctx):\n    {body}\n"


COIN = (
    "dtmc\n\n"
    "module coin\n"
    "  s : [0..2];\n"
    "  [] s=0 -> 1/2 : (s'=1) + 1/2 : (s'=2);\n"
    "  [] s>0 -> 1 : (s'=s);\n"
    "endmodule\n\n"
    'label "heads" = s=1;\n'
    'label "start" = s=0;\n'
)
"""A small PRISM DTMC: a fair coin from s=0 (labels heads, start)."""

BIASED = COIN.replace("dtmc\n", "dtmc\nconst double q;\n").replace(
    "1/2 : (s'=1) + 1/2", "q : (s'=1) + 1-q"
)
"""The coin with an undefined constant q."""


def case(
    id: str,
    args: list[str],
    expected: list[str],
    fix: str,
    files: dict[str, str | bytes | None] | None = None,
) -> object:
    """One bad input: the command, text the message must contain, and its fix hint.

    ``{tmp}``, ``{data}`` and ``{logic}`` in the arguments and the expected text stand
    for the test's tmp_path, tests/cli/data and tests/logic/models; ``files`` are
    written into tmp_path first (bytes as they are, None as an empty folder).
    """
    return pytest.param(args, expected, fix, files or {}, id=id)


VERIFY = ["verify", "--epsilon", "1"]
SURVEY = ["check", "survey", "-f"]
CROWDS = [
    "check",
    "{logic}/crowds.pm",
    "--neighbors",
    "@sentA~@sentB",
    "-f",
    "D{ln(3), 0}[F reportedA]",
]
CROWD_SET = ["--set", "PF=4/5", "--set", "badC=1", "--set", "CrowdSize=5", "--set", "TotalRuns=2"]
TEST = ["test", "svt-laplace", "--claimed", "0.7"]

DEEP = 100_000

CASES = [
    # --- model files ---------------------------------------------------------------------
    case(
        "yaml-nested-100000-levels",
        [*VERIFY, "{tmp}/deep.yaml"],
        ["{tmp}/deep.yaml", "nested deeper than its reader can follow"],
        "check the brackets",
        {"deep.yaml": "states: " + "[" * DEEP + "]" * DEEP + "\n"},
    ),
    case(
        "json-nested-100000-levels",
        [*VERIFY, "{tmp}/deep.json"],
        ["{tmp}/deep.json", "nested deeper than its reader can follow"],
        "check the brackets",
        {"deep.json": '{"states": ' + "[" * DEEP + "]" * DEEP + "}"},
    ),
    case(
        "yaml-nested-past-the-limit",
        [*VERIFY, "{tmp}/deep.yaml"],
        ["{tmp}/deep.yaml", "nested 101 levels deep (at most 100 levels)"],
        "check the brackets",
        {"deep.yaml": "states: " + "[" * 101 + "]" * 101 + "\n"},
    ),
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
    case(
        "yaml-tab-indentation",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 4: not valid YAML", "found character"],
        "check the indentation and quoting on that line",
        {"model.yaml": model().replace("  a:", "\ta:")},
    ),
    case(
        "yaml-bad-indentation",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 5: not valid YAML"],
        "check the indentation and quoting on that line",
        {"model.yaml": model().replace("  b:", "     b:")},
    ),
    case(
        "yaml-repeated-state-row",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 5:", "the key 'a' appears twice"],
        "keep one of them",
        {"model.yaml": model().replace("  b: {x", "  a: {x: 1}\n  b: {x")},
    ),
    case(
        "yaml-repeated-key-in-a-row",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 4:", "the key 'x' appears twice"],
        "keep one of them",
        {"model.yaml": model("{x: 1/2, x: 1/2}")},
    ),
    case(
        "json-repeated-key",
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json:", "the key 'states' appears twice"],
        "keep one of them",
        {"model.json": '{"states": ["a", "b"], "states": ["a"]}\n'},
    ),
    case(
        "json-extra-data",
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json: line 1: not valid JSON: Extra data"],
        "check commas, brackets and quotes",
        {"model.json": '{"states": ["a"]}}\n'},
    ),
    case(
        "json-empty-file",
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json: line 1: not valid JSON"],
        "check commas, brackets and quotes",
        {"model.json": ""},
    ),
    case(
        "yaml-two-documents",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 8: not valid YAML", "another document"],
        "check the indentation and quoting on that line",
        {"model.yaml": model() + "---\n" + model()},
    ),
    case(
        "yaml-python-tag-is-not-run",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 1: not valid YAML", "could not determine a constructor"],
        "check the indentation and quoting on that line",
        {"model.yaml": "!!python/object/apply:os.system ['echo hi']\n"},
    ),
    case(
        "yaml-impossible-date",  # was a ValueError from PyYAML
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: not valid YAML: cannot read a value (month must be in 1..12)"],
        "quote text that looks like a date or a number",
        {"model.yaml": model().replace("states: [a, b]", "states: [a, 2001-13-45]")},
    ),
    case(
        "yaml-integer-of-5000-digits",  # was a ValueError from PyYAML
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: not valid YAML: a whole number has more than 4300 digits"],
        "write it as a fraction or a decimal",
        {"model.yaml": model("{x: " + "9" * 5000 + ", y: 1/2}")},
    ),
    case(
        "json-integer-of-5000-digits",  # was a ValueError from json
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json: not valid JSON: a whole number has more than 4300 digits"],
        "write it as a fraction or a decimal",
        {"model.json": '{"horizon": ' + "9" * 5000 + "}\n"},
    ),
    case(
        "top-level-is-a-list",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: the top level is a list, not a mapping"],
        "write 'key: value' entries; keys are name, description, parameters",
        {"model.yaml": "- a\n- b\n"},
    ),
    case(
        "top-level-is-text",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: the top level is the text 'hello', not a mapping"],
        "write 'key: value' entries",
        {"model.yaml": "hello\n"},
    ),
    case(
        "json-top-level-is-a-list",
        [*VERIFY, "{tmp}/model.json"],
        ["{tmp}/model.json: the top level is a list, not a mapping"],
        "write 'key: value' entries",
        {"model.json": "[1, 2]\n"},
    ),
    case(
        "empty-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: the file is empty"],
        "see docs/MODEL_FILES.md",
        {"model.yaml": ""},
    ),
    case(
        "comments-only",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: the file is empty"],
        "see docs/MODEL_FILES.md",
        {"model.yaml": "# states: [a, b]\n"},
    ),
    case(
        "binary-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: not UTF-8 text (byte 0)"],
        "save the file as UTF-8",
        {"model.yaml": b"\xff\xfe\x00\x01states"},
    ),
    case(
        "latin-1-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: not UTF-8 text (byte 12)"],
        "save the file as UTF-8",
        {"model.yaml": b"states: [caf\xe9]\n"},
    ),
    case(
        "control-character",  # PyYAML's note on it spans two lines
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: line 2: not valid YAML: the control character U+0000"],
        "remove it, or write it as an escape",
        {"model.yaml": "states: [a, b]\nobservations: [x\x00, y]\n"},
    ),
    case(
        "model-path-is-a-folder",
        [*VERIFY, "{tmp}/folder.yaml"],
        ["{tmp}/folder.yaml: not a file"],
        "give the path of a file, not a folder",
        {"folder.yaml": None},
    ),
    case(
        "folder-without-a-suffix",
        [*VERIFY, "{tmp}"],
        ["unknown target '{tmp}'"],
        "a model file (.yaml, .json) or a mechanism file (.py)",
    ),
    case(
        "missing-states",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: missing 'states'"],
        "every model file lists states, observations, emissions",
        {"model.yaml": model().replace("states: [a, b]\n", "")},
    ),
    case(
        "missing-observations",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: missing 'observations'"],
        "every model file lists states, observations, emissions",
        {"model.yaml": model().replace("observations: [x, y]\n", "")},
    ),
    case(
        "missing-emissions",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: missing 'emissions'"],
        "every model file lists states, observations, emissions",
        {"model.yaml": "states: [a, b]\nobservations: [x, y]\npairs: [[a, b]]\n"},
    ),
    case(
        "no-pairs",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: pairs: the model lists no pairs to compare"],
        "add e.g. 'pairs: [[with-secret, without-secret]]'",
        {"model.yaml": model().replace("pairs: [[a, b]]\n", "")},
    ),
    case(
        "no-states",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: states: expected a non-empty list of state names"],
        "write e.g. states: [a, b]",
        {"model.yaml": "states: []\nobservations: [x]\nemissions: {}\n"},
    ),
    case(
        "state-listed-twice",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: states: state 'a' is listed twice"],
        "list each name once",
        {"model.yaml": model().replace("states: [a, b]", "states: [a, b, a]")},
    ),
    case(
        "state-named-yes",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: states: state name True was read as a boolean"],
        "quote it: 'True'",
        {"model.yaml": model().replace("states: [a, b]", "states: [a, yes]")},
    ),
    case(
        "transitions-row-sum",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: transitions.a:", "sum to 5/6"],
        "fractions must sum to exactly 1",
        {"model.yaml": model(extra="transitions:\n  a: {a: 1/2, b: 1/3}\n")},
    ),
    case(
        "transitions-row-is-a-list",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: transitions.a: expected a mapping, got a list"],
        "write 'state: probability' entries",
        {"model.yaml": model(extra="transitions:\n  a: [a, b]\n")},
    ),
    case(
        "transitions-is-a-number",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: transitions: expected a mapping, got the number 3"],
        "write state: {next-state: probability}",
        {"model.yaml": model(extra="transitions: 3\n")},
    ),
    case(
        "emissions-is-a-list",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions: expected a mapping, got a list"],
        "write state: {observation: probability}",
        {"model.yaml": "states: [a]\nobservations: [x]\nemissions: [1, 2]\n"},
    ),
    case(
        "initial-row-sum",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: initial.p:", "sum to 1/2"],
        "fractions must sum to exactly 1",
        {"model.yaml": model(extra="initial:\n  p: {a: 1/2}\n  q: {b: 1}\n", pairs="[[p, q]]")},
    ),
    case(
        "initial-named-like-a-state",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: initial: initial distribution 'a' has the name of a state"],
        "rename it",
        {"model.yaml": model(extra="initial:\n  a: {a: 1}\n")},
    ),
    case(
        "pair-with-itself",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: pairs[0]: the pair compares 'a' with itself"],
        "compare two different distributions or states",
        {"model.yaml": model(pairs="[[a, a]]")},
    ),
    case(
        "pair-of-three",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: pairs[0]: a pair is a list of two names"],
        "write e.g. [with-secret, without-secret]",
        {"model.yaml": model(pairs="[[a, b, a]]")},
    ),
    case(
        "pairs-is-text",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: pairs: expected a list of pairs, got the text 'ab'"],
        "write e.g. pairs: [[with-secret, without-secret]]",
        {"model.yaml": model(pairs="ab")},
    ),
    case(
        "horizon-zero-in-the-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon: expected a positive whole number, got the number 0"],
        "the horizon is the length of observation sequences",
        {"model.yaml": model().replace("horizon: 1", "horizon: 0")},
    ),
    case(
        "horizon-negative-in-the-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon:", "got the number -3"],
        "the horizon is the length of observation sequences",
        {"model.yaml": model().replace("horizon: 1", "horizon: -3")},
    ),
    case(
        "horizon-fraction-in-the-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon:", "got the number 1.5"],
        "the horizon is the length of observation sequences",
        {"model.yaml": model().replace("horizon: 1", "horizon: 1.5")},
    ),
    case(
        "horizon-word-in-the-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon:", "got the text 'two'"],
        "the horizon is the length of observation sequences",
        {"model.yaml": model().replace("horizon: 1", "horizon: two")},
    ),
    case(
        "horizon-boolean-in-the-file",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon:", "got the boolean True"],
        "the horizon is the length of observation sequences",
        {"model.yaml": model().replace("horizon: 1", "horizon: true")},
    ),
    case(
        "name-is-a-list",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: name: expected text, got a list"],
        "quote it",
        {"model.yaml": "name: [1]\n" + model()},
    ),
    case(
        "probability-nan",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x: nan is not a probability"],
        "probabilities lie in [0, 1]",
        {"model.yaml": model("{x: .nan, y: 1/2}")},
    ),
    case(
        "probability-exponent-out-of-range",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x: 1e999999 is out of range"],
        "write a probability such as 1e-9",
        {"model.yaml": model("{x: 1e999999, y: 1/2}")},
    ),
    case(
        "probability-divides-by-zero",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x: cannot parse the probability '1/0': division by zero"],
        "use +, -, *, /, ^ and parentheses",
        {"model.yaml": model("{x: 1/0, y: 1/2}")},
    ),
    case(
        "probability-uses-a-function",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a.x:", "'sqrt(p)' is not allowed here"],
        "declared: p",
        {"model.yaml": PARAMETRIC.replace("1-p}", "1-sqrt(p)}").replace("{x: p", "{x: sqrt(p)")},
    ),
    case(
        "parametric-row-sum",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: emissions.a:", "sum to p + 1/2, not 1"],
        "make the row sum to exactly 1 for every parameter value",
        {"model.yaml": PARAMETRIC.replace("y: 1-p", "y: 1/2")},
    ),
    case(
        "parameter-empty-domain",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.p.domain: empty interval (1, 0)"],
        "write the lower end first",
        {"model.yaml": PARAMETRIC.replace("(0, 1/2)", "(1, 0)")},
    ),
    case(
        "parameter-domain-not-an-interval",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.p.domain: 'zero to one' is not an interval"],
        "write e.g. (0, 1) or [0, 1/2]",
        {"model.yaml": PARAMETRIC.replace("(0, 1/2)", "zero to one")},
    ),
    case(
        "parameter-domain-unquoted",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.p.domain: a domain is an interval written as text"],
        "quote it",
        {"model.yaml": PARAMETRIC.replace('"(0, 1/2)"', "[0, 1]")},
    ),
    case(
        "parameter-value-outside-domain",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.p: the value 3/4 of parameter 'p' lies outside"],
        "choose a value inside the domain",
        {"model.yaml": PARAMETRIC.replace('"(0, 1/2)"', '"(0, 1/2)", value: 3/4')},
    ),
    case(
        "parameter-name-not-an-identifier",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.2p: parameter name '2p' is not an identifier"],
        "use letters, digits and _",
        {"model.yaml": 'parameters:\n  2p: {domain: "(0, 1)", value: 1/3}\n' + model()},
    ),
    case(
        "parameter-misspelt-key",
        [*VERIFY, "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: parameters.p: unknown key 'domian'"],
        "did you mean 'domain'?",
        {"model.yaml": PARAMETRIC.replace("domain:", "domian:")},
    ),
    case(
        "set-outside-the-declared-domain",  # was a verdict for a value the file rules out
        ["epsilon", "{tmp}/model.yaml", "--set", "p=3/4"],
        ["{tmp}/model.yaml: --set p=3/4:", "3/4 lies outside the domain (0, 1/2) of parameter 'p'"],
        "choose a value inside the domain",
        {"model.yaml": PARAMETRIC},
    ),
    case(
        "set-outside-the-probabilities",  # was 'emission row ... is not a probability distribution'
        ["epsilon", "{tmp}/model.yaml", "--set", "p=2"],
        ["{tmp}/model.yaml: --set p=2:", "2 lies outside the domain (0, 1/2)"],
        "choose a value inside the domain",
        {"model.yaml": PARAMETRIC},
    ),
    case(
        "param-value-outside-the-declared-domain",
        ["verify", "{tmp}/model.yaml", "--epsilon", "1", "--param", "p=3/4"],
        ["{tmp}/model.yaml: --param p=3/4:", "3/4 lies outside the domain (0, 1/2)"],
        "choose a value inside the domain",
        {"model.yaml": PARAMETRIC},
    ),
    case(
        "set-model-parameter-not-a-number",
        ["epsilon", "{tmp}/model.yaml", "--set", "p=half"],
        ["{tmp}/model.yaml: --set p:", "'half' is not a number"],
        "write a fraction or a decimal, e.g. --set p=1/3",
        {"model.yaml": PARAMETRIC},
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
    case(
        "python-import-error",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1:", "raised ModuleNotFoundError while loading"],
        "fix the error in the file",
        {"broken.py": "import faier_no_such_module\n"},
    ),
    case(
        "python-name-not-in-faier",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1:", "raised ImportError while loading: cannot import name"],
        "fix the error in the file",
        {"broken.py": "from faier import no_such_name\n"},
    ),
    case(
        "python-indentation-error",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:2:", "raised IndentationError while loading"],
        "fix the error in the file",
        {"broken.py": "import faier\n  x = 1\n"},
    ),
    case(
        "python-null-bytes",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:", "raised SyntaxError while loading"],
        "fix the error in the file",
        {"broken.py": b"x = 1\x00\n"},
    ),
    case(
        "python-empty-file",
        [*VERIFY, "{tmp}/empty.py"],
        ["{tmp}/empty.py: defines no mechanism"],
        "decorate a function with @faier.program",
        {"empty.py": ""},
    ),
    case(
        "python-file-exits-while-loading",  # sys.exit(0) must not pass for 'holds'
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:2:", "raised SystemExit while loading: 0"],
        "fix the error in the file",
        {"broken.py": "import sys\nsys.exit(0)\n"},
    ),
    case(
        "python-file-raises-base-exception",  # was an uncaught exception
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1:", "raised BaseException while loading: odd"],
        "fix the error in the file",
        {"broken.py": "raise BaseException('odd')\n"},
    ),
    case(
        "python-exception-without-text",
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1: raised ValueError while loading (fix"],
        "fix the error in the file",
        {"broken.py": "raise ValueError()\n"},
    ),
    case(
        "python-exception-over-three-lines",  # was three lines on stderr
        [*VERIFY, "{tmp}/broken.py"],
        ["{tmp}/broken.py:1:", "raised ValueError while loading: one two three"],
        "fix the error in the file",
        {"broken.py": "raise ValueError('one\\ntwo\\nthree')\n"},
    ),
    case(
        "mechanism-uses-random",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:6:", "mechanism 'coin' is not deterministic apart from ctx.draw"],
        "make every random choice with ctx.draw",
        {"coin.py": mechanism("return x + random.random()", imports="random")},
    ),
    case(
        "mechanism-raises-base-exception",  # was an uncaught exception
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:6:", "mechanism 'coin' raised BaseException: odd"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("raise BaseException('odd')")},
    ),
    case(
        "mechanism-exits",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:6:", "mechanism 'coin' raised SystemExit: 0"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("sys.exit(0)", imports="sys")},
    ),
    case(
        "mechanism-draws-a-number",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:6:", "draw() needs a faier Distribution, got int"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("return ctx.draw(5)")},
    ),
    case(
        "mechanism-bernoulli-above-one",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:6:", "Bernoulli parameter 2 is not in [0, 1]"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("return ctx.draw(faier.bernoulli(2))")},
    ),
    case(
        "mechanism-returns-a-list",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:", "mechanism 'coin' raised TypeError: unhashable type: 'list'"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("return [x]")},
    ),
    case(
        "mechanism-without-ctx",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:", "coin() takes 1 positional argument but 2 were given"],
        "fix the mechanism so it runs on every input",
        {"coin.py": mechanism("return x").replace("(x, ctx)", "(x)")},
    ),
    case(
        "program-without-inputs",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:4:", "missing 1 required keyword-only argument: 'inputs'"],
        "fix the error in the file",
        {"coin.py": mechanism("return x").replace("inputs=faier.scalars(2)", "")},
    ),
    case(
        "program-with-negative-inputs",
        [*VERIFY, "{tmp}/coin.py"],
        ["{tmp}/coin.py:4:", "raised SpecError while loading"],
        "fix the error in the file",
        {"coin.py": mechanism("return x").replace("scalars(2)", "scalars(-1)")},
    ),
    case(
        "test-python-syntax-error",
        ["test", "{tmp}/broken.py", "--claimed", "1"],
        ["{tmp}/broken.py:1:", "raised SyntaxError while loading"],
        "fix the error in the file",
        {"broken.py": "def mechanism(x, ctx:\n    return x\n"},
    ),
    case(
        "certify-python-file-without-mechanism",
        ["certify", "{data}/no_mechanism.py", "--claimed", "1"],
        ["{data}/no_mechanism.py: defines no mechanism"],
        "decorate a function with @faier.program",
    ),
    case(
        "bound-python-file-raises-at-import",
        ["bound", "{data}/raises_at_import.py", "--claimed", "1"],
        ["{data}/raises_at_import.py:6:", "raised KeyError while loading: 'beta'"],
        "fix the error in the file",
    ),
    case(
        "test-two-mechanisms-without-name",
        ["test", "{data}/two_mechanisms.py", "--claimed", "1"],
        ["{data}/two_mechanisms.py: defines 2 mechanisms (half, third)"],
        "choose one with --name NAME",
    ),
    case(
        "test-a-model-file",
        ["test", "{tmp}/model.yaml", "--claimed", "1"],
        ["is an HMM model; the statistical tester runs mechanisms"],
        "use 'faier epsilon' or 'faier verify' on model files",
        {"model.yaml": model()},
    ),
    # --- PRISM files (faier check) -------------------------------------------------------
    case(
        "prism-syntax-error",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ['{tmp}/coin.pm: line 5, column 17: not valid PRISM: expecting ":"'],
        "see the PRISM manual's syntax for that construct",
        {"coin.pm": COIN.replace("-> 1/2", "-> 1/2 1/2")},
    ),
    case(
        "prism-missing-semicolon",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ['{tmp}/coin.pm: line 7, column 1: not valid PRISM: expecting ";"'],
        "see the PRISM manual's syntax for that construct",
        {"coin.pm": COIN.replace("(s'=s);", "(s'=s)")},
    ),
    case(
        "prism-empty-file",
        ["check", "{tmp}/coin.pm", "-f", "true"],
        ["{tmp}/coin.pm: line 1, column 1: not valid PRISM: expecting <model type>"],
        "see the PRISM manual's syntax for that construct",
        {"coin.pm": ""},
    ),
    case(
        "prism-binary-file",  # was a UnicodeDecodeError from stormpy
        ["check", "{tmp}/coin.pm", "-f", "true"],
        ["{tmp}/coin.pm: not UTF-8 text (byte 0)"],
        "save the file as UTF-8",
        {"coin.pm": b"\xff\xfe\x00dtmc"},
    ),
    case(
        "prism-path-is-a-folder",
        ["check", "{tmp}/folder.pm", "-f", "true"],
        ["{tmp}/folder.pm: not a file"],
        "give the path of a file, not a folder",
        {"folder.pm": None},
    ),
    case(
        "prism-ctmc",  # was Storm's advice to pass '-pc'
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: a CTMC model"],
        "faier checks dpCTL* on DTMCs and MDPs only",
        {"coin.pm": COIN.replace("dtmc", "ctmc")},
    ),
    case(
        "prism-markov-automaton",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: a MA model"],
        "faier checks dpCTL* on DTMCs and MDPs only",
        {"coin.pm": COIN.replace("dtmc", "ma")},
    ),
    case(
        "prism-pta",  # was a ValueError from stormpy's enum
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: a PTA model"],
        "faier checks dpCTL* on DTMCs and MDPs only",
        {"coin.pm": COIN.replace("dtmc", "// timed\npta")},
    ),
    case(
        "prism-row-sum",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: transitions of 's=0': probabilities sum to 5/6, not 1"],
        "the probabilities of each command's updates must sum to 1",
        {"coin.pm": COIN.replace("1/2 : (s'=2)", "1/3 : (s'=2)")},
    ),
    case(
        "prism-probability-above-one",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: a transition probability is 3/2 (from s=0 to s=1)"],
        "probabilities lie in [0, 1]",
        {"coin.pm": COIN.replace("1/2 : (s'=1) + 1/2", "3/2 : (s'=1) + -1/2")},
    ),
    case(
        "prism-log-has-no-exact-value",  # was Storm's "boost::bad_any_cast"
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: an expression has no exact rational value (log,"],
        "write that value as a rational constant",
        {
            "coin.pm": COIN.replace("dtmc\n", "dtmc\nconst double h = log(2, 2) / 2;\n").replace(
                "1/2 : (s'=1) + 1/2", "h : (s'=1) + (1 - h)"
            )
        },
    ),
    case(
        "prism-update-out-of-range",  # Storm wrapped s'=5 in [0..2] around to s=1: P = 1
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm:", "out-of-bounds value (5) for the variable 's'"],
        "keep every update within its variable's range",
        {"coin.pm": COIN.replace("(s'=2);", "(s'=5);")},
    ),
    case(
        "prism-update-out-of-range-by-a-constant",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "k=5"],
        ["{tmp}/coin.pm: Storm rejects the model with --set k=5:", "out-of-bounds value (5)"],
        "check the values given with --set",
        {"coin.pm": COIN.replace("dtmc\n", "dtmc\nconst int k;\n").replace("(s'=2);", "(s'=k);")},
    ),
    case(
        "prism-undefined-constant",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]"],
        ["{tmp}/coin.pm: undefined constants: q"],
        "give them with --set NAME=VALUE, e.g. --set q=1",
        {"coin.pm": BIASED},
    ),
    case(
        "prism-set-unknown-constant",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "zz=1"],
        ["{tmp}/coin.pm: --set zz: the model has no undefined constant 'zz'"],
        "undefined constants: (none)",
        {"coin.pm": COIN},
    ),
    case(
        "prism-set-repeated",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "q=1/2", "--set", "q=1/3"],
        ["--set: q is set twice"],
        "give each value once",
        {"coin.pm": BIASED},
    ),
    case(
        "prism-set-without-value",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "q"],
        ["--set: needs NAME=VALUE, got 'q'"],
        "e.g. --set n=5",
        {"coin.pm": BIASED},
    ),
    case(
        "prism-set-not-a-number",  # had no fix
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "q=half"],
        ["{tmp}/coin.pm: --set q=half: not a number"],
        "q is a double: e.g. --set q=1/2",
        {"coin.pm": BIASED},
    ),
    case(
        "prism-set-bool-not-a-bool",  # had no fix
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "b=maybe"],
        ["{tmp}/coin.pm: --set b=maybe: expected true or false"],
        "b is a bool: --set b=true or --set b=false",
        {"coin.pm": COIN.replace("dtmc\n", "dtmc\nconst bool b;\n")},
    ),
    case(
        "prism-set-a-defined-constant",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--set", "k=2"],
        ["{tmp}/coin.pm: --set k: the file defines 'k' itself"],
        "override a definition with --const k=2",
        {"coin.pm": COIN.replace("dtmc\n", "dtmc\nconst int k = 1;\n")},
    ),
    case(
        "prism-mdp-query-without-min-or-max",
        ["check", "{tmp}/coin.nm", "-f", "P=? [F heads]"],
        ["formula, column 1: on an MDP the probability depends on the scheduler"],
        "ask Pmin=? [...] or Pmax=? [...]",
        {"coin.nm": COIN.replace("dtmc", "mdp")},
    ),
    case(
        "prism-unknown-label",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F tails]"],
        ["formula, column 8: unknown label 'tails'"],
        "labels of coin are deadlock, heads, init, start",
        {"coin.pm": COIN},
    ),
    case(
        "prism-d-without-neighbours",
        ["check", "{tmp}/coin.pm", "-f", "D{1}[F heads]"],
        ["formula, column 1: D compares each state with its neighbours"],
        "give one, e.g. --neighbors 'a~b'",
        {"coin.pm": COIN},
    ),
    case(
        "prism-neighbours-unknown-label",
        ["check", "{tmp}/coin.pm", "-f", "D{1}[F heads]", "--neighbors", "@nope~@start"],
        ["--neighbors: neighbour pair names the label 'nope', which no state carries"],
        "labels are heads, init, start",
        {"coin.pm": COIN},
    ),
    case(
        "prism-unknown-state",
        ["check", "{tmp}/coin.pm", "-f", "P=? [F heads]", "--state", "s=9"],
        ["--state: 's=9' is not a state of coin"],
        "did you mean 's=2'?",
        {"coin.pm": COIN},
    ),
    case(
        "crowds-probability-above-one",
        [
            *CROWDS,
            "--set",
            "PF=1.3",
            "--set",
            "badC=1",
            "--set",
            "CrowdSize=5",
            "--set",
            "TotalRuns=2",
        ],
        ["{logic}/crowds.pm: --set PF=1.3 makes the probability (1 - PF) negative"],
        "give PF a value in [0, 1]",
    ),
    case(
        "crowds-negative-runs",
        [
            *CROWDS,
            "--set",
            "PF=4/5",
            "--set",
            "badC=1",
            "--set",
            "CrowdSize=5",
            "--set",
            "TotalRuns=-1",
        ],
        ["{logic}/crowds.pm: --set TotalRuns=-1 makes the range of runs, [0..TotalRuns], empty"],
        "choose TotalRuns so that 0 ≤ TotalRuns",
    ),
    case(
        "crowds-empty-crowd",  # Storm would crash (SIGFPE)
        [
            *CROWDS,
            "--set",
            "PF=4/5",
            "--set",
            "badC=1",
            "--set",
            "CrowdSize=0",
            "--set",
            "TotalRuns=2",
        ],
        ["{logic}/crowds.pm: --set CrowdSize=0 makes (badC / CrowdSize) divide by zero"],
        "choose CrowdSize so that CrowdSize ≠ 0",
    ),
    case(
        "crowds-more-corrupt-than-members",
        [
            *CROWDS,
            "--set",
            "PF=4/5",
            "--set",
            "badC=9",
            "--set",
            "CrowdSize=5",
            "--set",
            "TotalRuns=2",
        ],
        ["--set badC=9, CrowdSize=5 make the probability (badC / CrowdSize) exceed 1"],
        "choose badC, CrowdSize so that (badC / CrowdSize) ≤ 1",
    ),
    case(
        "crowds-fraction-for-an-int",  # had no fix
        [
            *CROWDS,
            "--set",
            "PF=4/5",
            "--set",
            "badC=1/2",
            "--set",
            "CrowdSize=5",
            "--set",
            "TotalRuns=2",
        ],
        ["{logic}/crowds.pm: --set badC=1/2: badC is an int"],
        "give a whole number",
    ),
    case(
        "crowds-constant-missing",
        [*CROWDS, "--set", "PF=4/5", "--set", "badC=1", "--set", "CrowdSize=5"],
        ["{logic}/crowds.pm: undefined constants: TotalRuns"],
        "give them with --set NAME=VALUE",
    ),
    case(
        "crowds-unknown-constant",
        [*CROWDS, *CROWD_SET, "--set", "Foo=1"],
        ["{logic}/crowds.pm: --set Foo: the model has no undefined constant 'Foo'"],
        "undefined constants: PF, badC, CrowdSize, TotalRuns",
    ),
    # --- dpCTL* formulas and the models of faier check -------------------------------------
    case(
        "formula-unclosed-bracket",
        [*SURVEY, "D{ln(3), 0}[X out1"],
        ["formula, column 12: unbalanced '[': it is never closed"],
        "add the matching ']'",
    ),
    case(
        "formula-stray-closing-bracket",
        [*SURVEY, "D{ln(3), 0}[X out1]]"],
        ["formula, column 20: unbalanced ']': nothing is open here"],
        "remove it or add the matching '['",
    ),
    case(
        "formula-unclosed-brace",
        [*SURVEY, "D{ln(3), 0[X out1]"],
        ["formula, column 2: unbalanced '{'"],
        "add the matching '}'",
    ),
    case(
        "formula-unclosed-parenthesis",
        [*SURVEY, "(out1 & out0"],
        ["formula, column 1: unbalanced '('"],
        "add the matching ')'",
    ),
    case(
        "formula-unknown-label",
        [*SURVEY, "D{ln(3), 0}[X out2]"],
        ["formula, column 15: unknown label 'out2'"],
        "did you mean 'out1'? labels of survey are out0, out1",
    ),
    case(
        "formula-doubled-and",
        [*SURVEY, "out1 && out0"],
        ["formula, column 7: unexpected '&'"],
        "expected '!', '(', '-', a label",
    ),
    case(
        "formula-unknown-operator",
        [*SURVEY, "P>=0 [out1 W out0]"],
        ["formula, column 12: unexpected 'W'"],
        "expected '&', '(', ')'",
    ),
    case(
        "formula-201-negations",
        [*SURVEY, "!" * 201 + "true"],
        ["formula, column 201: more than 200 operators are nested here"],
        "split the formula: at most 200 levels",
    ),
    case(
        "formula-100000-negations",
        [*SURVEY, "!" * 100_000 + "true"],
        ["formula, column 201: more than 200 operators are nested here"],
        "split the formula: at most 200 levels",
    ),
    case(
        "formula-201-parentheses",
        [*SURVEY, "(" * 201 + "true" + ")" * 201],
        ["formula, column 201: more than 200 brackets are open here"],
        "open at most 200 at once",
    ),
    case(
        "formula-202-conjuncts",
        [*SURVEY, " & ".join(["true"] * 202)],
        ["more than 200 operators are nested here"],
        "a chain a & b & c counts one per operator",
    ),
    case(
        "formula-negative-epsilon",
        [*SURVEY, "D{-1, 0}[X out1]"],
        ["formula, column 3: ε = '-1' is negative"],
        "ε must be at least 0",
    ),
    case(
        "formula-epsilon-word",
        [*SURVEY, "D{two, 0}[X out1]"],
        ["formula, column 3: cannot read ε = 'two'"],
        "write a number like 1.372 or a log form like ln(2)",
    ),
    case(
        "formula-epsilon-ln-zero",
        [*SURVEY, "D{ln(0), 0}[X out1]"],
        ["formula, column 3:", "'ln(0)' is not a finite number"],
        "write a number like 1.372",
    ),
    case(
        "formula-epsilon-missing",
        [*SURVEY, "D{}[X out1]"],
        ["formula, column 3: unexpected '}'"],
        "expected '(', '-', a label, a number",
    ),
    case(
        "formula-delta-above-one",
        [*SURVEY, "D{ln(3), 1.5}[X out1]"],
        ["formula, column 10: δ = 1.5 is not in [0, 1]"],
        "δ is a probability",
    ),
    case(
        "formula-delta-negative",
        [*SURVEY, "D{ln(3), -1}[X out1]"],
        ["formula, column 10: δ = -1 is not in [0, 1]"],
        "δ is a probability",
    ),
    case(
        "formula-three-arguments-to-d",
        [*SURVEY, "D{ln(3), 0, 1}[X out1]"],
        ["formula, column 11: unexpected ','"],
        "expected '}'",
    ),
    case(
        "formula-query-inside-a-formula",
        [*SURVEY, "out1 & P=? [X out1]"],
        ["formula, column 8: P=? asks for a probability and has no truth value"],
        "use it only as the whole formula",
    ),
    case(
        "formula-query-inside-d",
        [*SURVEY, "D{1}[X P=? [X out1]]"],
        ["formula, column 8: P=? asks for a probability and has no truth value"],
        "use it only as the whole formula",
    ),
    case(
        "formula-path-operator-outside-p-or-d",
        [*SURVEY, "X out1"],
        ["formula, column 1: X is a path operator outside P or D"],
        "put it inside P>=b [...]",
    ),
    case(
        "formula-bound-above-one",
        [*SURVEY, "P>=1.5 [X out1]"],
        ["formula, column 4: probability bound 3/2 is not in [0, 1]"],
        "a bound is a probability",
    ),
    case(
        "formula-interval-reversed",
        [*SURVEY, "P in (3/4, 1/4) [X out1]"],
        ["formula, column 7: the interval's lower end 3/4 exceeds its upper end 1/4"],
        "write the smaller number first",
    ),
    case(
        "formula-negative-step-bound",
        [*SURVEY, "P>=0 [out1 U<=-1 out0]"],
        ["formula, column 15: step bound -1 is not a whole number ≥ 0"],
        "write e.g. F<=3",
    ),
    case(
        "formula-lower-step-bound",
        [*SURVEY, "P>=0 [F>=3 out1]"],
        ["formula, column 8: step bounds are written <=k, not >=k"],
        "write e.g. F<=3",
    ),
    case(
        "formula-empty",
        [*SURVEY, ""],
        ["formula: the formula is empty"],
        "write e.g. 'P>=0.5 [F a]'",
    ),
    case(
        "formula-blank",
        [*SURVEY, "  \t "],
        ["formula: the formula is empty"],
        "write e.g. 'P>=0.5 [F a]'",
    ),
    case(
        "formula-error-on-the-second-line",
        [*SURVEY, "out1 &\n&"],
        ["formula, line 2, column 1: unexpected '&'"],
        "expected '!', '(', '-', a label",
    ),
    case(
        "formula-control-character",
        [*SURVEY, "out1\x00"],
        ["formula, column 5: unexpected character '\\x00'"],
        'quote other labels: "my label"',
    ),
    case(
        "formula-unclosed-quote",
        [*SURVEY, '"out1'],
        ["formula, column 1: unexpected character '\"'"],
        'quote other labels: "my label"',
    ),
    case(
        "check-unknown-state",
        [*SURVEY, "out1", "--state", "zz"],
        ["--state: 'zz' is not a state of survey"],
        "states are +, -, s, t, †",
    ),
    case(
        "check-neighbours-unknown-state",
        [*SURVEY, "D{1}[X out1]", "--neighbors", "+~zz"],
        ["--neighbors: neighbour pair names 'zz', which is not a state"],
        "states are +, -, s, t, †",
    ),
    case(
        "check-neighbours-unreadable-pair",
        [*SURVEY, "D{1}[X out1]", "--neighbors", "+"],
        ["--neighbors: cannot read the neighbour pair '+'"],
        "write pairs as a~b separated by ';'",
    ),
    case(
        "check-neighbours-file-missing",
        [*SURVEY, "D{1}[X out1]", "--neighbors", "{tmp}/pairs.yaml"],
        ["{tmp}/pairs.yaml: file not found"],
        "check the path and the file name",
    ),
    case(
        "check-neighbours-file-not-yaml",
        [*SURVEY, "D{1}[X out1]", "--neighbors", "{tmp}/pairs.yaml"],
        ["{tmp}/pairs.yaml: line 2: not valid YAML"],
        "check the indentation and quoting on that line",
        {"pairs.yaml": "states: [+\n"},
    ),
    case(
        "check-neighbours-file-is-a-number",
        [*SURVEY, "D{1}[X out1]", "--neighbors", "{tmp}/pairs.json"],
        ["{tmp}/pairs.json: neighbours must be a list of pairs or a mapping"],
        "write e.g. {states: [[a, b]], labels: [[in0, in1]]}",
        {"pairs.json": "5\n"},
    ),
    case(
        "check-set-on-survey",
        [*SURVEY, "out1", "--set", "p=1"],
        ["--set p: survey has no parameter 'p'"],
        "its parameters are (none)",
    ),
    case(
        "check-example-parameter-out-of-range",  # was not placed at --set
        ["check", "geometric", "-f", "out0", "--set", "alpha=2"],
        ["--set alpha=2: alpha = 2 is not in (0, 1)"],
        "e.g. alpha=1/2",
    ),
    case(
        "check-example-parameter-not-whole",  # had no fix
        ["check", "geometric", "-f", "out0", "--set", "top=x"],
        ["--set top: top = 'x' is not a whole number"],
        "e.g. --set top=5",
    ),
    case(
        "check-unknown-example",
        ["check", "survy", "-f", "true"],
        ["'survy' is neither a built-in example nor a model file"],
        "built-in examples: survey, geometric",
    ),
    case(
        "chain-file-row-sum",
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml: transitions.a: probabilities sum to 5/6"],
        "fractions must sum to exactly 1",
        {"chain.yaml": "states: [a, b]\ntransitions:\n  a: {a: 1/2, b: 1/3}\n"},
    ),
    case(
        "chain-file-transitions-and-actions",
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml: both 'transitions' and 'actions' are given"],
        "a Markov chain has transitions, an MDP has actions",
        {"chain.yaml": "states: [a, b]\ntransitions:\n  a: {b: 1}\nactions:\n  a: {x: {b: 1}}\n"},
    ),
    case(
        "chain-file-misspelt-key",
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml: unknown key 'label'"],
        "did you mean 'labels'?",
        {"chain.yaml": "states: [a, b]\nlabel:\n  x: [a]\n"},
    ),
    case(
        "chain-file-label-of-no-state",  # was the file named twice, and no fix
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml: labels: label 'x' names 'c', which is not a state"],
        "states are a, b",
        {"chain.yaml": "states: [a, b]\nlabels:\n  x: [c]\n"},
    ),
    case(
        "chain-file-initial-state-unknown",  # had no fix
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml:", "initial state 'z' is not a state"],
        "states are a, b",
        {"chain.yaml": "states: [a, b]\ninitial: [z]\n"},
    ),
    case(
        "chain-file-tab",
        ["check", "{tmp}/chain.yaml", "-f", "true"],
        ["{tmp}/chain.yaml: line 3: not valid YAML"],
        "check the indentation and quoting on that line",
        {"chain.yaml": "states: [a, b]\ntransitions:\n\ta: {b: 1}\n"},
    ),
    case(
        "mdp-file-row-sum",
        ["check", "{tmp}/mdp.yaml", "-f", "true"],
        ["{tmp}/mdp.yaml: actions.a.x: probabilities sum to 1/2"],
        "fractions must sum to exactly 1",
        {"mdp.yaml": "states: [a, b]\nactions:\n  a: {x: {b: 1/2}}\n"},
    ),
    case(
        "hmm-file-given-to-check",
        ["check", "{tmp}/model.yaml", "-f", "true"],
        ["{tmp}/model.yaml: unknown key 'observations'"],
        "keys are name, description, states",
        {"model.yaml": model()},
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
    case(
        "epsilon-nan",
        ["verify", "geometric", "--epsilon", "nan"],
        ["--epsilon:", "cannot read ε = 'nan'"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-infinite",
        ["verify", "geometric", "--epsilon", "inf"],
        ["--epsilon:", "cannot read ε = 'inf'"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-log-of-zero",
        ["verify", "geometric", "--epsilon", "ln(0)"],
        ["--epsilon:", "'ln(0)' is not a finite number"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-log-of-a-negative",
        ["verify", "geometric", "--epsilon", "ln(-2)"],
        ["--epsilon:", "ε = 'ln(-2)' is not a real number"],
        "write e.g. ln(2)",
    ),
    case(
        "epsilon-log-below-one",
        ["verify", "geometric", "--epsilon", "ln(1/2)"],
        ["--epsilon:", "ε = 'ln(1/2)' is negative"],
        "ε must be at least 0",
    ),
    case(
        "epsilon-divides-by-zero",
        ["verify", "geometric", "--epsilon", "1/0"],
        ["--epsilon:", "cannot read ε = '1/0': division by zero"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-is-python",
        ["verify", "geometric", "--epsilon", "__import__('os')"],
        ["--epsilon:", "is not allowed here"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-unclosed-parenthesis",
        ["verify", "geometric", "--epsilon", "ln(2"],
        ["--epsilon:", "cannot read ε = 'ln(2'"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-huge-power",
        ["verify", "geometric", "--epsilon", "2^1000000"],
        ["--epsilon:", "exponent 1000000 is too large"],
        "write a number like 1.372",
    ),
    case(
        "epsilon-exponent-out-of-range",
        ["verify", "geometric", "--epsilon", "1e999999"],
        ["--epsilon:", "ε = 1e999999 is out of range"],
        "faier reads ε from 1e-1000 to 1e1000",
    ),
    case(
        "delta-negative",
        ["epsilon", "geometric", "--delta", "-0.1"],
        ["--delta:", "δ = -0.1 is not in [0, 1]"],
        "δ is a probability",
    ),
    case(
        "delta-nan",
        ["epsilon", "geometric", "--delta", "nan"],
        ["--delta:", "cannot read δ = 'nan'"],
        "write a number like 0.01 or 1/100",
    ),
    case(
        "delta-empty",
        ["verify", "geometric", "--epsilon", "1", "--delta", ""],
        ["--delta:", "cannot read δ = ''"],
        "write a number like 0.01 or 1/100",
    ),
    case(
        "delta-exponent-out-of-range",  # a billion-digit fraction, or a hang
        ["epsilon", "geometric", "--delta", "1e-999999999"],
        ["--delta:", "1e-999999999 is out of range"],
        "δ is a probability",
    ),
    case(
        "neighbours-empty",
        ["epsilon", "geometric", "--neighbors", ""],
        ["--neighbors:", "unknown neighbour relation ''"],
        "every-query[:Δ], one-query[:Δ] or add-remove",
    ),
    case(
        "neighbours-zero-delta",
        ["epsilon", "geometric", "--neighbors", "every-query:0"],
        ["--neighbors:", "Δ must be at least 1 in 'every-query:0'"],
        "write e.g. every-query:1",
    ),
    case(
        "engine-unknown",
        ["epsilon", "geometric", "--engine", "quantum"],
        ["--engine:", "unknown engine 'quantum'"],
        "choose auto or one of certified, exact, smt",
    ),
    case(
        "engine-statistical-for-verify",
        ["verify", "geometric", "--epsilon", "1", "--engine", "statistical"],
        ["--engine statistical:", "never a proof of privacy"],
        "use 'faier test' for p-values",
    ),
    case(
        "engine-dpctl-for-verify",
        ["verify", "geometric", "--epsilon", "1", "--engine", "dpctl"],
        ["--engine dpctl:", "not ε* of a mechanism"],
        "use 'faier check MODEL -f FORMULA'",
    ),
    case(
        "arithmetic-unknown",
        ["epsilon", "geometric", "--arithmetic", "double"],
        ["--arithmetic:", "unknown arithmetic 'double'"],
        "choose one of float, exact",
    ),
    case(
        "solver-unknown",
        ["epsilon", "geometric", "--solver", "yices"],
        ["--solver:", "unknown solver 'yices'"],
        "choose one of portfolio, z3, cvc5",
    ),
    case(
        "encoding-unknown",
        ["epsilon", "geometric", "--encoding", "slow"],
        ["--encoding:", "unknown encoding 'slow'"],
        "choose one of fast, faithful",
    ),
    case(
        "precision-not-a-number",
        ["epsilon", "geometric", "--precision", "abc"],
        ["--precision:", "'abc' is not a number"],
        "e.g. --precision 1e-4",
    ),
    case(
        "precision-zero",
        ["epsilon", "geometric", "--precision", "0"],
        ["--precision:", "must be positive, got 0"],
        "e.g. --precision 1e-4",
    ),
    case(
        "smt2-folder-unwritable",
        ["epsilon", "geometric", "--emit-smt2", "/dev/null/queries"],
        ["--emit-smt2:", "cannot create /dev/null/queries"],
        "give a writable directory",
    ),
    case(
        "set-twice",
        ["epsilon", "geometric", "--set", "alpha=1/2", "--set", "alpha=1/3"],
        ["--set: alpha is set twice"],
        "give each value once",
    ),
    case(
        "set-without-name",
        ["epsilon", "geometric", "--set", "=1"],
        ["--set: needs NAME=VALUE, got '=1'"],
        "e.g. --set n=5",
    ),
    case(
        "set-without-value",
        ["epsilon", "geometric", "--set", "alpha="],
        ["--set alpha=:", "expected a number"],
        "e.g. --set alpha=1/2",
    ),
    case(
        "set-integer-in-scientific-notation",
        ["epsilon", "geometric", "--set", "m=1e999999"],
        ["--set m=1e999999:", "expected an integer"],
        "e.g. --set m=2",
    ),
    case(
        "set-example-parameter-out-of-range",  # was not placed at --set, and had no fix
        ["epsilon", "geometric", "--set", "alpha=2"],
        ["--set alpha=2:", "α = 2 must lie strictly between 0 and 1"],
        "see 'faier examples' for the parameters of geometric",
    ),
    case(
        "set-example-parameter-negative",
        ["verify", "geometric", "--epsilon", "1", "--set", "alpha=-1/2", "--set", "m=3"],
        ["--set alpha=-1/2, m=3:", "α = -1/2 must lie strictly between 0 and 1"],
        "see 'faier examples'",
    ),
    case(
        "param-empty-interval",  # was not placed at --param
        ["epsilon", "geometric", "--param", "p in (1, 0)"],
        ["--param p in (1, 0): empty interval (1, 0)"],
        "write the lower end first",
    ),
    case(
        "param-unbounded-interval",  # was placed at '--param: --param …'
        ["epsilon", "geometric", "--param", "p in (0, inf)"],
        ["error: --param p in (0, inf): the domain (0, inf) of 'p' is unbounded"],
        "give a bounded interval such as (0, 1)",
    ),
    case(
        "param-interval-end-not-a-number",  # had no fix
        ["epsilon", "geometric", "--param", "p in (a, 1)"],
        ["--param p in (a, 1): bad interval end in '(a, 1)'"],
        "write e.g. (0, 1) or [0, 1/2]",
    ),
    case(
        "param-unreadable",  # was placed at '--param: --param'
        ["epsilon", "geometric", "--param", "zzz"],
        ["error: --param: cannot read 'zzz'"],
        "write NAME=VALUE (p=0.3)",
    ),
    case(
        "timeout-zero",
        ["verify", "geometric", "--epsilon", "1", "--timeout", "0"],
        ["--timeout:", "the timeout must be positive, got 0"],
        "e.g. --timeout 60",
    ),
    case(
        "timeout-nan",
        ["epsilon", "geometric", "--timeout", "nan"],
        ["--timeout:", "the timeout must be positive, got nan"],
        "e.g. --timeout 60",
    ),
    case(
        "state-budget-negative",
        ["verify", "geometric", "--epsilon", "1", "--max-states", "-5"],
        ["--max-states:", "at least 1, got -5"],
        "e.g. --max-states 100000",
    ),
    # --- unknown examples ----------------------------------------------------------------
    case(
        "verify-unknown-example",
        [*VERIFY, "noisymax"],
        ["unknown target 'noisymax'"],
        "give a built-in example (geometric",
    ),
    case(
        "epsilon-empty-target",
        ["epsilon", ""],
        ["unknown target ''"],
        "give a built-in example (geometric",
    ),
    case(
        "test-unknown-example",
        ["test", "geometrc", "--claimed", "1"],
        ["unknown target 'geometrc'"],
        "a model file (.yaml, .json) or a mechanism file (.py)",
    ),
    case(
        "certify-unknown-example",
        ["certify", "geometrc", "--claimed", "1"],
        ["unknown target 'geometrc'"],
        "a model file (.yaml, .json) or a mechanism file (.py)",
    ),
    case(
        "bound-unknown-suite",
        ["bound", "svt-laplac"],
        ["unknown target 'svt-laplac'"],
        "a model file (.yaml, .json) or a mechanism file (.py)",
    ),
    # --- test, certify and bound -----------------------------------------------------------
    case(
        "test-claimed-negative",
        ["test", "svt-laplace", "--claimed", "-1"],
        ["--claimed:", "ε = '-1' is negative"],
        "ε must be at least 0",
    ),
    case(
        "test-epsilons-not-numbers",
        [*TEST, "--epsilons", "a:b:c"],
        ["--epsilons: cannot read 'a' as a number"],
        "write e.g. 0:2.2:0.1",
    ),
    case(
        "test-epsilons-zero-step",
        [*TEST, "--epsilons", "0:1:0"],
        ["--epsilons: '0:1:0' is an empty range"],
        "STEP > 0 and STOP ≥ START",
    ),
    case(
        "test-epsilons-too-many",
        [*TEST, "--epsilons", "0:1000000:0.000001"],
        ["--epsilons:", "has 1000000000001 points"],
        "at most 1000 points",
    ),
    case(
        "test-epsilons-negative",
        [*TEST, "--epsilons", "-1,0.5"],
        ["--epsilons: ε = -1 is negative"],
        "ε values are ≥ 0",
    ),
    case(
        "test-alpha-above-one",
        [*TEST, "--alpha", "2"],
        ["--alpha: must lie strictly between 0 and 1, got 2"],
        "e.g. 0.05",
    ),
    case(
        "test-no-thinnings",
        [*TEST, "--thinnings", "0"],
        ["--thinnings: must be at least 1, got 0"],
        "e.g. --thinnings 200",
    ),
    case(
        "test-no-workers",
        [*TEST, "--workers", "0"],
        ["--workers: must be at least 1, got 0"],
        "e.g. --workers 2",
    ),
    case(
        "test-negative-seed",
        [*TEST, "--seed", "-1"],
        ["--seed: must be at least 0, got -1"],
        "e.g. --seed 1",
    ),
    case(
        "test-no-selection-samples",
        [*TEST, "--selection-samples", "0"],
        ["--selection-samples: must be at least 2, got 0"],
        "e.g. --selection-samples 100000",
    ),
    case(
        "test-timeout-zero",
        [*TEST, "--timeout", "0"],
        ["--timeout:", "the timeout must be positive, got 0"],
        "e.g. --timeout 60",
    ),
    case(
        "test-lengths-not-numbers",
        [*TEST, "--lengths", "a,b"],
        ["--lengths: cannot read 'a,b'"],
        "e.g. 5,10",
    ),
    case(
        "test-pair-not-numbers",
        [*TEST, "--pair", "a;b"],
        ["--pair: cannot read 'a' as numbers"],
        "e.g. 1,1,1;0,2,2",
    ),
    case(
        "test-plot-in-a-missing-folder",  # had no fix
        [
            *TEST,
            "--epsilons",
            "0.5",
            "--samples",
            "200",
            "--selection-samples",
            "100",
            "--workers",
            "1",
            "--seed",
            "1",
            "--plot",
            "{tmp}/missing/curve.png",
        ],
        ["--plot: cannot write {tmp}/missing/curve.png: No such file or directory"],
        "give a path in a folder that exists and is writable",
    ),
    case(
        "certify-example-parameter-out-of-range",
        ["certify", "geometric", "--claimed", "1", "--set", "alpha=2"],
        ["--set alpha=2:", "α = 2 must lie strictly between 0 and 1"],
        "see 'faier examples'",
    ),
    case(
        "certify-unknown-parameter",
        ["certify", "geometric", "--claimed", "1", "--set", "q=2"],
        ["--set q=2: example 'geometric' has no parameter 'q'"],
        "its parameters are alpha, m, scenario, p",
    ),
    case(
        "bound-claimed-not-a-number",
        ["bound", "geometric", "--claimed", "abc"],
        ["--claimed: cannot read ε = 'abc'"],
        "write a number like 1.372",
    ),
    case(
        "bound-precision-zero",
        ["bound", "geometric", "--precision", "0"],
        ["--precision: the precision must be positive, got 0"],
        "e.g. 0.001",
    ),
    case(
        "bound-no-samples",
        ["bound", "geometric", "--samples", "0"],
        ["--samples: must be at least 1, got 0"],
        "e.g. --samples 500000",
    ),
    case(
        "bound-parameter-below-minimum",
        ["bound", "noisy-max", "--set", "n=0"],
        ["--set n=0: must be at least 1"],
        "e.g. --set n=3",
    ),
    case(
        "test-name-on-a-suite-mechanism",
        ["test", "svt-laplace", "--name", "x", "--claimed", "0.7"],
        ["--name:", "svt-laplace is not a Python file"],
        "leave --name out",
    ),
    # --- absurd sizes: refused at once, never a hang ------------------------------------
    case(
        "example-range-absurd",
        ["epsilon", "geometric", "--set", "m=100000000000"],
        ["--set m=100000000000:", "must be at most 1000"],
        "e.g. --set m=2",
    ),
    case(
        "dpctl-example-size-absurd",
        ["check", "geometric", "--set", "top=100000000", "-f", "P=? [X out1]"],
        ["--set top:", "top = 100000000 is outside 0..1000"],
        "e.g. --set top=5",
    ),
    case(
        "horizon-option-absurd",
        ["epsilon", "geometric", "--horizon", "1000000000"],
        ["--horizon:", "must be at most 100000"],
        "e.g. --horizon 4",
    ),
    case(
        "horizon-in-file-absurd",
        ["epsilon", "{tmp}/model.yaml"],
        ["{tmp}/model.yaml: horizon:", "longer than faier searches (at most 100000)"],
        "leave it out to look for an unbounded loss",
        {"model.yaml": model().replace("horizon: 1", "horizon: 1000000000")},
    ),
    case(
        "max-words-negative",
        ["check", "survey", "--max-words", "-1", "-f", "P=? [X out1]"],
        ["--max-words:", "needs at least 1 search node, got -1"],
        "e.g. --max-words 200000",
    ),
]


def fill(text: str, tmp: Path) -> str:
    return (
        text.replace("{tmp}", str(tmp)).replace("{data}", str(DATA)).replace("{logic}", str(LOGIC))
    )


@pytest.mark.parametrize(("args", "expected", "fix", "files"), CASES)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_bad_input_is_one_clear_message_and_exit_2(
    tmp_path: Path,
    args: list[str],
    expected: list[str],
    fix: str,
    files: dict[str, str | bytes | None],
    as_json: bool,
) -> None:
    for name, content in files.items():
        if content is None:
            (tmp_path / name).mkdir()
        elif isinstance(content, bytes):
            (tmp_path / name).write_bytes(content)
        else:
            (tmp_path / name).write_text(content, encoding="utf-8")
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
        (["check", str(DATA / "divides_by_zero.pm"), "-f", "true"], "(3 / 0) divides by zero"),
        (["check", str(DATA / "zero_to_a_negative_power.pm"), "-f", "true"], "divides by zero"),
    ],
    ids=["mechanism-crash", "bad-epsilon", "prism-division-by-zero", "prism-zero-power"],
)
def test_console_script_shows_no_traceback(args: list[str], expected: str) -> None:
    """Outside the test runner: a real process, real stdout and stderr, no traceback.

    The PRISM files would end the process with SIGFPE inside Storm: they are run
    here, in a process of their own, rather than in the table above.
    """
    command = [sys.executable, "-c", "from faier.cli.main import main; main()", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert expected in done.stderr
    assert len(done.stderr.splitlines()) == 1
