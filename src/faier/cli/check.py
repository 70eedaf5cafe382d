"""``faier check``: a dpCTL* formula on a Markov chain or MDP (built-in, PRISM, or faier file).

Exit codes: 0 the formula holds in the asked state(s) (or a ``P=?`` query was
answered), 1 it fails, 3 unknown, 2 bad input.  Parsing and printing only;
the work is done by :mod:`faier.logic`.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from faier.cli.common import JsonOption, SetOption, app, bad_input_exits, out, parse_settings
from faier.results import Loss, Verdict

if TYPE_CHECKING:
    from faier.logic.outcome import CheckResult, Closeness, OperatorReport

ModelArgument = Annotated[
    str,
    typer.Argument(
        help="built-in dpCTL* example (survey, geometric, subsampling-majority, double-survey, "
        "interactive-survey, above-threshold), PRISM file (.pm/.prism/.nm) or chain/MDP file "
        "(.yaml/.json)"
    ),
]
FormulaOption = Annotated[
    str, typer.Option("--formula", "-f", help="dpCTL* formula, e.g. 'D{ln(3), 0}[X out1]'")
]
CheckNeighbours = Annotated[
    str | None,
    typer.Option(
        "--neighbors",
        "--neighbours",
        help="neighbour pairs 'a~b; c~d', label pairs '@in0~@in1', or a YAML/JSON file",
    ),
]
StateOption = Annotated[
    list[str] | None, typer.Option("--state", help="check in this state (repeatable)")
]
WordsOption = Annotated[
    int | None,
    typer.Option("--max-words", help="search nodes for exact MDP action-word enumeration"),
]


@app.command()
def check(
    model: ModelArgument,
    formula: FormulaOption,
    neighbors: CheckNeighbours = None,
    state: StateOption = None,
    set_: SetOption = None,
    as_json: JsonOption = False,
    max_words: WordsOption = None,
) -> None:
    """Check a dpCTL* formula (exit 0 holds, 1 fails, 3 unknown, 2 bad input)."""
    with bad_input_exits(ImportError):
        from faier.logic import checker, loading

        target = loading.load_model(model, parse_settings(set_))
        relation = loading.load_neighbours(neighbors) if neighbors is not None else None
        result = checker.check(
            target,
            formula,
            neighbours=relation,
            state=state or None,
            word_limit=max_words if max_words is not None else checker.WORD_LIMIT,
        )
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        _render(result, out if out.is_terminal else Console(width=160))
    raise typer.Exit(result.exit_code)


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


def short(value: Fraction, limit: int = 24) -> str:
    """Exact when short, else ``≈ 0.0602816`` (the JSON output stays exact)."""
    text = str(value)
    return text if len(text) <= limit else f"≈ {float(value):.6g}"


def _margin(c: Closeness) -> str:
    return short(c.margin) if c.margin is not None else f"≈ {c.margin_value:.6g}"


def _loss(loss: Loss | None) -> str:
    if loss is None:
        return ""
    if loss.ratio is not None and len(str(loss.ratio)) > 24:
        return f"≈ {loss.value:.6g}"
    return loss.show()


def _render(result: CheckResult, console: Console) -> None:
    head = Table.grid(padding=(0, 2))
    head.add_row("model", f"{result.model} ({result.kind})")
    head.add_row("formula", result.formula)
    head.add_row("neighbours", result.neighbours)
    if result.verdict is not None:
        head.add_row("verdict", _verdict_line(result))
    if result.witness is not None:
        head.add_row("witness", _closeness(result.witness))
    head.add_row("time", f"{result.seconds:.3f} s")
    console.print(head)
    if result.verdict is None:
        values = Table(title="values", title_justify="left")
        values.add_column("state")
        values.add_column("probability")
        values.add_column("≈")
        for name, value in result.values:
            values.add_row(name, short(value, 60), f"{float(value):.6g}")
        console.print(values)
    else:
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
    table.add_column("Pr" if report.kind == "D" else "Pr (min, max)")
    if report.kind == "D":
        table.add_column("closest comparison")
        table.add_column("margin")
        table.add_column("least ε for this δ")
    table.add_column("decided by")
    for row in report.rows:
        if row.bounds is not None:
            probability = f"[{short(row.bounds[0])}, {short(row.bounds[1])}]"
        else:
            probability = "" if row.probability is None else short(row.probability)
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
