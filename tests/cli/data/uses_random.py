"""A mechanism that draws a second coin with a global counter instead of ctx.draw."""

from fractions import Fraction

import faier

_calls = [0]


@faier.program(inputs=faier.grid(1, 2))
def leaky(x, ctx):
    _calls[0] += 1
    return ctx.draw(faier.bernoulli(Fraction(1, 3))) + _calls[0] % 2
