"""BadAdaptiveSVT (CheckDP's badadaptivesparsevector): the far-above branch releases the noisy
answer q + η instead of its gap to the threshold (N = 1; claim ε = 1; incorrect)."""

import faier

N = 1


@faier.program(inputs=faier.grid(3, 2))
def bad_adaptive_svt(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    out, cost = [], 2 * N
    for i in range(len(q)):
        top = q[i] + ctx.draw(faier.laplace(0, 8 * N))
        if top - threshold >= 16:
            out.append(top)
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
