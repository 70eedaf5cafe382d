"""Terminal output for a dpCTL* check: verdicts per state, the numbers behind each operator."""

from __future__ import annotations

import decimal
import sys
from fractions import Fraction
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from faier.logic.outcome import compact
from faier.results import Loss, Verdict, natural_log

if TYPE_CHECKING:
    from faier.logic._closeness import Closeness
    from faier.logic.outcome import CheckResult, OperatorReport


def _verdict_line(result: CheckResult) -> str:
    where = "every asked state" if len(result.states) > 1 else "the asked state"
    if result.verdict is Verdict.HOLDS:
        return f"holds in {where}"
    if result.verdict is Verdict.VIOLATED:
        failing = [s for s, v in result.states if v is Verdict.VIOLATED]
        return f"violated in {', '.join(failing)}"
    return f"unknown: {result.reason}"


def _closeness(c: Closeness) -> str:
    return c.show()


def _approx(value: Fraction) -> str:
    """``≈ 6.1e+601``: a rational past the float range (ε > 709 makes such margins) in Decimal."""
    with decimal.localcontext() as context:
        context.prec, context.Emax, context.Emin = 6, decimal.MAX_EMAX, decimal.MIN_EMIN
        return f"≈ {decimal.Decimal(value.numerator) / value.denominator:.6g}"


def _decimal(value: Fraction) -> str:
    """Six significant digits, also for a probability below the float range."""
    return _approx(value).removeprefix("≈ ") if value else "0"


def _margin(c: Closeness) -> str:
    if c.margin is not None:
        return compact(c.margin) if abs(c.margin) < sys.float_info.max else _approx(c.margin)
    if c.margin_value >= sys.float_info.max:
        return f"> {sys.float_info.max:.6g}"
    return f"≈ {c.margin_value:.6g}"


def _loss(loss: Loss | None) -> str:
    if loss is None:
        return ""
    if loss.ratio is not None and len(str(loss.ratio)) > 24:
        ln = natural_log(loss.ratio)
        return f"≈ {ln:.6g}"
    return loss.show()


def render_check(result: CheckResult, console: Console) -> None:
    """The verdict, the asked states, and one table per P or D operator."""
    head = Table.grid(padding=(0, 2))
    head.add_row("model", f"{result.model} ({result.kind})" if result.kind else result.model)
    if result.size is not None:
        head.add_row("size", result.size.show())
    if result.name is not None:
        head.add_row("property", result.name)
    head.add_row("formula", result.formula)
    if result.neighbours:
        head.add_row("neighbours", result.neighbours)
    if result.verdict is not None:
        head.add_row("verdict", _verdict_line(result))
    if result.witness is not None:
        head.add_row("witness", _closeness(result.witness))
    timing = f"{result.seconds:.3f} s"
    if result.model_seconds:
        checking = result.seconds - result.model_seconds
        timing += f" (model {result.model_seconds:.3f} s, check {checking:.3f} s)"
    head.add_row("time", timing)
    console.print(head)
    if result.verdict is None:
        values = Table(title="values", title_justify="left")
        values.add_column("state")
        values.add_column(result.quantity, overflow="fold")
        values.add_column("≈")
        for name, value in result.values:
            if isinstance(value, float):  # an infinite expected reward
                values.add_row(name, "∞", "∞")
            else:
                values.add_row(name, str(value), _decimal(value))
        console.print(values)
    elif result.states:
        states = Table(title="states", title_justify="left")
        states.add_column("state")
        states.add_column("verdict")
        for name, verdict in result.states:
            states.add_row(name, verdict.value)
        console.print(states)
    for report in result.operators:
        console.print(_operator_table(report))


def _operator_table(report: OperatorReport) -> Table:
    summary = f"holds in {report.satisfied} of {report.total} states"
    if report.undecided:
        summary += f", undecided in {report.undecided}"
    table = Table(title=f"{report.formula}   ({summary})", title_justify="left")
    table.add_column("state")
    table.add_column("verdict")
    table.add_column("Pr" if report.kind == "D" else "Pr (min, max)", overflow="fold")
    if report.kind == "D":
        table.add_column("closest comparison")
        table.add_column("margin")
        table.add_column("least ε for this δ")
    table.add_column("decided by")
    for row in report.rows:
        if row.bounds is not None:
            probability = f"[{row.bounds[0]}, {row.bounds[1]}]"
        else:
            probability = "" if row.probability is None else str(row.probability)
        cells = [row.state, row.verdict.value, probability]
        if report.kind == "D":
            cells += [
                _closeness(row.closest) if row.closest else "(no neighbour)",
                _margin(row.closest) if row.closest else "",
                _loss(row.tightest),
            ]
        cells.append(row.method + (f": {row.reason}" if row.reason else ""))
        table.add_row(*cells)
    return table
