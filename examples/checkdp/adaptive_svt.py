"""AdaptiveSVT (Ding et al., as in CheckDP's benchmark): a query far above the threshold is
answered with cheaper noise Lap(8N/ε), one near it with Lap(4N/ε); the gap is released and
the budget spent is tracked (threshold Lap(2/ε), N = 1; ε = 1)."""

import faier

N = 1


@faier.program(inputs=faier.grid(3, 2))
def adaptive_svt(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, cost = [], 2 * N
    for i in range(len(q)):
        top = q[i] + ctx.draw(faier.laplace(0, 8 * N))
        if top - threshold >= 16:
            out.append(top - threshold)
            cost += 1
        else:
            middle = q[i] + ctx.draw(faier.laplace(0, 4 * N))
            if middle - threshold >= 0:
                out.append(middle - threshold)
                cost += 2
            else:
                out.append(False)
        if cost > 4 * N - 2:
            break
    return tuple(out)
