"""Discrete Above Threshold (FAIER journal Algorithm 4, conference Algorithm 3; Fig. 3).

The threshold t (public, in {0..m}) gets truncated α_t-geometric noise once;
each query answer r in {0..m} gets fresh truncated α_q-geometric noise.  The
mechanism reports ⊥ while the noisy answer stays below the noisy threshold
and halts with ⊤ at the first one that reaches it.  The FAIER papers expect
4·ln 2-DP from the continuous proof (α_t = 1/4, α_q = 1/2); the discrete
mechanism has no finite ε at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.interactive import HALTED, Halted, Interactive
from faier.model.distribution import truncated_geometric

BOTTOM = "⊥"
TOP = "⊤"


@dataclass(frozen=True)
class Fresh:
    """Before the first query: only the public threshold is known."""

    threshold: int


@dataclass(frozen=True)
class Running:
    """After the first query: the noisy threshold is fixed for the rest of the run."""

    noisy_threshold: int


def above_threshold(
    threshold_alpha: Fraction = Fraction(1, 4),
    query_alpha: Fraction = Fraction(1, 2),
    m: int = 2,
    threshold: int | None = None,
) -> Interactive:
    """Report ⊥ until a noisy answer reaches the noisy threshold, then ⊤ and halt."""
    thresholds = range(m + 1) if threshold is None else (threshold,)
    if threshold is not None and not 0 <= threshold <= m:
        raise SpecError(f"threshold {threshold} is outside 0..{m}")
    noise_t = {t: truncated_geometric(threshold_alpha, m, t) for t in range(m + 1)}
    noise_q = {r: truncated_geometric(query_alpha, m, r) for r in range(m + 1)}

    def step(state: Fresh | Running, answer: int, ctx: Context) -> tuple[Running | Halted, str]:
        if isinstance(state, Fresh):
            noisy_t = ctx.draw(noise_t[state.threshold])
        else:
            noisy_t = state.noisy_threshold
        if ctx.draw(noise_q[answer]) >= noisy_t:
            return HALTED, TOP
        return Running(noisy_t), BOTTOM

    return Interactive(
        name=f"discrete above threshold (threshold α={threshold_alpha}, query α={query_alpha}, "
        f"answers in 0..{m})",
        letters=tuple(range(m + 1)),
        starts={f"threshold {t}": Fresh(t) for t in thresholds},
        step=step,
        doc=above_threshold.__doc__ or "",
    )
