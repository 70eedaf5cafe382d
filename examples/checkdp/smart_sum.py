"""SmartSum as in CheckDP's benchmark: running sums released each step, a fresh noisy block
sum every M = 2 steps, Lap(1/ε) noise, T = 2; one query may change by 1 (claim 2ε = 2)."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy

M, T = 2, 2


@faier.program(inputs=faier.grid(3, 2))
def _smart_sum(q, ctx):
    out, following, block = [], 0, 0
    for i in range(len(q)):
        if i > T:
            break
        if (i + 1) % M == 0:
            following = block + q[i] + ctx.draw(faier.laplace(0, 1))
            block = 0
        else:
            following = following + q[i] + ctx.draw(faier.laplace(0, 1))
            block = block + q[i]
        out.append(following)
    return tuple(out)


smart_sum = faier.Problem("smart_sum", _smart_sum, DifferentialPrivacy(OneQuery(1)))
