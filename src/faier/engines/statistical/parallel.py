"""Sampling work split into units: one seed stream per unit, any number of worker processes.

A unit is (phase, side, chunk): draw ``size`` outputs of one side.  Its
random generator comes from ``SeedSequence(entropy, spawn_key=(phase, side,
chunk))``, the child that ``SeedSequence.spawn`` would give, so every unit
has its own independent stream and the results are the same whatever the
number of workers or the order they finish in (DP-Sniper pickles one
generator into every worker, which then repeat the same random bits).

Workers are forked processes that inherit the mechanism (no pickling of
user code); they ignore Ctrl-C, which the parent handles by cancelling what
has not started.  Without ``fork`` (or with one worker) units run in-process.
With ``--cluster`` the same units are Dask futures (:class:`ClusterPool`), so
a seed gives the same p-values on the pool, on a LocalCluster and on a
remote cluster.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from faier.engines.statistical.events import Event, Features
from faier.engines.statistical.subjects import Subject, guarded_draw
from faier.mechanisms.sampled import Outputs

if TYPE_CHECKING:
    from faier.cluster.address import ClusterAddress

CHUNK = 100_000
"""Samples per unit; fixed, so results do not depend on the number of workers."""

SELECTION, TEST = 0, 1


@dataclass(frozen=True)
class Unit:
    """Draw ``size`` outputs of one side; with events, return only how many fall in each."""

    phase: int
    side: int
    chunk: int
    size: int
    events: tuple[Event, ...] = ()


Result = Outputs | npt.NDArray[np.int64]


def units(phase: int, side: int, total: int, events: tuple[Event, ...] = ()) -> list[Unit]:
    """``total`` samples of one side in chunks of CHUNK."""
    sizes = [CHUNK] * (total // CHUNK) + ([total % CHUNK] if total % CHUNK else [])
    return [Unit(phase, side, k, size, events) for k, size in enumerate(sizes)]


def run_unit(subject: Subject, entropy: int, unit: Unit) -> Result:
    """One unit, with its own generator."""
    seed = np.random.SeedSequence(entropy, spawn_key=(unit.phase, unit.side, unit.chunk))
    outputs = guarded_draw(subject, unit.side, unit.size, np.random.default_rng(seed))
    if not unit.events:
        return outputs
    features = Features(outputs)
    return np.array([e.count(outputs, features) for e in unit.events], dtype=np.int64)


_worker: tuple[Subject, int] | None = None


def _install(subject: Subject, entropy: int) -> None:
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker = (subject, entropy)


def _in_worker(unit: Unit) -> Result:
    assert _worker is not None
    return run_unit(*_worker, unit)


class Pool:
    """Runs units in-process or in forked workers; use as a context manager."""

    def __init__(self, subject: Subject, entropy: int, workers: int) -> None:
        self.subject = subject
        self.entropy = entropy
        self.executor: ProcessPoolExecutor | None = None
        self.workers = 1
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            self.executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_install,
                initargs=(subject, entropy),
            )
            self.workers = workers

    def run(self, batch: Sequence[Unit], done: Callable[[Unit], None]) -> list[Result]:
        """Results in the order of ``batch``; ``done`` is called as each unit finishes."""
        if self.executor is None:
            results = []
            for unit in batch:
                results.append(run_unit(self.subject, self.entropy, unit))
                done(unit)
            return results
        futures: list[Future[Result]] = [self.executor.submit(_in_worker, u) for u in batch]
        try:
            for unit, future in zip(batch, futures, strict=True):
                future.result()
                done(unit)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return [f.result() for f in futures]

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.executor is not None:
            interrupted = exc[0] is not None
            if interrupted:
                # A worker may be stuck in a mechanism that never returns (the reason
                # a deadline fired): stop the processes instead of waiting for them.
                for process in list(getattr(self.executor, "_processes", {}).values()):
                    process.terminate()
            self.executor.shutdown(wait=not interrupted, cancel_futures=interrupted)


def _on_worker(shared: tuple[Subject, int], unit: Unit) -> Result:
    return run_unit(shared[0], shared[1], unit)


class ClusterPool:
    """The pool's interface over a Dask client: one future per unit, seeded by the unit."""

    def __init__(self, subject: Subject, entropy: int, cluster: ClusterAddress) -> None:
        from faier.cluster.executor import UnitMap
        from faier.cluster.session import open_client, worker_count

        self.cluster = cluster
        self.opened = open_client(cluster)
        client = self.opened.__enter__()
        try:
            self.workers = worker_count(client)
            self.units: UnitMap[Unit, Result] = UnitMap(
                client, _on_worker, (subject, entropy), f"the mechanism {subject.name}"
            )
        except BaseException:
            self.opened.__exit__(None, None, None)
            raise

    def run(self, batch: Sequence[Unit], done: Callable[[Unit], None]) -> list[Result]:
        """Results in the order of ``batch``; ``done`` is called as each unit finishes."""
        return self.units.run(batch, done)

    def __enter__(self) -> ClusterPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.units.close()
        finally:
            self.opened.__exit__(None, None, None)


class Runner(Protocol):
    """What the tester needs of a pool: run a batch of units, report each as it finishes."""

    workers: int

    def run(self, batch: Sequence[Unit], done: Callable[[Unit], None]) -> list[Result]: ...

    def __enter__(self) -> Runner: ...

    def __exit__(self, *exc: Any) -> None: ...


def open_pool(
    subject: Subject, entropy: int, workers: int, cluster: ClusterAddress | None = None
) -> Runner:
    """The local pool, or the cluster's when one is given."""
    if cluster is not None:
        return ClusterPool(subject, entropy, cluster)
    return Pool(subject, entropy, workers)
