"""Exact privacy losses of one comparison from its two outcome distributions.

Given P = Pr[· | π] and Q = Pr[· | τ] over the same outcomes:
the pure loss is max_ω P(ω)/Q(ω); the hockey-stick divergence is
δ(ε) = Σ_ω max(0, P(ω) − e^ε Q(ω)); and the smallest ε with δ(ε) ≤ δ is
found exactly because δ is piecewise linear in e^ε with breakpoints at the
ratios P(ω)/Q(ω).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from faier.privacy.budget import Epsilon
from faier.results import Loss, loss_of

Outcomes = Mapping[tuple[str, ...], tuple[Fraction, Fraction]]
"""outcome -> (P, Q)."""


@dataclass(frozen=True)
class Worst:
    """The outcome of largest loss and its exact probabilities."""

    loss: Loss
    outcome: Hashable
    p: Fraction
    q: Fraction


def worst_outcome(pairs: Iterable[tuple[Hashable, Fraction, Fraction]]) -> Worst | None:
    """The outcome maximising P/Q (outcomes with P = 0 never matter)."""
    best: Worst | None = None
    for outcome, p, q in pairs:
        if p == 0:
            continue
        loss = loss_of(p, q)
        if best is None or loss.exceeds(best.loss):
            best = Worst(loss, outcome, p, q)
    return best


def exceeds_delta(
    outcomes: Outcomes, eps: Epsilon, delta: Fraction
) -> tuple[bool, Fraction | None]:
    """Whether δ(ε) > δ, decided exactly; also δ(ε) itself when e^ε is rational."""
    mass_p = Fraction(0)
    mass_q = Fraction(0)
    for p, q in outcomes.values():
        if p > 0 and eps.exceeded_by(None if q == 0 else p / q):
            mass_p += p
            mass_q += q
    exact = None if eps.exp_ratio is None else mass_p - eps.exp_ratio * mass_q
    surplus = mass_p - delta
    if surplus <= 0:
        return False, exact
    if mass_q == 0:
        return True, exact
    return eps.exceeded_by(surplus / mass_q), exact


def smallest_exp_epsilon(outcomes: Outcomes, delta: Fraction) -> Loss:
    """The least e^ε ≥ 1 with δ(ε) ≤ δ, as an exact ratio (∞ if none)."""
    infinite_mass = sum((p for p, q in outcomes.values() if q == 0 and p > 0), Fraction(0))
    if infinite_mass > delta:
        return Loss(None)
    finite = sorted(
        ((p / q, p, q) for p, q in outcomes.values() if q > 0 and p > 0),
        key=lambda t: t[0],
        reverse=True,
    )
    mass_p = infinite_mass
    mass_q = Fraction(0)
    # Walk breakpoints from the largest ratio down; on each segment δ(E) = P_S − E·Q_S.
    i = 0
    while i < len(finite):
        ratio = finite[i][0]
        if ratio <= 1:
            break
        # δ at E = ratio uses outcomes with ratio strictly above it (already in S).
        if mass_p - ratio * mass_q > delta:
            return Loss((mass_p - delta) / mass_q)
        while i < len(finite) and finite[i][0] == ratio:
            mass_p += finite[i][1]
            mass_q += finite[i][2]
            i += 1
    if mass_p - mass_q > delta:  # at E = 1
        return Loss((mass_p - delta) / mass_q)
    return Loss(Fraction(1))
