"""One run of the SMT engine: options, solver pool, time budget, SMT-LIB export.

Every query goes through :meth:`Session.ask`, which gives it the smaller of
the per-query timeout and what is left of the run's budget, writes it to
``--emit-smt2 DIR`` with the answer in a comment, and counts which solver
decided what.  Running out of time is an answer ("timeout"), never a hang.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import TracebackType

from faier.core.budget import Budget
from faier.engines.smt import solvers
from faier.engines.smt.portfolio import Answer, SolverPool
from faier.engines.smt.smtlib import Query
from faier.errors import SpecError

SOLVER_CHOICES = ("portfolio", "z3", "cvc5")
ENCODINGS = ("fast", "faithful")
DEFAULT_QUERY_TIMEOUT = 60.0
DEFAULT_PRECISION = Fraction(1, 10000)


@dataclass(frozen=True)
class SolverSettings:
    """How the SMT engine runs (the CLI's --solver, --encoding, --timeout, ...)."""

    solver: str = "portfolio"
    encoding: str = "fast"
    timeout: float | None = None
    query_timeout: float = DEFAULT_QUERY_TIMEOUT
    emit_smt2: Path | None = None
    precision: Fraction = DEFAULT_PRECISION
    region: bool = True

    def __post_init__(self) -> None:
        if self.solver not in SOLVER_CHOICES:
            raise SpecError(
                f"unknown solver {self.solver!r}",
                where="--solver",
                fix=f"choose one of {', '.join(SOLVER_CHOICES)}",
            )
        if self.encoding not in ENCODINGS:
            raise SpecError(
                f"unknown encoding {self.encoding!r}",
                where="--encoding",
                fix=f"choose one of {', '.join(ENCODINGS)}",
            )
        if self.timeout is not None and not self.timeout > 0:
            raise SpecError(
                f"the timeout must be positive, got {self.timeout:g}", where="--timeout"
            )
        if not self.precision > 0:
            raise SpecError(
                f"the precision must be positive, got {self.precision}", where="--precision"
            )

    def solvers(self) -> tuple[str, ...]:
        """The solvers to run; a portfolio uses whichever are installed."""
        if self.solver != "portfolio":
            return (self.solver,)
        installed = tuple(s for s in solvers.SOLVERS if solvers.available(s))
        return installed or solvers.SOLVERS


class Session:
    """A solver pool with a deadline; use as a context manager.

    A caller that runs many questions may pass its own (entered) pool, which
    the session then uses without closing.
    """

    def __init__(
        self, options: SolverSettings, target: str, pool: SolverPool | None = None
    ) -> None:
        self.options = options
        self.target = re.sub(r"[^A-Za-z0-9_.-]+", "_", target)[:60] or "query"
        self.owned = pool is None
        self.pool = pool if pool is not None else SolverPool(options.solvers())
        self.decided_before = dict(self.pool.decided)
        self.started = time.perf_counter()
        self.queries = 0
        self.unanswered = 0
        if options.emit_smt2 is not None:
            try:
                options.emit_smt2.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise SpecError(
                    f"cannot create {options.emit_smt2}: {exc.strerror}",
                    where="--emit-smt2",
                    fix="give a writable directory",
                ) from None

    def __enter__(self) -> Session:
        if self.owned:
            self.pool.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self.owned:
            self.pool.close()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float | None:
        if self.options.timeout is None:
            return None
        return self.options.timeout - self.elapsed()

    def budget(self) -> Budget:
        """The session's own deadline as a Budget, so a timeout names the timeout the user gave."""
        return Budget(self.options.timeout, started=self.started)

    def out_of_time(self) -> bool:
        remaining = self.remaining()
        return remaining is not None and remaining <= 0

    def ask(self, query: Query, limit: float | None = None) -> Answer:
        """Solve one query within the budget (and ``limit`` seconds); export it if asked to."""
        self.queries += 1
        remaining = self.remaining()
        timeout = (
            self.options.query_timeout if limit is None else min(limit, self.options.query_timeout)
        )
        if remaining is not None:
            timeout = min(timeout, remaining)
        answer = self.pool.check(query, timeout) if timeout > 0 else Answer("timeout", "", 0.0)
        if not answer.definitive:
            self.unanswered += 1
        if self.options.emit_smt2 is not None:
            self._emit(query, answer)
        return answer

    def _emit(self, query: Query, answer: Answer) -> None:
        assert self.options.emit_smt2 is not None
        decided = (
            f"{answer.status} by {answer.solver} in {answer.seconds:.3f} s"
            if answer.solver
            else answer.explain()
        )
        header = (f"faier query {self.queries} for {self.target}", f"faier's answer: {decided}")
        path = self.options.emit_smt2 / f"{self.target}-{self.queries:04d}-{query.name}.smt2"
        path.write_text(query.text(check_sat=True, header=header), encoding="utf-8")

    def summary(self) -> str:
        """``6 queries: z3 decided 6`` (and how many got no answer)."""
        decided = {
            s: n - self.decided_before.get(s, 0) for s, n in sorted(self.pool.decided.items())
        }
        parts = [f"{n} by {s}" for s, n in decided.items() if n]
        text = f"{self.queries} solver quer{'y' if self.queries == 1 else 'ies'}"
        if parts:
            text += ", decided " + ", ".join(parts)
        if self.unanswered:
            text += f", {self.unanswered} without answer"
        return text
