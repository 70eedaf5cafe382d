"""The exact PLD of one comparison of a problem, from the mechanism's exact output distributions.

One-shot programs: each side's output distribution is the mechanism's own
exact one (a mixture over a prior's inputs for Pufferfish).  HMMs at a
horizon: every observation sequence of that length with both exact
probabilities, from the exact engine's exhaustive sequence search (run in
both orders, so outputs only one side can produce are kept).  Interactive
mechanisms have no single output distribution (the adversary picks the
answers), so they are refused.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from faier.accounting.pld import PrivacyLossDistribution
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.errors import SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.program import Program, StepProgram
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.probability import parse_number
from faier.model.values import show_input
from faier.privacy.neighbours import neighbour_pairs
from faier.privacy.specs import Comparison, DifferentialPrivacy, Pufferfish
from faier.privacy.symbolic import ParametricPufferfish

PAIR_FIX = "write --pair 'D1;D2' with two neighbouring inputs, e.g. --pair '1;2' or '1,1,0;1,1,1'"


def _number(text: str) -> int | Fraction:
    try:
        value = parse_number(text.strip())[0]
    except ValueError:
        raise SpecError(
            f"cannot read {text.strip()!r} as a number", where="--pair", fix=PAIR_FIX
        ) from None
    return int(value) if value.denominator == 1 else value


def _input(text: str, problem: Problem) -> Hashable:
    """An input of the mechanism from ``1,1,0`` or ``[1, 1, 0]`` (a scalar from ``2``)."""
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program | StepProgram)
    items = [s for s in text.strip().strip("[]()").split(",") if s.strip()]
    if not items:
        raise SpecError(f"{text.strip()!r} is not an input", where="--pair", fix=PAIR_FIX)
    vector = tuple(_number(s) for s in items)
    candidates: list[Hashable] = [vector]
    if len(vector) == 1:
        candidates.insert(0, vector[0])
    for x in candidates:
        if x in mechanism.inputs:
            return x
    raise SpecError(
        f"{show_input(vector)} is not an input of {problem.name} ({mechanism.inputs.description})",
        where="--pair",
        fix=PAIR_FIX,
    )


def comparison_of(problem: Problem, pair: str | tuple[Any, Any]) -> Comparison[Hashable]:
    """The comparison a ``--pair`` names: two neighbouring inputs (DP) or two priors' names."""
    mechanism, privacy = problem.mechanism, problem.privacy
    if isinstance(mechanism, Interactive):
        raise SpecError(
            "the mechanism is interactive: its outputs depend on the adversary's queries, "
            "so it has no single privacy loss distribution",
            where=problem.name,
            fix="write the mechanism for a fixed list of queries as a program",
        )
    halves = pair.split(";") if isinstance(pair, str) else list(pair)
    if len(halves) != 2:
        raise SpecError(f"cannot read the pair {pair!r}", where="--pair", fix=PAIR_FIX)
    if isinstance(privacy, DifferentialPrivacy) and isinstance(mechanism, Program | StepProgram):
        x, y = (
            _input(h, problem) if isinstance(h, str) else _input(_text(h), problem) for h in halves
        )
        if (x, y) not in set(neighbour_pairs(privacy.neighbours, [x, y])):
            raise SpecError(
                f"{show_input(x)} and {show_input(y)} are not neighbours under "
                f"{privacy.neighbours.describe()}",
                where="--pair",
                fix="give a neighbouring pair (or choose the relation with --neighbors)",
            )
        return Comparison(
            Distribution.point(x), Distribution.point(y), show_input(x), show_input(y)
        )
    if isinstance(privacy, ParametricPufferfish) and not privacy.unknowns():
        privacy = privacy.instantiate()
    if isinstance(privacy, Pufferfish):
        names = [str(h).strip() for h in halves]
        inputs = mechanism.states if isinstance(mechanism, HMM) else mechanism.inputs.values
        for comparison in privacy.comparisons(inputs):
            if [comparison.left_name, comparison.right_name] == names:
                return comparison
        known = sorted({f"{c.left_name};{c.right_name}" for c in privacy.comparisons(inputs)})
        raise SpecError(
            f"{problem.name} compares no pair {names[0]!r} vs {names[1]!r}",
            where="--pair",
            fix="give one of: " + ", ".join(repr(k) for k in known[:8]),
        )
    raise SpecError(
        f"{privacy.describe()} has no pairs of exact distributions to compare",
        where=problem.name,
        fix="fix unknown parameters with --set/--param; DP pairs need a program's inputs",
    )


def _text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def _value(dist: Distribution[Hashable]) -> Any:
    if len(dist) != 1:
        return None
    x = dist.items[0][0]
    return list(x) if isinstance(x, tuple) else x


def _mixture(
    mechanism: Program | StepProgram,  # type: ignore[type-arg]
    dist: Distribution[Hashable],
    budget: Budget,
) -> dict[Hashable, Fraction]:
    mixed: dict[Hashable, Fraction] = {}
    for x, weight in dist:
        budget.check_time()
        table = mechanism.output_distribution(x, max_states=budget.max_states).as_dict()
        budget.spend(len(table))
        for output, p in table.items():
            mixed[output] = mixed.get(output, Fraction(0)) + weight * p
    return mixed


def pld_of(
    problem: Problem, comparison: Comparison[Hashable], budget: Budget | None = None
) -> PrivacyLossDistribution:
    """The exact PLD of ``comparison`` (P = its left side, Q = its right side)."""
    budget = budget or Budget()
    mechanism = problem.mechanism
    values = {"left_value": _value(comparison.left), "right_value": _value(comparison.right)}
    if isinstance(mechanism, HMM):
        return _sequence_pld(problem, mechanism, comparison, budget, values)
    return PrivacyLossDistribution.from_outcomes(
        outcomes_of(problem, comparison, budget),
        comparison.left_name,
        comparison.right_name,
        **values,
    )


def outcomes_of(
    problem: Problem, comparison: Comparison[Hashable], budget: Budget | None = None
) -> list[tuple[str, Fraction, Fraction]]:
    """Every output of a one-shot program on both sides: (name, P, Q), exactly."""
    budget = budget or Budget()
    mechanism = problem.mechanism
    if not isinstance(mechanism, Program | StepProgram):
        raise SpecError(f"{problem.name} is not a one-shot program", where=problem.name)
    left = _mixture(mechanism, comparison.left, budget)
    right = _mixture(mechanism, comparison.right, budget)
    outputs = list(dict.fromkeys([*left, *right]))
    zero = Fraction(0)
    return [(mechanism.output_name(o), left.get(o, zero), right.get(o, zero)) for o in outputs]


def _sequence_pld(
    problem: Problem,
    hmm: HMM,
    comparison: Comparison[Hashable],
    budget: Budget,
    values: dict[str, Any],
) -> PrivacyLossDistribution:
    from faier.engines.exact import sequence_mode

    if problem.horizon is None:
        raise SpecError(
            "no horizon (the length of the observation sequences)",
            where=problem.name,
            fix="pass --horizon K",
        )
    system = sequence_mode.hmm_system(hmm)
    both = sequence_mode.hmm_comparisons(hmm, [comparison, comparison.swapped()])
    state = sequence_mode.SearchState(problem.horizon, [None] * (problem.horizon + 1))
    sequence_mode.search(system, both, problem.horizon, budget, state, collect_leaves=True)
    outcomes: dict[tuple[int, ...], tuple[Fraction, Fraction]] = dict(state.leaves.get(0, {}))
    for path, (q, p) in state.leaves.get(1, {}).items():
        outcomes.setdefault(path, (p, q))
    return PrivacyLossDistribution.from_outcomes(
        (
            (" ".join(system.symbols[s].observation for s in path), p, q)
            for path, (p, q) in outcomes.items()
        ),
        comparison.left_name,
        comparison.right_name,
        **values,
    )
