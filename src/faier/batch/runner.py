"""Running a suite: jobs over local processes or a Dask cluster, records as they finish.

Locally, up to ``workers`` jobs run at once, each in its own forked child
(``job.start``); one thread watches their pipes and deadlines.  On a
cluster each job is a task that runs ``job.run_isolated`` on a worker, so
the same hard deadline applies there; a job whose worker dies is
rescheduled by Dask and, past its allowed failures, recorded as crashed.
Ctrl-C stops the running jobs: what finished is on file, and the next run
of the same suite goes on from there.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faier.batch import job as jobs
from faier.batch import records
from faier.batch.suite import Job, Suite, load_suite
from faier.cluster.address import ClusterAddress, read_cluster
from faier.core.options import Options
from faier.errors import SpecError
from faier.results import ExitCode

Done = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class BatchReport:
    """The suite's records (last per job, in suite order), and how this run went."""

    suite: Path
    output: Path
    lines: tuple[dict[str, Any], ...]
    """One record per job of the suite that has one (earlier runs' included)."""
    total: int
    ran: int
    skipped: int
    seconds: float
    workers: int
    cluster: str | None = None
    interrupted: bool = False

    method = "batch: one process per job (hard deadline), results appended as JSON lines"

    @property
    def verdict(self) -> None:
        """A batch has no verdict of its own; its exit code sums up the jobs'."""
        return None

    @property
    def missing(self) -> int:
        """Jobs of the suite with no record yet (after an interruption)."""
        return self.total - len(self.lines)

    @property
    def exit_code(self) -> int:
        """130 when interrupted, else the jobs' codes summed up by :func:`records.exit_code`."""
        if self.interrupted:
            return int(ExitCode.INTERRUPTED)
        return records.exit_code(self.lines)

    def counts(self) -> dict[str, int]:
        """How many jobs ended each way."""
        found = {"holds": 0, "violated": 0, "unknown": 0, "computed": 0}
        found.update({status: 0 for status in jobs.STATUSES if status != "done"})
        for line in self.lines:
            if line.get("status", "done") != "done":
                found[line["status"]] += 1
            elif line.get("verdict") is not None:
                found[line["verdict"]] += 1
            elif line.get("exit_code") == ExitCode.UNKNOWN:
                found["unknown"] += 1
            else:
                found["computed"] += 1
        return found

    def _repr_html_(self) -> str:
        """The HTML report, as Jupyter shows it (``faier.report.html``)."""
        from faier.report.html import fragment

        return fragment(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "suite": str(self.suite),
            "output": str(self.output),
            "method": self.method,
            "jobs": {
                "total": self.total,
                "ran": self.ran,
                "skipped": self.skipped,
                "missing": self.missing,
            },
            "counts": self.counts(),
            "workers": self.workers,
            **({"cluster": self.cluster} if self.cluster else {}),
            **({"interrupted": True} if self.interrupted else {}),
            "results": [
                {
                    k: line.get(k)
                    for k in ("job", "command", "status", "verdict", "exit_code", "seconds")
                }
                for line in self.lines
            ],
        }


def default_output(suite: Path) -> Path:
    """``SUITE.results.jsonl`` beside the suite file."""
    return suite.with_name(suite.stem + ".results.jsonl")


def _local(todo: Sequence[Job], workers: int, output: records.Output, done: Done) -> None:
    queue = list(todo)
    running: list[jobs.Running] = []
    try:
        while queue or running:
            while queue and len(running) < workers:
                jobs.start(queue.pop(0), running)
            for _, line in jobs.wait(running):
                output.write(line)
                done(line)
    finally:
        for left in running:  # interrupted: stop what runs; it is rerun next time
            left.kill()


def _cluster(todo: Sequence[Job], client: Any, output: records.Output, done: Done) -> None:
    from distributed import as_completed

    futures = {
        client.submit(
            jobs.run_isolated, job, pure=False, key=f"faier-job-{i}-{os.urandom(6).hex()}"
        ): job
        for i, job in enumerate(todo)
    }
    try:
        for future in as_completed(list(futures)):  # type: ignore[no-untyped-call]
            job = futures[future]
            try:
                line = future.result()
            except Exception as failure:  # the worker died too often (KilledWorker), or worse
                line = jobs.record(
                    job,
                    job.command,
                    ExitCode.INTERNAL_ERROR,
                    0.0,
                    "crashed",
                    error=f"on the cluster: {type(failure).__name__}: {failure}",
                )
            output.write(line)
            done(line)
    finally:
        client.cancel(list(futures), force=True)


def _workers(given: int | None, suite: Suite) -> int:
    if given is not None:
        count = Options.parse(workers=given).workers
        assert count is not None
        return count
    return suite.workers or os.cpu_count() or 1


def run_batch(
    suite: Suite | str | Path,
    *,
    output: str | Path | None = None,
    workers: int | None = None,
    cluster: str | ClusterAddress | Any = None,
    rerun_failed: bool = False,
    done: Done | None = None,
) -> BatchReport:
    """Run the suite's jobs that have no record in ``output`` yet; return every job's record.

    ``workers`` jobs run at once locally (default: the suite's ``workers:``,
    else every core); ``cluster`` (``"local:4"``, ``"tcp://host:8786"`` or a
    ``dask.distributed.Client``) runs them on Dask instead.  ``rerun_failed``
    also reruns jobs recorded as timed out or crashed.  ``done`` is called
    with each record as it is written.
    """
    started = time.perf_counter()
    chosen = suite if isinstance(suite, Suite) else load_suite(suite)
    target = Path(output) if output is not None else chosen.output or default_output(chosen.path)
    address = None
    if cluster is not None:
        try:
            address = read_cluster(cluster)
        except SpecError as exc:
            raise exc.located("--cluster") from None
    count = _workers(workers, chosen)
    before = records.read(target)
    todo = records.pending(chosen.jobs, before, rerun_failed)
    written: list[str] = []

    def report(line: dict[str, Any]) -> None:
        written.append(line["job"])
        if done is not None:
            done(line)

    out = records.Output(target)
    interrupted = False
    try:
        if todo and address is not None:
            from faier.cluster.session import open_client, worker_count

            with open_client(address) as client:
                count = worker_count(client)
                _cluster(todo, client, out, report)
        elif todo:
            _local(todo, count, out, report)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        out.close()
    after = records.read(target)
    lines = tuple(
        after[j.id] for j in chosen.jobs if j.id in after and after[j.id].get("digest") == j.digest
    )
    return BatchReport(
        chosen.path,
        target,
        lines,
        len(chosen.jobs),
        len(written),
        len(chosen.jobs) - len(todo),
        time.perf_counter() - started,
        count,
        address.show() if address is not None else None,
        interrupted,
    )
