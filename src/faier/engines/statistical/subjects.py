"""What the tester runs: candidate input pairs, their arguments, and how to sample each side.

A :class:`Subject` is built from a faier :class:`Problem` (a discrete
mechanism, sampled from its exact output tables) or from a
:class:`Sampled` mechanism (continuous noise or a black box) and the
claimed ε₀ that sets its noise.  Each *side* is one input with its argument
values; each *pair* is an ordered (D1, D2) of sides, both orders included.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from faier.core.problem import Problem
from faier.engines.statistical import arguments as argument_generator
from faier.engines.statistical.batch_paths import PathBatch, batchable
from faier.engines.statistical.discrete import (
    Table,
    interactive_loop,
    noise_free_output,
    noise_free_transcript,
    program_loop,
    program_table,
    transcript_distribution,
)
from faier.engines.statistical.events import Reference
from faier.engines.statistical.symbolic import NoiseFree, Trace
from faier.errors import BudgetExceeded, MechanismError, SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.program import Program, StepProgram
from faier.mechanisms.sampled import Outputs, Sampled, query_array
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.values import show_input
from faier.privacy.neighbours import EveryQuery, NeighbourRelation, OneQuery, neighbour_pairs
from faier.privacy.patterns import DEFAULT_LENGTHS, patterns
from faier.privacy.specs import DifferentialPrivacy, InteractiveDP, Pufferfish

MAX_ALL_PAIRS = 512
"""Largest number of neighbour pairs tested when every pair is asked for."""

Args = tuple[tuple[str, Any], ...]
Vector = tuple[int | float, ...]


class Draw(Protocol):
    """How one side is sampled: n outputs at once."""

    def draw(self, n: int, rng: np.random.Generator) -> Outputs: ...


@dataclass(frozen=True)
class Side:
    """One input the mechanism runs on (query vector, answer stream or prior), with arguments."""

    value: Any
    label: str
    args: Args = ()
    prior: Distribution[Hashable] | None = None

    @property
    def json_value(self) -> Any:
        """The input as JSON: a list for a vector, else the value itself."""
        return list(self.value) if isinstance(self.value, tuple) else self.value

    def show(self) -> str:
        if not self.args:
            return self.label
        return f"{self.label} ({', '.join(f'{k}={v}' for k, v in self.args)})"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.json_value}
        if self.args:
            out["arguments"] = dict(self.args)
        return out


@dataclass(frozen=True)
class Pair:
    """An ordered candidate (D1, D2): the test looks for P(D1 ∈ E) > e^ε·P(D2 ∈ E)."""

    left: int
    right: int
    pattern: str


@dataclass(frozen=True, eq=False)
class SampledDraw:
    """A sampled mechanism on one input (vectorised, or one run per sample)."""

    mechanism: Sampled
    queries: tuple[int | float, ...]
    epsilon: float
    args: Args
    each: bool = False

    def draw(self, n: int, rng: np.random.Generator) -> Outputs:
        queries = query_array(self.queries)
        if self.each:
            return self.mechanism.sample_each(queries, self.epsilon, n, rng, self.args)
        return self.mechanism.sample(queries, self.epsilon, n, rng, self.args)


@dataclass(frozen=True, eq=False)
class Subject:
    """Everything the tester needs: sides, ordered pairs, samplers and noise-free outputs."""

    name: str
    title: str
    privacy: str
    sides: tuple[Side, ...]
    pairs: tuple[Pair, ...]
    draws: tuple[Draw, ...]
    references: tuple[Reference | None, ...]
    sampling: str
    arguments: str
    problem: Problem | None = None
    notes: tuple[str, ...] = field(default=())

    def draw(self, side: int, n: int, rng: np.random.Generator) -> Outputs:
        return self.draws[side].draw(n, rng)


class _Sides:
    """Collects distinct sides in order of first use."""

    def __init__(self) -> None:
        self.index: dict[tuple[Any, Args], int] = {}
        self.sides: list[Side] = []

    def add(self, key: Any, side: Side) -> int:
        marker = (key, side.args)
        if marker not in self.index:
            self.index[marker] = len(self.sides)
            self.sides.append(side)
        return self.index[marker]


def _delta(relation: NeighbourRelation) -> tuple[int, bool]:
    if isinstance(relation, EveryQuery):
        return relation.delta, False
    if isinstance(relation, OneQuery):
        return relation.delta, True
    raise SpecError(
        f"the input patterns need query-answer neighbours, not '{relation.describe()}'",
        where="--neighbors",
        fix="use every-query[:Δ] or one-query[:Δ], or give pairs with --pair",
    )


def _both_orders(pairs: Sequence[tuple[Any, Any, str]]) -> list[tuple[Any, Any, str]]:
    seen: set[tuple[Any, Any]] = set()
    out = []
    for a, b, name in pairs:
        for x, y in ((a, b), (b, a)):
            if (x, y) not in seen:
                seen.add((x, y))
                out.append((x, y, name))
    return out


def check_pairs(
    pairs: Sequence[tuple[Vector, Vector]], relation: NeighbourRelation, where: str = "--pair"
) -> None:
    """User-supplied pairs must be neighbours of equal length."""
    for left, right in pairs:
        if len(left) != len(right) or not relation.related(left, right):
            raise SpecError(
                f"{show_input(left)} and {show_input(right)} are not neighbours under "
                f"'{relation.describe()}'",
                where=where,
                fix="give two vectors of equal length that differ as the neighbour relation allows",
            )


def _pattern_pairs(
    lengths: Sequence[int], relation: NeighbourRelation
) -> list[tuple[Vector, Vector, str]]:
    delta, one_query = _delta(relation)
    return [
        (p.left, p.right, f"{p.name} ({length})" if len(lengths) > 1 else p.name)
        for length in lengths
        for p in patterns(length, delta, one_query=one_query)
    ]


def from_problem(
    problem: Problem,
    *,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    all_pairs: bool = False,
    per_sample: bool = False,
) -> Subject:
    """A discrete faier mechanism: patterns (or given/all pairs), sampled from exact tables."""
    mechanism = problem.mechanism
    if isinstance(mechanism, HMM):
        raise SpecError(
            f"{problem.name} is an HMM model; the statistical tester runs mechanisms",
            fix="use 'faier epsilon' or 'faier verify' on model files (exact), "
            "or write the mechanism as a faier program",
        )
    if not isinstance(problem.privacy, DifferentialPrivacy | InteractiveDP | Pufferfish):
        raise SpecError(
            f"{problem.name} has unknown parameters; the tester needs every probability fixed",
            fix="fix them with --set NAME=VALUE",
        )
    if isinstance(mechanism, Interactive):
        assert isinstance(problem.privacy, InteractiveDP)
        return _interactive(problem, mechanism, lengths, pairs, per_sample)
    if lengths is not None:
        raise SpecError(
            f"{problem.name} has a fixed input space ({mechanism.inputs.description})",
            where="--lengths",
            fix="--lengths applies to interactive mechanisms and sampled ones",
        )
    return _one_shot(problem, mechanism, pairs, all_pairs, per_sample)


def _one_shot(
    problem: Problem,
    mechanism: Program[Any] | StepProgram[Any, Any],
    given: Sequence[tuple[Vector, Vector]],
    all_pairs: bool,
    per_sample: bool,
) -> Subject:
    sides = _Sides()
    ordered: list[Pair] = []
    notes: list[str] = []
    privacy = problem.privacy
    if isinstance(privacy, Pufferfish):
        if given or all_pairs:
            raise SpecError(
                f"{problem.name} asks a Pufferfish question: its pairs are the scenario's priors",
                where="--pair" if given else "--all-pairs",
                fix="leave the option out",
            )
        for comparison in privacy.comparisons(mechanism.inputs.values):
            left = sides.add(
                comparison.left,
                Side(comparison.left_name, comparison.left_name, prior=comparison.left),
            )
            right = sides.add(
                comparison.right,
                Side(comparison.right_name, comparison.right_name, prior=comparison.right),
            )
            ordered.append(Pair(left, right, "secret pair"))
    else:
        assert isinstance(privacy, DifferentialPrivacy)
        candidates = _one_shot_pairs(mechanism, privacy.neighbours, given, all_pairs, notes)
        for a, b, name in candidates:
            left = sides.add(a, Side(a, show_input(a), prior=Distribution.point(a)))
            right = sides.add(b, Side(b, show_input(b), prior=Distribution.point(b)))
            ordered.append(Pair(left, right, name))
    draws, sampling = _program_draws(mechanism, sides.sides, per_sample)
    references = tuple(
        Reference(_as_tuple(noise_free_output(mechanism, s.prior.items[0][0])))
        if s.prior is not None and len(s.prior) == 1
        else None
        for s in sides.sides
    )
    return Subject(
        problem.name,
        problem.title or mechanism.name,
        privacy.describe(),
        tuple(sides.sides),
        tuple(ordered),
        draws,
        references,
        sampling,
        "none (the mechanism has no public arguments)",
        problem,
        tuple(notes),
    )


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, tuple | list) else (value,)


def _one_shot_pairs(
    mechanism: Program[Any] | StepProgram[Any, Any],
    relation: NeighbourRelation,
    given: Sequence[tuple[Vector, Vector]],
    all_pairs: bool,
    notes: list[str],
) -> list[tuple[Any, Any, str]]:
    inputs = mechanism.inputs.values
    known = set(inputs)
    if given:
        for left, right in given:
            for x in (left, right):
                if tuple(x) not in known and not (len(x) == 1 and x[0] in known):
                    raise SpecError(
                        f"{show_input(tuple(x))} is not an input of {mechanism.name}",
                        where="--pair",
                        fix=f"inputs are {mechanism.inputs.description}",
                    )
        fitted = [(_fit(a, known), _fit(b, known)) for a, b in given]
        check_pairs([(_as_tuple(a), _as_tuple(b)) for a, b in fitted], relation)
        return _both_orders([(a, b, "given") for a, b in fitted])
    vectors = all(isinstance(x, tuple) for x in inputs)
    if not all_pairs and vectors and isinstance(relation, EveryQuery | OneQuery):
        lengths = sorted({len(x) for x in inputs if isinstance(x, tuple)})
        found = [
            (a, b, name)
            for a, b, name in _pattern_pairs(lengths, relation)
            if a in known and b in known and relation.related(a, b)
        ]
        if found:
            return _both_orders(found)
        notes.append("no Table 1 pattern fits the input space: every neighbour pair is tested")
    everything = list(neighbour_pairs(relation, inputs))
    if len(everything) > MAX_ALL_PAIRS:
        raise SpecError(
            f"{mechanism.name} has {len(everything)} neighbour pairs, too many to test all",
            fix="give pairs with --pair D1;D2",
        )
    return _both_orders([(a, b, "neighbours") for a, b in everything])


def _fit(vector: Vector, known: set[Hashable]) -> Hashable:
    return vector if vector in known else vector[0]


def _program_draws(
    mechanism: Program[Any] | StepProgram[Any, Any], sides: Sequence[Side], per_sample: bool
) -> tuple[tuple[Draw, ...], str]:
    draws: list[Draw] = []
    tables = batches = 0
    continuous = _draws_noise(mechanism)
    for side in sides:
        assert side.prior is not None
        draw: Draw | None = None
        if not per_sample and not continuous:
            try:
                draw = program_table(mechanism, side.prior)
                tables += 1
            except BudgetExceeded:
                draw = None
        elif not per_sample and isinstance(mechanism, Program) and len(side.prior.items) == 1:
            draw = _path_batch(mechanism, side.prior.items[0][0])
            batches += draw is not None
        draws.append(draw if draw is not None else program_loop(mechanism, side.prior))
    if batches:
        return tuple(draws), _batch_note(batches, len(sides))
    return tuple(draws), _sampling_note(tables, len(sides))


def _path_batch(mechanism: Program[Any], x: Hashable) -> PathBatch | None:
    """All samples of a noise-drawing program at once along its paths, where it can be."""

    def body(ctx: Any) -> Any:
        return mechanism.body(x, ctx)

    if not batchable(body):
        return None
    return PathBatch(body, program_loop(mechanism, Distribution.point(x)).draw)


def _batch_note(batches: int, sides: int) -> str:
    note = "the mechanism's own definition run on all samples at once, path by path (numpy)"
    if batches == sides:
        return note
    return f"{note} on {batches} inputs, one run per sample on the rest"


def _draws_noise(mechanism: Program[Any] | StepProgram[Any, Any]) -> bool:
    """A program drawing continuous noise has no finite table: it is run once per sample."""
    if not isinstance(mechanism, Program):
        return False
    from faier.core.problem import Problem
    from faier.engines.certified.entry import draws_noise
    from faier.privacy.specs import DifferentialPrivacy

    return draws_noise(Problem(mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1))))


def _sampling_note(tables: int, sides: int) -> str:
    if tables == sides:
        return "exact output distributions of the mechanism's own definition"
    if tables == 0:
        return "one run of the mechanism's own definition per sample"
    return f"exact output distributions ({tables} inputs), one run per sample (the rest)"


def _interactive(
    problem: Problem,
    mechanism: Interactive,
    lengths: Sequence[int] | None,
    given: Sequence[tuple[Vector, Vector]],
    per_sample: bool,
) -> Subject:
    assert isinstance(problem.privacy, InteractiveDP)
    relation = EveryQuery(problem.privacy.delta)
    letters = set(mechanism.letters)
    if given:
        check_pairs(given, relation)
        for answer in {v for pair in given for vector in pair for v in vector} - letters:
            raise SpecError(
                f"answer {answer} is not one {mechanism.name} reads",
                where="--pair",
                fix=f"answers lie in {', '.join(map(str, mechanism.letters))}",
            )
        candidates = _both_orders([(tuple(a), tuple(b), "given") for a, b in given])
    else:
        candidates = [
            (a, b, name)
            for a, b, name in _both_orders(_pattern_pairs(lengths or DEFAULT_LENGTHS, relation))
            if set(a) <= letters and set(b) <= letters
        ]
    if not candidates:
        raise SpecError(
            f"no input pattern fits the answers {sorted(letters, key=str)} of {mechanism.name}",
            fix="give pairs with --pair D1;D2",
        )
    sides = _Sides()
    ordered: list[Pair] = []
    methods = set()
    for a, b, name in candidates:
        choice = argument_generator.choose_start(mechanism, a, b)
        methods.add(choice.method.split(":")[0])
        left = sides.add(a, Side(a, show_input(a), choice.args))
        right = sides.add(b, Side(b, show_input(b), choice.args))
        ordered.append(Pair(left, right, name))
    automaton = None
    if not per_sample:
        try:
            automaton = mechanism.automaton()
        except BudgetExceeded:
            automaton = None
    draws: list[Draw] = []
    tables = 0
    for side in sides.sides:
        start = dict(side.args)["start"]
        stream = tuple(side.value)
        draw: Draw | None = None
        if automaton is not None:
            try:
                draw = Table.of(transcript_distribution(automaton, start, stream))
                tables += 1
            except BudgetExceeded:
                draw = None
        draws.append(draw if draw is not None else interactive_loop(mechanism, start, stream))
    references = tuple(
        Reference(noise_free_transcript(mechanism, dict(s.args)["start"], s.value))
        for s in sides.sides
    )
    return Subject(
        problem.name,
        problem.title or mechanism.name,
        problem.privacy.describe() + ", fixed answer streams",
        tuple(sides.sides),
        tuple(ordered),
        tuple(draws),
        references,
        _sampling_note(tables, len(sides.sides)),
        "; ".join(sorted(methods)) + " (noise-free runs, every draw at its most likely value)",
        problem,
    )


@functools.lru_cache(maxsize=256)
def _choices(
    mechanism: Sampled, pairs: tuple[tuple[Vector, Vector], ...], epsilon: float, delta: int
) -> dict[tuple[Vector, Vector], tuple[argument_generator.Choice, ...]]:
    """Argument candidates for every pair, the same for both orders (both heuristics are symmetric).

    One z3 context serves the whole list, in a fixed order, so the answers are
    reproducible; the list is cached, since z3 is the slow part of building a subject.
    """
    context = argument_generator.new_context() if mechanism.arguments else None
    found: dict[tuple[Vector, Vector], tuple[argument_generator.Choice, ...]] = {}
    for left, right in pairs:
        key = (min(left, right), max(left, right))
        if key not in found:
            choices = argument_generator.choose(mechanism, *key, epsilon, delta, context)
            found[key] = tuple(choices)
        found[(left, right)] = found[key]
    return found


def _noise_free(mechanism: Sampled, side: Side, epsilon: float) -> Reference | None:
    """The scalar definition run with every draw at 0, if it has one and it runs."""
    if mechanism.reference is None:
        return None
    try:
        value = mechanism.reference(
            list(side.value), epsilon, NoiseFree(Trace()), **dict(side.args)
        )
    except Exception:  # a definition that needs real randomness has no noise-free run
        return None
    if isinstance(value, list | tuple):
        return Reference(tuple(v if isinstance(v, bool | str) else float(v) for v in value))
    return None


def from_sampled(
    mechanism: Sampled,
    epsilon: float,
    *,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    neighbours: NeighbourRelation | None = None,
    per_sample: bool = False,
) -> Subject:
    """A sampled mechanism at claimed ε₀: Table 1 patterns (or given pairs), generated arguments."""
    if not epsilon > 0:
        raise SpecError(
            f"the claimed ε₀ must be positive for {mechanism.name} (it sets the noise scale)",
            where="--claimed",
            fix="e.g. --claimed 0.7",
        )
    relation = neighbours or (
        OneQuery(mechanism.sensitivity)
        if mechanism.neighbours == "one-query"
        else EveryQuery(mechanism.sensitivity)
    )
    if pairs:
        check_pairs(pairs, relation)
        candidates = _both_orders([(tuple(a), tuple(b), "given") for a, b in pairs])
    else:
        chosen = lengths or mechanism.lengths or DEFAULT_LENGTHS
        candidates = _both_orders(_pattern_pairs(chosen, relation))
    delta, _ = _delta(relation)
    sides = _Sides()
    ordered: list[Pair] = []
    methods: set[str] = set()
    queries = tuple(
        (tuple(float(v) for v in a), tuple(float(v) for v in b)) for a, b, _ in candidates
    )
    choices = _choices(mechanism, queries, epsilon, delta)
    scalar = mechanism.lengths == (1,)  # a mechanism on one number: inputs shown as numbers

    def label(v: Vector) -> str:
        return show_input(v[0]) if scalar and len(v) == 1 else show_input(v)

    for (a, b, name), key in zip(candidates, queries, strict=True):
        for choice in choices[key]:
            methods.add(choice.method.split(":")[0].split(" (")[0])
            left = sides.add(a, Side(a, label(a), choice.args))
            right = sides.add(b, Side(b, label(b), choice.args))
            ordered.append(Pair(left, right, name))
    draws = tuple(
        SampledDraw(mechanism, tuple(s.value), epsilon, s.args, per_sample) for s in sides.sides
    )
    references = tuple(_noise_free(mechanism, s, epsilon) for s in sides.sides)
    each = per_sample or mechanism.vectorised is None
    notes = () if reproducible(sides.sides[0], draws[0]) else (NOT_REPRODUCIBLE,)
    return Subject(
        mechanism.name,
        mechanism.doc or mechanism.name,
        f"differential privacy, neighbours: {relation.describe()}, "
        + _noise_setting(mechanism, epsilon),
        tuple(sides.sides),
        tuple(ordered),
        draws,
        references,
        "one run of the scalar definition per sample" if each else "vectorised sampler",
        ", ".join(sorted(methods)),
        notes=notes,
    )


def _noise_setting(mechanism: Sampled, epsilon: float) -> str:
    if mechanism.stated_epsilon is not None:
        return f"noise as configured (the object states ε = {mechanism.stated_epsilon:g})"
    return f"noise set for ε₀ = {epsilon:g}"


NOT_REPRODUCIBLE = (
    "two runs with one seed gave different outputs: the mechanism draws from a random "
    "source of its own, not only from the generator faier passes, so --seed does not "
    "reproduce this run"
)
PROBE = 64
"""Runs per probe of :func:`reproducible`."""


def reproducible(side: Side, draw: Draw) -> bool:
    """Whether two draws from equally seeded generators agree (a library's own RNG does not)."""
    try:
        first, second = (draw.draw(PROBE, np.random.default_rng(12345)) for _ in range(2))
    except MechanismError as exc:
        raise exc.located(f"input {side.show()}") from exc.__cause__
    return (
        first.categories == second.categories
        and first.codes.shape == second.codes.shape
        and bool(np.array_equal(first.codes, second.codes))
        and bool(np.array_equal(first.numbers, second.numbers, equal_nan=True))
    )


def guarded_draw(subject: Subject, side: int, n: int, rng: np.random.Generator) -> Outputs:
    """Draw, naming the input in any error the mechanism raises."""
    try:
        return subject.draw(side, n, rng)
    except MechanismError as exc:
        raise exc.located(f"input {subject.sides[side].show()}") from exc.__cause__
