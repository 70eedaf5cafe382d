"""Report Noisy Max with Lap(2/ε) noise, reporting the index (CheckDP's NoisyMax; ε = 1)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def noisy_max(q, ctx):
    best, top = 0, None
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 2))
        if i == 0 or noisy > top:
            best, top = i, noisy
    return best
