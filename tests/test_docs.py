"""The Python examples in README.md and docs/ run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    found = []
    for doc in ("README.md", "docs/MECHANISMS.md"):
        for i, code in enumerate(BLOCK.findall((ROOT / doc).read_text())):
            found.append((f"{doc}#{i}", code))
    return found


@pytest.mark.parametrize(("where", "code"), blocks(), ids=[w for w, _ in blocks()])
def test_documented_python_runs(where: str, code: str) -> None:
    namespace: dict[str, object] = {}
    exec(compile(code, where, "exec"), namespace)


def test_step_program_example_is_first_max() -> None:
    code = dict(blocks())["docs/MECHANISMS.md#1"]
    namespace: dict[str, object] = {}
    exec(code, namespace)
    from faier.mechanisms.library.noisy_max import noisy_max

    first_max = namespace["first_max"]
    reference = noisy_max(3, "first")
    for x in reference.inputs:
        assert first_max.output_distribution(x) == reference.output_distribution(x)  # type: ignore[attr-defined]
