"""PartialSum: the sum of the queries plus Lap(1/ε), one query may change by 1 (ε = 1;
written as CheckDP's loop)."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


@faier.program(inputs=faier.grid(3, 2))
def _partial_sum(q, ctx):
    total = 0
    for i in range(len(q)):
        total = total + q[i]
    return total + ctx.draw(faier.laplace(0, 1))


partial_sum = faier.Problem("partial_sum", _partial_sum, DifferentialPrivacy(OneQuery(1)))
