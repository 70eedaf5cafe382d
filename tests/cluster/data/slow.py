"""A mechanism that takes about a second to enumerate: jobs long enough to interrupt."""

import time
from fractions import Fraction

import faier


@faier.program(inputs=faier.grid(1, 1))
def slow(x, ctx):
    """Truncated geometric noise on one count, after a pause per path."""
    time.sleep(0.1)
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, x[0]))
