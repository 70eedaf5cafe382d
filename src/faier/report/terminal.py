"""Readable terminal output for results, with the witness in the mechanism's terms."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from faier.results import Result, Verdict, Witness

VERDICT_STYLE = {
    Verdict.HOLDS: "bold green",
    Verdict.VIOLATED: "bold red",
    Verdict.UNKNOWN: "bold yellow",
}


def witness_lines(witness: Witness) -> list[str]:
    """Both sides, the output, and both probabilities as exact fractions."""
    label = "inputs" if witness.kind == "inputs" else "priors"
    ratio = "∞" if witness.q == 0 else str(witness.p / witness.q)
    return [
        f"{label}: {witness.left}  vs  {witness.right}",
        f"output: {witness.show_output()}",
        f"Pr[output | {witness.left}] = {witness.p}",
        f"Pr[output | {witness.right}] = {witness.q}",
        f"ratio = {ratio}",
    ]


def render(result: Result, console: Console) -> None:
    """Print one result as a small two-column table, then per-horizon figures."""
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("target", Text(result.target))
    table.add_row("privacy", Text(result.privacy))
    if result.verdict is not None:
        claim = f"ε = {result.epsilon}" + (
            f", δ = {result.delta}" if result.delta is not None else ""
        )
        table.add_row("claim", claim)
        table.add_row("verdict", Text(result.verdict.value, style=VERDICT_STYLE[result.verdict]))
    elif result.delta is not None:
        table.add_row("δ", str(result.delta))
    if result.enclosure is not None:
        table.add_row("ε*", result.enclosure.show())
    elif result.epsilon_star is not None:
        table.add_row("ε*", result.epsilon_star.show())
    elif result.lower_bound is not None:
        table.add_row("ε*", f"≥ {result.lower_bound.show()} (lower bound)")
    for i, assumption in enumerate(result.assumptions):
        table.add_row("assumes" if i == 0 else "", Text(assumption))
    if result.delta_star is not None:
        table.add_row("δ(ε)", f"{result.delta_star} ≈ {float(result.delta_star):.6g}")
    if result.witness is not None:
        heading = "counterexample" if result.verdict is Verdict.VIOLATED else "witness"
        for i, line in enumerate(witness_lines(result.witness)):
            table.add_row(heading if i == 0 else "", Text(line))
    if result.certified_witness is not None:
        heading = "counterexample" if result.verdict is Verdict.VIOLATED else "witness"
        for i, line in enumerate(result.certified_witness.lines()):
            table.add_row(heading if i == 0 else "", Text(line))
    if result.certificate is not None:
        for i, line in enumerate(result.certificate.lines()):
            table.add_row("no finite ε" if i == 0 else "", Text(line))
    if result.proof is not None:
        table.add_row("scope", result.proof.scope)
        for i, line in enumerate(result.proof.lines):
            table.add_row("proof" if i == 0 else "", Text(line))
    if result.parametric is not None:
        for label, line in result.parametric.lines():
            table.add_row(label, Text(line))
    if result.reason:
        table.add_row("reason", Text(result.reason))
    table.add_row("method", result.method)
    table.add_row("time", f"{result.statistics.seconds:.3f} s")
    console.print(table)
    if len(result.horizons) > 1:
        _print_horizons(console, result)


HEADINGS = ("k", "e^ε*", "ε*", "witness output")
LONG_TABLE = 100
"""Rows above which the per-horizon figures are printed as aligned plain lines: rich's
layout of 1000 rows took 0.25 s, a tenth of an Above Threshold run to 1000 queries."""


def _print_horizons(console: Console, result: Result) -> None:
    rows, shortened = [], False
    for row in result.horizons:
        ratio = "∞" if row.loss.ratio is None else str(row.loss.ratio)
        output = row.witness.show_output() if row.witness else ""
        short_ratio, short_output = _shorten(ratio, 36), _shorten(output, 44)
        shortened |= (short_ratio, short_output) != (ratio, output)
        loss = f"{row.loss.value:.4f}" if row.loss.ratio is None else row.loss.decimal()
        rows.append((str(row.k), short_ratio, loss, short_output))
    caption = "long values shortened: --json gives every one in full" if shortened else None
    if len(rows) <= LONG_TABLE:
        horizons = Table(title="ε*(k) per horizon", title_justify="left", caption=caption)
        for i, heading in enumerate(HEADINGS):
            horizons.add_column(heading, justify="left" if i == 3 else "right")
        for k, ratio, loss, output in rows:
            horizons.add_row(k, ratio, loss, Text(output))
        console.print(horizons)
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADINGS)]

    def line(cells: tuple[str, ...]) -> str:
        aligned = [cell.rjust(widths[i]) for i, cell in enumerate(cells[:3])]
        return "  ".join([*aligned, cells[3]])

    lines = ["ε*(k) per horizon", line(HEADINGS), *(line(r) for r in rows)]
    if caption:
        lines.append(caption)
    console.print(Text("\n".join(lines)), no_wrap=True, crop=True)


def _shorten(text: str, limit: int) -> str:
    """A long table cell cut in the middle (Above Threshold to 1000 queries printed 36 000
    lines of 300-digit ratios and 1000-symbol outputs, 2 s of wrapping them)."""
    if len(text) <= limit:
        return text
    keep = (limit - 16) // 2
    return f"{text[:keep]} … {text[-keep:]} ({len(text)} chars)"
