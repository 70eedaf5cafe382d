"""Exact privacy losses of one comparison from its outcome probabilities.

Given P = Pr[· | π] and Q = Pr[· | τ] per outcome: the pure loss is
max_ω P(ω)/Q(ω); the hockey-stick divergence is
δ(ε) = Σ_ω max(0, P(ω) − e^ε Q(ω)).

Outcomes are transcripts of steps ``(choice, observation)``.  Where the
adversary chooses (the answer pair of an interactive mechanism), δ is the
best strategy's: at each history the choice with the larger remaining
divergence, computed bottom-up over the transcript tree.  Without choices
(``choice`` None) this is the plain sum.  Every comparison with e^ε is exact.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from faier.privacy.budget import Epsilon
from faier.results import Loss, loss_of

Step = tuple[Hashable, str]
"""One step of a transcript: the adversary's choice (None if none) and the observation."""
Transcript = tuple[Step, ...]
Outcomes = Mapping[Transcript, tuple[Fraction, Fraction]]


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


@dataclass(frozen=True)
class Event:
    """Outcomes where P > e^ε·Q under the best strategy, with their total masses."""

    p: Fraction
    q: Fraction
    outcomes: tuple[Transcript, ...]


def _line_greater(a: Event, b: Event, eps: Epsilon) -> bool:
    """Whether a.p − e^ε·a.q > b.p − e^ε·b.q, decided exactly."""
    dp, dq = a.p - b.p, a.q - b.q
    if dq == 0:
        return dp > 0
    if dq > 0:  # need dp > e^ε·dq
        return dp > 0 and eps.exceeded_by(dp / dq)
    # need dp + e^ε·|dq| > 0, i.e. e^ε > −dp/|dq|
    return dp >= 0 or eps.compare_ratio(-dp / -dq) < 0


def best_event(outcomes: Outcomes, eps: Epsilon) -> Event:
    """The event maximising P(S) − e^ε·Q(S), over adversary strategies where they choose."""
    items = [(t, p, q) for t, (p, q) in outcomes.items() if p > 0]

    def split(members: list[tuple[Transcript, Fraction, Fraction]], depth: int) -> Event:
        """Members share the history up to ``depth``'s choice: sum over its observations."""
        by_observation: dict[str, list[tuple[Transcript, Fraction, Fraction]]] = {}
        for member in members:
            by_observation.setdefault(member[0][depth][1], []).append(member)
        total_p, total_q = Fraction(0), Fraction(0)
        chosen: list[Transcript] = []
        for branch in by_observation.values():
            sub = solve(branch, depth + 1)
            total_p, total_q = total_p + sub.p, total_q + sub.q
            chosen.extend(sub.outcomes)
        return Event(total_p, total_q, tuple(chosen))

    def solve(group: list[tuple[Transcript, Fraction, Fraction]], depth: int) -> Event:
        """Best event below one history (all transcripts in ``group`` share it)."""
        total_p, total_q = Fraction(0), Fraction(0)
        chosen: list[Transcript] = []
        by_choice: dict[Hashable, list[tuple[Transcript, Fraction, Fraction]]] = {}
        for transcript, p, q in group:
            if len(transcript) == depth:
                if eps.exceeded_by(None if q == 0 else p / q):
                    total_p, total_q = total_p + p, total_q + q
                    chosen.append(transcript)
            else:
                by_choice.setdefault(transcript[depth][0], []).append((transcript, p, q))
        best: Event | None = None
        for choice, members in by_choice.items():
            candidate = split(members, depth)
            if choice is None:
                total_p, total_q = total_p + candidate.p, total_q + candidate.q
                chosen.extend(candidate.outcomes)
            elif best is None or _line_greater(candidate, best, eps):
                best = candidate
        if best is not None:
            total_p, total_q = total_p + best.p, total_q + best.q
            chosen.extend(best.outcomes)
        return Event(total_p, total_q, tuple(chosen))

    return solve(items, 0)


def exceeds_delta(
    outcomes: Outcomes, eps: Epsilon, delta: Fraction
) -> tuple[bool, Event, Fraction | None]:
    """Whether δ(ε) > δ (exactly), the worst event, and δ(ε) itself when e^ε is rational."""
    event = best_event(outcomes, eps)
    exact = None if eps.exp_ratio is None else event.p - eps.exp_ratio * event.q
    surplus = event.p - delta
    if surplus <= 0:
        return False, event, exact
    if event.q == 0:
        return True, event, exact
    return eps.exceeded_by(surplus / event.q), event, exact


def smallest_exp_epsilon(outcomes: Outcomes, delta: Fraction) -> tuple[Loss, Event]:
    """The least e^ε ≥ 1 with δ(ε) ≤ δ, exactly (∞ if none), and the event at it.

    δ(e^ε) is convex, decreasing and piecewise linear (a maximum of strategy
    lines P(S) − e^ε·Q(S)).  Newton's method on its supporting lines reaches
    the root exactly in finitely many steps.
    """
    ratio = Fraction(1)
    while True:
        event = best_event(outcomes, Epsilon.from_ratio(ratio))
        if event.p - ratio * event.q <= delta:
            return Loss(ratio), event
        if event.q == 0:
            return Loss(None), event
        ratio = (event.p - delta) / event.q
