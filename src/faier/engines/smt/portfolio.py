"""Solvers in separate processes with timeouts: the first definitive answer wins.

Each solver runs in its own long-lived worker process (forked once, the
solver imported there), so a query costs a pipe round trip rather than a
process start.  A query goes to every worker of the pool; the first sat or
unsat answer decides and names the solver.  A losing worker finishes its
query (bounded by the solver's own timeout) and then skips to the newest
one; a worker that overruns its deadline is killed and replaced.  A timeout
is reported as such, never as an answer.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from types import TracebackType

from faier.engines.smt.smtlib import Query
from faier.engines.smt.solvers import ModelValue, RawAnswer, require, solve, warm_up

GRACE = 2.0
"""Seconds a worker may overrun its solver's own timeout before it is killed."""


def _serve(conn: Connection, solver: str) -> None:
    """Worker loop: warm the solver up, then answer the newest query until told to stop.

    Queries that were overtaken while the worker was busy are skipped: the
    pool has moved on, so only the latest one can still matter.
    """
    warm_up(solver)
    while True:
        try:
            message = conn.recv()
            while message is not None and conn.poll():
                message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        qid, text, logic, timeout = message
        conn.send((qid, solve(solver, text, logic, timeout)))


@dataclass
class _Worker:
    solver: str
    process: multiprocessing.process.BaseProcess | None = None
    conn: Connection | None = None
    busy: int | None = None

    def start(self) -> None:
        context = multiprocessing.get_context("fork")
        parent, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, self.solver), daemon=True)
        self.process.start()
        child.close()
        self.conn = parent
        self.busy = None

    def stop(self, *, kill: bool) -> None:
        if self.process is None or self.conn is None:
            return
        if not kill:
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                kill = True
            else:
                self.process.join(0.5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()
        self.process.close()
        self.process = self.conn = None
        self.busy = None

    def settle(self) -> None:
        """Start the worker if needed and drop answers to queries already decided."""
        if self.conn is None:
            self.start()
            return
        try:
            while self.conn.poll():
                qid, _ = self.conn.recv()
                if qid == self.busy:
                    self.busy = None
        except (EOFError, OSError):
            self.stop(kill=True)
            self.start()


@dataclass(frozen=True)
class Answer:
    """The pool's answer: the deciding solver, or why nobody decided."""

    status: str
    solver: str
    seconds: float
    model: dict[str, ModelValue] = field(default_factory=dict)
    details: tuple[RawAnswer, ...] = ()

    @property
    def definitive(self) -> bool:
        return self.status in ("sat", "unsat")

    def explain(self) -> str:
        """``z3: timeout after 10.0 s; cvc5: unknown (INCOMPLETE)``."""
        parts = []
        for raw in self.details:
            text = f"{raw.solver}: {raw.status} after {raw.seconds:.2f} s"
            if raw.message and raw.status not in ("timeout",):
                text += f" ({raw.message})"
            parts.append(text)
        return "; ".join(parts) or f"{self.status} after {self.seconds:.2f} s"


class SolverPool:
    """Worker processes for the chosen solvers; use as a context manager."""

    def __init__(self, solvers: tuple[str, ...]) -> None:
        require(solvers)
        self.workers = [_Worker(name) for name in solvers]
        self.next_id = 0
        self.calls = 0
        self.decided: dict[str, int] = {}

    @property
    def solvers(self) -> tuple[str, ...]:
        return tuple(w.solver for w in self.workers)

    def __enter__(self) -> SolverPool:
        for worker in self.workers:
            worker.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        for worker in self.workers:
            worker.stop(kill=worker.busy is not None)

    def check(self, query: Query, timeout: float) -> Answer:
        """Ask every solver; return the first sat/unsat, else timeout/unknown with reasons."""
        self.next_id += 1
        self.calls += 1
        qid = self.next_id
        text = query.text()
        started = time.perf_counter()
        pending: dict[Connection, _Worker] = {}
        for worker in self.workers:
            worker.settle()
            assert worker.conn is not None
            worker.conn.send((qid, text, query.logic, timeout))
            worker.busy = qid
            pending[worker.conn] = worker
        deadline = started + timeout + GRACE
        details: list[RawAnswer] = []
        winner: RawAnswer | None = None
        while pending and winner is None:
            remaining = deadline - time.perf_counter()
            ready = wait(list(pending), timeout=max(0.0, remaining)) if remaining > 0 else []
            if not ready:
                break
            for handle in ready:
                worker = pending.pop(handle)  # type: ignore[call-overload]
                assert worker.conn is not None
                try:
                    answer_id, raw = worker.conn.recv()
                except (EOFError, OSError):
                    worker.stop(kill=True)
                    details.append(RawAnswer(worker.solver, "error", 0.0, {}, "worker died"))
                    continue
                if answer_id != qid:
                    pending[worker.conn] = worker
                    continue
                worker.busy = None
                details.append(raw)
                if raw.status in ("sat", "unsat") and winner is None:
                    winner = raw
        seconds = time.perf_counter() - started
        if winner is None:
            for worker in pending.values():
                details.append(RawAnswer(worker.solver, "timeout", seconds, {}))
                worker.stop(kill=True)
            status = "timeout" if any(d.status == "timeout" for d in details) else "unknown"
            if details and all(d.status == "error" for d in details):
                status = "error"
            return Answer(status, "", seconds, {}, tuple(details))
        self.decided[winner.solver] = self.decided.get(winner.solver, 0) + 1
        return Answer(winner.status, winner.solver, seconds, winner.model, tuple(details))
