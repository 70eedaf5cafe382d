"""The counterexample detector (StatDP Algorithm 1) over a grid of ε.

1. Selection samples: ``selection_samples`` runs of every side.  Output
   types are inferred from all of them, the event space is built, and every
   event is counted on every side once.
2. For each ε, the selector picks an ordered pair and an event from those
   counts (cheap: counts do not depend on ε; they are kept per half of the
   samples, so that a pick must hold up on both halves).  One more pick, the event with
   the largest confidence lower bound on its loss, feeds the loss interval.
3. Test samples: ``samples`` fresh runs of each side a pick needs, drawn
   the first time an ε needs it and shared by later ε (each p-value is valid
   on its own; points of the curve are not independent).  Only the counts of
   the picked events come back from the workers.
4. Per ε the fixed-direction thinned Fisher test gives the p-value; the
   reverse direction is reported beside it for information.

Ctrl-C ends the run with the ε points finished so far.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from faier.engines.statistical import parallel
from faier.engines.statistical.config import Config
from faier.engines.statistical.events import Event, EventSpace, Features, Reference, infer_space
from faier.engines.statistical.parallel import Runner, Unit, units
from faier.engines.statistical.reports import (
    Candidate,
    EpsilonPoint,
    LossInterval,
    RunSettings,
    StatReport,
)
from faier.engines.statistical.selector import Counts, Selection, select, select_loss
from faier.engines.statistical.significance import loss_interval, thinned_pvalue
from faier.engines.statistical.subjects import Pair, Subject
from faier.errors import BudgetExceeded
from faier.mechanisms.sampled import Outputs, concat

TEST_STREAM = 2
"""Spawn-key prefix of the thinning generators (phases 0 and 1 draw samples)."""

Needed = dict[int, dict[Event, None]]
"""Per side, the events some pick counts on it (an ordered set)."""


class Progress(Protocol):
    """Where a run reports how far it is (a progress bar, or nothing)."""

    def stage(self, description: str, total: int) -> None: ...

    def advance(self) -> None: ...

    def point(self, point: EpsilonPoint) -> None: ...


class Silent:
    """Reports nothing."""

    def stage(self, description: str, total: int) -> None:
        return None

    def advance(self) -> None:
        return None

    def point(self, point: EpsilonPoint) -> None:
        return None


@dataclass
class _Run:
    """State of one run, kept so that an interruption can report what is finished."""

    points: list[EpsilonPoint]
    interval: LossInterval | None = None
    space: EventSpace | None = None
    stage: str = "sampling for event selection"


def _thinning_rng(entropy: int, stream: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(stream, index)))


def _mode_reference(outputs: Outputs) -> Reference:
    """The most frequent output, standing in for a noise-free run nobody can do."""
    keys = np.concatenate([outputs.codes, np.nan_to_num(outputs.numbers, nan=-1e300)], axis=1)
    _, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    value = outputs.value(int(first[int(np.argmax(counts))]))
    return Reference(value if isinstance(value, tuple) else (value,))


def _references(subject: Subject, samples: Sequence[Outputs]) -> list[Reference]:
    found = []
    for reference, outputs in zip(subject.references, samples, strict=True):
        if reference is not None:
            found.append(reference)
        elif outputs.is_list and outputs.categories:
            found.append(_mode_reference(outputs))
    return found


def _candidate(subject: Subject, space: EventSpace, selection: Selection) -> Candidate:
    pair = subject.pairs[selection.pair]
    return Candidate(
        subject.sides[pair.left],
        subject.sides[pair.right],
        pair.pattern,
        space.event(selection.event),
    )


def run(subject: Subject, config: Config, progress: Progress | None = None) -> StatReport:
    """Test ``subject`` at every ε of the configuration."""
    report = progress or Silent()
    wall, cpu = time.perf_counter(), _cpu()
    entropy = config.seed if config.seed is not None else _fresh_entropy()
    state = _Run([])
    interrupted = None
    timed_out = False
    workers = 1
    try:
        with parallel.open_pool(subject, entropy, config.workers, config.cluster) as pool:
            workers = pool.workers
            _detect(subject, config, entropy, pool, report, state)
    except KeyboardInterrupt:
        interrupted = f"interrupted while {state.stage}"
    except BudgetExceeded as stop:
        interrupted, timed_out = f"{stop.reason} while {state.stage}", True
    return StatReport(
        target=subject.name,
        title=subject.title,
        privacy=subject.privacy,
        claimed=config.claimed,
        epsilons=config.epsilons,
        points=tuple(state.points),
        interval=state.interval,
        settings=RunSettings(
            config.samples,
            config.selection_samples,
            config.thinnings,
            config.alpha,
            entropy,
            workers,
            config.cluster.show() if config.cluster is not None else None,
        ),
        space=state.space.description if state.space else "not inferred (interrupted)",
        events=state.space.size if state.space else 0,
        pairs=len(subject.pairs),
        sampling=subject.sampling,
        arguments=subject.arguments,
        seconds=time.perf_counter() - wall,
        cpu_seconds=_cpu() - cpu,
        interrupted=interrupted,
        timed_out=timed_out,
        notes=subject.notes,
        claim=config.claim,
    )


def _fresh_entropy() -> int:
    """A random seed, reported so that the run can be repeated with --seed."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)
    return entropy


def _cpu() -> float:
    """CPU seconds of this process and of its finished worker processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _selection(
    subject: Subject, config: Config, pool: Runner, report: Progress, state: _Run
) -> tuple[EventSpace, Counts]:
    """Selection samples of every side: the event space and every event's counts per half."""
    sides = range(len(subject.sides))
    batch = [u for s in sides for u in units(parallel.SELECTION, s, config.selection_samples)]
    report.stage("selecting events", len(batch))
    per_side = _join(batch, pool.run(batch, lambda _: report.advance()), len(subject.sides))
    state.stage = "counting events"
    computed = [Features(o) for o in per_side]
    space = infer_space(computed, _references(subject, per_side))
    state.space = space
    half = config.selection_samples // 2
    counts = Counts(
        np.stack([space.count(f.part(slice(0, half))) for f in computed]),
        np.stack([space.count(f.part(slice(half, None))) for f in computed]),
        (half, config.selection_samples - half),
    )
    return space, counts


class _TestCounts:
    """Test samples of a side, drawn the first time a pick needs it, for all its picked events."""

    def __init__(
        self, subject: Subject, config: Config, pool: Runner, report: Progress, needed: Needed
    ) -> None:
        self.subject, self.config, self.pool, self.report = subject, config, pool, report
        self.needed = needed
        self.found: dict[tuple[int, Event], int] = {}

    def of(self, candidate: Candidate, pair: Pair) -> tuple[int, int]:
        """How many test runs of D1 and of D2 fall in the candidate's event."""
        for side in (pair.left, pair.right):
            if (side, candidate.event) not in self.found:
                events = tuple(self.needed[side])
                work = units(parallel.TEST, side, self.config.samples, events)
                done = self.pool.run(work, lambda _: self.report.advance())
                totals = np.sum([_counts(r) for r in done], axis=0)
                self.found.update({(side, e): int(c) for e, c in zip(events, totals, strict=True)})
        return self.found[(pair.left, candidate.event)], self.found[(pair.right, candidate.event)]


def _detect(
    subject: Subject, config: Config, entropy: int, pool: Runner, report: Progress, state: _Run
) -> None:
    space, counts = _selection(subject, config, pool, report, state)
    left = np.array([p.left for p in subject.pairs], dtype=np.int64)
    right = np.array([p.right for p in subject.pairs], dtype=np.int64)
    picks = [select(counts, left, right, eps) for eps in config.epsilons]
    widest = select_loss(counts, left, right, 1 - config.alpha)
    needed: Needed = {}
    for pick in (*picks, widest):
        pair = subject.pairs[pick.pair]
        for side in (pair.left, pair.right):
            needed.setdefault(side, {})[space.event(pick.event)] = None
    report.stage("testing", sum(len(units(parallel.TEST, s, config.samples)) for s in needed))
    state.stage = "testing"
    tests = _TestCounts(subject, config, pool, report, needed)
    m = config.samples
    for i, (eps, pick) in enumerate(zip(config.epsilons, picks, strict=True)):
        candidate = _candidate(subject, space, pick)
        c1, c2 = tests.of(candidate, subject.pairs[pick.pair])
        rng = _thinning_rng(entropy, TEST_STREAM, i)
        point = EpsilonPoint(
            eps,
            candidate,
            thinned_pvalue(c1, c2, m, m, eps, config.thinnings, rng),
            thinned_pvalue(c2, c1, m, m, eps, config.thinnings, rng),
            (c1, c2),
            m,
        )
        state.points.append(point)
        report.point(point)
    candidate = _candidate(subject, space, widest)
    c1, c2 = tests.of(candidate, subject.pairs[widest.pair])
    confidence = 1 - config.alpha
    low, high = loss_interval(c1, c2, m, m, confidence)
    state.interval = LossInterval(candidate, (c1, c2), m, low, high, confidence)


def _counts(result: object) -> npt.NDArray[np.int64]:
    assert isinstance(result, np.ndarray)
    return result


def _join(batch: Sequence[Unit], drawn: Sequence[object], sides: int) -> list[Outputs]:
    parts: list[list[Outputs]] = [[] for _ in range(sides)]
    for unit, outputs in zip(batch, drawn, strict=True):
        assert isinstance(outputs, Outputs)
        parts[unit.side].append(outputs)
    return [concat(p) for p in parts]
