"""A mechanism whose draw depends on a global counter: different distributions per rerun."""

from fractions import Fraction

import faier

_calls = [0]


@faier.program(inputs=faier.grid(1, 2))
def drifting(x, ctx):
    _calls[0] += 1
    p = Fraction(1, 2 + _calls[0])
    return ctx.draw(faier.bernoulli(p)) + x[0]
