"""BadSmartSum (CheckDP's badsmartsum.c): SmartSum whose block sum is released without
noise (η₁ = 0); M = 2, T = 2, one query may change by 1; claim 2ε = 2; no finite ε.

``bad_smart_sum_with(M, T)`` builds it for any block length M and cut-off T."""

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


def bad_smart_sum_with(M: int, T: int, n: int = 3) -> faier.Problem:
    """BadSmartSum with block length M and cut-off T, on the grid {0, 1, 2}ⁿ."""

    @faier.program(inputs=faier.grid(n, 2), name="bad_smart_sum")
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

    return faier.Problem("bad_smart_sum", _bad_smart_sum, DifferentialPrivacy(OneQuery(1)))


bad_smart_sum = bad_smart_sum_with(M=2, T=2)
