"""One job: run it, and turn whatever happens into one record (the result envelope).

A job runs in a forked child with a hard deadline (its timeout, which the
engines also get as their own ``--timeout``, plus a grace period), so a
mechanism that never returns, a crash of the interpreter or a job that eats
its worker are each reported as a record — ``timed out`` or ``crashed`` —
and never lose the job or the run.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import select
import signal
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn

from faier.batch.suite import Job
from faier.errors import BudgetExceeded, InputError
from faier.mechanisms.isolation import mark_isolated, user_code
from faier.results import ExitCode
from faier.version import VERSION

STATUSES = ("done", "bad input", "timed out", "crashed")


def grace(timeout: float) -> float:
    """Seconds past a job's timeout before it is killed (the engines stop themselves first)."""
    return 10.0 + 0.1 * timeout


def record(
    job: Job, command: str, exit_code: int, seconds: float, status: str, **body: Any
) -> dict[str, Any]:
    """A job's line: the envelope's keys, the job's identity, then the command's own fields."""
    return {
        "command": command,
        "verdict": body.pop("verdict", None),
        "exit_code": int(exit_code),
        "seconds": round(seconds, 6),
        "faier_version": VERSION,
        "job": job.id,
        "status": status,
        "digest": job.digest,
        **body,
    }


def _report(job: Job) -> Any:
    from faier import api, testing

    options = job.parsed()
    if job.command == "verify":
        assert job.claim is not None
        return api.verify(job.target, job.claim, options)
    if job.command == "epsilon":
        return api.epsilon(job.target, options)
    common: dict[str, Any] = {"claimed": job.claim, "lengths": job.lengths, "pairs": job.pairs}
    if job.command == "test":
        return testing.statistical_test(job.target, options=options, **common)
    if job.command == "certify":
        return testing.certify(job.target, options=options, **common)
    return testing.bound(job.target, bisection=job.bisect, options=options, **common)


def run_job(job: Job) -> dict[str, Any]:
    """Run a job in this process; bad input, a budget and a crash each become a record."""
    from faier.results import envelope

    started = time.perf_counter()
    try:
        with user_code():  # prints to stderr; a copy forked by the mechanism never writes
            report = _report(job)
    except InputError as problem:
        return record(
            job,
            job.command,
            ExitCode.BAD_INPUT,
            time.perf_counter() - started,
            "bad input",
            error=problem.render(),
        )
    except BudgetExceeded as stop:
        return record(
            job,
            job.command,
            ExitCode.UNKNOWN,
            time.perf_counter() - started,
            "timed out",
            reason=stop.reason,
        )
    except Exception as failure:
        return record(
            job,
            job.command,
            ExitCode.INTERNAL_ERROR,
            time.perf_counter() - started,
            "crashed",
            error=f"{type(failure).__name__}: {failure}",
            traceback="".join(traceback.format_exception(failure)),
        )
    data = envelope(report, job.command)
    head = {k: data.pop(k) for k in ("command", "verdict", "exit_code", "seconds")}
    data.pop("faier_version", None)
    return record(
        job,
        head["command"],
        head["exit_code"],
        head["seconds"],
        "done",
        verdict=head["verdict"],
        **data,
    )


def _dumps(line: dict[str, Any]) -> bytes:
    try:
        return json.dumps(line, ensure_ascii=False, allow_nan=False).encode()
    except ValueError:
        return json.dumps(line, ensure_ascii=False, default=str).encode()


@dataclass
class Running:
    """A job in a forked child: its pipe, its deadline and what it has written so far."""

    job: Job
    pid: int
    fd: int
    started: float
    deadline: float
    chunks: list[bytes] = field(default_factory=list)

    def read(self) -> bool:
        """Take what the child wrote; True once it closed the pipe (finished or died)."""
        data = os.read(self.fd, 1 << 16)
        if data:
            self.chunks.append(data)
            return False
        return True

    def finish(self) -> dict[str, Any]:
        """The child's record, or one saying how it died."""
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        seconds = time.monotonic() - self.started
        try:
            found: dict[str, Any] = json.loads(b"".join(self.chunks))
            return found
        except ValueError:
            how = (
                f"killed by signal {os.WTERMSIG(status)}"
                if os.WIFSIGNALED(status)
                else f"exit status {os.WEXITSTATUS(status)}"
            )
            return record(
                self.job,
                self.job.command,
                ExitCode.INTERNAL_ERROR,
                seconds,
                "crashed",
                error=f"the process running the job ended without a result ({how})",
            )

    def kill(self) -> dict[str, Any]:
        """Stop a job past its deadline: a 'timed out' record (unknown, exit code 3)."""
        os.kill(self.pid, signal.SIGKILL)
        os.close(self.fd)
        os.waitpid(self.pid, 0)
        return record(
            self.job,
            self.job.command,
            ExitCode.UNKNOWN,
            time.monotonic() - self.started,
            "timed out",
            reason=f"stopped {grace(self.job.timeout):g} s after its timeout "
            f"of {self.job.timeout:g} s",
        )


def start(job: Job, running: list[Running]) -> None:
    """Fork a child that runs the job and writes its record to a pipe; add it to ``running``.

    Ctrl-C is held back from the fork until the child is in ``running``: an
    interruption between the two would leave a child nobody kills, holding
    the caller's output open (and waiting for it) after faier has exited.
    """
    read_fd, write_fd = os.pipe()
    with _ctrl_c_held():
        pid = os.fork()
        if pid == 0:
            _run_child(job, read_fd, write_fd)
        os.close(write_fd)
        now = time.monotonic()
        running.append(Running(job, pid, read_fd, now, now + job.timeout + grace(job.timeout)))


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """SIGINT blocked in this thread and, in the main thread, only noted by its handler;
    afterwards the mask and the handler are put back and a noted SIGINT is raised again.

    The mask alone holds it back in this thread only: the kernel gives a process's
    SIGINT to any thread that does not block it (a Dask client's), and the main
    thread then runs the handler at its next check, inside the stretch.
    """
    noted: list[int] = []
    previous = signal.getsignal(signal.SIGINT)
    noting = threading.current_thread() is threading.main_thread() and previous is not None
    if noting:  # (None: a handler set outside Python, which could not be put back)
        signal.signal(signal.SIGINT, lambda number, _: noted.append(number))
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        if noting:
            signal.signal(signal.SIGINT, previous)
            if noted:
                signal.raise_signal(signal.SIGINT)


def _run_child(job: Job, read_fd: int, write_fd: int) -> NoReturn:
    """The forked child: run the job, write its record, never return."""
    code = 0
    try:
        os.close(read_fd)
        mark_isolated()  # the API's calls in the job do not fork again
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C stops
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # (held back by start)
        # A Dask worker is a daemonic process, which multiprocessing forbids children;
        # this fork is a process of its own, whose pool (a job's --workers) is allowed.
        multiprocessing.current_process()._config.pop("daemon", None)  # type: ignore[attr-defined]
        data = _dumps(run_job(job))
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
    except BaseException:
        code = 70
    finally:
        os._exit(code)


def wait(
    running: list[Running], until: float | None = None
) -> list[tuple[Running, dict[str, Any]]]:
    """Block until some job ends (or ``until``); its record, or 'timed out' past its deadline."""
    ended: list[tuple[Running, dict[str, Any]]] = []
    while not ended:
        now = time.monotonic()
        for job in list(running):
            if now >= job.deadline:
                running.remove(job)
                ended.append((job, job.kill()))
        if ended or not running:
            break
        limit = min(j.deadline for j in running) - now
        if until is not None:
            limit = min(limit, max(0.0, until - now))
        ready, _, _ = select.select([j.fd for j in running], [], [], max(0.0, limit))
        for job in [j for j in running if j.fd in ready]:
            if job.read():
                running.remove(job)
                ended.append((job, job.finish()))
        if until is not None and time.monotonic() >= until:
            break
    return ended


def run_isolated(job: Job) -> dict[str, Any]:
    """Run one job in a forked child and wait for it (what a cluster worker does)."""
    running: list[Running] = []
    start(job, running)
    while True:
        for _, line in wait(running):
            return line
