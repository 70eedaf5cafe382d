"""A certified upper bound on sup_v g(v)/h(v) for two exact piecewise output densities.

Branch and bound in ball arithmetic on F = g − T·h: the ratio is at most T
wherever h > 0 exactly when F ≤ 0, and F is an exponential polynomial whose
terms of equal exponent are merged into one ball each, so it cancels far
less than g(box)/h(box) evaluated term by term.  A bounded piece [a, b] is
settled when F′ has one sign there (F is then at most its value at an end:
a maximum at a kink costs one box, not a descent to the kink), or when the
second-order Taylor form F(m) + |F′(m)|·w + |F″(box)|·w²/2 is ≤ 0; else it
is halved, and the ratio at its rational midpoint (a ball) can raise the
lower bound.  The two unbounded pieces are mapped onto u ∈ [0, 1] by
u = e^{−δ·|v − A|} (A the outermost breakpoint, δ the gcd of the exponents
there): a density there is Σ c_m·e^{λ_m v} with λ_m = ∓m·δ, i.e. a
polynomial in u, so after dividing by the lowest power of h the question is
P(u) − T·Q(u) ≤ 0 on a closed interval, settled by the signs of its
coefficients or the same way; P(0)/Q(0) (the limit at ±∞) is a lower bound
of the supremum.  Terms with powers of v on the tails (t^k·e^{λv}) are not
mapped, and neither is a box after ``limit`` splits: the bound is then not
proved.  Each search is remembered by the pair's shapes (:func:`prove_below`).

Thresholds and lower bounds are carried as natural logs (floats read off the
balls, rounded outward): a density ratio of e^2000 (Laplace noise of scale
10⁻³) is past the float range, its log is not.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.engines.certified import balls
from faier.engines.certified.balls import rational_ball
from faier.engines.certified.exppoly import ExpSum, Key, Piecewise
from faier.model.rational import exact_fraction


@dataclass
class Outcome:
    """What the search proved: every box's bound ≤ e^log_threshold (``proved``), the log
    of the best lower bound seen (a ball's lower end, as a float rounded down) and where."""

    proved: bool
    log_lower: float
    point: Any
    unbounded: bool = False

    @property
    def lower(self) -> float:
        """The best lower bound itself (rounded down; the largest float past the range)."""
        return _exp_below(self.log_lower)


def _exp_below(x: float) -> float:
    """A float at most e^x."""
    if x == -math.inf:
        return 0.0
    return math.exp(x) * (1 - 1e-15) if x < 709 else sys.float_info.max


def _exp_ball(log: float) -> Any:
    """e^log as a ball (a threshold given by its log)."""
    import flint

    return flint.arb(log).exp()


def _log_low(ratio: Any) -> float:
    """ln of a ball's lower end as a float rounded down (−∞ when it is not > 0)."""
    return balls.log_floats(ratio)[0]


def _log_high(ratio: Any) -> float:
    """ln of a ball's upper end as a float rounded up."""
    return balls.log_floats(ratio)[1]


def _polynomial_derivative(coefficients: list[Any]) -> list[Any]:
    return [c * i for i, c in enumerate(coefficients)][1:] or [coefficients[0] * 0]


def _signs_settle(p: list[Any], q: list[Any], log_threshold: float) -> bool:
    """P(u) ≤ T·Q(u) on u ∈ [0, 1] when every coefficient of P − T·Q is ≤ 0 (u ≥ 0),
    given Q > 0 there: a one-line proof for most tails."""
    import flint

    bound = _exp_ball(log_threshold)
    if not all(c.upper() <= 0 for c in (pc - bound * qc for pc, qc in zip(p, q, strict=True))):
        return False
    return bool(_horner(q, flint.arb(0.5, 0.5)) > 0)


def _gcd(values: list[Any]) -> Fraction:
    num = 0
    den = 1
    for v in values:
        f = exact_fraction(v)
        num = math.gcd(num, abs(f.numerator))
        den = den * f.denominator // math.gcd(den, f.denominator)
    return Fraction(num, den)


_RATES: dict[int, tuple[Mapping[Key, Any], Fraction]] = {}


def _rate(n: Mapping[Key, Any], d: Mapping[Key, Any]) -> Fraction:
    """δ: the gcd of the exponents of two tail pieces (each piece's memoised)."""
    rates = []
    for piece in (n, d):
        found = _RATES.get(id(piece))
        if found is None or found[0] is not piece:
            if len(_RATES) > CACHE_LIMIT:
                _RATES.clear()
            found = _RATES[id(piece)] = (piece, _gcd([lam for (_, lam, _) in piece]))
        rates.append(found[1])
    return _gcd(rates)


def _tail(
    n: Mapping[Key, Any], d: Mapping[Key, Any], anchor: Any, direction: int
) -> tuple[list[Any], list[Any]] | str | None:
    """(P, Q) coefficient balls in u, lowest power of Q first; None when not polynomial in u,
    "unbounded" when g dominates h at infinity."""
    terms = [*n.items(), *d.items()]
    if any(k != 0 for (k, _, _), _ in terms) or not d:
        return None
    lambdas = [lam for (_, lam, _), _ in terms]
    if any(lam * direction >= 0 for lam in lambdas):
        return None
    delta = _rate(n, d)

    cn, cd = (
        _u_coefficients(n, anchor, direction, delta),
        _u_coefficients(d, anchor, direction, delta),
    )
    if not cd:
        return None
    low = min(cd)
    if cn and min(cn) < low:
        return "unbounded"
    top = max([*cn, *cd])
    zero = balls.ball(ExpSum(()))
    p = [cn.get(m, zero) for m in range(low, top + 1)]
    q = [cd.get(m, zero) for m in range(low, top + 1)]
    return p, q


_U_COEFFICIENTS: dict[tuple[int, Any, int, Fraction], tuple[Mapping[Key, Any], dict[int, Any]]] = {}


def _u_coefficients(
    piece: Mapping[Key, Any], anchor: Any, direction: int, delta: Fraction
) -> dict[int, Any]:
    """power m → the ball of the coefficient of u^m on the tail (memoised per piece object)."""
    import flint

    key = (id(piece), anchor, direction * flint.ctx.prec, delta)
    found = _U_COEFFICIENTS.get(key)
    if found is not None and found[0] is piece:
        return found[1]
    out: dict[int, ExpSum] = {}
    for (_, lam, r), q in piece.items():
        power = int(exact_fraction(lam) * -direction / delta)
        value = ExpSum.of([(r + lam * anchor, q)])
        out[power] = out.get(power, ExpSum(())) + value
    result = {m: balls.ball(c) for m, c in out.items() if not c.is_zero}
    if len(_U_COEFFICIENTS) > 100_000:
        _U_COEFFICIENTS.clear()
    _U_COEFFICIENTS[key] = (piece, result)
    return result


def _grouped(piece: Mapping[Key, Any]) -> dict[tuple[int, Any], ExpSum]:
    out: dict[tuple[int, Any], ExpSum] = {}
    for (k, lam, r), q in piece.items():
        out[(k, lam)] = out.get((k, lam), ExpSum(())) + ExpSum.of([(r, q)])
    return {key: c for key, c in out.items() if not c.is_zero}


def proportional(n: Mapping[Key, Any], d: Mapping[Key, Any]) -> tuple[ExpSum, ExpSum] | None:
    """(a, b) with n = (a/b)·d exactly on the piece, if the ratio is constant there."""
    gn, gd = _grouped(n), _grouped(d)
    if not gd or set(gn) != set(gd):
        return None
    first = next(iter(gd))
    a, b = gn[first], gd[first]
    if all(gn[key] * b == gd[key] * a for key in gd):
        return a, b
    return None


def _horner(coefficients: list[Any], u: Any) -> Any:
    import flint

    total = flint.arb(0)
    for c in reversed(coefficients):
        total = total * u + c
    return total


def _ball(low: Any, high: Any) -> Any:
    import flint

    a, b = rational_ball(low), rational_ball(high)
    return flint.arb((a + b) / 2, ((b - a) / 2).upper())


LIMIT = 4000
"""Boxes split per density ratio before the bound is given up (then: unknown)."""


ShapeKey = tuple[tuple[Any, ...], tuple[frozenset[tuple[Key, Any]], ...]]
_SHAPE_NUMBERS: dict[ShapeKey, int] = {}
"""Each shape's number (from a counter that never repeats, so a forgotten shape's number
is never given to another): searches are keyed by numbers, not by hashing shapes."""
_NUMBERING = itertools.count()
_SHAPES: dict[int, tuple[Piecewise, int, Any]] = {}
_SEARCHED: dict[tuple[int, int, Any, int], _Searched] = {}
CACHE_LIMIT = 200_000
"""Shapes and searches remembered (then forgotten all at once, as the other caches)."""


def _shape(g: Piecewise) -> tuple[int, Any]:
    """The number of g's shape (g moved so that its first breakpoint is 0) and that
    breakpoint a, so g(v) = G(v − a); memoised per function object."""
    found = _SHAPES.get(id(g))
    if found is not None and found[0] is g:
        return found[1], found[2]
    anchor: Any = g.breaks[0] if g.breaks else 0
    moved = g.shift(anchor) if anchor else g
    key = (tuple(moved.breaks), tuple(frozenset(p.items()) for p in moved.pieces))
    if len(_SHAPES) > CACHE_LIMIT:
        _SHAPES.clear()
        _SHAPE_NUMBERS.clear()
    number = _SHAPE_NUMBERS.get(key)
    if number is None:
        number = _SHAPE_NUMBERS[key] = next(_NUMBERING)
    _SHAPES[id(g)] = (g, number, anchor)
    return number, anchor


def prove_below(g: Piecewise, h: Piecewise, threshold: float, limit: int = LIMIT) -> Outcome:
    """Whether sup g/h ≤ threshold over every v where h > 0 (:func:`prove_log_below` at
    ln threshold, for thresholds in the float range)."""
    return prove_log_below(g, h, math.log(threshold) if threshold > 0 else -math.inf, limit)


def prove_log_below(
    g: Piecewise, h: Piecewise, log_threshold: float, limit: int = LIMIT
) -> Outcome:
    """Whether sup g/h ≤ e^log_threshold over every v where h > 0, by branch and bound.

    The supremum depends only on the two shapes and their offset (sup_v G(v − a)/H(v − c)
    = sup_u G(u)/H(u + a − c)), and on nothing else of the pair: Noisy Max's densities
    are equal for inputs equal up to a permutation, and a shifted pair is the same search.
    So each search is remembered by (shape of g, shape of h, a − c): a ratio proved below
    t is below every threshold ≥ t, and a certified lower bound above the threshold stays
    one; any other question searches again.
    """
    (shape_g, a), (shape_h, c) = _shape(g), _shape(h)
    key = (shape_g, shape_h, a - c, limit)
    found = _SEARCHED.get(key)
    if found is not None and (outcome := found.answer(log_threshold, a)) is not None:
        return outcome
    with balls.precision(balls.PRECISIONS[0]):
        searched = _prove_below(g, h, log_threshold, limit)
    if len(_SEARCHED) > CACHE_LIMIT:
        _SEARCHED.clear()
    moved = searched.point
    if moved is not None and not isinstance(moved, str) and a:
        moved = moved - a
    _SEARCHED[key] = _Searched(searched.proved_at, searched.lower, moved, searched.unbounded)
    outcome = searched.answer(log_threshold, 0)
    return outcome if outcome is not None else Outcome(False, searched.lower, searched.point)


Term = tuple[int, Any, Any, Any]
"""(k, exact λ, λ as a ball, c as a ball) of c·t^k·e^{λt}."""
_COEFFICIENTS: dict[tuple[int, int], tuple[Mapping[Key, Any], list[Term]]] = {}


def _terms(piece: Mapping[Key, Any]) -> list[Term]:
    """The piece as Σ c·t^k·e^{λt} with c = q·e^r a ball, equal (k, λ) merged (memoised
    per piece object and precision)."""
    import flint

    key = (id(piece), flint.ctx.prec)
    found = _COEFFICIENTS.get(key)
    if found is not None and found[0] is piece:
        return found[1]
    merged: dict[tuple[int, Any], Any] = {}
    balls_of: dict[Any, Any] = {}
    for (k, lam, r), q in piece.items():
        c = rational_ball(q) * (rational_ball(r).exp() if r else 1)
        merged[(k, lam)] = merged[(k, lam)] + c if (k, lam) in merged else c
        balls_of[lam] = rational_ball(lam)
    terms = [(k, lam, balls_of[lam], c) for (k, lam), c in merged.items()]
    if len(_COEFFICIENTS) > CACHE_LIMIT:
        _COEFFICIENTS.clear()
    _COEFFICIENTS[key] = (piece, terms)
    return terms


def _excess(n: list[Term], d: list[Term], bound: Any) -> list[Term]:
    """F = n − T·d as terms: the ratio n/d ≤ T wherever d > 0 exactly when F ≤ 0."""
    merged: dict[tuple[int, Any], tuple[Any, Any]] = {(k, lam): (lb, c) for k, lam, lb, c in n}
    for k, lam, lb, c in d:
        before = merged.get((k, lam))
        merged[(k, lam)] = (lb, (before[1] if before else 0) - bound * c)
    return [(k, lam, lb, c) for (k, lam), (lb, c) in merged.items()]


def _differentiated(terms: list[Term]) -> list[Term]:
    """d/dt of Σ c·t^k·e^{λt}: k·c·t^{k−1}·e^{λt} + λ·c·t^k·e^{λt}."""
    merged: dict[tuple[int, Any], tuple[Any, Any]] = {}
    for k, lam, lb, c in terms:
        parts = ([(k - 1, c * k)] if k else []) + ([(k, c * lb)] if lam else [])
        for power, value in parts:
            before = merged.get((power, lam))
            merged[(power, lam)] = (lb, before[1] + value if before else value)
    return [(k, lam, lb, c) for (k, lam), (lb, c) in merged.items()]


def _evaluate(terms: list[Term], t: Any) -> Any:
    import flint

    total = flint.arb(0)
    for k, lam, lb, c in terms:
        term = c * (lb * t).exp() if lam else c
        total += term * t**k if k else term
    return total


Function = tuple[Any, Any, Any]
"""F, F′ and F″ as functions of a ball."""


def _with_derivatives(
    f: list[Any], derivative: Callable[[list[Any]], list[Any]], at: Callable[[list[Any], Any], Any]
) -> Function:
    """F given by ``f`` (terms or coefficients), with F′ and F″ by ``derivative``."""
    first = derivative(f)
    second = derivative(first)
    return (lambda t: at(f, t), lambda t: at(first, t), lambda t: at(second, t))


def _exp_function(terms: list[Term]) -> Function:
    return _with_derivatives(terms, _differentiated, _evaluate)


def _poly_function(coefficients: list[Any]) -> Function:
    return _with_derivatives(coefficients, _polynomial_derivative, _horner)


def _at_most_zero(f: Function, a: Any, b: Any) -> bool:
    """Whether F ≤ 0 on [a, b], proved in ball arithmetic.

    F monotone on the box (F′ of one sign) is at most its value at one end; otherwise
    the second-order Taylor form F(m) + |F′(m)|·w + |F″(box)|·w²/2 (w the half-width),
    whose excess shrinks with the square of the width; the plain enclosure F(box) is
    also tried, since far from a maximum it is often enough.
    """
    value, slope, curvature = f
    box = _ball(a, b)
    if value(box) <= 0:
        return True
    rising = slope(box)
    if rising > 0:
        return bool(value(rational_ball(b)) <= 0)
    if rising < 0:
        return bool(value(rational_ball(a)) <= 0)
    half = rational_ball(b - a) / 2
    middle = rational_ball((a + b) / 2)
    taylor = value(middle) + abs(slope(middle)) * half + abs(curvature(box)) * half * half / 2
    return bool(taylor <= 0)


def _tail_point(tail: tuple[Any, int, Fraction], u: Any) -> Any:
    """A rational v near the one that u = e^{−δ·|v − A|} maps to (its ratio, evaluated
    there, is a lower bound like any other point's); None at u = 0 (v at infinity)."""
    from faier.engines.certified.exppoly import Q

    anchor, direction, rate = tail
    if u <= 0:
        return None
    log_u = math.log(int(u.numerator)) - math.log(int(u.denominator))  # u may underflow
    distance = Fraction(-log_u / float(rate)).limit_denominator(1 << 20)
    return anchor + direction * Q(distance)


CLIMB = 2.5e-10
"""A point whose ratio exceeds the threshold raises its log to the ratio's log + CLIMB, and the
search goes on: it ends with the supremum enclosed that tightly (the engine asks again at
its 5·10⁻¹⁰ margin above the lower bound, which the remembered search then answers)."""


@dataclass(frozen=True)
class _Searched:
    """A finished search: the log threshold proved (None: not within the limit), the log
    of the best lower bound and its point in the shape's coordinates, and whether it is
    unbounded."""

    proved_at: float | None
    lower: float
    point: Any
    unbounded: bool = False

    def answer(self, threshold: float, offset: Any) -> Outcome | None:
        """The outcome at log ``threshold`` if this search settles it, else None."""
        point = self.point
        if point is not None and not isinstance(point, str) and offset:
            point = point + offset
        if self.unbounded:
            return Outcome(False, self.lower, point, True)
        if self.proved_at is not None and threshold >= self.proved_at:
            return Outcome(True, self.lower, point)
        if self.lower > threshold:
            return Outcome(False, self.lower, point)
        return None


def _prove_below(g: Piecewise, h: Piecewise, threshold: float, limit: int) -> _Searched:
    """Branch and bound on F = g − T·h ≤ 0, piece by piece and on the two tails, T raised
    past every point found above it (:data:`CLIMB`); ``threshold`` is ln T."""
    from faier.engines.certified.exppoly import Q

    breaks = sorted(set(g.breaks) | set(h.breaks)) or [Q(0)]
    lower: float = -math.inf
    where: Any = None
    current = threshold
    work: list[tuple[str, Any, Any]] = [("t", a, b) for a, b in itertools.pairwise(breaks)]
    pieces: dict[Any, tuple[list[Term], list[Term]] | Any | None] = {}
    tails: dict[str, tuple[list[Any], list[Any], Any, int, Fraction]] = {}
    for side, anchor, direction in (("right", breaks[-1], 1), ("left", breaks[0], -1)):
        probe = anchor + direction
        n_piece, d_piece = g.pieces[g.piece_index(probe)], h.pieces[h.piece_index(probe)]
        if not n_piece:
            continue
        shape = _tail(n_piece, d_piece, anchor, direction)
        infinity = f"v → {'+' if direction > 0 else '−'}∞"
        if shape is None:
            return _Searched(None, lower, where)
        if shape == "unbounded":
            return _Searched(None, math.inf, infinity, True)
        assert not isinstance(shape, str)
        p, q = shape
        rate = _rate(n_piece, d_piece)
        tails[side] = (p, q, anchor, direction, rate)
        pieces[side] = (_terms(n_piece), _terms(d_piece))
        work.append((side, Q(0), Q(1)))
        if (low := _log_low(p[0] / q[0])) > lower:
            lower, where = low, infinity
    if lower > current:
        current = lower + CLIMB
    excess: dict[Any, Function | None] = {}

    def function(key: Any) -> Function | None:
        """F for the piece or tail ``key`` at the current threshold (None: settled)."""
        if key not in excess:
            bound = _exp_ball(current)
            if isinstance(key, str):
                p, q, *_ = tails[key]
                settled = _signs_settle(p, q, current)
                polynomial = [pc - bound * qc for pc, qc in zip(p, q, strict=True)]
                excess[key] = None if settled else _poly_function(polynomial)
            else:
                found = pieces[key]
                assert isinstance(found, tuple)
                n_terms, d_terms = found
                excess[key] = _exp_function(_excess(n_terms, d_terms, bound))
        return excess[key]

    splits = 0
    while work:
        kind, a, b = work.pop()
        mid = (a + b) / 2
        key: Any = kind
        if kind == "t":
            key = g.piece_index(mid), h.piece_index(mid)
            if key not in pieces:
                n_piece, d_piece = g.pieces[key[0]], h.pieces[key[1]]
                constant = proportional(n_piece, d_piece) if n_piece else None
                if constant is not None:
                    ratio = balls.ball(constant[0]) / balls.ball(constant[1])
                    pieces[key] = ratio
                    if _log_low(ratio) > lower:
                        lower, where = _log_low(ratio), mid
                    if not ratio <= _exp_ball(current):
                        current = max(lower, _log_high(ratio)) + CLIMB
                        excess.clear()
                else:
                    pieces[key] = (_terms(n_piece), _terms(d_piece)) if n_piece else None
            if not isinstance(pieces[key], tuple):
                continue
        f = function(key)
        if f is None or _at_most_zero(f, a, b):
            continue
        point = mid if kind == "t" else _tail_point(tails[kind][2:], mid)
        if point is not None:
            n, d = pieces[key]  # type: ignore[misc]
            centre = rational_ball(point)
            below = _evaluate(d, centre)
            if below > 0 and (low := _log_low(_evaluate(n, centre) / below)) > lower:
                lower, where = low, point
                if lower >= current:
                    current = lower + CLIMB
                    excess.clear()
        splits += 1
        if splits > limit:
            return _Searched(None, lower, where)
        work.append((kind, a, mid))
        work.append((kind, mid, b))
    return _Searched(current, lower, where)
