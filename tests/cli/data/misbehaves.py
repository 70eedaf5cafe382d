"""Mechanisms that misbehave: each ends, prints, forks, signals, recurses or allocates."""

import os
import signal
import sys

import faier

_forked = []


def _answer(x, ctx):
    """Randomized response: ε* = ln 2."""
    return x if ctx.draw(faier.bernoulli("2/3")) else 1 - x


@faier.program(inputs=[0, 1])
def exits_hard(x, ctx):
    os._exit(0)


@faier.program(inputs=[0, 1])
def exits(x, ctx):
    sys.exit(0)


@faier.program(inputs=[0, 1])
def prints(x, ctx):
    print("noise from the mechanism")
    os.write(1, b"raw noise from the mechanism\n")
    return _answer(x, ctx)


@faier.program(inputs=[0, 1])
def forks(x, ctx):
    if not _forked:
        _forked.append(os.fork())
    return _answer(x, ctx)


@faier.program(inputs=[0, 1])
def kills_itself(x, ctx):
    os.kill(os.getpid(), signal.SIGKILL)


@faier.program(inputs=[0, 1])
def terminates(x, ctx):
    os.kill(os.getpid(), signal.SIGTERM)


@faier.program(inputs=[0, 1])
def recurses(x, ctx):
    return recurses.body(x, ctx)


@faier.program(inputs=[0, 1])
def allocates(x, ctx):
    return len([0] * (1 << 60)) + _answer(x, ctx)


@faier.program(inputs=[0, 1])
def interrupts(x, ctx):
    os.kill(os.getpid(), signal.SIGINT)
    return _answer(x, ctx)
