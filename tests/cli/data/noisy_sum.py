"""Two counting queries with answers 0..2; release their sum with truncated 1/2-geometric noise."""

from fractions import Fraction

import faier


@faier.program(inputs=faier.grid(2, 2))
def noisy_sum(x, ctx):
    """Release x0 + x1 with truncated 1/2-geometric noise over 0..4."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 4, x[0] + x[1]))
