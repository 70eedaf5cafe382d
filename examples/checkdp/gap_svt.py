"""GapSVT: Sparse Vector that releases the gap between the noisy answer and the noisy
threshold (threshold Lap(2/ε), queries Lap(4N/ε), N = 2; ε = 1)."""

import faier

N = 2


@faier.program(inputs=faier.grid(3, 2))
def gap_svt(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, count = [], 0
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 4 * N))
        if noisy >= threshold:
            out.append(noisy - threshold)
            count += 1
            if count == N:
                break
        else:
            out.append(False)
    return tuple(out)
