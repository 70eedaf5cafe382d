"""A mechanism that blocks the timer signal and never returns: only a kill stops it."""

import signal
import time
from fractions import Fraction

import faier


@faier.program(inputs=faier.grid(1, 1))
def hang(x, ctx):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        time.sleep(1)
    return ctx.draw(faier.bernoulli(Fraction(1, 2)))
