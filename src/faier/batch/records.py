"""The output file: one JSON line per finished job, appended as each ends, read back to resume.

A line is written whole and flushed to disk before the next job's, so an
interrupted batch leaves every finished job on file; a line cut short by a
kill is dropped on the next run.  A recorded job counts as done when its
``digest`` (what it asks) is the suite's; the last line of a job wins.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from faier.batch.suite import Job
from faier.errors import SpecError
from faier.results import ExitCode

RETRYABLE = ("timed out", "crashed")


def read(path: Path) -> dict[str, dict[str, Any]]:
    """The last complete record of each job in the file (none if there is no file)."""
    if not path.exists():
        return {}
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SpecError(
            f"cannot be read ({exc})", where=str(path), fix="give a writable --output"
        ) from None
    found: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(raw.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError:
            if number == raw.count(b"\n") + 1:
                continue  # a last line cut short by an interruption
            raise SpecError(
                f"line {number} is not a JSON record",
                where=str(path),
                fix="give another --output, or remove the file to start over",
            ) from None
        if isinstance(data, dict) and isinstance(data.get("job"), str):
            found[data["job"]] = data
    return found


def pending(
    jobs: Iterable[Job], done: Mapping[str, dict[str, Any]], rerun_failed: bool
) -> list[Job]:
    """Jobs without a record for the same question (and, if asked, those that failed)."""
    left = []
    for job in jobs:
        line = done.get(job.id)
        if (
            line is None
            or line.get("digest") != job.digest
            or (rerun_failed and line.get("status") in RETRYABLE)
        ):
            left.append(job)
    return left


class Output:
    """The output file opened for appending, with any cut-off last line removed first."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = path.open("ab+")
        except OSError as exc:
            raise SpecError(
                f"cannot be written ({exc})", where=str(path), fix="give a writable --output"
            ) from None
        self.handle.seek(0, os.SEEK_END)
        size = self.handle.tell()
        if size:
            self.handle.seek(0)
            data = self.handle.read()
            keep = data.rfind(b"\n") + 1
            if keep < size:
                self.handle.truncate(keep)
        self.handle.seek(0, os.SEEK_END)

    def write(self, line: Mapping[str, Any]) -> None:
        """Append one record and put it on disk before anything else happens."""
        try:
            text = json.dumps(line, ensure_ascii=False, allow_nan=False)
        except ValueError:
            text = json.dumps(line, ensure_ascii=False, default=str)
        self.handle.write(text.encode() + b"\n")
        self.handle.flush()
        os.fsync(self.handle.fileno())

    def close(self) -> None:
        self.handle.close()


ORDER = (
    ExitCode.INTERNAL_ERROR,
    ExitCode.BAD_INPUT,
    ExitCode.VIOLATED,
    ExitCode.UNKNOWN,
)
"""The batch's exit code is the first of these that some job has, else 0."""


def exit_code(lines: Iterable[Mapping[str, Any]]) -> int:
    """4 if a job crashed, else 2 if a job had bad input, else 1 if one is violated, else 3 if one
    is unknown (or timed out), else 0 (every job holds or computed its figure)."""
    codes = {int(line.get("exit_code", ExitCode.INTERNAL_ERROR)) for line in lines}
    for code in ORDER:
        if code in codes:
            return int(code)
    if codes - {0}:
        return int(ExitCode.INTERNAL_ERROR)
    return int(ExitCode.HOLDS)
