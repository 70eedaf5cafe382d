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

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from faier import api
from faier.core import engine as registry
from faier.core.budget import hard_deadline
from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.statistical import combine, subjects
from faier.engines.statistical.combine import BoundReport, CertifyReport
from faier.engines.statistical.config import Config, parse_epsilons
from faier.engines.statistical.entry import StatisticalEngine
from faier.engines.statistical.reports import StatReport
from faier.engines.statistical.subjects import Subject, Vector
from faier.engines.statistical.tester import Progress
from faier.errors import MechanismError, SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.loader import MECHANISM_TYPES, find_definitions, load_module, pick
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
    module = load_module(path)
    sampled = find_definitions(module, (Sampled,))
    if not sampled:
        return None
    others = find_definitions(module, (*MECHANISM_TYPES, Problem))
    if name is None and others:
        everything = {**sampled, **others}
        pick(everything, path, None, "mechanism")
    if name is not None and name not in sampled:
        return None
    found = pick(sampled, path, name, "mechanism")
    assert isinstance(found, Sampled)
    return found


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


def load_subject(
    target: str,
    *,
    claimed: Epsilon | None,
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

    ``resolved`` carries an earlier :func:`_sampled_target` answer, so that a
    mechanism file is not executed twice to find out what it defines.
    """
    mechanism = resolved[0] if resolved is not None else _sampled_target(target, name)
    if mechanism is not None:
        if settings:
            raise SpecError(
                f"{target} takes no --set parameters",
                where="--set",
                fix="the claimed ε₀ sets its noise (--claimed); --set is for built-in examples",
            )
        if claimed is None:
            raise SpecError(
                f"{target} sets its noise from the claimed ε₀",
                where="--claimed",
                fix="e.g. --claimed 0.7",
            )
        if all_pairs:
            raise SpecError(
                f"{target} runs on query vectors of any length; there is no 'every pair'",
                where="--all-pairs",
                fix="leave it out, or give pairs with --pair D1;D2",
            )
        relation = parse_neighbours(neighbours) if isinstance(neighbours, str) else neighbours
        subject = subjects.from_sampled(
            mechanism,
            claimed.value,
            lengths=lengths,
            pairs=pairs,
            neighbours=relation,
            per_sample=per_sample,
        )
        return subject, None
    problem = api.load_problem(target, settings=settings, neighbours=neighbours, name=name)
    subject = subjects.from_problem(
        problem, lengths=lengths, pairs=pairs, all_pairs=all_pairs, per_sample=per_sample
    )
    return subject, problem


def _claim(claimed: str | float | Epsilon) -> Epsilon:
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
    )


def _subject(
    target: str,
    claim: Epsilon | None,
    options: Options,
    lengths: Sequence[int] | str | None,
    pairs: Sequence[tuple[Vector, Vector] | str],
    resolved: tuple[Sampled | None] | None = None,
) -> tuple[Subject, Problem | None]:
    return load_subject(
        target,
        claimed=claim,
        settings=options.settings,
        neighbours=options.neighbours,
        lengths=parse_lengths(lengths) if isinstance(lengths, str) else lengths,
        pairs=[parse_pair(p) if isinstance(p, str) else p for p in pairs],
        all_pairs=options.all_pairs,
        name=options.name,
        per_sample=options.per_sample,
        resolved=resolved,
    )


def _tester() -> StatisticalEngine:
    engine = registry.get("statistical")
    assert isinstance(engine, StatisticalEngine)
    return engine


def statistical_test(
    target: str,
    *,
    claimed: str | float | Epsilon,
    lengths: Sequence[int] | str | None = None,
    pairs: Sequence[tuple[Vector, Vector] | str] = (),
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> StatReport:
    """p-values over a grid of ε (evidence of violations, never a proof of privacy).

    Options (:class:`~faier.core.options.Options` or their names as keywords):
    ``timeout`` (the run ends with what finished; a mechanism that never
    returns is interrupted), ``epsilons``, ``samples``, ``selection_samples``,
    ``seed``, ``workers``, ``alpha``, ``thinnings``, ``all_pairs``,
    ``settings``, ``neighbours``, ``name``, ``per_sample``.
    """
    chosen = Options.parse(options, **fields)
    claim = _claim(claimed)
    config = _config(claim, chosen)
    with hard_deadline(chosen.timeout):
        subject, _ = _subject(target, claim, chosen, lengths, pairs)
        return _tester().test(subject, config, progress)


def certify(
    target: str,
    *,
    claimed: str | float | Epsilon,
    lengths: Sequence[int] | str | None = None,
    pairs: Sequence[tuple[Vector, Vector] | str] = (),
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> CertifyReport:
    """Test, then compute every candidate's two probabilities exactly: real or spurious."""
    chosen = Options.parse(options, **fields)
    claim = _claim(claimed)
    config = _config(claim, chosen)
    sampled = _sampled_target(target, chosen.name)
    if sampled is not None:
        raise MechanismError(
            f"{target} has no discrete model, so its probabilities cannot be computed exactly",
            fix="certify needs a faier mechanism (built-in example or @faier.program); "
            "use 'faier test' or 'faier bound' for sampled mechanisms",
        )
    with hard_deadline(chosen.timeout):
        subject, problem = _subject(target, claim, chosen, lengths, pairs, resolved=(None,))
        report = _tester().test(subject, config, progress)
    assert problem is not None
    return combine.certify(problem, report, claim)


def bound(
    target: str,
    *,
    claimed: str | float | Epsilon | None = None,
    lengths: Sequence[int] | str | None = None,
    pairs: Sequence[tuple[Vector, Vector] | str] = (),
    bisection: bool = False,
    precision: float = 1e-3,
    options: Options | None = None,
    progress: Progress | None = None,
    **fields: Any,
) -> BoundReport:
    """The tester's interval, then exact ε* (discrete models) or the statistical lower bound.

    ``bisection`` also bisects the tester's interval with exact verdicts, to
    ``precision`` (a width in ε).
    """
    if not precision > 0:
        raise SpecError(
            f"the precision must be positive, got {precision:g}",
            where="--precision",
            fix="e.g. 0.001",
        )
    chosen = Options.parse(options, **fields)
    claim = None if claimed is None else _claim(claimed)
    config = _config(claim, chosen)
    with hard_deadline(chosen.timeout):
        subject, problem = _subject(target, claim, chosen, lengths, pairs)
        report = _tester().test(subject, config, progress)
    if problem is not None and isinstance(problem.mechanism, Interactive):
        longest = max(len(s.value) for s in subject.sides)
        problem = problem.with_horizon(problem.horizon or longest)
    return combine.bound(problem, report, bisection=bisection, precision=precision)


__all__ = [
    "SUITE_NAMES",
    "bound",
    "certify",
    "load_subject",
    "parse_lengths",
    "parse_pair",
    "statistical_test",
]
