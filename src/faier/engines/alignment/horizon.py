"""Where a loop's alignment cost passes ε: the number of queries at which to look for a witness.

When no alignment of the loop keeps its cost within ε for every n, the
failure is a costly iteration on a cycle of the loop's states: each pass
adds cost, so the bound grows with n.  The same CEGIS (``induction.py``) with
a *horizon* H asks only that runs of at most H queries cost at most ε; its
proof covers every input and every n ≤ H.  Starting from the candidate the
every-n CEGIS rejected for its cost (or from a proof with H = 1), the
alignment gives the first length at which its own bound passes ε; that
length is tried as the next horizon, until no alignment of the templates
fits.  That first length n* is where the mechanism's loss *may* first exceed
ε (the bound is an upper bound on the loss, not the loss): the refutation
(``refute.py``) decides it and a few lengths beyond with the certified
engine, on inputs shaped like the worst run there — the query changes of
the costliest walk of n* iterations.  Only a certified witness is a
violation; the length only says where to look.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.engines.alignment import cegis, induction
from faier.engines.alignment.states import Graph
from faier.engines.alignment.walks import Edge, bounded, first_beyond

LONGEST = 64
"""Lengths past this are not searched (the refutation tries only a few anyway)."""


Assignment = tuple[tuple[str, Fraction], ...]
"""An alignment of the loop: every hole's value by its z3 name (``Loopproof.assignment``)."""


@dataclass(frozen=True)
class Growth:
    """The first number of queries at which no alignment of the loop was found keeping the
    cost ≤ ε, and what the last alignment found costs."""

    length: int
    below: Fraction
    """The last alignment's cost bound at ``length`` − 1 (≤ ε): it covers every shorter run."""
    bound: Fraction
    """Its cost bound at ``length`` (> ε)."""
    changes: tuple[Fraction, ...]
    """Per query, the change between neighbours on that alignment's costliest run of
    ``length`` queries (0 where the run reads no change or stops early)."""


def growth(
    graph: Graph,
    unit: Fraction,
    epsilon: Fraction,
    integer: bool,
    one_query: bool,
    budget: Budget,
    seed: Assignment | None = None,
) -> Growth | None:
    """Where the cost passes ε, or None (no alignment even for one query, or none past
    ``LONGEST``).  ``seed``: an alignment that keeps every iteration obligation (one the
    proof for every n rejected for its cost), instead of searching one for n = 1."""
    prover = induction.Prover(graph, unit, epsilon, one_query)
    start = (0, prover.first)

    def costs(assignment: Assignment) -> tuple[list[Edge], list[Fraction], Fraction]:
        values = dict(assignment)

        def value(hole: Any) -> Fraction:
            return values[str(hole)]

        edges, weights = induction.cost_graph(graph, prover, value)
        return edges, weights, cegis.number(prover.pre_cost(value))

    current = seed
    if current is None:
        first = induction.prove(graph, unit, epsilon, integer, one_query, budget, 1)
        if first is None:
            return None
        current = first.assignment
    while True:
        edges, weights, pre = costs(current)
        length = first_beyond(edges, weights, start, pre, epsilon, LONGEST)
        if length is None or length == 0:
            return None
        proof = induction.prove(graph, unit, epsilon, integer, one_query, budget, length)
        if proof is None:
            break
        current = proof.assignment
    below, _ = bounded(edges, weights, start, length - 1)
    top, walk = bounded(edges, weights, start, length)
    changes = [edges[e][3] for e in walk if edges[e][1] is not None]
    changes += [Fraction(0)] * (length - len(changes))
    return Growth(length, pre + below, pre + top, tuple(changes))
