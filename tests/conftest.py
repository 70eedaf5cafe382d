"""Shared test set-up: the brute-force reference module is importable as ``reference``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
