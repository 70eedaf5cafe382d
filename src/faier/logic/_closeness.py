"""Is Pr(s) ≤ e^ε·Pr(t) + δ?  Decided exactly, with a float fast path.

With ε = ln(r) (r rational) everything is rational.  Otherwise e^ε is
transcendental and :meth:`Epsilon.compare_ratio` decides with increasing
precision; a float comparison with a wide relative margin settles the clear
cases first, which matters when thousands of action words are compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from faier.logic.outcome import Closeness
from faier.privacy.budget import Epsilon
from faier.results import Loss

_MARGIN = 1e-9


def _sign(value: Fraction) -> int:
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class Budget:
    """ε and δ of one D operator, with e^ε as a float for display and the fast path."""

    epsilon: Epsilon
    delta: Fraction

    @property
    def factor(self) -> float:
        """e^ε as a float (display and the fast path only)."""
        ratio = self.epsilon.exp_ratio
        return float(ratio) if ratio is not None else math.exp(self.epsilon.value)

    def excess(self, p: Fraction, q: Fraction) -> int:
        """Sign of p − (e^ε·q + δ): positive means the comparison fails."""
        rest = p - self.delta
        if rest <= 0:
            return -1 if q > 0 or rest < 0 else 0
        if q == 0:
            return 1
        ratio = self.epsilon.exp_ratio
        if ratio is not None:
            return _sign(rest - ratio * q)
        quotient = float(rest / q)
        factor = self.factor
        if quotient < factor * (1 - _MARGIN):
            return -1
        if quotient > factor * (1 + _MARGIN):
            return 1
        return self.epsilon.compare_ratio(rest / q)

    def margin(self, p: Fraction, q: Fraction) -> Fraction | None:
        """e^ε·q + δ − p exactly, when e^ε is rational."""
        ratio = self.epsilon.exp_ratio
        return None if ratio is None else ratio * q + self.delta - p

    def margin_value(self, p: Fraction, q: Fraction) -> float:
        """e^ε·q + δ − p as a float, for display."""
        return self.factor * float(q) + float(self.delta) - float(p)

    def least_ratio(self, p: Fraction, q: Fraction) -> Loss:
        """The least e^ε ≥ 1 with p ≤ e^ε·q + δ (infinite when q = 0 < p − δ)."""
        rest = p - self.delta
        if rest <= q:
            return Loss(Fraction(1))
        return Loss(None) if q == 0 else Loss(rest / q)


def closer_to_failing(candidate: Closeness, best: Closeness | None) -> bool:
    """Is ``candidate`` closer to failing (or failing worse) than ``best``?"""
    if best is None:
        return True
    if candidate.holds != best.holds:
        return not candidate.holds
    if candidate.margin is not None and best.margin is not None:
        return candidate.margin < best.margin
    return candidate.margin_value < best.margin_value
