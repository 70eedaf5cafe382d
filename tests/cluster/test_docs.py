"""docs/CLUSTER.md: its example suite file is a valid suite, read as the text says."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from faier.batch import load_suite
from faier.batch.suite import DEFAULT_TIMEOUT

DOC = Path(__file__).parent.parent.parent / "docs" / "CLUSTER.md"


def test_the_documented_suite(tmp_path: Path) -> None:
    text = re.findall(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)[0]
    (tmp_path / "suite.yaml").write_text(text, encoding="utf-8")
    shutil.copy(Path(__file__).parent / "data" / "slow.py", tmp_path / "my_mechanism.py")
    suite = load_suite(tmp_path / "suite.yaml")
    assert suite.timeout == 120 != DEFAULT_TIMEOUT and suite.workers == 4
    assert suite.output == tmp_path / "results.jsonl"
    commands = [(job.command, job.target.rsplit("/", 1)[-1]) for job in suite.jobs]
    assert commands == [
        ("verify", "noisy-max"),
        *[("epsilon", "geometric")] * 4,
        ("epsilon", "above-threshold"),
        ("test", "noisy-max-laplace"),
        ("verify", "my_mechanism.py"),
    ]
    assert suite.jobs[0].id == "noisy-max-paper"
    assert suite.jobs[1].id == "epsilon geometric [alpha=1/2,m=2]"
    assert suite.jobs[-1].timeout == 30 and suite.jobs[-1].claim == "ln(3)"
    assert all(job.options.get("engine") == "auto" for job in suite.jobs)
