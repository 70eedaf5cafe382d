"""slow.py's mechanism behind a gate: its runs wait until the file named by FAIER_TEST_GATE
exists (for at most two minutes), so a test can interrupt a batch at a known point."""

import os
import time
from fractions import Fraction

import faier


@faier.program(inputs=faier.grid(1, 1))
def gated(x, ctx):
    """Truncated geometric noise on one count, once the gate is open."""
    gate = os.environ.get("FAIER_TEST_GATE")
    deadline = time.monotonic() + 120
    while gate and not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.02)
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, x[0]))
