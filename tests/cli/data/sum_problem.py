"""A complete faier.Problem: the noisy sum where only one query may move (by 1)."""

from fractions import Fraction

import faier
from faier.privacy.neighbours import OneQuery
from faier.privacy.specs import DifferentialPrivacy


@faier.program(inputs=faier.grid(2, 2))
def _noisy_sum(x, ctx):
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 4, x[0] + x[1]))


one_query_sum = faier.Problem("one-query-sum", _noisy_sum, DifferentialPrivacy(OneQuery(1)))
