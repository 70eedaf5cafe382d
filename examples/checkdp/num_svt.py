"""NumSVT: Sparse Vector that releases a fresh noisy answer q + Lap(3N/ε) above the threshold
(threshold Lap(3/ε), comparisons Lap(6N/ε), N = 2; ε = 1)."""

import faier

N = 2


@faier.program(inputs=faier.grid(3, 2))
def num_svt(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 3))
    out, count = [], 0
    for i in range(len(q)):
        if q[i] + ctx.draw(faier.laplace(0, 6 * N)) >= threshold:
            out.append(q[i] + ctx.draw(faier.laplace(0, 3 * N)))
            count += 1
            if count == N:
                break
        else:
            out.append(False)
    return tuple(out)
