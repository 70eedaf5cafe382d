"""The least ε with δ(ε) ≤ δ, bracketed by bisection on a certified test of δ(ε) > δ.

δ(ε) is nonincreasing in ε, so one test ``above(ε)`` (True: δ(ε) > δ is
proved, False: δ(ε) ≤ δ is proved, None: the balls do not separate them)
brackets the least ε: from 0, doubling from 1 up to a cap, then halving the
bracket to a relative width.  Only proved answers move an end, so the
bracket is what is proved; an undecided test stops the search with the
bracket reached and says so.  The interval tables (floats), the Gaussian
mechanism (floats) and released integers (fractions) share it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

T = TypeVar("T", float, Fraction)

ROUNDS = 200
"""The most halvings (a relative width of 10⁻¹⁰ takes about 45 from ε ≤ 512)."""


@dataclass(frozen=True)
class Bracket(Generic[T]):
    """What the search proved about the least ε."""

    low: T | None
    """An ε with δ(ε) > δ (None: none found, the least ε may be 0)."""
    high: T | None
    """An ε with δ(ε) ≤ δ (None: none up to the cap)."""
    stopped: str | None
    """Why the search ended before the bracket was narrow (None: it is narrow)."""


def least_epsilon(above: Callable[[T], bool | None], zero: T, cap: T, tolerance: T) -> Bracket[T]:
    """Bracket the least ε with ``above(ε)`` False, to ``tolerance`` relative (absolute
    below ε = 1); ``zero`` also fixes the number type (float or Fraction)."""
    start = above(zero)
    if start is False:
        return Bracket(None, zero, None)
    one = zero + 1
    low = zero if start else None
    high = one
    undecided: T | None = None
    while True:
        verdict = above(high)
        if verdict is False:
            break
        if verdict:
            low = high
        elif undecided is None:
            undecided = high
        if high >= cap:
            return Bracket(low, None, _capped(low, undecided, cap))
        high *= 2
    for _ in range(ROUNDS):
        base = zero if low is None else low
        if high - base <= tolerance * max(one, base):
            break
        middle = (base + high) / 2
        verdict = above(middle)
        if verdict is None:
            return Bracket(low, high, "the balls cannot separate δ(ε) from δ between these bounds")
        if verdict:
            low = middle
        else:
            high = middle
    return Bracket(low, high, None)


def _capped(low: T | None, undecided: T | None, cap: T) -> str:
    """Why the doubling stopped at the cap: what was proved above δ, what stayed undecided."""
    if undecided is None:
        return f"δ(ε) stays above δ up to ε = {float(cap):g}"
    proved = "nowhere" if low is None else f"up to ε = {float(low):g}"
    return (
        f"δ(ε) is above δ {proved}; from ε = {float(undecided):g} up to {float(cap):g} the "
        "balls could not always compare δ(ε) with δ"
    )
