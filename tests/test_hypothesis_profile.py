"""Under CI (``CI`` set) hypothesis is derandomized, so two CI runs try the same examples."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent

PROBE = (
    "import sys; sys.path.insert(0, sys.argv[1]); import conftest; "
    "from hypothesis import settings; "
    "print(settings.default.derandomize, settings.default.deadline)"
)


def _profile(ci: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(TESTS)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    return done.stdout.strip()


def test_ci_profile_is_derandomized_without_deadline() -> None:
    assert _profile(ci=True) == "True None"


def test_local_runs_stay_random() -> None:
    assert _profile(ci=False).startswith("False")
