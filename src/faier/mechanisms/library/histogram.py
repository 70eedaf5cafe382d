"""Discrete histogram (StatDP §5.2, Algs. 9 and 10).

Every bin count in {0..m} gets independent truncated α-geometric noise and
the whole noisy histogram is released.  Lap(1/ε₀) corresponds to
α = e^(−ε₀) (Alg. 9, correct); the "wrong scale" Lap(ε₀) of Alg. 10 is the
same mechanism with α = e^(−1/ε₀), so both are this one function.

With histogram neighbours (one bin moves by ±1) a single noisy count
decides the loss and ε* = ln(1/α).  With every-query ±1 neighbours all bins
may move and the losses add up: ε* = bins·ln(1/α).

For the engine's grid search it tabulates every noisy histogram's probability
on every input at once (:meth:`Histogram.grid_table`): a Kronecker product of
the per-bin noise matrix, products of non-negative numbers only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import Input, grid
from faier.mechanisms.program import Program
from faier.mechanisms.symmetry import PermuteQueries
from faier.model.distribution import truncated_geometric

Noisy = tuple[int, ...]


def show(counts: Noisy) -> str:
    """A noisy histogram as ``(0~, 2~)``: the tilde marks a noisy value."""
    return "(" + ", ".join(f"{v}~" for v in counts) + ")"


@dataclass(frozen=True)
class Histogram(Program[Noisy]):
    """The noisy histogram: a program that can also tabulate its whole grid at once."""

    bins: int = 2
    alpha: Fraction = Fraction(1, 2)
    m: int = 2

    def grid_outputs(self) -> tuple[Noisy, ...]:
        """Every noisy histogram, in ``itertools.product`` order."""
        return tuple(itertools.product(range(self.m + 1), repeat=self.bins))

    def grid_table(self) -> npt.NDArray[np.float64] | None:
        """Pr[noisy histogram | counts] for all of them in float64 (None if it underflowed).

        The noise is independent per bin, so the table is the bins-fold Kronecker
        power of the matrix noise[o, x] = Pr[noisy o | count x]; every noisy
        histogram has positive probability, so a zero can only be underflow.
        """
        side = self.m + 1
        noise = np.array(
            [
                [float(truncated_geometric(self.alpha, self.m, x).prob(o)) for x in range(side)]
                for o in range(side)
            ]
        )
        table = np.ones((1, 1))
        for _ in range(self.bins):
            table = np.kron(table, noise)
        if not table.all():
            return None
        return table.reshape((side**self.bins, *(side,) * self.bins))


def histogram(bins: int = 2, alpha: Fraction = Fraction(1, 2), m: int = 2) -> Histogram:
    """Release all ``bins`` counts, each with its own truncated α-geometric noise."""
    if not 0 < alpha < 1:
        raise SpecError(f"α = {alpha} must lie strictly between 0 and 1")
    inputs = grid(bins, m)
    rows = {v: truncated_geometric(alpha, m, v) for v in range(m + 1)}

    def body(x: Input, ctx: Context) -> Noisy:
        assert isinstance(x, tuple)
        return tuple(ctx.draw(rows[v]) for v in x)

    return Histogram(
        name=f"discrete histogram ({bins} bins, α={alpha}, counts in 0..{m})",
        body=body,
        inputs=inputs,
        doc=histogram.__doc__ or "",
        output_name=show,
        symmetry=PermuteQueries("vector"),  # bins are noised alike: permuting counts permutes noise
        bins=bins,
        alpha=alpha,
        m=m,
    )
