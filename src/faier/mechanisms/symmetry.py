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
(:mod:`faier.engines.exact.orbit_search`) and the certified engine up to it
(:mod:`faier.engines.certified.orbits`); each checks it exactly before trusting
it, on every input of a small grid, else on the seeded sample of
:func:`declaration_sample`, and says what a sample leaves assumed
(:class:`DeclarationCheck`).
"""

from __future__ import annotations

import itertools
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


# --- what a check of the declaration covers (shared by the exact and certified engines) ----

SYMMETRY_SAMPLES = 1000
"""Inputs a declaration is checked on at least, each against a random permutation sorting
it; a grid of no more inputs than the sample (or than orbits) has every input checked."""

CHECK_SEED = 17
"""Seed of the sampled inputs and permutations: the same checks on every run."""


def declaration_sample(
    n: int, top: int, reps: Sequence[tuple[int, ...]]
) -> tuple[list[tuple[int, ...]], random.Random]:
    """The inputs of {0..top}ⁿ a declaration is checked on, and the generator of the
    permutations that sort them.

    Every input where the grid has no more than ``SYMMETRY_SAMPLES`` inputs or
    orbits (``reps``, their representatives); else each representative
    shuffled, so no orbit goes unchecked, then inputs drawn uniformly
    (distinct) until there are ``SYMMETRY_SAMPLES``.
    """
    rng = random.Random(CHECK_SEED)
    size = (top + 1) ** n
    if size <= max(SYMMETRY_SAMPLES, len(reps)):
        return list(itertools.product(range(top + 1), repeat=n)), rng
    chosen: dict[tuple[int, ...], None] = {}
    for rep in reps:
        shuffled = list(rep)
        rng.shuffle(shuffled)
        chosen[tuple(shuffled)] = None
    while len(chosen) < SYMMETRY_SAMPLES:
        chosen[tuple(rng.randrange(top + 1) for _ in range(n))] = None
    return list(chosen), rng


@dataclass(frozen=True)
class DeclarationCheck:
    """On how many inputs the declaration was checked, and by which semantics."""

    symmetry: PermuteQueries
    grid: int
    """Inputs in the grid."""
    checked: int
    """Inputs checked (each against a permutation sorting it)."""
    by_runs: int
    """Of them, checked on the mechanism's own exact run (the rest on its closed form)."""

    @property
    def everywhere(self) -> bool:
        """Every input checked on the mechanism's own runs: the declaration is proved."""
        return self.checked == self.by_runs == self.grid

    def describe(self) -> str:
        """For the method text: ``symmetry checked exactly on 1000 inputs (seeded)``."""
        text = f"symmetry checked exactly on {self.checked} inputs"
        if self.checked < self.grid:
            text += " (seeded, every orbit among them)"
        if self.by_runs < self.checked:
            text += f", {self.by_runs} of them on its own runs and the rest on its grid_column"
        return text

    def assumption(self) -> str | None:
        """What the answer takes on trust, or None where every input was checked."""
        if self.everywhere:
            return None
        if self.checked < self.grid:
            scope = (
                f"checked exactly on {self.checked} of its {self.grid} inputs (a seeded "
                "sample holding every orbit's representative permuted) and assumed on the rest"
            )
        else:
            scope = "checked exactly on every input"
        text = f"the declared symmetry ({self.symmetry.describe()}): {scope}"
        if self.by_runs < self.checked:
            text += (
                f"; on its closed form grid_column, which was checked against the "
                f"mechanism's own runs on {self.by_runs} of them"
            )
        return text
