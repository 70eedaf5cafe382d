"""Candidate input pairs: the patterns of StatDP §4.4.1, Table 1, scaled by the sensitivity.

Short, human-readable pairs around the all-Δ vector; both orders of each
pair are tested.  "One above" and "one below" suit histograms (one query
moves); the rest suit mechanisms where every query may move by Δ.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_LENGTHS = (5, 10)


@dataclass(frozen=True)
class Pattern:
    """One named pair (D1, D2) of query-answer vectors."""

    name: str
    left: tuple[int, ...]
    right: tuple[int, ...]


def patterns(length: int, delta: int = 1, *, one_query: bool = False) -> tuple[Pattern, ...]:
    """Table 1 at one length: values 0, Δ and 2Δ around the all-Δ vector."""
    low, mid, high = 0, delta, 2 * delta
    base = (mid,) * length
    rest = length - 1
    half = length // 2
    pairs = [
        Pattern("one above", base, (high,) + (mid,) * rest),
        Pattern("one below", base, (low,) + (mid,) * rest),
    ]
    if one_query:
        return tuple(pairs)
    pairs += [
        Pattern("one above rest below", base, (high,) + (low,) * rest),
        Pattern("one below rest above", base, (low,) + (high,) * rest),
        Pattern("half half", base, (low,) * (length - half) + (high,) * half),
        Pattern("all above", base, (high,) * length),
        Pattern("all below", base, (low,) * length),
        Pattern(
            "x shape",
            (mid,) * half + (low,) * (length - half),
            (low,) * half + (mid,) * (length - half),
        ),
    ]
    return tuple(p for p in pairs if p.left != p.right)
