"""The Python API: the same functions the CLI calls.

>>> import faier
>>> result = faier.epsilon("noisy-max", settings={"n": "3"})
>>> result.epsilon_star.ratio
Fraction(24, 7)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faier.core import engine as registry
from faier.core import parametric
from faier.core.budget import Budget, counted_from, hard_deadline
from faier.core.engine import Engine, Progress, Question
from faier.core.options import Options
from faier.core.problem import Problem
from faier.core.spellings import given_once
from faier.errors import (
    BudgetExceeded,
    InputError,
    MechanismError,
    ModelError,
    SpecError,
)
from faier.examples.registry import EXAMPLES, Example, find_example
from faier.mechanisms import isolation
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.loader import (
    MECHANISM_TYPES,
    find_definitions,
    load_module,
    pick,
    place_in_file,
)
from faier.mechanisms.program import Program, StepProgram
from faier.model.constraints import ParameterOption
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.model.parameters import Interval, Parameter
from faier.model.probability import parse_number
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, NeighbourRelation
from faier.privacy.specs import (
    Comparison,
    DifferentialPrivacy,
    InteractiveDP,
    PrivacySpec,
    Pufferfish,
)
from faier.privacy.symbolic import (
    ParametricPufferfish,
    SymbolicComparison,
    SymbolicDistribution,
)
from faier.results import Result, Statistics, Verdict

if TYPE_CHECKING:
    from faier.accounting.report import PLDReport
    from faier.engines import smt
    from faier.model.files import HMMFile

MODEL_SUFFIXES = {".json", ".yaml", ".yml"}


Target = Any
"""What ``epsilon``, ``verify`` and ``load_problem`` take: a built-in example name, a model
or mechanism file (``str`` or ``os.PathLike``), a :class:`Problem`, a faier mechanism
object (``@faier.program``, ``StepProgram``, ``Interactive``: DP over every query ±1, as a
mechanism file is read), or a library object faier decides (``faier.adapters``)."""


def mechanism_problem(mechanism: Program[Any] | StepProgram[Any, Any] | Interactive) -> Problem:
    """A faier mechanism object as a DP problem (every query ±1), as a mechanism file is read."""
    privacy: PrivacySpec = (
        InteractiveDP(1)
        if isinstance(mechanism, Interactive)
        else DifferentialPrivacy(EveryQuery(1))
    )
    return Problem(mechanism.name, mechanism, privacy, title=mechanism.name)


def _loadable(target: Target) -> str | Problem:
    """A target as the loader reads it: a name or path as text, an object as a Problem."""
    if isinstance(target, str | Problem):
        return target
    if isinstance(target, os.PathLike):
        return str(os.fspath(target))
    if isinstance(target, MECHANISM_TYPES):
        return mechanism_problem(target)
    from faier import adapters

    if adapters.is_library_object(target):
        return adapters.as_problem(target)
    raise SpecError(
        f"faier cannot load a {type(target).__name__}",
        fix="pass an example name, a model or mechanism file, a faier.Problem, a "
        "@faier.program mechanism, or an OpenDP/diffprivlib object",
    )


def _shown_target(target: Target, problem: Problem) -> str | Problem:
    """The target as errors and engine choice place it: a path as text, an object as the
    problem it was loaded as."""
    if isinstance(target, os.PathLike):
        return str(os.fspath(target))
    return target if isinstance(target, str) else problem


def _decided_options(options: Options) -> Options:
    """The options of a decision (epsilon, verify): ``mechanism_epsilon`` would change
    nothing here, so it is refused rather than ignored."""
    if options.mechanism_epsilon is not None:
        raise SpecError(
            f"mechanism_epsilon {options.mechanism_epsilon!r} would change nothing: a "
            "decided mechanism's noise is written in it",
            where="--mechanism-epsilon",
            fix="leave it out; it sets the noise of sampled mechanisms under faier test",
        )
    return options


def _assuming(result: Result, assumptions: tuple[str, ...]) -> Result:
    if not assumptions:
        return result
    return replace(result, assumptions=(*result.assumptions, *assumptions))


def load_problem(target: Target, options: Options | None = None, **fields: Any) -> Problem:
    """A problem from a built-in example name, a model file, a Python mechanism file, a
    faier mechanism object or a library object faier decides (:data:`Target`).

    Options (:class:`~faier.core.options.Options`, or their names as keywords):
    ``settings`` (``--set``), ``neighbours``, ``horizon``, ``name`` and
    ``params``: ``p=0.3`` fixes a parameter, ``'p in (0, 1)'`` leaves it
    unknown in that domain, ``'pA <= pB'`` constrains the unknowns.
    """
    chosen = Options.parse(options, **fields)
    return _load(target, chosen)


def _load(given: Target, options: Options, limits: Budget | None = None) -> Problem:
    name, settings, params = options.name, dict(options.settings), list(options.params)
    target = _loadable(given)
    if name is not None and not (isinstance(target, str) and Path(target).suffix == ".py"):
        what = repr(target) if isinstance(target, str) else "a Problem"
        raise SpecError(
            f"{what} is not a Python mechanism file",
            where=f"--name {name}",
            fix="leave --name out: it chooses among the mechanisms of a .py file",
        )
    if isinstance(target, Problem):
        problem = parametric.apply_parameters(target, params)
    elif (example := find_example(target)) is not None:
        example_settings, params = _example_parameters(example, settings, params)
        try:
            built = example.problem(example_settings)
        except InputError as exc:
            raise _at_settings(exc, example.name, example_settings) from None
        problem = parametric.apply_parameters(built, params)
    else:
        path = Path(target)
        if path.suffix.lower() in MODEL_SUFFIXES:
            from faier.model.files import load_hmm_file

            problem = problem_from_model_file(load_hmm_file(path, limits=limits), settings, params)
            constraints = [o for o in params if o.is_constraint]
            problem = parametric.apply_parameters(problem, constraints)
        elif path.suffix.lower() == ".py":
            problem = problem_from_python_file(path, name)
            _reject_settings(settings, str(path))
            problem = parametric.apply_parameters(problem, params)
        else:
            raise SpecError(
                f"unknown target {target!r}",
                fix="give a built-in example ("
                + ", ".join(e.name for e in EXAMPLES)
                + "), a model file (.yaml, .json) or a mechanism file (.py)",
            )
    if options.neighbours is not None:
        problem = _with_neighbours(problem, options.neighbours)
    return problem.with_horizon(options.horizon)


def _at_settings(exc: InputError, example: str, settings: Mapping[str, str]) -> InputError:
    """An example's refusal of its ``--set`` values, placed at them (its builder names none)."""
    if exc.where is not None or not settings:
        return exc
    shown = ", ".join(f"{key}={value}" for key, value in settings.items())
    return SpecError(
        exc.message,
        where=f"--set {shown}",
        fix=exc.fix or f"see 'faier examples' for the parameters of {example}",
    )


def _example_parameters(
    example: Example, settings: dict[str, str], options: list[ParameterOption]
) -> tuple[dict[str, str], list[ParameterOption]]:
    """``--param NAME=VALUE`` for an example's own setting is the same as ``--set``."""
    own = {spec.name for spec in example.parameters}
    rest = []
    for option in options:
        if option.name is None or option.name not in own:
            rest.append(option)
            continue
        if option.domain is not None:
            raise SpecError(
                f"{option.name} is a fixed setting of the example {example.name!r}",
                where=f"--param {option.text}",
                fix=f"fix it with --set {option.name}=VALUE; the examples "
                + ", ".join(e.name for e in EXAMPLES if e.unknowns)
                + " leave prior probabilities unknown",
            )
        settings[option.name] = str(option.value)
    return settings, rest


def _reject_settings(settings: Mapping[str, str] | None, where: str) -> None:
    if settings:
        first = next(iter(settings))
        raise SpecError(
            f"{where} has no parameter {first!r}",
            where=f"--set {first}",
            fix="--set applies to built-in examples and model-file parameters",
        )


def _with_neighbours(problem: Problem, relation: NeighbourRelation) -> Problem:
    if isinstance(problem.mechanism, Interactive):
        if not isinstance(relation, EveryQuery):
            raise SpecError(
                f"{problem.name} is interactive: only every-query[:Δ] neighbours apply",
                where="--neighbors",
                fix="use --neighbors every-query or every-query:Δ, or leave the option out",
            )
        return replace(problem, privacy=InteractiveDP(relation.delta))
    if not isinstance(problem.privacy, DifferentialPrivacy):
        raise SpecError(
            f"{problem.name} asks a Pufferfish question; --neighbors is for DP",
            where="--neighbors",
            fix="leave --neighbors out: the scenario's comparisons are fixed",
        )
    return replace(problem, privacy=DifferentialPrivacy(relation))


def problem_from_model_file(
    model: HMMFile, settings: Mapping[str, str], params: Sequence[ParameterOption] = ()
) -> Problem:
    """An HMM file's comparisons: named initial distributions or point masses on states.

    ``--set``/``--param`` values fix parameters and ``--param 'p in (a, b)'``
    re-declares a domain; parameters left without a value make the comparisons
    a :class:`ParametricPufferfish` for the SMT engine.
    """
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
            raise SpecError(
                f"{text!r} is not a number",
                where=f"{model.source}: --set {key}",
                fix=f"write a fraction or a decimal, e.g. --set {key}=1/3",
            ) from None
    domains: dict[str, Interval] = {}
    for option in params:
        if option.is_constraint:
            continue
        assert option.name is not None
        if option.name not in declared:
            raise SpecError(
                f"the model has no parameter {option.name!r}",
                where=f"{model.source}: --param {option.text}",
                fix=f"declared parameters: {', '.join(sorted(declared)) or 'none'}",
            )
        if option.domain is not None:
            domains[option.name] = option.domain
            values.pop(option.name, None)
        else:
            assert option.value is not None
            values[option.name] = option.value
    if domains:
        hmm = replace(
            hmm,
            parameters=tuple(
                Parameter(p.name, domains[p.name]) if p.name in domains else p
                for p in hmm.parameters
            ),
        )
    given = {
        **{k: f"--set {k}={v}" for k, v in settings.items()},
        **{
            o.name: f"--param {o.text}"
            for o in params
            if o.name is not None and o.value is not None
        },
    }
    for parameter in hmm.parameters:  # a value from the command line lies in the domain too
        value = values.get(parameter.name)
        if parameter.name in given and value is not None and not parameter.domain.contains(value):
            raise SpecError(
                f"{value} lies outside the domain {parameter.domain} of parameter "
                f"{parameter.name!r}",
                where=f"{model.source}: {given[parameter.name]}",
                fix="choose a value inside the domain, or widen it (in the file or with "
                f"--param '{parameter.name} in (a, b)')",
            )
    if values:
        try:
            hmm = hmm.instantiate(values)
        except InputError as exc:
            raise exc.located(model.source) from None
    if model.data is not None:
        from faier.privacy.datafile import data_privacy

        declared_parameters = tuple(
            Parameter(p.name, domains.get(p.name, p.domain), values.get(p.name))
            for p in model.hmm.parameters
        )
        data = data_privacy(
            model.data, source=model.source, parameters=declared_parameters, states=hmm.states
        )
        title = model.description or model.name
        return Problem(model.name, hmm, data, model.horizon, title)
    if not model.pairs:
        raise ModelError(
            "the model lists no pairs to compare",
            where=f"{model.source}: pairs",
            fix="add e.g. 'pairs: [[with-secret, without-secret]]'",
        )

    def kind(a: str, b: str) -> str:
        return "initial" if a in hmm.initial or b in hmm.initial else "inputs"

    if hmm.is_parametric:

        def symbolic_side(name: str) -> SymbolicDistribution:
            if name in hmm.initial:
                vector = hmm.initial[name]
                return SymbolicDistribution.of(dict(zip(hmm.states, vector, strict=True)))
            return SymbolicDistribution.of({hmm.states[hmm.state_index(name)]: 1})

        symbolic = tuple(
            SymbolicComparison(symbolic_side(a), symbolic_side(b), a, b, kind(a, b))
            for a, b in model.pairs
        )
        parametric_privacy = ParametricPufferfish(
            symbolic, hmm.parameters, (), f"comparisons of {model.source}"
        )
        return Problem(
            model.name, hmm, parametric_privacy, model.horizon, model.description or model.name
        )

    def side(name: str) -> Distribution[Hashable]:
        if name in hmm.initial:
            vector = hmm.initial[name]
            return Distribution.of(
                {s: Fraction(p) for s, p in zip(hmm.states, vector, strict=True) if p != 0}
            )
        return Distribution.point(hmm.states[hmm.state_index(name)])

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
        decided = _library_problems(module)
        if decided:
            return pick(decided, path, name, "mechanism")  # type: ignore[no-any-return]
        _refuse_library_objects(module, path)
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


def _refuse_library_objects(module: Any, path: Path) -> None:
    """A file whose only mechanisms are library objects faier cannot decide: say why."""
    from faier import adapters

    for key, value in vars(module).items():
        if not key.startswith("_") and adapters.is_library_object(value):
            raise SpecError(
                f"faier cannot decide {key} ({type(value).__name__}): "
                f"{adapters.why_not_decided(value)}",
                where=str(path),
                fix=f"test it statistically: faier test {path} --name {key}",
            )


def _library_problems(module: Any) -> dict[str, Problem]:
    """OpenDP measurements in a mechanism file that faier decides, by variable name."""
    from faier import adapters

    found = {}
    for key, value in vars(module).items():
        if key.startswith("_") or not adapters.is_library_object(value):
            continue
        decided = adapters.decidable(value)
        if decided is not None:
            found[key] = decided.problem
    return found


def _located(target: str | Problem, problem: Problem, run: Callable[[], Result]) -> Result:
    """Run an engine on a loaded target; errors name the file (and line) they come from.

    A model file without a horizon is reported against the file; a crash of a
    mechanism from a Python file names the file and the line that raised; a
    model error found over a parameter domain names the model file.
    """
    is_model_file = isinstance(target, str) and Path(target).suffix.lower() in MODEL_SUFFIXES
    if is_model_file and isinstance(problem.mechanism, HMM) and problem.horizon is None:
        raise SpecError(
            "no horizon (the length of observation sequences)",
            where=str(target),
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
        place = place_in_file(cause, path)
        returned_at = getattr(exc, "returned_at", None)
        if returned_at is not None and Path(returned_at[0]).resolve() == path.resolve():
            place = f"{path}:{returned_at[1]}"
        raise exc.located(place) from exc.__cause__
    except ModelError as exc:
        if is_model_file and not (exc.where or "").startswith(str(target)):
            raise exc.located(str(target)) from None
        raise


def _load_within(target: Target, options: Options) -> tuple[Problem, float]:
    """Load under the run's limits; also when the run started, for :func:`counted_from`.

    ``--timeout`` counts loading (a model file of 200 000 states takes a while):
    the engine's budget counts from the start of loading; ``--max-states``
    refuses a model file declaring more states before any row is built.
    Either raises :class:`BudgetExceeded`, which :func:`_not_loaded` turns into
    "unknown".
    """
    budget = Budget(options.timeout, options.max_states)
    if options.timeout is None and options.max_states is None:
        return _load(target, options), budget.started
    try:
        with hard_deadline(options.timeout):
            problem = _load(target, options, budget)
        budget.check_time()
    except BudgetExceeded:
        if options.timeout is None or budget.elapsed() < options.timeout:
            raise
        raise BudgetExceeded(
            f"timeout of {options.timeout:g} s reached while loading the target"
        ) from None
    return problem, budget.started


def _not_loaded(
    target: Target, options: Options, claim: object, stop: BudgetExceeded, started: float
) -> Result:
    """'unknown': the target did not load within the limits (no engine ran)."""
    return Result(
        target=Path(target).stem if isinstance(target, str) else "target",
        privacy="not loaded",
        method="stopped while loading the target",
        verdict=None if claim is None else Verdict.UNKNOWN,
        epsilon=None if claim is None else str(claim),
        delta=options.delta,
        reason=stop.reason,
        statistics=Statistics(seconds=time.perf_counter() - started),
    )


def _bounded(
    problem: Problem, options: Options, claim: Epsilon | None, run: Callable[[], Result]
) -> Result:
    """Run under the hard deadline; a timeout that escapes the engine is still 'unknown'."""
    started = time.perf_counter()
    try:
        with hard_deadline(options.timeout):
            return run()
    except BudgetExceeded as stop:
        return Result(
            target=problem.name,
            privacy=problem.privacy.describe(),
            method="stopped before any engine result",
            verdict=None if claim is None else Verdict.UNKNOWN,
            epsilon=None if claim is None else str(claim),
            delta=options.delta,
            reason=stop.reason,
            statistics=Statistics(seconds=time.perf_counter() - started),
        )


def _chosen(
    target: str | Problem, problem: Problem, options: Options, question: Question
) -> Engine:
    """The engine that answers; a refusal of a model file's problem names the file."""
    try:
        return registry.choose(problem, options, question)
    except SpecError as exc:
        if isinstance(target, str) and Path(target).suffix.lower() in MODEL_SUFFIXES:
            raise exc.located(target) from None
        raise


def epsilon(
    target: Target,
    options: Options | None = None,
    *,
    progress: Progress | None = None,
    **fields: Any,
) -> Result:
    """ε* of a target: exact, or (unknown parameters) its supremum over their domain.

    Options (:class:`~faier.core.options.Options`, or their names as keywords,
    e.g. ``horizon=4, delta="0.01", engine="smt", timeout=60``).  With ``delta``:
    the least ε such that δ(ε) ≤ δ.  ``precision`` bounds ln(upper/lower) of a
    supremum that the SMT engine cannot pin down exactly.

    The work runs in a child process (:func:`faier.mechanisms.isolation.api_call`):
    a mechanism that ends its process raises :class:`~faier.errors.MechanismError`
    here.  ``progress`` is called in this process, in order, while the child waits.
    With a ``cluster`` (or other threads here) the child is forked by the fork
    server, an interpreter without threads, and connects to the cluster itself.
    """
    return isolation.api_call(
        isolation.named(target),
        partial(_epsilon_of, target, options, fields=fields),
        progress=progress,
        fresh=_holds_client(options, fields),
    )


def _holds_client(options: Options | None, fields: dict[str, Any]) -> bool:
    """Whether the work uses Dask (a ``Client`` or an address): Dask's threads and event
    loops cannot cross a fork (a forked child waiting on them hangs), so the child is a new
    interpreter."""
    cluster = fields.get("cluster", options.cluster if options is not None else None)
    return cluster is not None


def _epsilon_of(
    target: Target, options: Options | None, progress: Progress | None, *, fields: dict[str, Any]
) -> Result:
    chosen = _decided_options(Options.parse(options, **fields))
    started = time.perf_counter()
    try:
        problem, started = _load_within(target, chosen)
    except BudgetExceeded as stop:
        return _not_loaded(target, chosen, None, stop, started)
    target = _shown_target(target, problem)
    engine = _chosen(target, problem, chosen, "epsilon")
    with counted_from(started):  # the engine's time counts from the start of loading
        result = _bounded(
            problem,
            chosen,
            None,
            lambda: _located(target, problem, lambda: engine.epsilon(problem, chosen, progress)),
        )
    return _assuming(result, problem.assumptions)


def verify(
    target: Target,
    epsilon: str | float | Epsilon | None = None,
    options: Options | None = None,
    *,
    progress: Progress | None = None,
    eps: str | float | Epsilon | None = None,
    claimed: str | float | Epsilon | None = None,
    **fields: Any,
) -> Result:
    """Decide ε-privacy (or (ε, δ)-privacy): exactly, or for every unknown parameter value.

    ``epsilon`` is the claim (``eps``, its former name, and ``claimed``, the tester's,
    are still accepted); the other options as for :func:`epsilon` (in a child process too).
    """
    given = given_once("epsilon", {"epsilon": epsilon, "eps": eps, "claimed": claimed})
    if given is None:
        raise SpecError("no ε to verify", where="epsilon", fix="e.g. faier.verify(target, 'ln(3)')")
    return isolation.api_call(
        isolation.named(target),
        partial(_verified, target, given, options, fields=fields),
        progress=progress,
        fresh=_holds_client(options, fields),
    )


def _verified(
    target: Target,
    given: Any,
    options: Options | None,
    progress: Progress | None,
    *,
    fields: dict[str, Any],
) -> Result:
    chosen = _decided_options(Options.parse(options, **fields))
    started = time.perf_counter()
    try:
        problem, started = _load_within(target, chosen)
    except BudgetExceeded as stop:
        return _not_loaded(target, chosen, given, stop, started)
    target = _shown_target(target, problem)
    claim = given if isinstance(given, Epsilon) else _epsilon(given)
    engine = _chosen(target, problem, chosen, "verify")
    with counted_from(started):  # the engine's time counts from the start of loading
        result = _bounded(
            problem,
            chosen,
            claim,
            lambda: _located(
                target, problem, lambda: engine.verify(problem, claim, chosen, progress)
            ),
        )
    if chosen.engine == "auto" and result.verdict is Verdict.HOLDS and result.proof is None:
        result = _for_every_input(target, problem, claim, chosen, result)
    return _assuming(result, problem.assumptions)


def _for_every_input(
    target: str | Problem, problem: Problem, claim: Epsilon, options: Options, grid: Result
) -> Result:
    """Under ``auto``, a claim that holds on the grid is tried for every input by the
    alignment engine (docs/PROOFS.md); its proof is added, else the grid result stands."""
    alignment = registry.get("alignment")
    widen = getattr(alignment, "widen", None)
    try:
        if widen is None or alignment.refusal(problem, options, "verify") is not None:
            return grid
        proved = _bounded(
            problem,
            options,
            claim,
            lambda: _located(target, problem, lambda: widen(problem, claim, options)),
        )
    except InputError:  # a shape the alignment engine does not take (scalar inputs): no proof
        return grid
    if proved.verdict is not Verdict.HOLDS or proved.proof is None:
        return grid
    return replace(
        grid,
        proof=proved.proof,
        method=f"{grid.method}; for every input: {proved.method}",
        statistics=replace(grid.statistics, seconds=grid.seconds + proved.seconds),
    )


def _epsilon(text: str | float) -> Epsilon:
    try:
        return Epsilon.parse(text)
    except SpecError as exc:
        raise exc.located("--epsilon") from None


def closed_forms(
    target: Target,
    options: Options | None = None,
    *,
    output: str | None = None,
    **fields: Any,
) -> smt.ClosedForms:
    """Each outcome's probability under each prior as a rational function of the parameters.

    With ``output`` (an outcome, e.g. ``"2~"`` or ``"start 1"``), also ε*(θ) for
    it and its supremum over the domain.
    """
    from faier.engines import smt
    from faier.engines.smt.entry import settings

    chosen = Options.parse(options, **fields)
    problem = _load(target, chosen)
    outcome = None if output is None else tuple(output.split())
    return smt.closed_forms(problem, outcome, settings(chosen))


def pld(
    target: Target,
    pair: str | tuple[Any, ...] | None = None,
    options: Options | None = None,
    *,
    compose: int = 1,
    epsilons: Sequence[str | float | Epsilon] = (),
    accountant: bool | None = None,
    **fields: Any,
) -> PLDReport:
    """The exact privacy loss distribution of a pair, k-fold composed, with δ(ε) both ways.

    ``pair`` is two neighbouring inputs (``"1;2"``, ``([1, 1], [1, 2])``) or
    two prior names of a Pufferfish question; None takes the pair of ε*'s
    witness.  ``epsilons``: where to evaluate δ(ε) exactly; ``delta`` (an
    option): the least ε with δ(ε) ≤ δ; ``accountant``: also ask Google's
    dp_accounting for δ(ε) of the exported PLD (default: when installed).
    ``report.distribution.to_dp_accounting()`` is the PLD for its accountant.
    """
    from faier.accounting import report as pld_report
    from faier.accounting.build import comparison_of

    chosen = Options.parse(options, **fields)
    problem = _load(target, chosen)
    comparison = None
    source = "given"
    if pair is None:
        found = epsilon(problem, chosen)
        witness = found.witness
        if witness is None or found.epsilon_star is None:
            raise SpecError(
                f"faier found no worst pair of {problem.name} ({found.reason or found.method})",
                where="--pair",
                fix="give the pair with --pair 'D1;D2'",
            )
        if witness.left_value is not None and isinstance(problem.mechanism, Interactive):
            start = witness.left.split(", answers ")[0]
            pair = (start, witness.left_value, witness.right_value)
        elif witness.left_value is not None:
            pair = (witness.left_value, witness.right_value)
        else:
            pair = (witness.left, witness.right)
        source = f"the worst pair (ε* = {found.epsilon_star.show()})"
    comparison = comparison_of(problem, pair)
    if accountant is None:
        from importlib.util import find_spec

        accountant = find_spec("dp_accounting") is not None
    with hard_deadline(chosen.timeout):
        return pld_report.build(
            problem,
            comparison,
            pair=pair,
            pair_source=source,
            compositions=compose,
            epsilons=epsilons,
            delta=chosen.delta,
            accountant=accountant,
            budget=Budget(chosen.timeout, chosen.max_states),
        )


def audit(
    function: Callable[..., Any] | str,
    data: Any,
    *,
    epsilon: str | float | Epsilon,
    delta: str | float | Fraction | None = None,
    neighbours: str = "add-remove",
    args: Mapping[str, Any] | None = None,
    seed: int | None = None,
    budget: int | None = None,
    bounds: Mapping[str, Any] | Sequence[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    cluster: Any = None,
    timeout: float | None = None,
    test_samples: int | None = None,
    **kwargs: Any,
) -> Any:
    """Audit a real function ``function(data, **args, **kwargs)`` (docs/AUDIT.md).

    ``function``: a callable, ``"FILE.py:FUNCTION"`` or ``"module:function"``;
    ``data``: a numpy array, DataFrame, list of records, or a .csv/.npy/.json
    path.  Returns an ``AuditReport``: violated with an exact witness, or no
    violation found in the pairs searched (never "holds").
    """
    from faier.auditing.api import audit as run_audit

    return run_audit(
        function,
        data,
        epsilon=epsilon,
        delta=delta,
        neighbours=neighbours,
        args={**(args or {}), **kwargs},
        seed=seed,
        budget=budget,
        bounds=list(bounds) if bounds is not None and not isinstance(bounds, Mapping) else bounds,
        progress=progress,
        workers=workers,
        cluster=cluster,
        timeout=timeout,
        test_samples=test_samples,
    )
