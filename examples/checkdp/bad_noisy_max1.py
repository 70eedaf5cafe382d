"""BadNoisyMax 1: Report Noisy Max with Lap(1/ε), half the scale it needs when every query
may move (claim ε = 1; incorrect)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_noisy_max1(q, ctx):
    best, top = 0, None
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 1))
        if i == 0 or noisy > top:
            best, top = i, noisy
    return best
