"""Distribution mode: one exact output distribution per input, then every comparison.

Each input's distribution is computed once (program states merged by the
mechanism front end) and shared by all comparisons that use the input;
a Pufferfish prior's distribution is the mixture over its inputs.  DP over a
grid with every-query or one-query neighbours goes through the grid search
instead (:mod:`faier.engines.exact.grid_search`), which needs no pair list,
or, for a mechanism that declares a symmetry in its queries, over orbits
(:mod:`faier.engines.exact.orbit_search`), which needs no list of inputs either.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from fractions import Fraction

from faier.core.budget import Budget
from faier.engines.exact.grid_search import GridSearch
from faier.engines.exact.orbit_search import OrbitSearch
from faier.mechanisms.program import Program, StepProgram
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import Comparison, DifferentialPrivacy

Table = dict[Hashable, Fraction]


@dataclass(frozen=True)
class ComparedOutputs:
    """A comparison with P and Q for every output either side can produce."""

    comparison: Comparison[Hashable]
    outcomes: dict[Hashable, tuple[Fraction, Fraction]]


def _mixture(prior: Comparison[Hashable], side: str, tables: dict[Hashable, Table]) -> Table:
    dist = prior.left if side == "left" else prior.right
    if len(dist) == 1:
        return tables[dist.items[0][0]]
    mixed: Table = {}
    for x, weight in dist:
        for output, p in tables[x].items():
            mixed[output] = mixed.get(output, Fraction(0)) + weight * p
    return mixed


def compare_outputs(
    mechanism: Program | StepProgram,  # type: ignore[type-arg]
    comparisons: list[Comparison[Hashable]],
    budget: Budget,
) -> Iterator[ComparedOutputs]:
    """Yield each comparison's (P, Q) per output; output tables are computed lazily once."""
    tables: dict[Hashable, Table] = {}
    remaining = None if budget.max_states is None else budget.max_states
    for comparison in comparisons:
        for dist in (comparison.left, comparison.right):
            for x in dist.support():
                if x not in tables:
                    budget.check_time()
                    tables[x] = mechanism.output_distribution(x, max_states=remaining).as_dict()
                    budget.spend(len(tables[x]))
        left = _mixture(comparison, "left", tables)
        right = _mixture(comparison, "right", tables)
        outcomes = {
            o: (left.get(o, Fraction(0)), right.get(o, Fraction(0))) for o in {**left, **right}
        }
        yield ComparedOutputs(comparison, outcomes)


def grid_search(
    mechanism: Program | StepProgram,  # type: ignore[type-arg]
    privacy: object,
) -> GridSearch | OrbitSearch | None:
    """The grid search for pure DP with every-query or one-query neighbours on a grid, if any.

    Over orbits where the mechanism declares a symmetry in its queries.
    """
    if not isinstance(privacy, DifferentialPrivacy):
        return None
    if not isinstance(privacy.neighbours, EveryQuery | OneQuery):
        return None
    return OrbitSearch.prepare(mechanism, privacy.neighbours) or GridSearch.prepare(
        mechanism, privacy.neighbours
    )
