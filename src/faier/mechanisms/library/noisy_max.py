"""Discrete Noisy Max (seed Algorithms 2 and 3, Noisy Max notes).

Each of n query answers in {0..m} gets truncated α-geometric noise; the
mechanism reports the index of a maximal noisy answer (``ties="first"``:
the first one, seed Algorithm 2; ``ties="uniform"``: a uniformly random one,
Algorithm 3) or the maximal noisy value itself (``ties="value"``, the notes'
Algorithm "wrong version").  Written as a step program over the state
(position, running max, chosen index, number of ties), so a run on one input
visits O(n²·m) states instead of (m+1)^n noise vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import grid
from faier.mechanisms.program import Done, StepProgram
from faier.model.distribution import Distribution, truncated_geometric

TIES = ("first", "uniform", "value")


@dataclass(frozen=True)
class NoisyMaxState:
    """Remaining answers, running noisy maximum, reported index, count of maxima."""

    remaining: tuple[int, ...]
    position: int
    maximum: int
    index: int
    ties: int


def noisy_max(
    n: int = 3, ties: str = "uniform", alpha: Fraction = Fraction(1, 2), m: int = 2
) -> StepProgram[NoisyMaxState, int]:
    """Report the (1-based) index of the largest noisy answer, or its value (``ties=value``)."""
    if ties not in TIES:
        raise SpecError(f"unknown tie rule {ties!r}", fix=f"choose one of {', '.join(TIES)}")
    rows = {v: truncated_geometric(alpha, m, v) for v in range(m + 1)}

    def start(x: tuple[int, ...]) -> NoisyMaxState:
        return NoisyMaxState(x, 0, -1, 0, 0)

    def step(s: NoisyMaxState, ctx: Context) -> NoisyMaxState | Done[int]:
        if not s.remaining:
            return Done(s.maximum if ties == "value" else s.index)
        noisy = ctx.draw(rows[s.remaining[0]])
        i = s.position + 1
        rest = s.remaining[1:]
        if noisy > s.maximum:
            return NoisyMaxState(rest, i, noisy, i, 1)
        if noisy == s.maximum and ties == "uniform":
            count = s.ties + 1
            take = ctx.draw(
                Distribution.of({True: Fraction(1, count), False: 1 - Fraction(1, count)})
            )
            return NoisyMaxState(rest, i, noisy, i if take else s.index, count)
        if noisy == s.maximum and ties == "value":
            return NoisyMaxState(rest, i, noisy, s.index, s.ties)
        return NoisyMaxState(rest, i, s.maximum, s.index, s.ties)

    label = "the maximal noisy value" if ties == "value" else f"argmax, ties {ties}"
    return StepProgram(
        name=f"discrete noisy max (n={n}, {label}, α={alpha}, m={m})",
        start=start,
        step=step,
        inputs=grid(n, m),
        doc=noisy_max.__doc__ or "",
        output_name=(lambda v: f"{v}~") if ties == "value" else (lambda i: f"index {i}"),
    )
