"""A program whose released numbers are replaced by the interval of cut points they lie in.

Post-processing: if f(M) is not ε-DP, neither is M, since an event of f(M)'s
outputs is the event f⁻¹(B) of M's.  So an exactly decided violation of the
*coarsened* program — each released number replaced by where it lies among
fixed cut points (``< 0``, ``≥ 0``; ``[0, 4)`` between two) — is a witness
for the original, and the coarsened program releases no number: the
engines that decide only finite outputs (or refuse a released sum of noise
variables) decide it.  The map reads the output alone (it cannot tell which
branch released a number, and need not).  ε* of the coarsened program is a
lower bound of the original's; a proof for it proves nothing about M.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.program import Program

KEPT = (bool, int, str, bytes, type(None), dict, set, frozenset)
"""Output values kept as they are: flags, labels, and integers (an index, a count).  Tuples
and lists are walked; a float or Fraction with an integer value is kept too, so that the
map depends on the value alone, not on its Python type; every other value (a non-integer
number, a noisy number of symbolic execution, which continuous noise makes a non-integer
with probability 1) is a released number and is replaced by its bucket.  Integer noise is
not coarsened this way (its released numbers are integers)."""


@dataclass(frozen=True)
class Bucket:
    """Where a released number lies among the cut points: ``low ≤ v < high`` (None: no end)."""

    low: Fraction | None
    high: Fraction | None

    def __str__(self) -> str:
        if self.low is None:
            return f"< {self.high}"
        if self.high is None:
            return f"≥ {self.low}"
        return f"in [{self.low}, {self.high})"

    __repr__ = __str__


def bucket(value: Any, cuts: Sequence[Fraction]) -> Bucket:
    """The bucket of ``value`` among the ascending ``cuts`` (one comparison per cut passed,
    each a branch when the value is noisy)."""
    low: Fraction | None = None
    for cut in cuts:
        if value < cut:
            return Bucket(low, cut)
        low = cut
    return Bucket(low, None)


def coarsen(output: Any, cuts: Sequence[Fraction]) -> Any:
    """``output`` with every released number replaced by its bucket (lists become tuples)."""
    if isinstance(output, KEPT) or _integer(output):
        return output
    if isinstance(output, tuple | list):
        return tuple(coarsen(v, cuts) for v in output)
    return bucket(output, cuts)


def _integer(value: Any) -> bool:
    """A concrete number with an integer value (2.0, Fraction(4, 2))."""
    if isinstance(value, Fraction):
        return value.denominator == 1
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def coarsened(program: Program[Any], cuts: Sequence[Fraction | int]) -> Program[Any]:
    """``program`` with each released number replaced by its bucket among ``cuts``."""
    points = tuple(sorted({Fraction(c) for c in cuts}))
    if not points:
        raise SpecError("coarsening needs at least one cut point", fix="give e.g. cuts=(0,)")
    body = program.body

    def bucketed(x: Any, ctx: Context) -> Any:
        return coarsen(body(x, ctx), points)

    shown = ", ".join(str(c) for c in points)
    return replace(
        program,
        name=f"{program.name}, released numbers cut at {shown}",
        body=bucketed,
        output_name=str,
        symmetry=None,
    )


def describe(cuts: Sequence[Fraction]) -> str:
    """How the coarsened program's outputs read, for a reader of its witness."""
    shown = ", ".join(str(c) for c in cuts)
    noun = "point" if len(cuts) == 1 else "points"
    return f"each released number replaced by where it lies among the cut {noun} {shown}"
