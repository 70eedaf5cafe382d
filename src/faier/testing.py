"""The Python API of statistical testing: what ``faier test``, ``certify`` and ``bound`` call.

>>> import faier.testing as t
>>> report = t.statistical_test("noisy-max-laplace", claimed="0.7", epsilons="0.5,0.9",
...                             samples=20_000, selection_samples=4_000, seed=1, workers=1)
>>> [p.rejected(0.05) for p in report.points]   # evidence against 0.5-DP, none against 0.9
[True, False]

A target is a built-in example (a discrete faier mechanism), a name of the
continuous suite (:data:`SUITE_NAMES`), or a Python file defining a
mechanism: a faier program, or a sampled one (``faier.mechanisms.sampled``).
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from faier import api
from faier.core import engine as registry
from faier.core.budget import hard_deadline
from faier.core.options import Options
from faier.core.problem import Problem
from faier.core.spellings import given_once
from faier.engines.statistical import combine, subjects
from faier.engines.statistical.combine import BoundReport, CertifyReport
from faier.engines.statistical.config import Config, parse_epsilons
from faier.engines.statistical.entry import StatisticalEngine
from faier.engines.statistical.reports import Candidate, StatReport
from faier.engines.statistical.subjects import Subject, Vector
from faier.engines.statistical.tester import Progress
from faier.errors import MechanismError, SpecError
from faier.mechanisms import isolation
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.loader import MECHANISM_TYPES, find_definitions, load_module, pick
from faier.mechanisms.program import Program, StepProgram
from faier.mechanisms.sampled import Sampled
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import NeighbourRelation, parse_neighbours

SUITE_NAMES = tuple(SUITE)
"""Targets of StatDP's continuous suite: ``faier test svt-laplace --claimed 0.7``."""


def parse_pair(text: str) -> tuple[Vector, Vector]:
    """``1,1,1;0,2,2`` (or ``[1,1,1];[0,2,2]``): two query-answer vectors."""
    halves = text.split(";")
    if len(halves) != 2:
        raise SpecError(
            f"cannot read the pair {text!r}", where="--pair", fix="write D1;D2, e.g. 1,1,1;0,2,2"
        )
    vectors = []
    for half in halves:
        items = [s for s in half.strip().strip("[]()").split(",") if s.strip()]
        try:
            numbers = [float(s) for s in items]
        except ValueError:
            raise SpecError(
                f"cannot read {half.strip()!r} as numbers", where="--pair", fix="e.g. 1,1,1;0,2,2"
            ) from None
        if not items or not all(math.isfinite(v) for v in numbers):
            raise SpecError(
                f"{half.strip()!r} is not a vector of finite numbers",
                where="--pair",
                fix="e.g. 1,1,1;0,2,2",
            )
        vectors.append(tuple(int(v) if v.is_integer() else v for v in numbers))
    return vectors[0], vectors[1]


def parse_lengths(text: str) -> tuple[int, ...]:
    """``5,10``: the input lengths of the patterns."""
    try:
        lengths = tuple(int(s) for s in text.split(","))
    except ValueError:
        raise SpecError(f"cannot read {text!r}", where="--lengths", fix="e.g. 5,10") from None
    if not lengths or min(lengths) < 1:
        raise SpecError(f"lengths must be ≥ 1, got {text!r}", where="--lengths", fix="e.g. 5,10")
    return lengths


def _sampled_in_file(path: Path, name: str | None) -> Sampled | None:
    from faier import adapters

    module = load_module(path)
    sampled = find_definitions(module, (Sampled,))
    for key, value in vars(module).items():  # OpenDP and diffprivlib objects, wrapped
        if not key.startswith("_") and adapters.is_library_object(value):
            sampled[key] = adapters.LazyWrap(key, value)
    if not sampled:
        return None
    others = find_definitions(module, (*MECHANISM_TYPES, Problem))
    if name is None and others:
        everything = {**sampled, **others}
        pick(everything, path, None, "mechanism")
    if name is not None and name not in sampled:
        return None
    found = pick(sampled, path, name, "mechanism")
    if isinstance(found, adapters.LazyWrap):
        return found.wrapped()
    assert isinstance(found, Sampled)
    return found


Target = Any
"""What can be tested: a built-in example or suite name, a .py file (str or Path), a
:class:`Problem`, a faier mechanism object, a :class:`Sampled` mechanism, or a library
object :mod:`faier.adapters` wraps (an OpenDP measurement, a diffprivlib mechanism)."""


def problem_of(mechanism: Program[Any] | StepProgram[Any, Any] | Interactive) -> Problem:
    """A faier mechanism object as a DP problem (every query ±1), as a mechanism file is read."""
    return api.mechanism_problem(mechanism)


def as_sampled(target: Target, name: str | None = None) -> Sampled | None:
    """The sampled mechanism a target is or names, if it is one (None: a discrete model)."""
    if isinstance(target, Sampled):
        return target
    if isinstance(target, str | os.PathLike):
        return _sampled_target(os.fspath(target), name)
    if isinstance(target, (Problem, *MECHANISM_TYPES)):
        return None
    from faier import adapters

    wrapped = adapters.wrap(target)
    if wrapped is None:
        raise SpecError(
            f"faier cannot test a {type(target).__name__}",
            fix="pass a faier mechanism, a sampled one (faier.mechanisms.sampled), a file "
            "or example name, or wrap a library object with faier.adapters",
        )
    return wrapped


def as_target(target: Target) -> str | Problem:
    """A discrete target as the API loads it: a name or path as text, a mechanism as a Problem."""
    if isinstance(target, MECHANISM_TYPES):
        return problem_of(target)
    if isinstance(target, os.PathLike):
        return str(os.fspath(target))
    if isinstance(target, str):
        return target
    if isinstance(target, Problem):
        return target
    raise SpecError(f"faier cannot load a {type(target).__name__} as a discrete mechanism")


def as_vector(value: Any, where: str = "--pair") -> Vector:
    """One input as the tester uses it: a number, a list, a tuple or a 1-D numpy array."""
    if isinstance(value, np.ndarray) and value.ndim > 1:
        raise SpecError(
            f"an input must be one-dimensional, got an array of shape {value.shape}", where=where
        )
    if isinstance(value, np.ndarray):
        items = list(value.reshape(-1))
    else:
        items = list(value) if isinstance(value, list | tuple) else [value]
    numbers: list[int | float] = []
    for item in items:
        if isinstance(item, bool | np.bool_) or not isinstance(
            item, int | float | np.integer | np.floating
        ):
            raise SpecError(
                f"{value!r} is not a number or a vector of numbers",
                where=where,
                fix="give inputs as numbers, lists, tuples or numpy arrays of numbers",
            )
        number = float(item)
        if not math.isfinite(number):
            raise SpecError(f"{value!r} holds a non-finite number", where=where)
        numbers.append(int(number) if number.is_integer() else number)
    if not numbers:
        raise SpecError("an input is empty", where=where, fix="give at least one query answer")
    return tuple(numbers)


def as_pair(pair: Any, where: str = "--pair") -> tuple[Vector, Vector]:
    """``"1,1;0,2"``, or two inputs ``as_vector`` reads: ``([1, 1], [0, 2])``, ``(1.5, 2.5)``."""
    if isinstance(pair, str):
        return parse_pair(pair)
    try:
        left, right = pair
    except (TypeError, ValueError):
        raise SpecError(
            f"{pair!r} is not a pair (D1, D2)", where=where, fix="e.g. ([1, 1, 1], [0, 2, 2])"
        ) from None
    return as_vector(left, where), as_vector(right, where)


def as_lengths(lengths: int | str | Sequence[int] | None) -> tuple[int, ...] | None:
    """``5``, ``"5,10"`` or ``[5, 10]``: the input lengths of the patterns."""
    if lengths is None:
        return None
    if isinstance(lengths, str):
        return parse_lengths(lengths)
    given = [lengths] if isinstance(lengths, int | np.integer) else list(lengths)
    if not given or any(
        isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1 for v in given
    ):
        raise SpecError(
            f"lengths must be whole numbers ≥ 1, got {lengths!r}", where="--lengths", fix="e.g. 5"
        )
    return tuple(int(v) for v in given)


def _sampled_target(target: str, name: str | None) -> Sampled | None:
    """The sampled mechanism a target names (suite name or .py file), if it names one."""
    found = SUITE.get(target)
    if found is None and Path(target).suffix == ".py":
        return _sampled_in_file(Path(target), name)
    if name is not None and Path(target).suffix != ".py":
        raise SpecError(
            f"{target} is not a Python file: --name picks a mechanism in one",
            where="--name",
            fix="leave --name out",
        )
    return found


LIBRARY_NOISE = "a library object's noise is set by its own parameters"
PROGRAM_NOISE = "a faier mechanism's noise is written in it, and it is tested as written"


def noise_refusal(sampled: Sampled | None) -> str | None:
    """Why ``mechanism_epsilon`` cannot apply to a target (None: a sampled mechanism that
    takes its ε₀ from the tester, whose noise it sets)."""
    if sampled is None:
        return PROGRAM_NOISE
    return LIBRARY_NOISE if sampled.stated_epsilon is not None else None


def refuse_noise_epsilon(value: Any, why: str | None, where: str = "--mechanism-epsilon") -> None:
    """Refuse ``mechanism_epsilon`` where it would change nothing, rather than ignore it."""
    if value is None or why is None:
        return
    raise SpecError(
        f"mechanism_epsilon {value!r} would change nothing: {why}",
        where=where,
        fix="leave it out: it sets the noise only of sampled mechanisms that take ε₀ from "
        "the tester (the continuous suite's, @vectorised and @blackbox ones)",
    )


def load_subject(
    target: Target,
    *,
    claimed: Epsilon | None,
    noise: float | None = None,
    settings: Mapping[str, str] | None = None,
    neighbours: str | NeighbourRelation | None = None,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    all_pairs: bool = False,
    name: str | None = None,
    per_sample: bool = False,
    resolved: tuple[Sampled | None] | None = None,
) -> tuple[Subject, Problem | None]:
    """What to test and, for a discrete mechanism, the problem the exact engine can answer.

    ``resolved`` carries an earlier :func:`as_sampled` answer, so that a
    mechanism file is not executed twice to find out what it defines.  ``noise``
    is the ε₀ a sampled mechanism runs with (default: its own stated ε, else
    the claim): testing a mechanism set up for ε = 1 against a claim of 0.5.
    """
    mechanism = resolved[0] if resolved is not None else as_sampled(target, name)
    refuse_noise_epsilon(noise, noise_refusal(mechanism))
    if mechanism is not None:
        shown = mechanism.name if not isinstance(target, str) else target
        if settings:
            raise SpecError(
                f"{shown} takes no --set parameters",
                where="--set",
                fix="the claimed ε₀ sets its noise (--claimed); --set is for built-in examples",
            )
        run_at = noise if noise is not None else mechanism.stated_epsilon
        if run_at is None and claimed is not None:
            run_at = claimed.value
        if run_at is None:
            raise SpecError(
                f"{shown} sets its noise from the claimed ε₀",
                where="--claimed",
                fix="e.g. --claimed 0.7 (or --mechanism-epsilon for the noise alone)",
            )
        if all_pairs:
            raise SpecError(
                f"{shown} runs on query vectors of any length; there is no 'every pair'",
                where="--all-pairs",
                fix="leave it out, or give pairs with --pair D1;D2",
            )
        relation = parse_neighbours(neighbours) if isinstance(neighbours, str) else neighbours
        subject = subjects.from_sampled(
            mechanism,
            run_at,
            lengths=lengths,
            pairs=pairs,
            neighbours=relation,
            per_sample=per_sample,
        )
        return subject, None
    problem = api.load_problem(
        as_target(target), settings=settings, neighbours=neighbours, name=name
    )
    subject = subjects.from_problem(
        problem, lengths=lengths, pairs=pairs, all_pairs=all_pairs, per_sample=per_sample
    )
    return subject, problem


def stated_claim(value: float) -> Epsilon:
    """The ε a library states, written as Python prints it (``1``, ``0.5``)."""
    text = repr(float(value))
    return Epsilon.parse(text[:-2] if text.endswith(".0") else text)


def _claim(claimed: str | float | Epsilon | None, sampled: Sampled | None) -> Epsilon:
    """The claim as given, else the ε a library object states itself."""
    if claimed is None:
        if sampled is not None and sampled.stated_epsilon is not None:
            return stated_claim(sampled.stated_epsilon)
        raise SpecError(
            "no claim: give the ε₀ to test",
            where="--claimed",
            fix="e.g. --claimed 0.7 (a wrapped library object states its own)",
        )
    if isinstance(claimed, Epsilon):
        return claimed
    try:
        return Epsilon.parse(claimed)
    except SpecError as exc:
        raise exc.located("--claimed") from None


def _config(claimed: Epsilon | None, options: Options) -> Config:
    grid = parse_epsilons(options.epsilons)
    return Config(
        claimed=None if claimed is None else claimed.value,
        epsilons=grid,
        samples=options.samples,
        selection_samples=options.selection_samples,
        thinnings=options.thinnings,
        alpha=options.alpha,
        seed=options.seed,
        workers=options.cores,
        claim="" if claimed is None else claimed.text,
        cluster=options.cluster,
    )


def _subject(
    target: Target,
    claim: Epsilon | None,
    options: Options,
    lengths: int | Sequence[int] | str | None,
    pairs: Sequence[Any],
    resolved: tuple[Sampled | None] | None = None,
) -> tuple[Subject, Problem | None]:
    return load_subject(
        target,
        claimed=claim,
        noise=options.mechanism_epsilon,
        settings=options.settings,
        neighbours=options.neighbours,
        lengths=as_lengths(lengths),
        pairs=[as_pair(p) for p in pairs],
        all_pairs=options.all_pairs,
        name=options.name,
        per_sample=options.per_sample,
        resolved=resolved,
    )


def _pairs_of(pairs: Sequence[Any], inputs: Sequence[Any] | None) -> Sequence[Any]:
    """The pairs to test, given as ``pairs`` or as ``inputs`` (``assert_private``'s name)."""
    given = given_once("pairs", {"pairs": pairs or None, "inputs": inputs})
    return () if given is None else given


def _tester() -> StatisticalEngine:
    engine = registry.get("statistical")
    assert isinstance(engine, StatisticalEngine)
    return engine


def statistical_test(
    target: Target,
    *,
    epsilon: str | float | Epsilon | None = None,
    claimed: str | float | Epsilon | None = None,
    lengths: int | Sequence[int] | str | None = None,
    pairs: Sequence[Any] = (),
    inputs: Sequence[Any] | None = None,
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> StatReport:
    """p-values over a grid of ε (evidence of violations, never a proof of privacy).

    ``target`` is a name, a file, or a mechanism object (:data:`Target`);
    ``epsilon`` (or ``claimed``, the CLI's ``--claimed``) is the claim, by
    default the ε a wrapped library object states.  Pairs are
    ``"1,1;0,2"`` or two inputs (numbers, lists, tuples, numpy arrays), as ``pairs`` or
    ``inputs`` (``assert_private``'s name);
    ``lengths`` an int, a list or ``"5,10"``.  Options
    (:class:`~faier.core.options.Options` or their names as keywords):
    ``timeout`` (the run ends with what finished; a mechanism that never
    returns is interrupted), ``epsilons`` (text or a list of numbers),
    ``mechanism_epsilon`` (the ε₀ a sampled mechanism runs with, when it is
    not the claim), ``samples``, ``selection_samples``, ``seed``, ``workers``,
    ``cluster`` (``"local:4"``, ``"tcp://host:8786"`` or a ``dask.distributed.Client``),
    ``alpha``, ``thinnings``, ``all_pairs``, ``settings``, ``neighbours``,
    ``name``, ``per_sample``.

    The test runs in a child process (:func:`faier.mechanisms.isolation.api_call`),
    so a mechanism that ends its process raises here; ``progress`` is called in
    this process, in order, while the child waits.  On Dask (a ``Client`` or an
    address) the child is forked by the fork server, an interpreter without
    threads, and connects to the cluster itself.
    """
    claimed = given_once("epsilon", {"epsilon": epsilon, "claimed": claimed})
    pairs = _pairs_of(pairs, inputs)
    chosen = Options.parse(options, **fields)
    work = partial(_tested, target, claimed, lengths, pairs, chosen)
    dask = chosen.cluster is not None  # Dask cannot cross a fork: the fork server's child
    return isolation.api_call(isolation.named(target), work, progress=progress, fresh=dask)


def _tested(
    target: Target,
    claimed: str | float | Epsilon | None,
    lengths: int | Sequence[int] | str | None,
    pairs: Sequence[Any],
    chosen: Options,
    progress: Progress | None,
) -> StatReport:
    """:func:`statistical_test`'s work (in the isolated child)."""
    sampled = as_sampled(target, chosen.name)
    claim = _claim(claimed, sampled)
    config = _config(claim, chosen)
    with hard_deadline(chosen.timeout):
        subject, _ = _subject(target, claim, chosen, lengths, pairs, resolved=(sampled,))
        return _tester().test(subject, config, progress)


MAX_CERTIFIED_LENGTH = 5
"""Longest input of a suite name whose certified ε* ``bound`` computes (the grid has
(m + 1)ⁿ inputs: 243 at n = 5 with m = 2, 59 049 at n = 10)."""


def _noise_epsilon(claim: Epsilon, options: Options) -> Fraction | None:
    """The ε₀ a suite mechanism's noise was set with, as an exact rational (None: irrational)."""
    if options.mechanism_epsilon is not None:
        try:
            noise = Epsilon.parse(options.mechanism_epsilon)
        except SpecError as exc:
            raise exc.located("--mechanism-epsilon") from None
    else:
        noise = claim
    return noise.rational if noise.rational is not None and noise.rational > 0 else None


def _certified_example(
    name: str,
    eps0: Fraction,
    args: Mapping[str, Any],
    n: int,
    m: int,
    neighbours: str | NeighbourRelation | None = None,
) -> Problem:
    """The built-in example of a suite name (``examples/continuous.py``) with these settings
    (and the tester's neighbour relation, when one was given)."""
    settings = {"n": str(n), "m": str(m), "eps0": str(eps0)}
    if "T" in args:
        settings["T"] = str(Fraction(repr(float(args["T"]))))
    if "N" in args:
        settings["cutoff"] = str(int(args["N"]))
    return api.load_problem(name, settings=settings, neighbours=neighbours)


def _extent(vectors: Sequence[Any]) -> tuple[int, int]:
    """(n, m): the longest input and the largest answer, at least 1, within the examples' limits."""
    n = max(len(v) for v in vectors)
    m = max((math.ceil(abs(float(q))) for v in vectors for q in v), default=1)
    return n, min(max(m, 1), 20)


def suite_model(name: str, eps0: Fraction) -> combine.Model:
    """A candidate's program for a suite name: the built-in example with the candidate's
    arguments (threshold T, cutoff N) and the noise ε₀ of the test, over its own inputs."""
    built: dict[tuple[Any, ...], Program[Any]] = {}

    def model(candidate: Candidate) -> tuple[Program[Any], Hashable, Hashable]:
        left, right = candidate.left.value, candidate.right.value
        n, m = _extent([left, right])
        args = dict(candidate.left.args)
        key = (n, m, tuple(sorted(args.items())))
        if key not in built:
            mechanism = _certified_example(name, eps0, args, n, m).mechanism
            assert isinstance(mechanism, Program)
            built[key] = mechanism
        return built[key], tuple(left), tuple(right)

    return model


def has_model(target: Target) -> bool:
    """Whether a sampled target is a suite name with a built-in continuous model."""
    from faier.examples.registry import find_example

    return isinstance(target, str) and target in SUITE and find_example(target) is not None


def certify(
    target: Target,
    *,
    epsilon: str | float | Epsilon | None = None,
    claimed: str | float | Epsilon | None = None,
    lengths: int | Sequence[int] | str | None = None,
    pairs: Sequence[Any] = (),
    inputs: Sequence[Any] | None = None,
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> CertifyReport:
    """Test, then compute every candidate's two probabilities: real or spurious.

    Discrete models get exact rationals (the exact engine); programs with
    continuous noise and the continuous suite's names get certified
    enclosures (closed forms in arb balls) from the certified engine's
    symbolic execution, the suite's noise set by the claim (or
    ``mechanism_epsilon``), which must then be rational.
    """
    claimed = given_once("epsilon", {"epsilon": epsilon, "claimed": claimed})
    pairs = _pairs_of(pairs, inputs)
    chosen = Options.parse(options, **fields)
    sampled = as_sampled(target, chosen.name)
    if sampled is not None and not has_model(target):
        raise MechanismError(
            f"{sampled.name} has no model, so its probabilities cannot be computed",
            fix="certify needs a faier mechanism (built-in example, @faier.program, a name of "
            "the continuous suite); use 'faier test' or 'faier bound' for sampled mechanisms",
        )
    claim = _claim(claimed, None)
    model: combine.Model | None = None
    if sampled is not None:
        eps0 = _noise_epsilon(claim, chosen)
        if eps0 is None:
            raise SpecError(
                f"the noise ε₀ of {target} is not a positive rational, so its densities have "
                "no closed form here",
                where="--mechanism-epsilon" if chosen.mechanism_epsilon else "--claimed",
                fix="give it as a decimal or fraction (e.g. 0.7), or --mechanism-epsilon 0.7",
            )
        model = suite_model(str(target), eps0)
    config = _config(claim, chosen)
    started = time.perf_counter()
    with hard_deadline(chosen.timeout):
        subject, problem = _subject(target, claim, chosen, lengths, pairs, resolved=(sampled,))
        report = _tester().test(subject, config, progress)
    assert problem is not None or model is not None
    return combine.certify(problem, report, claim, model, _left(chosen, started))


def _left(options: Options, started: float) -> float | None:
    """What is left of ``--timeout`` after the test (at least a second for the checks)."""
    if options.timeout is None:
        return None
    return max(1.0, options.timeout - (time.perf_counter() - started))


def bound(
    target: Target,
    *,
    epsilon: str | float | Epsilon | None = None,
    claimed: str | float | Epsilon | None = None,
    lengths: int | Sequence[int] | str | None = None,
    pairs: Sequence[Any] = (),
    inputs: Sequence[Any] | None = None,
    bisection: bool = False,
    precision: float = 1e-3,
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> BoundReport:
    """The tester's interval, then ε* from the deciding engine, or the statistical lower bound.

    Discrete models: the exact ε*; programs with continuous noise and the
    continuous suite's names: the certified engine's ε* interval over the
    grid {0..m}ⁿ of the tested inputs (n the length of the inputs behind the
    tester's loss interval, m their largest answer), with the candidate's
    arguments and the test's noise.  ``bisection`` also bisects the tester's
    interval with that engine's verdicts, to ``precision`` (a width in ε).
    """
    if not precision > 0:
        raise SpecError(
            f"the precision must be positive, got {precision:g}",
            where="--precision",
            fix="e.g. 0.001",
        )
    claimed = given_once("epsilon", {"epsilon": epsilon, "claimed": claimed})
    pairs = _pairs_of(pairs, inputs)
    chosen = Options.parse(options, **fields)
    sampled = as_sampled(target, chosen.name)
    stated = sampled is not None and sampled.stated_epsilon is not None
    claim = None if claimed is None and not stated else _claim(claimed, sampled)
    config = _config(claim, chosen)
    started = time.perf_counter()
    with hard_deadline(chosen.timeout):
        subject, problem = _subject(target, claim, chosen, lengths, pairs, resolved=(sampled,))
        report = _tester().test(subject, config, progress)
    notes: tuple[str, ...] = ()
    if problem is None and claim is not None and has_model(target):
        problem, notes = _suite_problem(str(target), claim, chosen, report)
    if problem is not None and isinstance(problem.mechanism, Interactive):
        longest = max(len(s.value) for s in subject.sides)
        problem = problem.with_horizon(problem.horizon or longest)
    left = _left(chosen, started)
    return combine.bound(
        problem,
        report,
        bisection=bisection,
        precision=precision,
        options=chosen if left is None else dataclasses.replace(chosen, timeout=left),
        notes=notes,
    )


def _suite_problem(
    name: str, claim: Epsilon, options: Options, report: StatReport
) -> tuple[Problem | None, tuple[str, ...]]:
    """The continuous suite's built-in example for the tested inputs (see :func:`bound`)."""
    eps0 = _noise_epsilon(claim, options)
    if eps0 is None:
        return None, (f"the noise ε₀ {claim.text} is not rational: no certified ε* for {name}",)
    chosen = report.interval.candidate if report.interval is not None else None
    if chosen is None and report.points:
        chosen = report.points[0].candidate
    if chosen is None:
        return None, ()
    tested = [p.candidate for p in report.points] + [chosen]
    n, m = _extent([chosen.left.value, chosen.right.value])
    if n > MAX_CERTIFIED_LENGTH:
        return None, (
            f"the tester's candidate has {n} queries; the certified ε* of {name} is computed "
            f"up to {MAX_CERTIFIED_LENGTH} here (--lengths {MAX_CERTIFIED_LENGTH}, or "
            f"'faier epsilon {name} --set n={n}')",
        )
    _, m = _extent([s.value for c in tested for s in (c.left, c.right) if len(s.value) == n])
    problem = _certified_example(name, eps0, dict(chosen.left.args), n, m, options.neighbours)
    args = ", ".join(f"{k}={v}" for k, v in chosen.left.args)
    return problem, (
        f"ε* by the certified engine for {name} over {{0..{m}}}^{n} at ε₀ = {eps0}"
        + (f" with {args}" if args else "")
        + " (the inputs and arguments of the tester's candidate)",
    )


__all__ = [
    "SUITE_NAMES",
    "Target",
    "as_lengths",
    "as_pair",
    "as_sampled",
    "as_target",
    "as_vector",
    "bound",
    "certify",
    "load_subject",
    "parse_lengths",
    "parse_pair",
    "problem_of",
    "statistical_test",
    "suite_model",
]
