"""Readable output of statistical tests, certifications and bounds, and p-value plots.

p-values are shown as evidence: "rejected" means the test found evidence at
level α that the mechanism is not ε-private; nothing here ever says a
mechanism *is* private.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from faier.engines.statistical.combine import BoundReport, CertifyReport
from faier.engines.statistical.events import show_number
from faier.engines.statistical.reports import EpsilonPoint, StatReport
from faier.errors import InputError, SpecError
from faier.report.terminal import render

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _p(value: float) -> str:
    if value < 1e-4:
        return f"{value:.1e}" if value > 0 else "0"
    return f"{value:.4f}"


def _claim(report: StatReport) -> str:
    if report.claimed is None:
        return "none"
    written = report.claim or f"{report.claimed:g}"
    shown = f"{report.claimed:.6g}"
    return f"ε₀ = {written}" + ("" if written == shown else f" ≈ {shown}")


def _settings(report: StatReport, console: Console) -> None:
    s = report.settings
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    rows = [
        ("target", report.target),
        ("mechanism", report.title),
        ("privacy", report.privacy),
        ("claim", _claim(report)),
        ("method", report.method),
        ("outputs", f"{report.space}: {report.events} events × {report.pairs} ordered input pairs"),
        ("sampling", report.sampling),
        ("arguments", report.arguments),
        (
            "samples",
            f"{s.selection_samples} per input for selection, {s.samples} for the test, "
            f"{s.thinnings} thinnings, α = {s.alpha:g}",
        ),
        (
            "seed",
            f"{s.seed} ({s.workers} worker{'s' if s.workers > 1 else ''}"
            + (f" on the cluster {s.cluster})" if s.cluster else ")"),
        ),
        ("time", f"{report.seconds:.2f} s ({report.cpu_seconds:.2f} s CPU)"),
    ]
    for key, value in rows:
        table.add_row(key, Text(value))
    for note in report.notes:
        table.add_row("note", Text(note))
    console.print(table)


def _points(points: Sequence[EpsilonPoint], alpha: float, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("ε", "p-value", "evidence", "D1", "D2", "event E", "counts"):
        table.add_column(column, justify="right" if column in ("ε", "p-value") else "left")
    for p in points:
        rejected = p.rejected(alpha)
        table.add_row(
            f"{p.epsilon:g}",
            _p(p.p_value),
            Text("not ε-DP", style="red") if rejected else "none",
            Text(p.candidate.left.show()),
            Text(p.candidate.right.show()),
            Text(p.candidate.event.describe()),
            f"{p.counts[0]} / {p.counts[1]}",
        )
    return table


def summary(report: StatReport) -> list[str]:
    """What the p-values say, and do not say, in a few lines."""
    alpha = report.settings.alpha
    lines = []
    rejected = [p.epsilon for p in report.points if p.rejected(alpha)]
    if rejected:
        lines.append(
            f"evidence (p ≤ {alpha:g}) that the mechanism is not ε-DP for ε up to {max(rejected):g}"
        )
    else:
        lines.append(f"no tested ε was rejected at α = {alpha:g}")
    at_claim = report.point_at(report.claimed)
    if at_claim is not None:
        verdict = (
            "evidence against the claim" if at_claim.rejected(alpha) else "no evidence against it"
        )
        lines.append(f"at the claimed {_claim(report)}: p = {_p(at_claim.p_value)}, {verdict}")
    interval = report.interval
    if interval is not None:
        c = interval.candidate
        lines.append(
            f"loss of E = {c.event.describe()} on {c.left.show()} vs {c.right.show()}: "
            f"[{show_number(interval.low)}, {show_number(interval.high)}] with "
            f"{interval.confidence:.0%} confidence, so ε* ≥ {interval.lower_bound:.4g}"
        )
    lines.append("p-values are statistical evidence of violations; they never show privacy")
    if report.interrupted:
        lines.append(
            f"{report.interrupted}: {len(report.points)} of {len(report.epsilons)} ε values tested"
        )
    return lines


def render_test(report: StatReport, console: Console) -> None:
    _settings(report, console)
    if report.points:
        console.print(_points(report.points, report.settings.alpha, "p-values per tested ε"))
    for line in summary(report):
        console.print(Text(line))


def render_certify(report: CertifyReport, console: Console) -> None:
    _settings(report.test, console)
    certified = "certified engine" in report.result.method
    engine = "the certified engine" if certified else "the exact engine"
    table = Table(title=f"candidates certified by {engine}", title_justify="left")
    loss = "certified loss" if certified else "exact loss"
    for column in ("ε", "p-value", "P(D1 ∈ E)", "P(D2 ∈ E)", loss, "counterexample"):
        table.add_column(column, justify="left" if column == "counterexample" else "right")
    styles = {"real": "red", "spurious": "green", "unknown": "yellow"}
    for row in report.rows:
        computed = row.exact
        table.add_row(
            f"{row.point.epsilon:g}",
            _p(row.point.p_value),
            computed.show_p() if computed is not None else "—",
            computed.show_q() if computed is not None else "—",
            computed.show_loss() if computed is not None else (row.reason or "—"),
            Text(row.verdict, style=styles[row.verdict]),
        )
    console.print(table)
    if report.rows:
        console.print(
            Text(
                "candidates: "
                + "; ".join(
                    sorted(
                        {
                            f"{r.point.candidate.left.show()} vs {r.point.candidate.right.show()}, "
                            f"E = {r.point.candidate.event.describe()}"
                            for r in report.rows
                        }
                    )
                )
            )
        )
    render(report.result, console)
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    if report.test.interrupted:
        console.print(Text(summary(report.test)[-1]))


def render_bound(report: BoundReport, console: Console) -> None:
    _settings(report.test, console)
    test = report.test
    if test.points:
        console.print(_points(test.points, test.settings.alpha, "p-values per tested ε"))
    alpha = test.settings.alpha
    if report.rejected is None:
        console.print(Text(f"tester: no ε rejected at α = {alpha:g}"))
    else:
        upper = "the end of the grid" if report.next_grid is None else f"{report.next_grid:g}"
        console.print(
            Text(f"tester: ε* > {report.rejected:g} (p ≤ {alpha:g}); not rejected at {upper}")
        )
    interval = test.interval
    if interval is not None:
        console.print(
            Text(
                f"statistical lower bound: ε* ≥ {interval.lower_bound:.4g} with "
                f"{interval.confidence:.0%} confidence (loss interval "
                f"[{show_number(interval.low)}, {show_number(interval.high)}] of "
                f"E = {interval.candidate.event.describe()} on {interval.candidate.left.show()} "
                f"vs {interval.candidate.right.show()})"
            )
        )
    if report.exact is not None:
        certified = report.exact.enclosure is not None or "certified" in report.exact.method
        console.print(Text("certified engine:" if certified else "exact engine:", style="bold"))
        render(report.exact, console)
    if report.bisection:
        steps = ", ".join(f"{s.epsilon:.6g}: {s.verdict.value}" for s in report.bisection)
        console.print(Text(f"bisection (verdicts of the deciding engine): {steps}"))
        bracket = report.bracket
        if bracket is not None:
            console.print(
                Text(f"ε* ∈ ({bracket[0]:.6g}, {bracket[1]:.6g}] (precision {report.precision:g})")
            )
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))


def plot_pvalues(reports: Sequence[StatReport], path: Path, title: str | None = None) -> None:
    """p-value curves like StatDP's figures (§5): one per report, its claimed ε₀ dashed."""
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise SpecError(
            f"cannot write a plot to {path.name!r}",
            where="--plot",
            fix=f"name the file with one of {', '.join(PLOT_SUFFIXES)}",
        )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError(
            "plots need matplotlib", where="--plot", fix="pip install 'faier[plots]'"
        ) from None
    figure, axes = plt.subplots(figsize=(6.4, 4.0))
    markers = "so^vDx*+"
    alpha = reports[0].settings.alpha if reports else 0.05
    axes.axhline(alpha, color="black", linestyle="dashed", linewidth=1.0)
    for i, report in enumerate(reports):
        colour = f"C{i}"
        xs = [p.epsilon for p in report.points]
        ys = [p.p_value for p in report.points]
        label = (
            report.target if report.claimed is None else f"ε₀ = {report.claim or report.claimed}"
        )
        axes.plot(xs, ys, marker=markers[i % len(markers)], color=colour, linewidth=2, label=label)
        if report.claimed is not None:
            axes.axvline(report.claimed, color=colour, linestyle="dashed", linewidth=1.2)
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("test ε")
    axes.set_ylabel("p-value")
    axes.set_title(title or (reports[0].target if reports else ""))
    axes.legend(frameon=False)
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as exc:
        raise InputError(
            f"cannot write {path}: {exc.strerror}",
            where="--plot",
            fix="give a path in a folder that exists and is writable",
        ) from None
    finally:
        plt.close(figure)
