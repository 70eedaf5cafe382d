"""Shift templates: which shift each noise draw gets, as a few unknown coefficients.

A draw's shift is ``c + d·D`` where D is the change of its companion between
neighbours (``values.py``) and the coefficients (c, d) are shared by every
draw of one program line with the same *selector*, so a loop over the
queries has a handful of unknowns whatever its length (CheckDP shares
template holes per program point the same way).  The selectors come from the
draw's first comparison on the path:

- ``side``: above (the draw was on the larger side), below, or free (never
  compared) — the sparse vector's ⊤/⊥ alignment (LightDP, ShadowDP);
- ``last``: winner (above, and no later draw of the same line was above:
  the current maximum that stays the maximum), other, or free — Report
  Noisy Max's alignment, which ShadowDP obtains with a shadow execution;
- ``both``: winner, above, below, free.

The shifts of a path are a function of its selectors; the aligned run must
reach a path with the same selectors and the same output, so the alignment
can be inverted (from the aligned noise, rerun the neighbour, read its
selectors, subtract the shifts) and is injective (docs/PROOFS.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from faier.engines.alignment.execute import Pairs, Path

FAMILIES = ("side", "last", "both")


def selectors(path: Path, family: str) -> tuple[str, ...]:
    """Each draw's selector on ``path`` under ``family``."""
    winners = set()
    seen: set[str] = set()
    for k in reversed(range(len(path.draws))):
        site = path.draws[k].site
        if path.sides[k] > 0 and site not in seen:
            winners.add(k)
            seen.add(site)
        elif path.sides[k] > 0:
            pass
    out = []
    for k, side in enumerate(path.sides):
        if side == 0:
            out.append("free")
        elif family == "side":
            out.append("above" if side > 0 else "below")
        elif family == "last":
            out.append("winner" if k in winners else "other")
        else:
            out.append("winner" if k in winners else ("above" if side > 0 else "below"))
    return tuple(out)


@dataclass(frozen=True)
class Hole:
    """One template's pair of unknowns: the draws of ``site`` whose selector is ``selector``."""

    site: str
    selector: str
    integer: bool


@dataclass(frozen=True)
class Pattern:
    """What fixes a path's shifts: per draw its family, scale, line, selector and companion."""

    draws: tuple[tuple[str, Fraction, Fraction, str, str, Pairs], ...]

    def holes(self, integer: bool) -> tuple[Hole, ...]:
        return tuple(Hole(site, sel, integer) for _, _, _, site, sel, _ in self.draws)


def pattern(path: Path, family: str) -> Pattern:
    chosen = selectors(path, family)
    return Pattern(
        tuple(
            (d.kind, d.scale, d.loc, d.site, sel, comp)
            for d, sel, comp in zip(path.draws, chosen, path.companions, strict=True)
        )
    )


@dataclass(frozen=True)
class Group:
    """Paths with one output skeleton and one pattern: the aligned run must reach one of them."""

    skeleton: Hashable
    pattern: Pattern
    members: tuple[int, ...]


def groups(paths: Sequence[Path], family: str) -> tuple[list[Group], list[int]]:
    """The groups, and for each path the index of its group."""
    index: dict[tuple[Hashable, Pattern], int] = {}
    members: list[list[int]] = []
    keys: list[tuple[Hashable, Pattern]] = []
    of_path = []
    for i, path in enumerate(paths):
        key = (path.skeleton, pattern(path, family))
        if key not in index:
            index[key] = len(keys)
            keys.append(key)
            members.append([])
        members[index[key]].append(i)
        of_path.append(index[key])
    return [Group(k[0], k[1], tuple(m)) for k, m in zip(keys, members, strict=True)], of_path


def site_names(paths: Sequence[Path]) -> dict[str, str]:
    """Readable names of the paths' draw sites (:func:`names_of`)."""
    sites: list[str] = []
    for path in paths:
        for d in path.draws:
            if d.site not in sites:
                sites.append(d.site)
    return names_of(sites)


def names_of(sites: Sequence[str]) -> dict[str, str]:
    """Readable names of draw sites: ``line 12`` (with the file when lines repeat)."""
    lines = [s.rsplit(":", 1)[1] for s in sites]
    if len(set(lines)) == len(lines):
        return {s: f"line {line}" for s, line in zip(sites, lines, strict=True)}
    return {s: s for s in sites}
