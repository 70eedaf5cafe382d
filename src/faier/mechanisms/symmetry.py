"""Declared symmetries: permuting a mechanism's query answers permutes its outputs along.

A mechanism over vectors of n answers is *symmetric in its queries* when, for
every permutation π of the positions and every input x,

    Pr[π·ω | π·x] = Pr[ω | x]      for every output ω,

where π·x moves the answer at position i to position π(i) and π·ω is the
declared action on outputs: the reported index i becomes π(i) (``"index"``),
the output does not change (``"same"``: a maximum, a sum), or a vector of n
values is permuted like the input (``"vector"``: a noisy histogram); any
other action is a function ``act(perm, output)``.  Discrete Noisy Max with
uniform tie-breaking (FAIER journal Algorithm 3) is symmetric with
``"index"``, its value-reporting variant (Noisy Max notes, "Wrong Version of
Noisy Max") with ``"same"``; with ties broken by the first index (FAIER
journal Algorithm 2) it is not: equal answers are not equally likely to win.

A declaration lets the exact engine search inputs up to permutation
(:mod:`faier.engines.exact.orbit_search`); the engine checks it exactly on a
seeded sample of inputs before trusting it (:mod:`faier.engines.exact.symmetry_check`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from faier.errors import SpecError

V = TypeVar("V")

Permutation = tuple[int, ...]
"""π as the tuple (π(0), …, π(n−1)): the answer at position i moves to position π(i)."""

OutputAction = Callable[[Permutation, Hashable], Hashable]

ACTIONS = ("index", "same", "vector")

_MEANING = {
    "index": "permuting the answers permutes the reported (1-based) index along",
    "same": "permuting the answers leaves the output distribution unchanged",
    "vector": "permuting the answers permutes the output vector along",
}


def permute(perm: Permutation, values: Sequence[V]) -> tuple[V, ...]:
    """π·v: the entry at position i moves to position π(i)."""
    placed = {perm[i]: v for i, v in enumerate(values)}
    return tuple(placed[j] for j in range(len(values)))


def inverse(perm: Permutation) -> Permutation:
    """π⁻¹."""
    back = [0] * len(perm)
    for i, j in enumerate(perm):
        back[j] = i
    return tuple(back)


def sorting_permutation(x: Sequence[int], rng: random.Random | None = None) -> Permutation:
    """A π with π·x sorted ascending; equal answers in random order when ``rng`` is given.

    Without ``rng`` equal answers keep their order (a stable sort).
    """
    keys = [(v, rng.random() if rng is not None else 0.0, i) for i, v in enumerate(x)]
    order = sorted(range(len(x)), key=keys.__getitem__)  # order[j]: the position that goes to j
    return inverse(tuple(order))


@dataclass(frozen=True)
class PermuteQueries:
    """The declaration that a mechanism is symmetric in its queries.

    ``outputs`` says how a permutation acts on outputs: ``"index"`` (outputs
    are positions 1..n), ``"same"``, ``"vector"`` (outputs are n-tuples), or a
    function ``act(perm, output) -> output`` with ``perm`` as in
    :data:`Permutation`.
    """

    outputs: str | OutputAction = "index"

    def __post_init__(self) -> None:
        if isinstance(self.outputs, str) and self.outputs not in ACTIONS:
            raise SpecError(
                f"unknown output action {self.outputs!r} of a query symmetry",
                fix=f"choose one of {', '.join(ACTIONS)} or pass a function act(perm, output)",
            )

    @property
    def kind(self) -> str:
        """The named action, or ``"function"``."""
        return self.outputs if isinstance(self.outputs, str) else "function"

    def describe(self) -> str:
        """What the declaration claims, in words."""
        if isinstance(self.outputs, str):
            return _MEANING[self.outputs]
        name = getattr(self.outputs, "__name__", "the declared function")
        return f"permuting the answers acts on outputs by {name}"

    def act_input(self, perm: Permutation, x: Sequence[int]) -> tuple[int, ...]:
        """π·x."""
        return permute(perm, x)

    def act_output(self, perm: Permutation, output: Hashable) -> Hashable:
        """π·ω under the declared action."""
        if self.outputs == "same":
            return output
        if self.outputs == "index":
            if type(output) is not int or not 1 <= output <= len(perm):
                raise SpecError(
                    f"output {output!r} is no index 1..{len(perm)}",
                    fix="declare PermuteQueries('index') only for outputs that are "
                    "positions 1..n of the answers",
                )
            return perm[output - 1] + 1
        if self.outputs == "vector":
            if not isinstance(output, tuple) or len(output) != len(perm):
                raise SpecError(
                    f"output {output!r} is no vector of {len(perm)} values",
                    fix="declare PermuteQueries('vector') only for outputs that are "
                    "n-tuples permuted like the answers",
                )
            return permute(perm, output)
        assert callable(self.outputs)
        return self.outputs(perm, output)


def permute_queries(outputs: str | OutputAction = "index") -> PermuteQueries:
    """``symmetry=faier.permute_queries("index")``: see :class:`PermuteQueries`."""
    return PermuteQueries(outputs)
