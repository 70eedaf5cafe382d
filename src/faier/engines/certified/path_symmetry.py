"""A declared query symmetry checked on symbolic paths, before any integral.

For an input x and a permutation π with π·x = rep, the declaration says that
x's output distribution moved along π is rep's.  A path's share of an output
is its weight times the probability of its constraints, which does not change
when the path's noise variables are renamed by a bijection σ that carries
each variable's distribution along (the noise variables are independent).
So when x's paths (argmax runs merged into their stars, :func:`.argmax.merged`),
each renamed and with its output moved along π, are as a multiset exactly
rep's paths, the two output distributions are equal, and no integral is
computed.  The renamings tried are those of noise drawn per query in the
order of the queries: π itself on a block of n consecutive variables (Noisy
Max: Xᵢ for answer i; Sparse Vector: a threshold first), or no renaming (one
noise for the whole output).  Where none matches the structure proves
nothing, and the caller compares the exact rows instead: a structure can
show two distributions equal, never different.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from faier.engines.certified import argmax
from faier.engines.certified.symbolic import Constraint, Output, Path
from faier.mechanisms.symmetry import Permutation

Renaming = tuple[int, ...]
"""σ as the tuple (σ(0), …, σ(m−1)) over a path's m noise variables."""

Structure = Counter[tuple[Any, ...]]

MAX_BLOCKS = 4
"""Offsets of the block of per-query noise tried (a threshold or a few draws first)."""


def stars(run: Sequence[Path]) -> list[Path]:
    """The run's paths, an argmax run merged into one star per output (as the table does)."""
    return argmax.merged(run) or list(run)


def _renamed_output(output: Hashable, sigma: Renaming) -> Hashable:
    if isinstance(output, Output):
        return Output(_renamed_terms(output.coefficients, sigma), output.constant)
    if isinstance(output, tuple):
        return tuple(_renamed_output(o, sigma) for o in output)
    return output


def _renamed_terms(terms: tuple[tuple[int, Any], ...], sigma: Renaming) -> tuple[Any, ...]:
    return tuple(sorted((sigma[v], a) for v, a in terms))


def _key(path: Path, sigma: Renaming, output: Hashable) -> tuple[Any, ...]:
    noise: list[Any] = [None] * len(path.noise)
    for v, dist in enumerate(path.noise):
        noise[sigma[v]] = dist
    constraints = frozenset(
        Constraint(_renamed_terms(c.coefficients, sigma), c.constant) for c in path.constraints
    )
    return (tuple(noise), constraints, path.weight, output)


def structure(paths: Sequence[Path]) -> Structure:
    """A representative's paths as the multiset the renamed paths are compared with."""
    found: Structure = Counter()
    for path in paths:
        identity = tuple(range(len(path.noise)))
        found[_key(path, identity, path.output)] += 1
    return found


def _renaming(perm: Permutation, offset: int | None, size: int) -> Renaming | None:
    """π on the variables offset..offset+n−1, the others fixed (None: no renaming); None
    where the path has too few variables for the block."""
    if offset is None:
        return tuple(range(size))
    n = len(perm)
    if offset + n > size:
        return None
    return tuple(offset + perm[v - offset] if offset <= v < offset + n else v for v in range(size))


def matches(
    paths: Sequence[Path],
    perm: Permutation,
    move: Callable[[Hashable], Hashable],
    expected: Structure,
) -> bool:
    """Whether x's paths, renamed along π and their outputs moved by ``move`` (the declared
    action of π), are exactly ``expected`` (rep's :func:`structure`) for one renaming."""
    if sum(expected.values()) != len(paths):
        return False
    widest = max((len(p.noise) for p in paths), default=0)
    offsets: list[int | None] = [*range(min(MAX_BLOCKS, widest - len(perm) + 1)), None]
    for offset in offsets:
        found: Structure = Counter()
        for path in paths:
            sigma = _renaming(perm, offset, len(path.noise))
            if sigma is None:
                break
            found[_key(path, sigma, move(_renamed_output(path.output, sigma)))] += 1
        else:
            if found == expected:
                return True
    return False
