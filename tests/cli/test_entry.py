"""The typer-free front door of ``faier check`` (``faier.cli.entry``) against the typer command.

Two properties: for any ``check`` command line the front door either declines it
or builds the very request the typer command builds (both call
``checking.run_check``, intercepted here); and run as the console script, both
doors print the same bytes and end with the same exit code.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.cli import checking, entry
from faier.cli.checking import CheckRequest
from faier.cli.main import _run_app

# --- the same request, or none ------------------------------------------------------------


def typer_request(argv: list[str]) -> CheckRequest | None:
    """The request the typer command passes to ``run_check`` (None: typer refused the line)."""
    seen: list[CheckRequest] = []

    def record(request: CheckRequest) -> None:
        seen.append(request)
        raise SystemExit(0)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checking, "run_check", record)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            _run_app(argv)
    return seen[0] if seen else None


PLAIN = st.sampled_from(["m.prism", "P=? [F s=2]", "a b", "", "x=1,y=2", "s=0~s=1", "=", "é"])
ODD = st.sampled_from(["-1", "--json", "-f", "--"]) | st.text(max_size=4)
VALUES = st.one_of(PLAIN, PLAIN, PLAIN, ODD)
PLAIN_NUMBERS = st.sampled_from(["1", "0", "007", "2.5", "0.5", "30"])
ODD_NUMBERS = st.sampled_from(
    [".5", "1.", "1e3", "inf", "nan", "-1", "+3", "1_0", " 2", "2 ", "0x1"]
) | st.integers(0, 10**12).map(str)
NUMBERS = st.one_of(PLAIN_NUMBERS, PLAIN_NUMBERS, ODD_NUMBERS)
REPEATABLE = ["--state", "--set", "--const"]
ONCE = ["--neighbors", "--neighbours", "--timeout", "--max-words"]
ODD_SPELLINGS = ["--report", "--form", "-s", "--no-json", "--neighbor"]


ODDITIES = ("value", "glued", "repeat", "spelling", "json", "word", "head", "model")
"""One way a command line departs from the common form (at most one per line, so that the
front door's reason to decline, or a wrong request, is not hidden behind another)."""


@st.composite
def option(draw: st.DrawFn, spelling: str, odd: str | None) -> list[str]:
    """One option as typed: ``--name VALUE`` or ``--name=VALUE``; odd values (starting with
    ``-``, numbers that are not plain, not UTF-8) or ``-fVALUE``."""
    if spelling in ("--timeout", "--max-words"):
        value = draw(NUMBERS if odd == "value" else PLAIN_NUMBERS)
    else:
        value = draw(VALUES if odd == "value" else PLAIN)
    kinds = ["pair", "equals"] if spelling.startswith("--") else ["pair"]
    kind = draw(st.sampled_from(["glued"] if odd == "glued" else kinds))
    if kind == "equals":
        return [f"{spelling}={value}"]
    if kind == "glued":
        return [spelling + value]
    return [spelling, value]


@st.composite
def command_line(draw: st.DrawFn) -> list[str]:
    """``check`` with a model and options in any order; half of them odd in one way."""
    odd = draw(st.sampled_from((None,) * len(ODDITIES) + ODDITIES))
    words = [[draw(st.sampled_from(["model.prism", "survey", "", "a b"]))]]
    formula = draw(st.sampled_from(["-f", "--formula"]))
    spellings = [formula, *draw(st.lists(st.sampled_from(REPEATABLE), max_size=4))]
    neighbours = draw(st.sampled_from(["--neighbors", "--neighbours"]))
    spellings += draw(st.lists(st.sampled_from([neighbours, *ONCE[2:]]), max_size=3, unique=True))
    if odd == "repeat":  # an option typer keeps once
        spellings.append(draw(st.sampled_from(["-f", "--formula", *ONCE])))
    if odd == "spelling":
        spellings.append(draw(st.sampled_from(ODD_SPELLINGS)))
    glued = draw(st.sampled_from(spellings)) if odd == "glued" else None
    for spelling in spellings:
        oddity = odd if odd != "glued" or spelling == glued else None
        words.append(draw(option(spelling, oddity)))
    words += [["--json"]] * draw(st.sampled_from([2] if odd == "json" else [0, 1]))
    if odd == "word":
        words.append([draw(st.sampled_from(["--", "--help", "--debug", "--no-json", "-"]))])
    if odd == "model":
        words.append([draw(PLAIN)])
    order = draw(st.permutations(words))
    head = draw(st.sampled_from([["--debug", "check"], [], ["epsilon"]])) if odd == "head" else []
    return (head or ["check"]) + [word for group in order for word in group]


@settings(max_examples=150)
@given(argv=command_line())
def test_the_front_door_builds_what_typer_builds_or_declines(argv: list[str]) -> None:
    ours = entry.request_of(argv)
    if ours is not None:
        assert ours == typer_request(argv), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "m.prism", "-f", "P=? [F x=1]"],
        ["check", "--json", "-f", "P=? [F x=1]", "m.prism"],
        ["check", "m.prism", "--formula=P=? [F x=1]", "--set", "N=2,K=1", "--set=M=3"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--const", "N=2", "--const", "p=1/3"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--state", "x=0", "--state=x=1", "--json"],
        ["check", "survey", "-f", "D{ln(3), 0}[X out1]", "--neighbours", "a~b", "--json"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--timeout", "2.5", "--max-words", "100"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--timeout=30", "--max-words=0"],
    ],
)
def test_the_common_command_lines_go_through_the_front_door(argv: list[str]) -> None:
    ours = entry.request_of(argv)
    assert ours is not None
    assert ours == typer_request(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "m.prism", "-f", "P=? [F x=1]", "--report", "r.html"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--help"],
        ["--debug", "check", "m.prism", "-f", "P=? [F x=1]"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "-f", "P=? [F x=2]"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--neighbors", "a~b", "--neighbours", "a~b"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--timeout", "1e3"],
        ["check", "m.prism", "-fP=? [F x=1]"],
        ["check", "m.prism", "-f", "P=? [F x=1]", "--", "x"],
        ["check", "m.prism", "-f"],
        ["check", "m.prism"],
        ["epsilon", "survey"],
        [],
    ],
)
def test_anything_else_is_typers(argv: list[str]) -> None:
    assert entry.request_of(argv) is None


def test_shell_completion_is_typers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_FAIER_COMPLETE", "bash_complete")
    assert entry.request_of(["check", "m.prism", "-f", "P=? [F x=1]"]) is None


# --- the same output and exit code, whole process ------------------------------------------

RUNS = """dtmc
// N heads in a row of a coin with bias p
const int N;
const double p = 1/2;
module coin
  heads : [0..N] init 0;
  [] heads<N -> p : (heads'=heads+1) + 1-p : (heads'=0);
  [] heads=N -> 1 : (heads'=N);
endmodule
label "top" = heads=N;
"""

ENTRY = "from faier.cli.entry import main; main()"
TYPER = "from faier.cli.main import main; main()"


def run(door: str, args: list[str], before: str = "") -> tuple[str, str, int]:
    """``faier ARGS`` through a door, in a fresh process; timings and log names masked."""
    done = subprocess.run(
        [sys.executable, "-c", before + door, *args], capture_output=True, text=True, timeout=120
    )
    return _masked(done.stdout), _masked(done.stderr), done.returncode


def _masked(text: str) -> str:
    text = re.sub(r'"(model_)?seconds": [0-9.e-]+', r'"\1seconds": T', text)
    text = re.sub(r"[0-9]+\.[0-9]+ s\b", "T s", text)
    text = re.sub(r"faier-internal-error-\S+\.log", "LOG", text)
    return re.sub(r" +\n", "\n", text)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("entry") / "runs.pm"
    path.write_text(RUNS, encoding="utf-8")
    return str(path)


QUERY = "P=? [F<=4 top]"


@pytest.mark.parametrize(
    ("options", "code"),
    [
        (["--set", "N=2", "-f", QUERY, "--json"], 0),
        (["-f", QUERY, "--set=N=2"], 0),  # the text report
        (["--set", "N=2", "-f", "P>=0.9 [F<=4 top]", "--json"], 1),
        (["--set", "N=2", "-f", "P=? [F<= top", "--json"], 2),
        (["--const", "N=2", "--const", "p=1/3", "-f", QUERY, "--json"], 0),
        (["--set", "N=2", "--const", "p=1/3", "-f", QUERY, "--json"], 0),
        (["--set", "N=3", "--state", "heads=1", "--state", "heads=2", "-f", QUERY, "--json"], 0),
        (["--set", "N=2", "--timeout", "30", "-f", QUERY, "--json"], 0),
        (["--set", "N=2", "--timeout", "0", "-f", QUERY, "--json"], 2),
        (["--set", "N=2", "--max-words", "0", "-f", QUERY, "--json"], 2),
        (["--set", "N=2", "--neighbors", "heads=0~heads=1", "-f", "D{ln(2), 0}[X top]"], 1),
    ],
)
def test_both_doors_print_the_same_and_exit_alike(runs: str, options: list[str], code: int) -> None:
    argv = ["check", runs, *options]
    assert entry.request_of(argv) is not None  # the front door takes it
    ours = run(ENTRY, argv)
    assert ours == run(TYPER, argv)
    assert ours[2] == code, ours


def test_a_missing_file_is_bad_input_through_both_doors() -> None:
    argv = ["check", "no-such-model.pm", "-f", QUERY, "--json"]
    ours = run(ENTRY, argv)
    assert ours == run(TYPER, argv)
    assert ours[2] == 2 and "no-such-model.pm" in ours[1]


def test_a_line_the_front_door_declines_is_typers_unchanged(runs: str) -> None:
    argv = ["check", runs, "--json"]  # no formula: typer's usage error
    ours = run(ENTRY, argv)
    assert ours == run(TYPER, argv)
    assert ours[2] == 2 and "formula" in ours[1]


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        ("RuntimeError('boom')", 4),
        ("KeyboardInterrupt()", 130),
        ("EOFError()", 1),
        ("BrokenPipeError(32, 'Broken pipe')", 1),
    ],
)
def test_a_failure_of_the_work_ends_alike(runs: str, raised: str, code: int) -> None:
    """A crash is exit 4 with the same line; Ctrl-C 130; typer's own ends mirrored."""
    fail = f"import faier.cli.checking as c\ndef fail(request): raise {raised}\nc._checked = fail\n"
    argv = ["check", runs, "--set", "N=2", "-f", QUERY, "--json"]
    ours = run(ENTRY, argv, fail)
    assert ours == run(TYPER, argv, fail)
    assert ours[2] == code, ours


def test_a_missing_stormpy_is_the_same_line_and_exit_2(runs: str) -> None:
    hidden = "import sys\nsys.modules['stormpy'] = None\n"
    argv = ["check", runs, "--set", "N=2", "-f", QUERY, "--json"]
    ours = run(ENTRY, argv, hidden)
    assert ours == run(TYPER, argv, hidden)
    assert ours[2] == 2 and "pip install 'faier[logic]'" in ours[1]
