"""``faier batch SUITE.yaml``: run a suite of jobs, one JSON line each, then a summary table.

Exit codes: 0 every job holds or computed its figure; 1 some job is violated
(none crashed or had bad input); 3 some job is unknown or timed out (none
violated, crashed or bad); 2 the suite file is bad (nothing runs) or some
job's input is; 4 some job crashed; 130 interrupted (finished jobs are on
file and the next run goes on from there).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from faier.cli.common import (
    ClusterOption,
    JsonOption,
    WorkersOption,
    app,
    err,
)
from faier.cli.exits import bad_input_exits, check_report_path, emit
from faier.cli.report import ReportOption

if TYPE_CHECKING:
    from faier.batch import BatchReport

Suite = Annotated[Path, typer.Argument(help="the suite file (YAML): jobs, defaults, timeout")]
Output = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="JSON lines file (default: SUITE.results.jsonl)"),
]
Rerun = Annotated[
    bool,
    typer.Option("--rerun-failed", help="also rerun jobs recorded as timed out or crashed"),
]


def _figure(line: dict[str, Any]) -> str:
    """The job's answer in a few characters: ε*, the lowest p-value, or why it failed."""
    if line.get("status", "done") != "done":
        return str(line.get("error") or line.get("reason") or "")[:80]
    star = line.get("epsilon_star")
    if isinstance(star, dict):
        value = star.get("value")
        return f"ε* = {value:.6g}" if isinstance(value, float) else f"ε* = {value}"
    points = line.get("points")
    if isinstance(points, list) and points:
        lowest = min(points, key=lambda p: p.get("p_value", 1.0))
        return f"min p = {lowest.get('p_value', 1.0):.3g} at ε = {lowest.get('epsilon')}"
    return str(line.get("reason") or "")[:80]


def render_batch(report: BatchReport, console: Console) -> None:
    """The summary table: one row per job, then the counts."""
    table = Table(title=f"faier batch {report.suite}", title_justify="left")
    for column in ("job", "command", "status", "verdict", "result", "exit", "time"):
        table.add_column(column)
    for line in report.lines:
        cells = (
            str(line.get("job")),
            str(line.get("command")),
            str(line.get("status")),
            str(line.get("verdict") or ""),
            _figure(line),
            str(line.get("exit_code")),
            f"{float(line.get('seconds') or 0):.2f} s",
        )
        table.add_row(*(Text(cell) for cell in cells))
    console.print(table)
    counts = ", ".join(f"{n} {what}" for what, n in report.counts().items() if n)
    where = f"on {report.cluster} " if report.cluster else ""
    console.print(
        f"{report.total} jobs: {counts or 'none finished'}; {report.ran} run now {where}"
        f"({report.workers} workers), {report.skipped} already in {report.output}"
        + (f", {report.missing} not run (interrupted)" if report.missing else "")
        + f"; {report.seconds:.1f} s",
        highlight=False,
    )


@app.command()
def batch(
    suite: Suite,
    output: Output = None,
    workers: WorkersOption = None,
    cluster: ClusterOption = None,
    rerun_failed: Rerun = False,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """Run every job of a suite file in parallel; results as JSON lines, resumable.

    Exit 0 all hold or computed, 1 a job violated, 3 a job unknown or timed out,
    2 bad suite file or job input, 4 a job crashed, 130 interrupted.
    """

    def finished(line: dict[str, Any]) -> None:
        if err.is_terminal:
            err.print(
                f"… {line['job']}: {line['status']}, exit {line['exit_code']}", highlight=False
            )

    from faier.batch import run_batch

    check_report_path(html)
    with bad_input_exits():
        report = run_batch(
            suite,
            output=output,
            workers=workers,
            cluster=cluster,
            rerun_failed=rerun_failed,
            done=finished,
        )
    emit(report, "batch", as_json, lambda console: render_batch(report, console), html_report=html)
