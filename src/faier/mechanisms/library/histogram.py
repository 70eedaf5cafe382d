"""Discrete histogram (StatDP §5.2, Algs. 9 and 10).

Every bin count in {0..m} gets independent truncated α-geometric noise and
the whole noisy histogram is released.  Lap(1/ε₀) corresponds to
α = e^(−ε₀) (Alg. 9, correct); the "wrong scale" Lap(ε₀) of Alg. 10 is the
same mechanism with α = e^(−1/ε₀), so both are this one function.

With histogram neighbours (one bin moves by ±1) a single noisy count
decides the loss and ε* = ln(1/α).  With every-query ±1 neighbours all bins
may move and the losses add up: ε* = bins·ln(1/α).
"""

from __future__ import annotations

from fractions import Fraction

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import Input, grid
from faier.mechanisms.program import Program
from faier.model.distribution import truncated_geometric

Noisy = tuple[int, ...]


def show(counts: Noisy) -> str:
    """A noisy histogram as ``(0~, 2~)``: the tilde marks a noisy value."""
    return "(" + ", ".join(f"{v}~" for v in counts) + ")"


def histogram(bins: int = 2, alpha: Fraction = Fraction(1, 2), m: int = 2) -> Program[Noisy]:
    """Release all ``bins`` counts, each with its own truncated α-geometric noise."""
    if not 0 < alpha < 1:
        raise SpecError(f"α = {alpha} must lie strictly between 0 and 1")
    inputs = grid(bins, m)
    rows = {v: truncated_geometric(alpha, m, v) for v in range(m + 1)}

    def body(x: Input, ctx: Context) -> Noisy:
        assert isinstance(x, tuple)
        return tuple(ctx.draw(rows[v]) for v in x)

    return Program(
        name=f"discrete histogram ({bins} bins, α={alpha}, counts in 0..{m})",
        body=body,
        inputs=inputs,
        doc=histogram.__doc__ or "",
        output_name=show,
    )
