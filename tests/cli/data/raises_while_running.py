"""A mechanism that loads fine but crashes on one of its inputs."""

from fractions import Fraction

import faier


@faier.program(inputs=faier.scalars(2))
def broken(x, ctx):
    """Divides by zero on input 1."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, 2 // (2 - 2 * x)))
