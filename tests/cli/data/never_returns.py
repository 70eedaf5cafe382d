"""A mechanism that never returns: only the timeout can end a run on it."""

from fractions import Fraction

import faier


@faier.program(inputs=faier.grid(1, 2))
def endless(x, ctx):
    coin = ctx.draw(faier.bernoulli(Fraction(1, 3)))
    while True:
        coin = -coin
