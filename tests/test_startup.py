"""The command line starts without loading the heavy optional libraries.

sympy alone costs about half a second to import; a plain ε* run needs none of
it, so the package must load it only where symbolic parameters appear.
"""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_cli_start_does_not_load_sympy() -> None:
    loaded = _loaded_after("import faier.cli.main")
    assert "faier.api" in loaded
    assert "sympy" not in loaded


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
