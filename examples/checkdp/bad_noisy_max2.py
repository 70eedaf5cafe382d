"""BadNoisyMax 2: Report Noisy Max releasing the largest noisy value instead of its index
(CheckDP's badnoisymax; claim ε = 1; incorrect)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_noisy_max2(q, ctx):
    top = None
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 2))
        if i == 0 or noisy > top:
            top = noisy
    return top
