"""BadNoisyMax 4: one noise draw shared by every query, so the noisy maximum is the true one
(claim ε = 1; no finite ε)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_noisy_max4(q, ctx):
    shared = ctx.draw(faier.laplace(0, 2))
    best, top = 0, None
    for i in range(len(q)):
        noisy = q[i] + shared
        if i == 0 or noisy > top:
            best, top = i, noisy
    return best
