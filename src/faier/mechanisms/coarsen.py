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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.program import Program

MAX_CUTS = 6
"""Cut points of the finest coarsening tried (each released number branches into one more
bucket per point: more points, more paths)."""

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


@dataclass(frozen=True)
class Hidden:
    """A released number left out of the coarsened output (past the first ``released``)."""

    def __str__(self) -> str:
        return "·"

    __repr__ = __str__


def coarsen(output: Any, cuts: Sequence[Fraction], released: int | None = None) -> Any:
    """``output`` with every released number replaced by its bucket (lists become tuples);
    with ``released``, only the first that many (in the output's order) and the others by
    :class:`Hidden` (no comparison made: a post-processing that forgets them)."""
    seen = [0]

    def walk(value: Any) -> Any:
        if isinstance(value, KEPT) or _integer(value):
            return value
        if isinstance(value, tuple | list):
            return tuple(walk(v) for v in value)
        seen[0] += 1
        if released is not None and seen[0] > released:
            return Hidden()
        return bucket(value, cuts)

    return walk(output)


def _integer(value: Any) -> bool:
    """A concrete number with an integer value (2.0, Fraction(4, 2))."""
    if isinstance(value, Fraction):
        return value.denominator == 1
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def coarsened(
    program: Program[Any], cuts: Sequence[Fraction | int], released: int | None = None
) -> Program[Any]:
    """``program`` with each released number replaced by its bucket among ``cuts`` (with
    ``released``: the first that many, the others left out)."""
    points = tuple(sorted({Fraction(c) for c in cuts}))
    if not points:
        raise SpecError("coarsening needs at least one cut point", fix="give e.g. cuts=(0,)")
    body = program.body

    def bucketed(x: Any, ctx: Context) -> Any:
        return coarsen(body(x, ctx), points, released)

    shown = ", ".join(str(c) for c in points)
    kept = "" if released is None else f" (the first {released} kept)"
    return replace(
        program,
        name=f"{program.name}, released numbers{kept} cut at {shown}",
        body=bucketed,
        output_name=str,
        symmetry=None,
    )


def describe(cuts: Sequence[Fraction], released: int | None = None) -> str:
    """How the coarsened program's outputs read, for a reader of its witness."""
    shown = ", ".join(str(c) for c in cuts)
    noun = "point" if len(cuts) == 1 else "points"
    text = f"each released number replaced by where it lies among the cut {noun} {shown}"
    if released is None:
        return text
    first = "the first released number" if released == 1 else f"the first {released}"
    return f"{first} replaced by where it lies among the cut {noun} {shown}, the others by ·"


def cut_points(constants: Iterable[Fraction], scales: Iterable[Fraction]) -> tuple[Fraction, ...]:
    """Candidate cut points, most promising first: 0, the program's constants and their
    opposites, then minus and plus each noise scale (at most ``MAX_CUTS``)."""
    out: list[Fraction] = [Fraction(0)]
    for c in constants:
        out += [c, -c]
    for b in sorted(set(scales)):
        out += [-b, b]
    return tuple(dict.fromkeys(out))[:MAX_CUTS]


def partitions(cuts: Sequence[Fraction]) -> list[tuple[Fraction, ...]]:
    """The coarsenings tried, cheapest first: the first cut point alone, then all of them
    (a finer partition can only raise the largest ratio of its events: the ratio of a union
    is at most the largest ratio of its parts)."""
    if not cuts:
        return []
    out: list[tuple[Fraction, ...]] = [(cuts[0],)]
    if len(cuts) > 1:
        out.append(tuple(sorted(cuts)))
    return out
