"""The Python examples of docs/TESTING.md and ``faier.testing`` run as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import faier.testing
from faier.engines.statistical.config import Config
from faier.engines.statistical.subjects import from_sampled
from faier.engines.statistical.tester import run
from faier.mechanisms.sampled import Sampled

DOC = Path(__file__).parents[3] / "docs" / "TESTING.md"


def test_documented_mechanisms_run_and_are_tested() -> None:
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)[0]
    namespace: dict[str, object] = {}
    exec(compile(code, "docs/TESTING.md", "exec"), namespace)
    config = Config(0.5, (0.3, 0.8), samples=20_000, selection_samples=4_000, seed=3)
    reports = {}
    for name in ("noisy_first", "above"):
        mechanism = namespace[name]
        assert isinstance(mechanism, Sampled)
        reports[name] = run(from_sampled(mechanism, 0.5, lengths=(5,)), config)
    assert [p.rejected(0.05) for p in reports["noisy_first"].points] == [True, False]
    assert reports["above"].points[0].rejected(0.05)
    assert reports["above"].arguments == "z3 MaxSMT"


def test_the_api_example_runs() -> None:
    assert doctest.testmod(faier.testing).failed == 0
