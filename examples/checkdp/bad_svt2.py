"""BadSVT 2 (CheckDP's badsparsevector2): no cutoff, and query noise Lap(2/ε) that does not
grow with the number of answers (claim ε = 1; incorrect)."""

import faier


@faier.program(inputs=faier.grid(3, 2))
def bad_svt2(q, ctx):
    threshold = 1 + ctx.draw(faier.laplace(0, 2))
    return tuple(q[i] + ctx.draw(faier.laplace(0, 2)) >= threshold for i in range(len(q)))
