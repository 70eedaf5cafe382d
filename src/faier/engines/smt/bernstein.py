"""A solver-free proof that a polynomial is negative on an open box (Bernstein bounds).

On [0, 1]^d every Bernstein basis polynomial is positive in the open box, so
a polynomial whose Bernstein coefficients are all ≤ 0, one of them < 0, is
negative at every interior point.  This settles "is the supremum attained
inside the domain?" when the supremum is a limit at a corner: the solvers'
query there (≥ at a tight boundary) is the hardest of a supremum search, and
this check needs only exact rational arithmetic.  Inconclusive means "ask the
solver", never "attained".
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

from faier.engines.smt.polynomial import Monomial, Polynomial
from faier.model.parameters import Interval

MAX_COEFFICIENTS = 20000
"""Past this many Bernstein coefficients the check is skipped (inconclusive)."""


def _on_unit_box(poly: Polynomial, domains: Sequence[Interval]) -> Polynomial:
    """poly(lo + (hi − lo)·t) as a polynomial in t over the same variable names."""
    names = poly.variables
    powers: dict[tuple[int, int], Polynomial] = {}

    def power(i: int, e: int) -> Polynomial:
        if (i, e) not in powers:
            d = domains[i]
            x = Polynomial.variable(names, names[i]).scale(d.upper - d.lower) + Polynomial.constant(
                names, d.lower
            )
            powers[(i, e)] = Polynomial.constant(names, 1) if e == 0 else power(i, e - 1) * x
        return powers[(i, e)]

    out = Polynomial.constant(names, 0)
    for monomial, c in poly.terms.items():
        term = Polynomial.constant(names, c)
        for i, e in enumerate(monomial):
            if e:
                term = term * power(i, e)
        out = out + term
    return out


def bernstein_coefficients(poly: Polynomial, domains: Sequence[Interval]) -> list[Fraction] | None:
    """The polynomial's Bernstein coefficients on the box (None if there are too many)."""
    unit = _on_unit_box(poly, domains)
    d = len(unit.variables)
    degrees = [max((m[i] for m in unit.terms), default=0) for i in range(d)]
    if math.prod(n + 1 for n in degrees) > MAX_COEFFICIENTS:
        return None
    out = []
    for index in itertools.product(*(range(n + 1) for n in degrees)):
        b = Fraction(0)
        for monomial, a in unit.terms.items():
            if all(j <= i for j, i in zip(monomial, index, strict=True)):
                factor = Fraction(1)
                for j, i, n in zip(monomial, index, degrees, strict=True):
                    factor *= Fraction(math.comb(i, j), math.comb(n, j))
                b += a * factor
        out.append(b)
    return out


def negative_inside(poly: Polynomial, domains: Sequence[Interval]) -> bool:
    """True only if poly < 0 at every point of the open box (a proof); False: unknown."""
    if poly.is_zero():
        return False
    coefficients = bernstein_coefficients(poly, domains)
    if coefficients is None:
        return False
    return all(b <= 0 for b in coefficients) and any(b < 0 for b in coefficients)


MAX_BOXES = 64
"""Sub-boxes examined by :func:`nonpositive` before it gives up (inconclusive)."""


def nonpositive(poly: Polynomial, domains: Sequence[Interval]) -> bool:
    """True only if poly ≤ 0 on the whole closed box (a proof); False: unknown.

    Bernstein coefficients bound the polynomial on a box; when some are
    positive but no corner value is, the box is halved along its widest
    side and each half is checked, up to :data:`MAX_BOXES` boxes.  This
    proves upper bounds that are attained at a corner of the domain, where a
    solver's query is at its tightest.
    """
    boxes = [tuple((d.lower, d.upper) for d in domains)]
    examined = 0
    while boxes:
        box = boxes.pop()
        examined += 1
        if examined > MAX_BOXES:
            return False
        intervals = [Interval(lo, hi, False, False) for lo, hi in box]
        coefficients = bernstein_coefficients(poly, intervals)
        if coefficients is None:
            return False
        if all(b <= 0 for b in coefficients):
            continue
        corners = itertools.product(*box)
        if any(poly.evaluate(dict(zip(poly.variables, c, strict=True))) > 0 for c in corners):
            return False
        widest = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
        lo, hi = box[widest]
        middle = (lo + hi) / 2
        for half in ((lo, middle), (middle, hi)):
            boxes.append(tuple(half if i == widest else b for i, b in enumerate(box)))
    return True


def strict_sign(poly: Polynomial, domains: Sequence[Interval]) -> int | None:
    """+1 or −1 if Bernstein coefficients prove that strict sign on the domain box, else None.

    On an open box, coefficients of one sign with one of them non-zero suffice
    (the polynomial may vanish on the boundary, which the domain excludes);
    with a closed end every coefficient must be non-zero.
    """
    if all(d.lower_open and d.upper_open for d in domains):
        if negative_inside(-poly, domains):
            return 1
        if negative_inside(poly, domains):
            return -1
        return None
    coefficients = bernstein_coefficients(poly, domains)
    if coefficients is None:
        return None
    if all(b > 0 for b in coefficients):
        return 1
    if all(b < 0 for b in coefficients):
        return -1
    return None


__all__ = [
    "Monomial",
    "bernstein_coefficients",
    "negative_inside",
    "nonpositive",
    "strict_sign",
]
