"""BadSVT 4: Sparse Vector that releases the noisy answer above the threshold
(StatDP's iSVT 4; threshold Lap(2/ε), queries Lap(4N/ε), N = 1; claim ε = 1; incorrect)."""

import faier

N = 1


@faier.program(inputs=faier.grid(3, 2))
def bad_svt4(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out = []
    for i in range(len(q)):
        noisy = q[i] + ctx.draw(faier.laplace(0, 4 * N))
        if noisy >= threshold:
            out.append(noisy)
            break
        out.append(False)
    return tuple(out)
