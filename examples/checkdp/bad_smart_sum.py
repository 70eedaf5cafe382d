"""BadSmartSum (CheckDP's badsmartsum): the block sum is released without noise (M = 2, T = 2;
one query may change by 1; claim 2ε = 2; no finite ε)."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy

M, T = 2, 2


@faier.program(inputs=faier.grid(3, 2))
def _bad_smart_sum(q, ctx):
    out, following, block = [], 0, 0
    for i in range(len(q)):
        if i > T:
            break
        if (i + 1) % M == 0:
            following = block + q[i]
            block = 0
        else:
            following = following + q[i] + ctx.draw(faier.laplace(0, 1))
            block = block + q[i]
        out.append(following)
    return tuple(out)


bad_smart_sum = faier.Problem("bad_smart_sum", _bad_smart_sum, DifferentialPrivacy(OneQuery(1)))
