"""The command line starts without loading the heavy optional libraries.

sympy alone costs about half a second to import; a plain ε* run needs none of
it, so the package must load it only where symbolic parameters appear.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


HEAVY = ("numpy", "scipy", "sympy", "z3", "stormpy", "lark", "yaml", "matplotlib", "dask")
"""Libraries no start may load: each costs 0.03-0.5 s, and the commands that need one import it."""


def test_import_faier_loads_no_heavy_library_and_no_engine() -> None:
    """``import faier`` is the version and a table of where each public name lives (PEP 562)."""
    loaded = _loaded_after("import faier")
    for heavy in (*HEAVY, "faier.api", "faier.mechanisms.handlers", "faier.logic"):
        assert heavy not in loaded, heavy


def test_a_public_name_loads_its_module_on_first_use() -> None:
    loaded = _loaded_after(
        "import faier; assert faier.epsilon.__module__ == 'faier.api'; "
        "from faier import Program, program, __all__; "
        "assert all(getattr(faier, n) is not None for n in __all__); "
        "import faier.mechanisms.program; assert faier.program is faier.mechanisms.program"
    )
    assert "faier.api" in loaded and "numpy" in loaded


def test_an_unknown_name_is_an_attribute_error() -> None:
    _loaded_after("import faier\ntry:\n faier.nothing\nexcept AttributeError: pass\nelse: 1/0")


def test_cli_start_does_not_load_sympy() -> None:
    loaded = _loaded_after("import faier.cli.main")
    for heavy in (*HEAVY, "faier.api", "faier.logic", "faier.examples"):
        assert heavy not in loaded, heavy


def test_check_help_stays_light() -> None:
    """``faier check --help`` builds every command's options and prints: no engine, no Storm."""
    loaded = _loaded_after(
        "from faier.cli.main import _run_app; import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()): _run_app(['check', '--help'])"
    )
    for heavy in (*HEAVY, "faier.api", "faier.logic"):
        assert heavy not in loaded, heavy


MODELS = Path(__file__).parent / "logic" / "models"


@pytest.mark.parametrize(
    ("arguments", "code", "checker"),
    [
        # a question Storm answers on its directed build: not even the checker's evaluators
        ((str(MODELS / "herman.3.prism"), "-f", "P=? [F x1=x2]"), 0, False),
        # a D formula: the checker, its action words and Proposition 2, still nothing numerical
        (
            (
                str(MODELS / "dining-cryptographers.pm"),
                *("-f", "D{0, 0}[F out_daa]", "--neighbors", "@paid0~@paid1"),
            ),
            0,
            True,
        ),
    ],
)
def test_check_loads_no_numerical_library(
    arguments: tuple[str, ...], code: int, checker: bool
) -> None:
    """``faier check`` of a PRISM file needs Storm and the formula parser, nothing numerical."""
    loaded = _loaded_after(
        "from faier.cli.main import _run_app; import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"  assert _run_app(['check', *{list(arguments)!r}, '--json']) == {code}"
    )
    assert "stormpy" in loaded
    assert ("faier.logic.checker" in loaded) is checker
    for heavy in ("numpy", "scipy", "sympy", "z3", "matplotlib", "dask", "faier.api"):
        assert heavy not in loaded, heavy


def test_cli_start_does_not_load_the_tester_or_batch_runner() -> None:
    """The tester, batch runner and their solvers are imported by the commands that use them."""
    loaded = _loaded_after("import faier.cli.main")
    for heavy in ("faier.testing", "faier.batch", "z3", "yaml", "dask", "matplotlib"):
        assert heavy not in loaded, heavy


def test_exact_run_with_a_log_budget_does_not_load_sympy() -> None:
    loaded = _loaded_after(
        "from faier import api; api.verify('noisy-max', 'ln(2)', settings={'n': '3'})"
    )
    assert "sympy" not in loaded


def test_exact_run_with_a_decimal_budget_does_not_load_sympy() -> None:
    loaded = _loaded_after(
        "from faier import api; r = api.verify('noisy-max', '1.372', settings={'n': '5'}); "
        "assert r.verdict.value == 'violated'"
    )
    assert "sympy" not in loaded
    assert "z3" not in loaded and "faier.engines.smt" not in loaded


CHECK_PATH_LEAVES_OUT = (
    "faier.core.engine",
    "faier.engine_results",
    "faier.logic._closeness",
    "faier.mechanisms",
    "faier.logic.examples",
    "faier.logic.files",
    "faier.logic.jani_checks",
    "faier.logic.checker",
    "faier.model.files",
    "faier.model.hmm",
    "faier.model.parameters",
    "faier.logic.models",
    "faier.model.chains",
    "faier.model.probability",
    "faier.privacy",
    "difflib",
    "lark",
    "tempfile",
)
"""What answering a PRISM question in Storm does not need: the engine registry and the
travel machinery, the engines' result classes (``Loss`` among them), a D's witness, the
built-in examples, JANI's checks, faier's own model files, the HMM classes, probabilities
(a formula's and a PRISM file's numbers are plain rationals), the model a build is read
into (Storm answers on its build), the checker's evaluators, ε and δ (only a D reads
them), the suggestions of a mistake's message, lark (formulas are read by the parser
generated from the grammar, ``faier.logic._dpctl_lalr``) and ``tempfile`` (a JANI file and
``--const`` copy the model to a temporary folder)."""


@pytest.mark.parametrize(
    ("model", "formula"),
    [
        ("rabin.3.prism", "Pmax=? [ F (p1=2|p2=2|p3=2) ]"),
        ("rabin.3.prism", "P>=1/2 [ F (p1=2|p2=2|p3=2) ]"),  # decided: an operator report
        ("herman.3.prism", "R=? [ F x1=x2 ]"),  # a reward question, asked of Storm too
    ],
)
def test_a_prism_question_answered_in_storm_imports_only_its_path(model: str, formula: str) -> None:
    """The library calls ``faier check`` makes on a PRISM file whose question Storm answers."""
    loaded = _loaded_after(
        "from faier.logic import directed, loading\n"
        "from faier.logic.parser import parse_formula\n"
        "from faier.results import envelope\n"
        f"parsed = parse_formula({formula!r})\n"
        f"build = loading.build_file({str(MODELS / model)!r}, None, None, parsed.formula)\n"
        "assert build is not None and directed.answerable(build, parsed)\n"
        "result = directed.answer(build, parsed)\n"
        "import json; assert json.dumps(envelope(result, 'check')) and result.exit_code == 0"
    )
    assert "stormpy" in loaded and "faier.logic.directed" in loaded
    for module in (*CHECK_PATH_LEAVES_OUT, "numpy", "scipy", "sympy", "z3", "yaml"):
        assert module not in loaded, module


CLI_LIBRARIES = ("typer", "click", "pydantic", "rich")
"""What the typer command line costs to import (about 0.25 s): a plain ``faier check`` needs
none of it (``faier.cli.entry``)."""


def test_the_console_entry_forks_before_loading_the_work() -> None:
    """The parent of the command's child stays small: no CLI library, no logic, no Storm."""
    loaded = _loaded_after("import faier.cli.entry")
    for heavy in (*HEAVY, *CLI_LIBRARIES, "faier.logic", "faier.core.options"):
        assert heavy not in loaded, heavy


def test_a_plain_check_through_the_console_entry_loads_no_cli_library() -> None:
    """``faier check FILE.prism -f … --json`` through the console entry: Storm, no typer."""
    arguments = ["check", str(MODELS / "herman.3.prism"), "-f", "P=? [F x1=x2]", "--json"]
    loaded = _loaded_after(
        "from faier.cli.entry import main; import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"  try: main({arguments!r})\n"
        "  except SystemExit as done: assert done.code == 0, done.code"
    )
    assert "stormpy" in loaded
    assert "faier.core.options" not in loaded  # no option given: none of their readers
    for library in CLI_LIBRARIES:
        assert not any(m.split(".")[0] == library for m in loaded), library


def test_an_isolated_call_without_progress_loads_neither_the_relay_nor_tempfile() -> None:
    """The command's child (``call_isolated``) passes its outcome through an anonymous file
    in memory (``memfd_create``) and relays no progress: neither module is loaded."""
    loaded = _loaded_after(
        "from faier.mechanisms import isolation\n"
        "assert isolation.call_isolated(len, [1, 2, 3]) == 3"
    )
    assert "faier.mechanisms.isolation" in loaded
    for module in ("faier.mechanisms.relay", "tempfile"):
        assert module not in loaded, module
