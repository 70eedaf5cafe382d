"""The exact sequence search split over a Dask cluster by prefix, with incumbents shared.

The prefixes of length 1 (a comparison and a first step) are computed here
exactly; each becomes the start of an independent sub-search of the
remaining horizon (the exact engine's own ``merged_search``, float frontier
and all), whose loss at depth j is the whole transcript's loss at depth
j + 1 because the start vectors keep the prefix's mass.  The sub-searches
run as Dask tasks, a few prefixes each.

Pruning still bites across machines: every sub-search publishes the best
loss per length it has found to a Dask ``Variable`` after each level and
reads the others' back into its own records before the next one (marked as
foreign, comparison -1).  That is sound because each shared value is the
exact loss of a real transcript that its own sub-search keeps: a prefix
pruned or left unrecorded against it cannot beat a record that the merge
below sees.  A lost update between two workers only weakens a bound.

The merge takes, per length, the best record of any sub-search (foreign ones
dropped), in prefix order so that it does not depend on which worker was
first; ε*(k) for every k is the single-machine search's.  Among transcripts
of equal loss the witness may be another one of the same loss.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.cluster.address import ClusterAddress
from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound
from faier.engines.exact.pruning import SearchCounts
from faier.engines.exact.sequence_mode import (
    DepthRecord,
    Rows,
    SearchState,
    SequenceComparison,
    SequenceSystem,
    SparseVector,
)
from faier.errors import BudgetExceeded
from faier.results import Loss, loss_of

UNITS_PER_WORKER = 4
"""Prefixes are dealt into this many tasks per worker: balance against per-task overhead."""

FOREIGN = -1
"""``comparison`` of a record read from another sub-search (dropped when merging)."""

Shared = list[str | None]
"""Best loss per transcript length over all sub-searches: an exact ratio, ``inf`` or None."""


@dataclass(frozen=True)
class Piece:
    """A task: prefixes (comparison index, first symbol) and their start vectors."""

    index: int
    prefixes: tuple[tuple[int, int], ...]
    starts: tuple[SequenceComparison, ...]


@dataclass(frozen=True)
class Setting:
    """What every task shares: the system, the rest of the horizon and the limits."""

    system: SequenceSystem
    horizon: int
    arithmetic: str
    seconds: float | None
    max_states: int | None
    variable: str


@dataclass(frozen=True)
class Outcome:
    """A task's records per transcript length (in the whole search's terms) and counts."""

    records: tuple[DepthRecord | None, ...]
    counts: SearchCounts
    reason: str | None


def _step(vector: SparseVector, rows: Rows) -> SparseVector:
    out: SparseVector = {}
    for s, x in vector.items():
        for t, w in rows[s]:
            out[t] = out.get(t, Fraction(0)) + x * w
    return out


def _show(loss: Loss | None) -> str | None:
    if loss is None:
        return None
    return "inf" if loss.ratio is None else str(loss.ratio)


def _read(text: str | None) -> Loss | None:
    if text is None:
        return None
    return Loss(None) if text == "inf" else Loss(Fraction(text))


def _better(new: Loss | None, old: Loss | None) -> bool:
    return new is not None and (old is None or new.exceeds(old))


class _Sharing:
    """The progress hook of a sub-search: publish its bests, take the others' in."""

    def __init__(self, state: SearchState, variable: Any) -> None:
        self.state, self.variable = state, variable

    def __call__(self, counts: SearchCounts) -> None:
        try:
            shared: Shared = list(self.variable.get(timeout=5))
        except Exception:
            return  # the scheduler is busy or gone: go on with what this search knows
        changed = False
        for j, record in enumerate(self.state.best[1:], start=1):
            if record is None or record.comparison == FOREIGN:
                continue
            if _better(record.loss, _read(shared[j + 1])):
                shared[j + 1], changed = _show(record.loss), True
        if changed:
            try:
                self.variable.set(shared)
            except Exception:
                return
        for j in range(1, self.state.horizon + 1):
            loss = _read(shared[j + 1])
            current = self.state.best[j]
            if loss is not None and _better(loss, None if current is None else current.loss):
                zero = Fraction(0)
                self.state.best[j] = DepthRecord(loss, zero, zero, FOREIGN, ())


def _variable(name: str, client: Any = None) -> Any:
    """The Dask ``Variable`` holding the shared incumbents (the worker's client by default)."""
    from distributed import Variable

    return Variable(name, client=client)  # type: ignore[no-untyped-call]


def _run_piece(setting: Setting, piece: Piece) -> Outcome:
    """One task on a worker: the engine's merged search from the piece's prefixes."""
    state = SearchState(setting.horizon, [None] * (setting.horizon + 1))
    counts = SearchCounts()
    budget = Budget(setting.seconds, setting.max_states)
    sharing = _Sharing(state, _variable(setting.variable))
    sharing(counts)
    reason = None
    try:
        branch_and_bound.merged_search(
            setting.system,
            piece.starts,
            setting.horizon,
            budget,
            state,
            counts=counts,
            progress=sharing,
            arithmetic=setting.arithmetic,
        )
    except BudgetExceeded as stop:
        reason = stop.reason
    records: list[DepthRecord | None] = [None, None]
    for record in state.best[1:]:
        if record is None or record.comparison == FOREIGN:
            records.append(None)
            continue
        c, first = piece.prefixes[record.comparison]
        records.append(DepthRecord(record.loss, record.p, record.q, c, (first, *record.path)))
    return Outcome(tuple(records), counts, reason)


def _prefixes(
    system: SequenceSystem,
    comparisons: Sequence[SequenceComparison],
    horizon: int,
    state: SearchState,
    counts: SearchCounts,
) -> list[tuple[int, int, SequenceComparison]]:
    """Length-1 transcripts: recorded exactly here; those that go on become sub-search starts."""
    found = []
    halted = system.halted
    for c, comparison in enumerate(comparisons):
        for s in range(len(system.symbols)):
            a1, b1 = _step(comparison.a0, system.left[s]), _step(comparison.b0, system.right[s])
            pa, pb = sum(a1.values(), Fraction(0)), sum(b1.values(), Fraction(0))
            counts.explored += 1
            if pa == 0:
                continue
            record = state.best[1]
            loss = loss_of(pa, pb)
            if record is None or loss.exceeds(record.loss):
                state.best[1] = DepthRecord(loss, pa, pb, c, (s,))
            if pb == 0:
                continue
            support = {k for k, v in a1.items() if v} | {k for k, v in b1.items() if v}
            if halted is not None and support <= {halted}:
                continue
            if horizon == 1:
                counts.cut = True
                continue
            found.append((c, s, SequenceComparison(a1, b1, comparison.comparison)))
    return found


def _deal(found: list[tuple[int, int, SequenceComparison]], parts: int) -> list[Piece]:
    """Round-robin into ``parts`` pieces, so each holds prefixes of every comparison."""
    pieces = []
    for i in range(min(parts, len(found))):
        mine = found[i::parts]
        pieces.append(Piece(i, tuple((c, s) for c, s, _ in mine), tuple(x for _, _, x in mine)))
    return pieces


class ClusterSearch:
    """A drop-in for ``branch_and_bound.merged_search`` that runs on the cluster.

    ``note`` says afterwards how the search was split (for the method text).
    """

    def __init__(self, address: ClusterAddress, parts: int | None = None) -> None:
        self.address, self.parts = address, parts
        self.note = ""

    def __call__(
        self,
        system: SequenceSystem,
        comparisons: Sequence[SequenceComparison],
        horizon: int,
        budget: Budget,
        state: SearchState,
        *,
        counts: SearchCounts | None = None,
        progress: Callable[[SearchCounts], None] | None = None,
        arithmetic: str = "exact",
    ) -> SearchCounts:
        from faier.cluster.executor import UnitMap
        from faier.cluster.session import open_client, worker_count

        counts = counts or SearchCounts()
        counts.horizon, counts.phase = horizon, "length"
        found = _prefixes(system, comparisons, horizon, state, counts)
        if not found:
            return counts
        with open_client(self.address) as client:
            workers = worker_count(client)
            pieces = _deal(found, self.parts or UNITS_PER_WORKER * workers)
            name = f"faier-incumbents-{os.urandom(8).hex()}"
            variable = _variable(name, client)
            variable.set(
                [None, _show(state.best[1].loss if state.best[1] else None)]
                + [None] * (horizon - 1)
            )
            left = None if budget.timeout is None else max(0.0, budget.timeout - budget.elapsed())
            setting = Setting(system, horizon - 1, arithmetic, left, budget.max_states, name)
            counts.phase, counts.depth, counts.horizon = "sub-searches", 0, len(pieces)
            if progress is not None:
                progress(counts)

            def finished(piece: Piece) -> None:
                counts.depth += 1
                if progress is not None:
                    progress(counts)

            runner: UnitMap[Piece, Outcome] = UnitMap(
                client, _run_piece, setting, "the sequence system"
            )
            started = time.perf_counter()
            try:
                outcomes = runner.run(pieces, finished)
            finally:
                runner.close()
                variable.delete()
        counts.phase, counts.horizon, counts.depth = "length", horizon, horizon
        reasons = []
        for outcome in outcomes:  # prefix order: the merge does not depend on who finished first
            for k, record in enumerate(outcome.records):
                if record is not None and k <= horizon:
                    current = state.best[k]
                    if current is None or record.loss.exceeds(current.loss):
                        state.best[k] = record
            sub = outcome.counts
            counts.explored += sub.explored
            counts.pruned += sub.pruned
            counts.merged += sub.merged
            counts.pattern_runs += sub.pattern_runs
            counts.rechecked += sub.rechecked
            counts.ball_steps += sub.ball_steps
            counts.cut |= sub.cut
            if sub.fell_back and not counts.fell_back:
                counts.fell_back = sub.fell_back
            if outcome.reason:
                reasons.append(outcome.reason)
        counts.frontier = 0
        self.note = (
            f"; split on the cluster {self.address.show()}: {len(found)} prefixes of length 1 "
            f"in {len(pieces)} sub-searches over {workers} workers, incumbents shared, "
            f"{time.perf_counter() - started:.2f} s"
        )
        if reasons:
            raise BudgetExceeded(f"{reasons[0]} (in {len(reasons)} of {len(pieces)} sub-searches)")
        return counts
