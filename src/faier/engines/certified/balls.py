"""Certified evaluation of closed forms with python-flint's arb balls.

An arb ball [m ± r] is guaranteed to contain the true value of every
operation it results from (FLINT's Arb library), so evaluating an exact
:class:`~.exppoly.ExpSum` term by term gives a certified enclosure.  Signs
are decided by raising the working precision until the ball excludes zero;
an ExpSum that is not exactly zero has a non-zero value
(Lindemann–Weierstrass), so this ends, and a cap turns the pathological
case into "unknown" rather than a hang.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from faier.engines.certified.exppoly import ExpSum
from faier.privacy.budget import Epsilon
from faier.results import Enclosure

PRECISIONS = (128, 256, 512, 1024, 4096)
"""Working precisions in bits, tried in turn when a ball straddles a decision."""


class Undecided(Exception):
    """A sign that the largest working precision could not settle."""


@contextmanager
def precision(bits: int) -> Iterator[None]:
    import flint

    previous = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = previous


def rational_ball(q: Fraction | int) -> Any:
    """The arb ball of an exact rational at the working precision (it contains ``q``)."""
    import flint

    return flint.arb(int(q.numerator)) / int(q.denominator)


def sqrt_two_ball() -> Any:
    """√2 as an arb ball at the working precision."""
    import flint

    return flint.arb(2).sqrt()


def ball(value: ExpSum) -> Any:
    """The arb enclosure of an exact ExpSum at the current precision."""
    import flint

    total = flint.arb(0)
    for r, q in value.terms:
        total += rational_ball(q) * (rational_ball(r).exp() if r else 1)
    return total


def sign(value: ExpSum) -> int:
    """The exact sign of an ExpSum (0 only when it is exactly zero)."""
    if value.is_zero:
        return 0
    for bits in PRECISIONS:
        with precision(bits):
            b = ball(value)
            if b > 0:
                return 1
            if b < 0:
                return -1
    raise Undecided(f"the sign of {value.show()} stays undecided at {PRECISIONS[-1]} bits")


def exp_epsilon(eps: Epsilon) -> ExpSum | None:
    """e^ε as an ExpSum when it is one (log forms: rational; a rational ε: e^ε itself)."""
    if eps.exp_ratio is not None:
        return ExpSum.rational(eps.exp_ratio)
    if eps.rational is not None:
        return ExpSum.exp(eps.rational)
    return None


def exp_epsilon_ball(eps: Epsilon, bits: int) -> Any:
    """e^ε as a ball for any ε faier reads (sympy's evaluation to ``bits`` + 20 bits)."""
    import flint

    exact = exp_epsilon(eps)
    if exact is not None:
        return ball(exact)
    import sympy

    digits = int(bits * 0.302) + 10
    text = str(sympy.exp(eps.expr).evalf(digits))
    return flint.arb(text) * flint.arb(1, flint.arb(10) ** (-digits + 3))


def exceeds(
    eps: Epsilon,
    p_ball: Callable[[int], Any],
    q_ball: Callable[[int], Any],
    exact: tuple[ExpSum, ExpSum] | None = None,
) -> bool | None:
    """p > e^ε·q: by the exact sign of p − e^ε·q where p, q and e^ε are all exact, else by
    the balls ``p_ball(bits)`` and ``q_ball(bits)`` at each working precision (None:
    undecided at the largest)."""
    exp_eps = exp_epsilon(eps)
    if exact is not None and exp_eps is not None:
        p, q = exact
        try:
            return sign(p - q * exp_eps) > 0
        except Undecided:
            return None
    for bits in PRECISIONS:
        with precision(bits):
            difference = p_ball(bits) - exp_epsilon_ball(eps, bits) * q_ball(bits)
            if difference > 0:
                return True
            if difference < 0:
                return False
    return None


def floats(b: Any) -> tuple[float, float]:
    """A ball's bounds as floats rounded outward."""
    low = float(b.lower())
    high = float(b.upper())
    return math.nextafter(low, -math.inf), math.nextafter(high, math.inf)


def beyond_floats(b: Any) -> str | None:
    """The ball in arb's decimal notation when its float bounds lose it (a positive value
    that underflows to 0, or one that overflows): shown beside the float interval."""
    low, high = floats(b)
    if (b > 0 and low <= 0) or (math.isinf(high) and not math.isinf(low)):
        return str(b.str(10))
    return None


def log_floats(b: Any) -> tuple[float, float]:
    """Floats below ln(lower end) and above ln(upper end) of a ball: a probability's log
    bounds, which stay in the float range where the probability itself underflows.

    An end that is not certainly positive has −∞ as its log (so a screen on these
    floats never reads it as a number); an end whose log leaves the float range gives
    the infinite bound on its side.
    """
    low, high = b.lower(), b.upper()
    log_low = floats(low.log())[0] if low > 0 else -math.inf
    log_high = floats(high.log())[1] if high > 0 else -math.inf
    return (log_low if not math.isnan(log_low) else -math.inf), (
        log_high if not math.isnan(log_high) else math.inf
    )


def enclose(value: ExpSum, *, closed_form: bool = True) -> Enclosure:
    """A certified interval for an exact ExpSum, with its closed form."""
    if value.is_zero:
        return Enclosure(0.0, 0.0, "0")
    with precision(PRECISIONS[0]):
        low, high = floats(ball(value))
    return Enclosure(low, high, value.show() if closed_form else None)
