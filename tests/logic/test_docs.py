"""The Python examples in docs/LOGIC.md run as written, and its error examples are current."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from faier.cli.main import app

DOC = (Path(__file__).parents[2] / "docs" / "LOGIC.md").read_text(encoding="utf-8")
PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)
ERROR = re.compile(r"^\$ faier (check .*)\nerror: (.*)$", re.MULTILINE)


@pytest.mark.parametrize("index", range(len(PYTHON.findall(DOC))))
def test_python_blocks_run(index: int) -> None:
    code = PYTHON.findall(DOC)[index]
    exec(compile(code, f"docs/LOGIC.md#{index}", "exec"), {})


@pytest.mark.parametrize(("command", "message"), ERROR.findall(DOC))
def test_documented_errors(command: str, message: str) -> None:
    result = CliRunner().invoke(app, shlex.split(command))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {message}"
