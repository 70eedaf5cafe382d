"""Report Noisy Max with Exp(2/ε) noise, reporting the index (ε = 1; correct)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def noisy_max_exponential(q, ctx):
    best, top = 0, None
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.exponential(2))
        if i == 0 or noisy > top:
            best, top = i, noisy
    return best
