"""``faier pld``: the exact privacy loss distribution of a pair, for composition.

Exit codes: 0 computed, 2 bad input, 3 a time or state limit (unknown).
"""

from __future__ import annotations

from typing import Annotated

import typer

from faier.cli.common import (
    DeltaOption,
    HorizonOption,
    JsonOption,
    NameOption,
    NeighboursOption,
    ParamOption,
    SetOption,
    StatesOption,
    TimeoutOption,
    app,
    options_from,
)
from faier.cli.exits import bad_input_exits, check_report_path, emit, error_line
from faier.cli.report import ReportOption
from faier.errors import BudgetExceeded
from faier.results import ExitCode

PairOption = Annotated[
    str | None,
    typer.Option(
        "--pair",
        help="the pair D1;D2 (neighbouring inputs, e.g. '1;2' or '1,1,0;1,1,1', two prior "
        "names, or for an interactive mechanism two answer streams after a start: "
        "'threshold 0: 1,1,1;2,2,2'); default: the pair of ε*'s witness",
    ),
]
ComposeOption = Annotated[
    int, typer.Option("--compose", "-k", help="compose the mechanism k times on the pair")
]
EpsilonsOption = Annotated[
    list[str] | None,
    typer.Option("--epsilon", "-e", help="evaluate δ(ε) exactly at this ε (repeatable)"),
]
AccountantOption = Annotated[
    bool,
    typer.Option(
        "--accountant/--no-accountant",
        help="also ask Google's dp_accounting for δ(ε) of the exported PLD (when installed)",
    ),
]


@app.command()
def pld(
    target: Annotated[str, typer.Argument(help="built-in example, model file or mechanism file")],
    pair: PairOption = None,
    compose: ComposeOption = 1,
    epsilon: EpsilonsOption = None,
    delta: DeltaOption = None,
    accountant: AccountantOption = True,
    settings: SetOption = None,
    params: ParamOption = None,
    horizon: HorizonOption = None,
    neighbours: NeighboursOption = None,
    name: NameOption = None,
    timeout: TimeoutOption = None,
    max_states: StatesOption = None,
    as_json: JsonOption = False,
    html: ReportOption = None,
) -> None:
    """The exact privacy loss distribution of a neighbouring pair (every loss and its probability).

    With --compose k: of k runs on the pair; --epsilon: δ(ε) exactly (and dp_accounting's).
    """
    given = locals()
    from importlib.util import find_spec

    from faier import api

    check_report_path(html)
    use_accountant = accountant and find_spec("dp_accounting") is not None
    try:
        with bad_input_exits():
            report = api.pld(
                target,
                pair,
                options_from(given),
                compose=compose,
                epsilons=epsilon or (),
                accountant=use_accountant,
            )
    except BudgetExceeded as stop:
        error_line(f"unknown: {stop.reason} before the distribution was complete")
        raise typer.Exit(ExitCode.UNKNOWN) from None
    from faier.report.pld import render_pld

    emit(report, "pld", as_json, lambda console: render_pld(report, console), html_report=html)
