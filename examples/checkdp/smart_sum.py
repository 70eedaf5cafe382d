"""SmartSum as CheckDP's smartsum.c: a running sum released at each step, restarted from a
fresh noisy block sum every M steps, over the first T + 1 queries; Lap(1/ε) noise, one
query may change by 1, claim 2ε = 2.

``smart_sum_with(M, T)`` builds it for any block length M and cut-off T (CheckDP's
``next`` is ``following``, its ``sum`` is ``block``).  The alignment engine treats the
branches on ``i`` as choices, so its proof covers every M, every T and every number of
queries at once; the grid of 2 queries lets the certified engine cross-check it (ε* = 2
there, the bound)."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


def smart_sum_with(M: int, T: int, n: int = 2) -> faier.Problem:
    """SmartSum with block length M and cut-off T, on the grid {0, 1, 2}ⁿ."""

    @faier.program(inputs=faier.grid(n, 2), name="smart_sum")
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

    return faier.Problem("smart_sum", _smart_sum, DifferentialPrivacy(OneQuery(1)))


smart_sum = smart_sum_with(M=2, T=2)
