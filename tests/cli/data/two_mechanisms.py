"""Two mechanisms in one file: faier needs --name to choose."""

from fractions import Fraction

import faier


@faier.program(inputs=faier.scalars(2))
def half(x, ctx):
    """Truncated 1/2-geometric noise on a count in 0..2 (ε* = ln 2)."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, x))


@faier.program(inputs=faier.scalars(2))
def third(x, ctx):
    """Truncated 1/3-geometric noise on a count in 0..2 (ε* = ln 3)."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 3), 2, x))
