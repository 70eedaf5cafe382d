"""Sparse Vector (Lyu et al. Alg. 1): threshold Lap(2/ε), queries Lap(4N/ε), cutoff N = 2
(CheckDP's SVT; ε = 1)."""

import faier

N = 2


@faier.program(inputs=faier.grid(3, 2))
def sparse_vector(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, count = [], 0
    for i in range(len(q)):
        if q[i] + ctx.draw(faier.laplace(0, 4 * N)) >= threshold:
            out.append(True)
            count += 1
            if count == N:
                break
        else:
            out.append(False)
    return tuple(out)
