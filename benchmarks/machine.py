"""The machine line every benchmark prints first, so figures can be compared."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np


def describe() -> str:
    """CPU model, cores, load average and the Python and numpy versions."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            line.split(":", 1)[1].strip()
            for line in cpuinfo.read_text().splitlines()
            if line.startswith("model name")
        ]
        model = names[0] if names else model
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    versions = f"Python {platform.python_version()}, numpy {np.__version__}"
    return f"{model}, {os.cpu_count()} cores, load average {load}; {versions}"
