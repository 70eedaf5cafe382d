"""The truncated α-geometric mechanism over {0..m} (FAIER papers §4.1, Fig. 1)."""

from __future__ import annotations

from fractions import Fraction

from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import scalars
from faier.mechanisms.program import Program
from faier.model.distribution import truncated_geometric


def truncated_geometric_mechanism(alpha: Fraction = Fraction(1, 2), m: int = 2) -> Program[int]:
    """Answer a counting query in {0..m} with truncated α-geometric noise: ln(1/α)-DP."""

    rows = {x: truncated_geometric(alpha, m, x) for x in range(m + 1)}

    def body(x: int, ctx: Context) -> int:
        return ctx.draw(rows[x])

    return Program(
        name=f"truncated {alpha}-geometric over {{0..{m}}}",
        body=body,
        inputs=scalars(m),
        doc=truncated_geometric_mechanism.__doc__ or "",
        output_name=lambda j: f"{j}~",
    )
