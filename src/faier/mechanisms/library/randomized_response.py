"""Randomized response: the survey mechanism (dpCTL* §3.1, Fig. 1)."""

from __future__ import annotations

from fractions import Fraction

from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import scalars
from faier.mechanisms.program import Program
from faier.model.distribution import bernoulli


def randomized_response(
    truth: Fraction = Fraction(1, 2), heads: Fraction = Fraction(1, 2)
) -> Program[int]:
    """Answer truthfully with probability ``truth``, else report a coin with P(1) = ``heads``.

    With the defaults (fair coins) the answer is ln(3)-DP.
    """

    truthful, coin = bernoulli(truth), bernoulli(heads)

    def body(x: int, ctx: Context) -> int:
        if ctx.draw(truthful):
            return x
        return 1 if ctx.draw(coin) else 0

    return Program(
        name=f"randomized response (truth {truth}, heads {heads})",
        body=body,
        inputs=scalars(1),
        doc=randomized_response.__doc__ or "",
        output_name=lambda a: f"answer {a}",
    )
