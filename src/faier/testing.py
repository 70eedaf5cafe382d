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
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from faier import api
from faier.core.problem import Problem
from faier.engines.statistical import combine, subjects, tester
from faier.engines.statistical.combine import BoundReport, CertifyReport
from faier.engines.statistical.config import Config, parse_epsilons
from faier.engines.statistical.reports import StatReport
from faier.engines.statistical.subjects import Subject, Vector
from faier.engines.statistical.tester import Progress
from faier.errors import MechanismError, SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.loader import MECHANISM_TYPES, find_definitions, load_module, pick
from faier.mechanisms.sampled import Sampled
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import parse_neighbours

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
        found = _sampled_in_file(Path(target), name)
    return found


def load_subject(
    target: str,
    *,
    claimed: Epsilon | None,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
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
        relation = parse_neighbours(neighbours) if neighbours else None
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


def _config(
    claimed: Epsilon | None,
    epsilons: str | Sequence[float],
    samples: int,
    selection_samples: int,
    seed: int | None,
    workers: int | None,
    alpha: float,
    thinnings: int,
) -> Config:
    grid = parse_epsilons(epsilons) if isinstance(epsilons, str) else tuple(epsilons)
    return Config(
        claimed=None if claimed is None else claimed.value,
        epsilons=grid,
        samples=samples,
        selection_samples=selection_samples,
        thinnings=thinnings,
        alpha=alpha,
        seed=seed,
        workers=workers if workers is not None else (os.cpu_count() or 1),
        claim="" if claimed is None else claimed.text,
    )


def statistical_test(
    target: str,
    *,
    claimed: str | float | Epsilon,
    epsilons: str | Sequence[float] = "0:2.2:0.1",
    samples: int = 500_000,
    selection_samples: int = 100_000,
    seed: int | None = None,
    workers: int | None = None,
    alpha: float = 0.05,
    thinnings: int = 200,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    all_pairs: bool = False,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    name: str | None = None,
    per_sample: bool = False,
    progress: Progress | None = None,
) -> StatReport:
    """p-values over a grid of ε (evidence of violations, never a proof of privacy)."""
    claim = _claim(claimed)
    config = _config(claim, epsilons, samples, selection_samples, seed, workers, alpha, thinnings)
    subject, _ = load_subject(
        target,
        claimed=claim,
        settings=settings,
        neighbours=neighbours,
        lengths=lengths,
        pairs=pairs,
        all_pairs=all_pairs,
        name=name,
        per_sample=per_sample,
    )
    return tester.run(subject, config, progress)


def certify(
    target: str,
    *,
    claimed: str | float | Epsilon,
    epsilons: str | Sequence[float] = "0:2.2:0.1",
    samples: int = 500_000,
    selection_samples: int = 100_000,
    seed: int | None = None,
    workers: int | None = None,
    alpha: float = 0.05,
    thinnings: int = 200,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    all_pairs: bool = False,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    name: str | None = None,
    progress: Progress | None = None,
) -> CertifyReport:
    """Test, then compute every candidate's two probabilities exactly: real or spurious."""
    claim = _claim(claimed)
    config = _config(claim, epsilons, samples, selection_samples, seed, workers, alpha, thinnings)
    sampled = _sampled_target(target, name)
    if sampled is not None:
        raise MechanismError(
            f"{target} has no discrete model, so its probabilities cannot be computed exactly",
            fix="certify needs a faier mechanism (built-in example or @faier.program); "
            "use 'faier test' or 'faier bound' for sampled mechanisms",
        )
    subject, problem = load_subject(
        target,
        claimed=claim,
        settings=settings,
        neighbours=neighbours,
        lengths=lengths,
        pairs=pairs,
        all_pairs=all_pairs,
        name=name,
        resolved=(None,),
    )
    assert problem is not None
    return combine.certify(problem, tester.run(subject, config, progress), claim)


def bound(
    target: str,
    *,
    claimed: str | float | Epsilon | None = None,
    epsilons: str | Sequence[float] = "0:2.2:0.1",
    samples: int = 500_000,
    selection_samples: int = 100_000,
    seed: int | None = None,
    workers: int | None = None,
    alpha: float = 0.05,
    thinnings: int = 200,
    lengths: Sequence[int] | None = None,
    pairs: Sequence[tuple[Vector, Vector]] = (),
    all_pairs: bool = False,
    settings: Mapping[str, str] | None = None,
    neighbours: str | None = None,
    name: str | None = None,
    bisection: bool = False,
    precision: float = 1e-3,
    progress: Progress | None = None,
) -> BoundReport:
    """The tester's interval, then exact ε* (discrete models) or the statistical lower bound."""
    if not precision > 0:
        raise SpecError(
            f"the precision must be positive, got {precision:g}",
            where="--precision",
            fix="e.g. 0.001",
        )
    claim = None if claimed is None else _claim(claimed)
    config = _config(claim, epsilons, samples, selection_samples, seed, workers, alpha, thinnings)
    subject, problem = load_subject(
        target,
        claimed=claim,
        settings=settings,
        neighbours=neighbours,
        lengths=lengths,
        pairs=pairs,
        all_pairs=all_pairs,
        name=name,
    )
    if problem is not None and isinstance(problem.mechanism, Interactive):
        longest = max(len(s.value) for s in subject.sides)
        problem = problem.with_horizon(problem.horizon or longest)
    report = tester.run(subject, config, progress)
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
