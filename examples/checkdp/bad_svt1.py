"""BadSVT 1 (CheckDP's badsparsevector1): no noise on the queries and no cutoff
(threshold Lap(2/ε); claim ε = 1; no finite ε)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_svt1(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    return tuple(q[i] >= threshold for i in range(len(q)))
