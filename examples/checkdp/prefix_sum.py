"""PrefixSum: every prefix sum of the noisy queries (each plus Lap(1/ε)), one query may change
by 1 (ε = 1)."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


@faier.program(inputs=faier.grid(3, 2))
def _prefix_sum(q, ctx):
    out, running = [], 0
    for i in range(len(q)):
        running = running + q[i] + ctx.draw(faier.laplace(0, 1))
        out.append(running)
    return tuple(out)


prefix_sum = faier.Problem("prefix_sum", _prefix_sum, DifferentialPrivacy(OneQuery(1)))
