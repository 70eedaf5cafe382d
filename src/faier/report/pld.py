"""Terminal rendering of ``faier pld``: the loss table, both orders' δ(ε), the accountant's."""

from __future__ import annotations

from fractions import Fraction

from rich.console import Console
from rich.table import Table

from faier.accounting.pld import LossAtom, ln_value
from faier.accounting.report import PLDReport
from faier.results import approximately

MAX_ROWS = 40


def _loss(atom: LossAtom) -> str:
    ratio = atom.ratio
    if ratio is None:
        return "∞"
    if ratio == 0:
        return "−∞"
    return f"ln({ratio}) ≈ {ln_value(ratio):.4f}"


def _mass(value: object) -> str:
    text = str(value)
    if len(text) <= 28:
        return text
    return f"≈ {approximately(value) if isinstance(value, Fraction) else text}"


def loss_table(report: PLDReport) -> Table:
    pld = report.distribution
    k = pld.compositions
    title = f"privacy loss distribution of {pld.left} vs {pld.right}" + (
        f", {k}-fold" if k > 1 else ""
    )
    table = Table(title=title, title_justify="left")
    table.add_column("loss ln(P/Q)")
    table.add_column(f"P = Pr[· | {pld.left}]", justify="right")
    table.add_column(f"Q = Pr[· | {pld.right}]", justify="right")
    table.add_column("outputs")
    atoms = pld.atoms
    shown = atoms if len(atoms) <= MAX_ROWS else atoms[-MAX_ROWS:]
    for atom in shown:
        outputs = ", ".join(atom.outputs) if atom.outputs else ""
        if atom.count > len(atom.outputs):
            outputs += f" … ({atom.count} outputs)" if outputs else f"{atom.count} outputs"
        table.add_row(_loss(atom), _mass(atom.p), _mass(atom.q), outputs)
    if len(atoms) > MAX_ROWS:
        table.caption = f"the {MAX_ROWS} largest of {len(atoms)} loss values (--json lists all)"
        table.caption_justify = "left"
    return table


def render_pld(report: PLDReport, console: Console) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("target", report.target)
    head.add_row("privacy", report.privacy)
    head.add_row("pair", f"{report.single.left} vs {report.single.right} ({report.pair_source})")
    head.add_row("compositions", str(report.distribution.compositions))
    head.add_row("ε of the pair", report.epsilon_star.show())
    for row in report.deltas:
        text = (
            f"{row.worst.show()}  ({report.single.left} → {report.single.right}: "
            f"{row.forward.show()}; other order: {row.backward.show()})"
        )
        head.add_row(f"δ(ε = {row.forward.epsilon})", text)
        if row.accountant is not None:
            head.add_row("  dp_accounting", f"{row.accountant:.10g} (pessimistic, exported PLD)")
    if report.epsilon_for_delta is not None:
        forward, backward = report.epsilon_for_delta
        worst = forward if forward.exceeds(backward) else backward
        head.add_row(f"ε for δ = {report.delta}", worst.show())
    head.add_row("method", report.method)
    head.add_row("time", f"{report.seconds:.3f} s")
    console.print(head)
    console.print(loss_table(report))
