"""BadPartialSum (CheckDP's badpartialsum): the sum plus Lap(1/(2ε)), half the scale it needs
(one query may change by 1; claim ε = 1; 2ε-DP)."""

from fractions import Fraction

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


@faier.program(inputs=faier.grid(3, 2))
def _bad_partial_sum(q, ctx):
    total = 0
    for i in range(len(q)):
        total = total + q[i]
    return total + ctx.draw(faier.laplace(0, Fraction(1, 2)))


bad_partial_sum = faier.Problem(
    "bad_partial_sum", _bad_partial_sum, DifferentialPrivacy(OneQuery(1))
)
