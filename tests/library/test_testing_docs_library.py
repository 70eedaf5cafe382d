"""The library authors' examples of docs/TESTING.md run as the tests they are written as."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).parents[2] / "docs" / "TESTING.md"
SECTION = "## For DP library authors"


def examples() -> dict[str, str]:
    """The section's Python blocks, by the file name each one's first line gives."""
    text = DOC.read_text()
    section = text[text.index(SECTION) : text.index("\n## ", text.index(SECTION) + 1)]
    blocks = re.findall(r"```python\n# (\S+)\n(.*?)```", section, re.DOTALL)
    return dict(blocks)


def run_tests_of(code: str, where: str) -> list[str]:
    namespace: dict[str, Any] = {"__name__": where}
    exec(compile(code, where, "exec"), namespace)
    names = [n for n in namespace if n.startswith("test_") and callable(namespace[n])]
    for name in names:
        namespace[name]()
    return names


def test_the_section_has_its_examples() -> None:
    assert set(examples()) == {"test_private.py", "test_opendp.py", "test_diffprivlib.py"}


def test_assert_private_example() -> None:
    ran = run_tests_of(examples()["test_private.py"], "test_private.py")
    assert len(ran) == 3


def test_opendp_example() -> None:
    pytest.importorskip("opendp")
    assert run_tests_of(examples()["test_opendp.py"], "test_opendp.py")


def test_diffprivlib_example() -> None:
    pytest.importorskip("diffprivlib")
    assert len(run_tests_of(examples()["test_diffprivlib.py"], "test_diffprivlib.py")) == 2
