"""Turning a solver's model into a witness that is checked exactly.

A solver's sat is never reported as it is: its parameter values (rational,
or algebraic numbers refined to nearby rationals) are substituted into the
original problem, both probabilities are recomputed from scratch with
Fractions (the exact forward algorithm or the exact output distributions),
and only a point inside the domain where the loss really exceeds e^ε
becomes a "violated".
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from faier.core import parametric
from faier.core.problem import Problem
from faier.engines.smt.question import Question, Space
from faier.engines.smt.solvers import ModelValue
from faier.engines.smt.tables import Outcome, Table
from faier.errors import InternalError
from faier.model.hmm import HMM
from faier.privacy.symbolic import SymbolicComparison
from faier.results import ParameterValue

MAX_CANDIDATES = 9


def candidates(model: Mapping[str, ModelValue], space: Space) -> list[dict[str, Fraction]]:
    """Rational points to try: the model itself, or refinements of its algebraic values."""
    options = []
    for p in space.parameters:
        value = model.get(p.name)
        if value is None:
            d = p.domain
            options.append([(d.lower + d.upper) / 2])
        else:
            options.append(value.approximations())
    points = []
    for combination in itertools.islice(itertools.product(*options), MAX_CANDIDATES):
        points.append({p.name: v for p, v in zip(space.parameters, combination, strict=True)})
    return points


def describe(
    point: Mapping[str, Fraction], model: Mapping[str, ModelValue], space: Space
) -> tuple[ParameterValue, ...]:
    out = []
    for p in space.parameters:
        value = model.get(p.name)
        algebraic = value.text if value is not None and value.exact is None else None
        out.append(ParameterValue(p.name, point[p.name], algebraic))
    return tuple(out)


def recompute(
    problem: Problem,
    comparison: SymbolicComparison,
    outcome: Outcome,
    point: Mapping[str, Fraction],
) -> tuple[Fraction, Fraction]:
    """Both probabilities from scratch, on the problem with ``point`` substituted."""
    fixed = parametric.at_point(problem, point)
    mechanism = fixed.mechanism
    inputs: tuple[Hashable, ...] = (
        mechanism.states if isinstance(mechanism, HMM) else tuple(mechanism.inputs.values)  # type: ignore[union-attr]
    )
    for candidate in fixed.privacy.comparisons(inputs):  # type: ignore[union-attr]
        if (candidate.left_name, candidate.right_name) != (
            comparison.left_name,
            comparison.right_name,
        ):
            continue
        if isinstance(mechanism, HMM):
            sides = []
            for dist in (candidate.left, candidate.right):
                vector = tuple(dist.prob(s) for s in mechanism.states)
                sides.append(mechanism.probability(vector, outcome.label))
            return Fraction(sides[0]), Fraction(sides[1])
        sides = []
        for dist in (candidate.left, candidate.right):
            total = Fraction(0)
            for x, w in dist:
                total += w * mechanism.output_distribution(x).prob(outcome.key)  # type: ignore[union-attr]
            sides.append(total)
        return sides[0], sides[1]
    raise InternalError(
        f"comparison {comparison.left_name} vs {comparison.right_name} "
        "not found at the witness point"
    )


@dataclass(frozen=True)
class Checked:
    """A point where an outcome's probabilities were recomputed exactly."""

    point: dict[str, Fraction]
    p: Fraction
    q: Fraction


def evaluate(
    question: Question, table: Table, outcome: Outcome, point: dict[str, Fraction]
) -> Checked | None:
    """Exact probabilities at a point of the space (None outside it), cross-checked."""
    if not question.space.contains(point) or not table.conditions_hold(point):
        return None
    p, q = table.probabilities(outcome, point)
    again = recompute(question.problem, table.comparison, outcome, point)
    if again != (p, q):
        raise InternalError(
            f"the encoding gives ({p}, {q}) for {' '.join(outcome.label)} "
            f"at {point}, recomputation gives {again}"
        )
    return Checked(point, p, q)
