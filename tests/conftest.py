"""Shared test set-up: the brute-force reference module is importable as ``reference``,
and hypothesis runs derandomized under CI (``CI`` set), so a CI run is reproducible."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
"""Same examples every run; no deadline, since a slow CI machine must not change the outcome."""

settings.load_profile("ci" if os.environ.get("CI") else "default")
