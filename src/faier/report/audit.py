"""Terminal rendering of ``faier audit``: the verdict, the witness pair and its primitive."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table

from faier.auditing.pair import PairOutcome
from faier.auditing.report import AuditReport
from faier.results import Verdict

STYLES = {"violated": "bold red", "unknown": "bold yellow"}


def _short(path: str) -> str:
    """A path relative to the working folder when it lies inside it."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def _pair_rows(table: Table, outcome: PairOutcome, title: str) -> None:
    table.add_row(title, outcome.change)
    table.add_row("D", outcome.left.show())
    table.add_row("D′", outcome.right.show())
    loss = outcome.loss
    if loss is not None:
        table.add_row("ε* of the pair", loss.show())
        for term in loss.terms:
            if not term.line:
                continue
            where = f"{_short(term.site)}:{term.line} ({term.family})"
            if term.shift is not None and term.scale is not None and term.infinite is None:
                where += (
                    f": |Δ| = {float(term.shift):.6g} against scale {float(term.scale):.6g}"
                    f" (ratio {term.ratio:.6g})"
                )
            table.add_row("line", where)
    if outcome.difference is not None:
        table.add_row("calls", outcome.difference)
    if outcome.decision is not None and outcome.decision.detail:
        table.add_row("why", outcome.decision.detail)


def render_audit(report: AuditReport, console: Console) -> None:
    """The audit's answer as a two-column table, then what could not be decided."""
    verdict = report.verdict
    text = report.outcome
    style = (
        STYLES.get("violated" if verdict is Verdict.VIOLATED else "unknown", "")
        if verdict and verdict is not Verdict.HOLDS
        else "bold green"
    )
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("target", report.target)
    table.add_row(
        "claim",
        f"ε = {report.claim.epsilon}"
        + (f", δ = {report.claim.delta}" if report.claim.delta else ""),
    )
    table.add_row("neighbours", f"{report.relation}; records in {report.bounds}")
    table.add_row("verdict", f"[{style}]{text}[/]")
    if report.witness is not None:
        _pair_rows(table, report.witness, "witness")
    elif report.largest is not None:
        _pair_rows(table, report.largest, "largest pair")
    here = os.getcwd() + os.sep
    for primitive in report.primitives[:6]:
        table.add_row("primitive", primitive.replace(here, ""))
    if report.proof is not None:
        for charge in report.proof.charges:
            table.add_row(
                "proof",
                f"line {charge.line}: shift ≤ {charge.sensitivity}, Laplace scale "
                f"{charge.scale}, loss ≤ {charge.loss}",
            )
    elif report.witness is None and report.no_proof:
        table.add_row("no proof", report.no_proof)
    for source in report.unrecognised:
        table.add_row("unrecognised", source)
    for reason in report.reasons:
        table.add_row("unknown", reason)
    for outcome in report.undecided[:3]:
        table.add_row("undecided", f"{outcome.change}: {outcome.undecided}")
    for evidence in report.evidence:
        table.add_row("tester", f"{evidence.change}: {evidence.note}")
    if report.skipped:
        first = report.skipped[0]
        table.add_row(
            "skipped",
            f"{len(report.skipped)} pairs where the function raised "
            f"(first: {first.change}: {first.skipped})",
        )
    table.add_row("time", f"{report.seconds:.2f} s, {report.pairs} pairs")
    console.print(table)
