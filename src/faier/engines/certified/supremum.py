"""A certified upper bound on sup_v g(v)/h(v) for two exact piecewise output densities.

Branch and bound in ball arithmetic.  A bounded piece [a, b] is a ball in v,
and g(ball)/h(ball) encloses the ratio over it; a box whose enclosure stays
above the threshold is halved (its rational midpoint is also evaluated
exactly, which can raise the lower bound).  The two unbounded pieces are
mapped onto u ∈ [0, 1] by u = e^{−δ·|v − A|} (A the outermost breakpoint, δ
the gcd of the exponents there): a density there is Σ c_m·e^{λ_m v} with
λ_m = ∓m·δ, i.e. a polynomial in u, so after dividing by the lowest power
of h the ratio is P(u)/Q(u) with Q(0) ≠ 0 on a closed interval, enclosed the
same way; its value at u = 0 (the limit at ±∞) is a lower bound of the
supremum.  Terms with powers of v on the tails (t^k·e^{λv}) are not mapped,
and neither is a box after ``limit`` splits: the bound is then not proved.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.engines.certified import balls
from faier.engines.certified.exppoly import ExpSum, Key, Piecewise, piece_at


@dataclass
class Outcome:
    """What the search proved: every box's bound ≤ threshold (``proved``), the best
    lower bound seen (a ball's lower end, as a float) and where."""

    proved: bool
    lower: float
    point: Any
    unbounded: bool = False


def _arb_q(q: Any) -> Any:
    import flint

    return flint.arb(int(q.numerator)) / int(q.denominator)


_CONVERTED: dict[tuple[int, Any], Any] = {}


def _arb_cached(q: Any) -> Any:
    """The ball of a rational at the working precision (memoised per precision)."""
    import flint

    key = (flint.ctx.prec, q)
    found = _CONVERTED.get(key)
    if found is None:
        if len(_CONVERTED) > 200_000:
            _CONVERTED.clear()
        found = _CONVERTED[key] = _arb_q(q)
    return found


Terms = list[tuple[int, Any, Any, Any]]
_PREPARED: dict[int, tuple[Mapping[Key, Any], Terms, Terms]] = {}


def _prepared(piece: Mapping[Key, Any]) -> tuple[Terms, Terms]:
    """The piece's terms and its derivative's as balls (k, λ, r, q), converted once per
    piece object: a density is compared with every neighbour's."""
    import flint

    found = _PREPARED.get(id(piece))
    if found is None or found[0] is not piece or flint.ctx.prec != balls.PRECISIONS[0]:

        def terms(p: Mapping[Key, Any]) -> Terms:
            return [(k, _arb_q(lam), _arb_q(r), _arb_q(q)) for (k, lam, r), q in p.items()]

        if len(_PREPARED) > 100_000:
            _PREPARED.clear()
        found = _PREPARED[id(piece)] = (piece, terms(piece), terms(_derivative(piece)))
    return found[1], found[2]


def _eval_terms(terms: Terms, t: Any) -> Any:
    import flint

    total = flint.arb(0)
    for k, lam, r, q in terms:
        term = q * (lam * t + r).exp()
        total += term * t**k if k else term
    return total


def _eval_t(piece: Mapping[Key, Any], t: Any) -> Any:
    return _eval_terms(_prepared(piece)[0], t)


def _derivative(piece: Mapping[Key, Any]) -> dict[Key, Any]:
    """d/dt of Σ q·t^k·e^{λt + r}: k·t^{k−1} and λ·t^k terms."""
    out: dict[Key, Any] = {}
    for (k, lam, r), q in piece.items():
        if k:
            out[(k - 1, lam, r)] = out.get((k - 1, lam, r), 0) + q * k
        if lam:
            out[(k, lam, r)] = out.get((k, lam, r), 0) + q * lam
    return out


def _mean_value(
    n_mid: Any, d_mid: Any, n: Any, d: Any, dn: Any, dd: Any, half_width: Any
) -> float | None:
    """Upper end of R(m) + R'(box)·[−w/2, w/2] for R = n/d (the centred form: its excess
    over the true range shrinks with the square of the width); None if d may vanish."""
    if not (d > 0 and d_mid > 0):
        return None
    slope = (dn * d - n * dd) / (d * d)
    return float((n_mid / d_mid + abs(slope) * half_width).upper())


def _polynomial_derivative(coefficients: list[Any]) -> list[Any]:
    return [c * i for i, c in enumerate(coefficients)][1:] or [coefficients[0] * 0]


def _signs_settle(p: list[Any], q: list[Any], threshold: float) -> bool:
    """P(u) ≤ T·Q(u) on u ∈ [0, 1] when every coefficient of P − T·Q is ≤ 0 (u ≥ 0),
    given Q > 0 there: a one-line proof for most tails."""
    import flint

    bound = flint.arb(threshold)
    if not all(c.upper() <= 0 for c in (pc - bound * qc for pc, qc in zip(p, q, strict=True))):
        return False
    return bool(_horner(q, flint.arb(0.5, 0.5)) > 0)


def _gcd(values: list[Any]) -> Fraction:
    num = 0
    den = 1
    for v in values:
        f = Fraction(int(v.numerator), int(v.denominator)) if not isinstance(v, Fraction) else v
        num = math.gcd(num, abs(f.numerator))
        den = den * f.denominator // math.gcd(den, f.denominator)
    return Fraction(num, den)


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
    delta = _gcd(lambdas)

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
        power = int(Fraction(int(lam.numerator), int(lam.denominator)) * -direction / delta)
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

    a, b = _arb_q(low), _arb_q(high)
    return flint.arb((a + b) / 2, ((b - a) / 2).upper())


LIMIT = 4000
"""Boxes split per density ratio before the bound is given up (then: unknown)."""


def prove_below(g: Piecewise, h: Piecewise, threshold: float, limit: int = LIMIT) -> Outcome:
    """Whether sup g/h ≤ threshold over every v where h > 0, by branch and bound."""
    with balls.precision(balls.PRECISIONS[0]):
        return _prove_below(g, h, threshold, limit)


def _prove_below(g: Piecewise, h: Piecewise, threshold: float, limit: int) -> Outcome:
    from faier.engines.certified.exppoly import Q

    breaks = sorted(set(g.breaks) | set(h.breaks))
    best = Outcome(True, -math.inf, None)
    work: list[tuple[str, Any, Any, int]] = []
    if not breaks:
        breaks = [Q(0)]
    for a, b in itertools.pairwise(breaks):
        work.append(("t", a, b, 0))
    work.append(("right", Q(0), Q(1), 0))
    work.append(("left", Q(0), Q(1), 0))
    tails: dict[str, tuple[list[Any], list[Any]] | None] = {}
    for side, anchor, direction in (("right", breaks[-1], 1), ("left", breaks[0], -1)):
        probe = anchor + direction
        n_piece, d_piece = g.pieces[g.piece_index(probe)], h.pieces[h.piece_index(probe)]
        if not n_piece:
            tails[side] = None
            continue
        shape = _tail(n_piece, d_piece, anchor, direction)
        if shape is None:
            return Outcome(False, best.lower, None)
        if shape == "unbounded":
            return Outcome(False, math.inf, f"v → {'+' if direction > 0 else '−'}∞", True)
        assert not isinstance(shape, str)
        tails[side] = shape
        p, q = shape
        limit_ratio = p[0] / q[0]
        low = float(limit_ratio.lower())
        if low > best.lower:
            best = Outcome(True, low, f"v → {'+' if direction > 0 else '−'}∞")
    if best.lower > threshold:
        return Outcome(False, best.lower, best.point)
    splits = 0
    with balls.precision(balls.PRECISIONS[0]):
        while work:
            kind, a, b, depth = work.pop()
            if kind == "t":
                mid = (a + b) / 2
                n_piece = g.pieces[g.piece_index(mid)]
                if not n_piece:
                    continue
                d_piece = h.pieces[h.piece_index(mid)]
                if depth == 0 and (constant := proportional(n_piece, d_piece)) is not None:
                    ratio = balls.ball(constant[0]) / balls.ball(constant[1])
                    if float(ratio.upper()) <= threshold:
                        continue
                    low = float(ratio.lower())
                    if low > best.lower:
                        best = Outcome(True, low, mid)
                    if low > threshold:
                        return Outcome(False, low, mid)
                ball = _ball(a, b)
                centre = _arb_q(mid)
                (n_terms, n_slope), (d_terms, d_slope) = _prepared(n_piece), _prepared(d_piece)
                upper = _mean_value(
                    _eval_terms(n_terms, centre),
                    _eval_terms(d_terms, centre),
                    _eval_terms(n_terms, ball),
                    _eval_terms(d_terms, ball),
                    _eval_terms(n_slope, ball),
                    _eval_terms(d_slope, ball),
                    _arb_q(b - a) / 2,
                )
            else:
                tail = tails[kind]
                if tail is None:
                    continue
                p, q = tail
                if depth == 0 and _signs_settle(p, q, threshold):
                    continue
                ball = _ball(a, b)
                centre = _arb_q((a + b) / 2)
                upper = _mean_value(
                    _horner(p, centre),
                    _horner(q, centre),
                    _horner(p, ball),
                    _horner(q, ball),
                    _horner(_polynomial_derivative(p), ball),
                    _horner(_polynomial_derivative(q), ball),
                    _arb_q(b - a) / 2,
                )
            if upper is not None and upper <= threshold:
                continue
            if kind == "t":
                value_n, value_d = piece_at(n_piece, mid), piece_at(d_piece, mid)
                if not value_d.is_zero:
                    ratio = balls.ball(value_n) / balls.ball(value_d)
                    low = float(ratio.lower())
                    if low > best.lower:
                        best = Outcome(True, low, mid)
                    if low > threshold:
                        return Outcome(False, low, mid)
            splits += 1
            if splits > limit:
                return Outcome(False, best.lower, best.point)
            mid = (a + b) / 2
            work.append((kind, a, mid, depth + 1))
            work.append((kind, mid, b, depth + 1))
    return best
