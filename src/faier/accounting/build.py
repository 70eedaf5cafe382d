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
from faier.privacy.specs import Comparison, DifferentialPrivacy, InteractiveDP, Pufferfish
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


def comparison_of(problem: Problem, pair: str | tuple[Any, ...]) -> Comparison[Hashable]:
    """The comparison a ``--pair`` names: two neighbouring inputs (DP) or two priors' names."""
    mechanism, privacy = problem.mechanism, problem.privacy
    if isinstance(mechanism, Interactive):
        return _streams(problem, mechanism, pair)
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


STREAM_FIX = (
    "give two answer streams of one length, each answer within the sensitivity of the "
    "other's, e.g. '1,1,1;2,2,2' (with several starts: 'threshold 0: 1,1,1; 2,2,2')"
)


def _streams(
    problem: Problem, mechanism: Interactive, pair: str | tuple[Any, ...]
) -> Comparison[Hashable]:
    """Two answer streams an adversary could send on neighbouring data, from one start.

    An interactive mechanism's outputs depend on the queries, so it has a PLD
    per pair of answer streams (a non-adaptive workload), not one overall.
    """
    starts = list(mechanism.starts)
    if isinstance(pair, str):
        start, _, streams = pair.rpartition(":")
        halves: list[Any] = streams.split(";")
        start = start.strip()
    else:
        *named, left, right = pair
        start, halves = (str(named[0]) if named else ""), [left, right]
    if not start:
        if len(starts) > 1:
            raise SpecError(
                f"{problem.name} has {len(starts)} starts ({', '.join(starts)}); name one",
                where="--pair",
                fix=STREAM_FIX,
            )
        start = starts[0]
    if start not in mechanism.starts:
        raise SpecError(f"{problem.name} has no start {start!r}", where="--pair", fix=STREAM_FIX)
    if len(halves) != 2:
        raise SpecError(f"cannot read the pair {pair!r}", where="--pair", fix=STREAM_FIX)
    left, right = (_stream(h, mechanism) for h in halves)
    delta = problem.privacy.delta if isinstance(problem.privacy, InteractiveDP) else 1
    if len(left) != len(right) or any(abs(a - b) > delta for a, b in zip(left, right, strict=True)):
        raise SpecError(
            f"{show_input(left)} and {show_input(right)} are not neighbouring answer streams "
            f"(every answer ±{delta})",
            where="--pair",
            fix=STREAM_FIX,
        )
    return Comparison(
        Distribution.point((start, left)),
        Distribution.point((start, right)),
        f"{start}, answers {show_input(left)}",
        f"{start}, answers {show_input(right)}",
    )


def _stream(half: Any, mechanism: Interactive) -> tuple[int, ...]:
    text = half if isinstance(half, str) else ",".join(str(v) for v in half)
    try:
        answers = tuple(int(v) for v in text.replace("[", "").replace("]", "").split(","))
    except ValueError:
        raise SpecError(
            f"cannot read the answers {text.strip()!r}", where="--pair", fix=STREAM_FIX
        ) from None
    unknown = sorted(set(answers) - set(mechanism.letters))
    if unknown:
        raise SpecError(
            f"answer {unknown[0]} is not one the mechanism reads",
            where="--pair",
            fix=f"answers lie in {', '.join(map(str, mechanism.letters))}",
        )
    return answers


def _stream_outcomes(
    mechanism: Interactive, comparison: Comparison[Hashable], budget: Budget
) -> list[tuple[str, Fraction, Fraction]]:
    """Every transcript on both streams, (observations, P, Q), exactly."""
    from faier.engines.statistical.discrete import transcript_distribution

    automaton = mechanism.automaton(max_states=budget.max_states)
    start, left = _start_and_answers(comparison.left)
    _, right = _start_and_answers(comparison.right)
    p = transcript_distribution(automaton, start, left)
    q = transcript_distribution(automaton, start, right)
    zero = Fraction(0)
    return [(" ".join(t), p.get(t, zero), q.get(t, zero)) for t in dict.fromkeys([*p, *q])]


def _start_and_answers(side: Distribution[Hashable]) -> tuple[str, tuple[int, ...]]:
    point: Any = side.items[0][0]
    return str(point[0]), tuple(point[1])


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
    if isinstance(mechanism, Interactive):
        answers = {"left_value": values["left_value"][1], "right_value": values["right_value"][1]}
        return PrivacyLossDistribution.from_outcomes(
            _stream_outcomes(mechanism, comparison, budget),
            comparison.left_name,
            comparison.right_name,
            **{k: list(v) for k, v in answers.items()},
        )
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
