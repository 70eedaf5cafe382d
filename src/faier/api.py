"""The Python API: the same functions the CLI calls.

>>> import faier
>>> result = faier.epsilon("noisy-max", settings={"n": "3"})
>>> result.epsilon_star.ratio
Fraction(24, 7)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from faier.engines import exact
from faier.engines.budget import Budget
from faier.engines.problem import Problem
from faier.errors import MechanismError, ModelError, SpecError
from faier.examples.registry import EXAMPLES, find_example
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.loader import (
    MECHANISM_TYPES,
    find_definitions,
    load_module,
    pick,
    place_in_file,
)
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.probability import parse_number
from faier.privacy.budget import Epsilon, parse_delta
from faier.privacy.neighbours import EveryQuery, parse_neighbours
from faier.privacy.specs import (
    Comparison,
    DifferentialPrivacy,
    InteractiveDP,
    PrivacySpec,
    Pufferfish,
)
from faier.results import Result

if TYPE_CHECKING:
    from faier.model.files import HMMFile

MODEL_SUFFIXES = {".json", ".yaml", ".yml"}

T = TypeVar("T")
R = TypeVar("R")


def load_problem(
    target: str | Problem,
    *,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    horizon: int | None = None,
    name: str | None = None,
) -> Problem:
    """A problem from a built-in example name, a model file, or a Python mechanism file."""
    if name is not None and not (isinstance(target, str) and Path(target).suffix == ".py"):
        what = repr(target) if isinstance(target, str) else "a Problem"
        raise SpecError(
            f"{what} is not a Python mechanism file",
            where=f"--name {name}",
            fix="leave --name out: it chooses among the mechanisms of a .py file",
        )
    if isinstance(target, Problem):
        problem = target
    elif (example := find_example(target)) is not None:
        problem = example.problem(settings)
    else:
        path = Path(target)
        if path.suffix.lower() in MODEL_SUFFIXES:
            from faier.model.files import load_hmm_file

            problem = problem_from_model_file(load_hmm_file(path), settings or {})
        elif path.suffix.lower() == ".py":
            problem = problem_from_python_file(path, name)
            _reject_settings(settings, str(path))
        else:
            raise SpecError(
                f"unknown target {target!r}",
                fix="give a built-in example ("
                + ", ".join(e.name for e in EXAMPLES)
                + "), a model file (.yaml, .json) or a mechanism file (.py)",
            )
    if neighbours is not None:
        problem = _with_neighbours(problem, neighbours)
    if horizon is not None and horizon < 1:
        raise SpecError(
            f"horizon must be at least 1, got {horizon}",
            where="--horizon",
            fix="the horizon is the number of queries or observations, e.g. --horizon 4",
        )
    return problem.with_horizon(horizon)


def _reject_settings(settings: Mapping[str, str] | None, where: str) -> None:
    if settings:
        first = next(iter(settings))
        raise SpecError(
            f"{where} has no parameter {first!r}",
            where=f"--set {first}",
            fix="--set applies to built-in examples and model-file parameters",
        )


def _with_neighbours(problem: Problem, text: str) -> Problem:
    relation = _option("--neighbors", parse_neighbours, text)
    if isinstance(problem.mechanism, Interactive):
        if not isinstance(relation, EveryQuery):
            raise SpecError(
                f"{problem.name} is interactive: only every-query[:Δ] neighbours apply",
                where="--neighbors",
                fix="use --neighbors every-query or every-query:Δ, or leave the option out",
            )
        return Problem(
            problem.name,
            problem.mechanism,
            InteractiveDP(relation.delta),
            problem.horizon,
            problem.title,
        )
    if not isinstance(problem.privacy, DifferentialPrivacy):
        raise SpecError(
            f"{problem.name} asks a Pufferfish question; --neighbors is for DP",
            where="--neighbors",
            fix="leave --neighbors out: the scenario's comparisons are fixed",
        )
    return Problem(
        problem.name,
        problem.mechanism,
        DifferentialPrivacy(relation),
        problem.horizon,
        problem.title,
    )


def problem_from_model_file(model: HMMFile, settings: Mapping[str, str]) -> Problem:
    """An HMM file's comparisons: named initial distributions or point masses on states."""
    hmm = model.hmm
    declared = {p.name for p in hmm.parameters}
    values: dict[str, Fraction] = {p.name: p.value for p in hmm.parameters if p.value is not None}
    for key, text in settings.items():
        if key not in declared:
            raise SpecError(
                f"the model has no parameter {key!r}",
                where=f"{model.source}: --set {key}",
                fix=f"declared parameters: {', '.join(sorted(declared)) or 'none'}",
            )
        try:
            values[key] = parse_number(text)[0]
        except ValueError:
            raise SpecError(f"{text!r} is not a number", where=f"--set {key}") from None
    if values:
        hmm = hmm.instantiate(values)
    if hmm.is_parametric:
        missing = sorted(p.name for p in hmm.parameters)
        raise SpecError(
            f"parameters {', '.join(missing)} have no value",
            where=model.source,
            fix="fix them with --set NAME=VALUE (e.g. --set p=1/3)",
        )
    if not model.pairs:
        raise ModelError(
            "the model lists no pairs to compare",
            where=f"{model.source}: pairs",
            fix="add e.g. 'pairs: [[with-secret, without-secret]]'",
        )

    def side(name: str) -> Distribution[Hashable]:
        if name in hmm.initial:
            vector = hmm.initial[name]
            return Distribution.of(
                {s: Fraction(p) for s, p in zip(hmm.states, vector, strict=True) if p != 0}
            )
        return Distribution.point(hmm.states[hmm.state_index(name)])

    def kind(a: str, b: str) -> str:
        return "initial" if a in hmm.initial or b in hmm.initial else "inputs"

    pairs = tuple(Comparison(side(a), side(b), a, b, kind(a, b)) for a, b in model.pairs)
    privacy: PrivacySpec = Pufferfish(pairs, f"comparisons of {model.source}")
    return Problem(model.name, hmm, privacy, model.horizon, model.description or model.name)


def problem_from_python_file(path: Path, name: str | None = None) -> Problem:
    """A problem or mechanism defined in a Python file (default DP: every query ±1)."""
    module = load_module(path)
    problems = find_definitions(module, (Problem,))
    if problems:
        return pick(problems, path, name, "problem")  # type: ignore[no-any-return]
    mechanisms = find_definitions(module, MECHANISM_TYPES)
    if not mechanisms:
        raise MechanismError(
            "defines no mechanism",
            where=str(path),
            fix="decorate a function with @faier.program(inputs=...) or define a faier.Problem",
        )
    mechanism = pick(mechanisms, path, name, "mechanism")
    privacy: PrivacySpec = (
        InteractiveDP(1)
        if isinstance(mechanism, Interactive)
        else DifferentialPrivacy(EveryQuery(1))
    )
    return Problem(path.stem, mechanism, privacy, title=mechanism.name)


def _option(where: str, parse: Callable[[T], R], text: T) -> R:
    """Parse an option's value; an error names the option."""
    try:
        return parse(text)
    except SpecError as exc:
        raise exc.located(where) from None


def _budget(timeout: float | None, max_states: int | None) -> Budget:
    if timeout is not None and not timeout > 0:
        raise SpecError(
            f"the timeout must be positive, got {timeout:g}",
            where="--timeout",
            fix="give seconds, e.g. --timeout 60, or leave it out for no limit",
        )
    if max_states is not None and max_states < 1:
        raise SpecError(
            f"the state budget must be at least 1, got {max_states}",
            where="--max-states",
            fix="e.g. --max-states 100000, or leave it out for no limit",
        )
    return Budget(timeout, max_states)


def _located(target: str | Problem, problem: Problem, run: Callable[[], Result]) -> Result:
    """Run an engine on a loaded target; errors name the file (and line) they come from.

    A model file without a horizon is reported against the file; a crash of a
    mechanism from a Python file names the file and the line that raised.
    """
    if (
        isinstance(target, str)
        and Path(target).suffix in MODEL_SUFFIXES
        and isinstance(problem.mechanism, HMM)
        and problem.horizon is None
    ):
        raise SpecError(
            "no horizon (the length of observation sequences)",
            where=target,
            fix="pass --horizon K or write 'horizon: K' in the model file",
        )
    try:
        return run()
    except MechanismError as exc:
        if not isinstance(target, str) or Path(target).suffix != ".py":
            raise
        path = Path(target)
        if exc.where is not None and exc.where.startswith(str(path)):
            raise
        cause = exc.__cause__ if exc.__cause__ is not None else exc
        raise exc.located(place_in_file(cause, path)) from exc.__cause__


def epsilon(
    target: str | Problem,
    *,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    horizon: int | None = None,
    delta: str | Fraction | None = None,
    timeout: float | None = None,
    max_states: int | None = None,
    name: str | None = None,
) -> Result:
    """The exact ε* of a target (with δ: the least ε such that δ(ε) ≤ δ)."""
    problem = load_problem(
        target, settings=settings, neighbours=neighbours, horizon=horizon, name=name
    )
    d = None if delta is None else _option("--delta", parse_delta, delta)
    budget = _budget(timeout, max_states)
    return _located(target, problem, lambda: exact.epsilon(problem, delta=d, budget=budget))


def verify(
    target: str | Problem,
    eps: str | Epsilon,
    *,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    horizon: int | None = None,
    delta: str | Fraction | None = None,
    timeout: float | None = None,
    max_states: int | None = None,
    name: str | None = None,
) -> Result:
    """Decide ε-privacy (or (ε, δ)-privacy) of a target exactly."""
    problem = load_problem(
        target, settings=settings, neighbours=neighbours, horizon=horizon, name=name
    )
    budget_eps = eps if isinstance(eps, Epsilon) else _option("--epsilon", Epsilon.parse, eps)
    d = None if delta is None else _option("--delta", parse_delta, delta)
    budget = _budget(timeout, max_states)
    return _located(
        target, problem, lambda: exact.verify(problem, budget_eps, delta=d, budget=budget)
    )
