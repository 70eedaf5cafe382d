"""The brute-force dpCTL* reference (``dpctl_reference``) is importable from the logic tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
