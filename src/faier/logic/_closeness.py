"""Is Pr(s) ≤ e^ε·Pr(t) + δ?  Decided exactly, with a float fast path.

With ε = ln(r) (r rational) everything is rational.  Otherwise e^ε is
transcendental and :meth:`Epsilon.compare_ratio` decides with increasing
precision; a float comparison with a wide relative margin settles the clear
cases first, which matters when thousands of action words are compared.
:class:`Closeness` is one such comparison as a D's witness (loaded with the first D:
a report of P alone never creates it).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.logic.outcome import Method, compact, differences_first, show_word
from faier.privacy.budget import Epsilon
from faier.results import Loss


def _frac(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def _equals(value: Fraction) -> str:
    text = compact(value)
    return text if text.startswith("≈") else f"= {text}"


@dataclass(frozen=True)
class Closeness:
    """One comparison behind a D: Pr(left) against e^ε·Pr(right) + δ.

    On an MDP, ``word`` is the query scheduler's action word (ending in a
    letter repeated forever when ``repeat`` is set); under Proposition 2,
    ``p`` is the largest probability from ``left`` over all schedulers and
    ``q`` the smallest from ``right``.
    """

    left: str
    right: str
    p: Fraction
    q: Fraction
    holds: bool
    margin: Fraction | None
    margin_value: float
    method: Method = "storm"
    word: tuple[str | None, ...] | None = None
    repeat: str | None = None

    def show(self) -> str:
        relation = "≤" if self.holds else ">"
        low, high = {"proposition 2": ("min ", "max "), "every scheduler": ("max ", "min ")}.get(
            self.method, ("", "")
        )
        left, right = differences_first(self.left, self.right)
        core = (
            f"{high}Pr({left}) {_equals(self.p)} {relation} e^ε·{low}Pr({right}) + δ"
            f" where {low}Pr({right}) {_equals(self.q)}"
        )
        if self.repeat is not None:
            prefix = f"{show_word(self.word)}, then " if self.word else ""
            core += f" under actions {prefix}{self.repeat} forever"
        elif self.word is not None:
            core += f" under actions {show_word(self.word)}"
        return core

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "left": self.left,
            "right": self.right,
            "p": str(self.p),
            "q": str(self.q),
            "holds": self.holds,
            "margin": _frac(self.margin),
            "margin_value": self.margin_value,
            "method": self.method,
        }
        if self.word is not None:
            out["word"] = [letter if letter is not None else "-" for letter in self.word]
        if self.repeat is not None:
            out["repeat"] = self.repeat
        return out


_MARGIN = 1e-9
FLOAT_MAX = sys.float_info.max
_LOG_FLOAT_MAX = math.log(FLOAT_MAX)


def _sign(value: Fraction) -> int:
    return (value > 0) - (value < 0)


def saturated(value: Fraction) -> float:
    """``value`` as a float, clamped to ±FLOAT_MAX: e^ε·q can pass 1.8e308 when ε > 709.

    Clamping is monotone, so order comparisons of the floats stay safe, and
    the result is finite, so JSON output (no NaN, no Infinity) still works.
    """
    try:
        return float(value)
    except OverflowError:
        return FLOAT_MAX if value > 0 else -FLOAT_MAX


def exp_float(epsilon: Epsilon) -> float:
    """e^ε as a float, FLOAT_MAX when it is larger (ε > 709.78), never an OverflowError."""
    ratio = epsilon.exp_ratio
    if ratio is not None:
        return saturated(ratio)
    try:
        return min(math.exp(epsilon.value), FLOAT_MAX)
    except OverflowError:
        return FLOAT_MAX


def scaled(epsilon: Epsilon, q: Fraction) -> float:
    """e^ε·q as a float (display, float fast paths), saturating at FLOAT_MAX.

    For huge ε it is computed as exp(ε + ln q), so a tiny q can still bring
    e^ε·q back into range.
    """
    if q == 0:
        return 0.0
    ratio = epsilon.exp_ratio
    if ratio is not None:
        return saturated(ratio * q)
    factor = exp_float(epsilon)
    if factor < FLOAT_MAX:
        return factor * float(q)
    try:
        exponent = epsilon.value + math.log(q.numerator) - math.log(q.denominator)
    except OverflowError:
        return FLOAT_MAX
    return FLOAT_MAX if exponent >= _LOG_FLOAT_MAX else math.exp(exponent)


@dataclass(frozen=True)
class DiffBudget:
    """ε and δ of one D operator, with e^ε as a (saturating) float for display and the fast path."""

    epsilon: Epsilon
    delta: Fraction

    @property
    def factor(self) -> float:
        """e^ε as a float (display and the fast path only), FLOAT_MAX past the float range."""
        return exp_float(self.epsilon)

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
        quotient = rest / q
        approx, factor = saturated(quotient), self.factor
        if approx < factor * (1 - _MARGIN):
            return -1
        if factor < FLOAT_MAX and approx > factor * (1 + _MARGIN):
            return 1
        return self.epsilon.compare_ratio(quotient)

    def margin(self, p: Fraction, q: Fraction) -> Fraction | None:
        """e^ε·q + δ − p exactly, when e^ε is rational."""
        ratio = self.epsilon.exp_ratio
        return None if ratio is None else ratio * q + self.delta - p

    def margin_value(self, p: Fraction, q: Fraction) -> float:
        """e^ε·q + δ − p as a float, for display; FLOAT_MAX when e^ε·q is past the float range."""
        return min(scaled(self.epsilon, q) + float(self.delta) - float(p), FLOAT_MAX)

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
    if candidate.margin_value >= FLOAT_MAX and best.margin_value >= FLOAT_MAX:
        # Both e^ε·q are past the float range, where e^ε·q dwarfs δ − p: the smaller q is closer.
        return (candidate.q, -candidate.p) < (best.q, -best.p)
    return candidate.margin_value < best.margin_value
