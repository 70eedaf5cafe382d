"""The Laplace mechanism: one query of sensitivity 1 plus Lap(1/ε) (ε = 1; correct)."""

import faier


@faier.program(inputs=faier.grid(1, 2))
def laplace_mechanism(q, ctx):
    return q[0] + ctx.draw(faier.laplace(0, 1))
