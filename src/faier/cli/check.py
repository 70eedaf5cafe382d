"""``faier check``: a dpCTL* formula on a Markov chain or MDP (built-in, PRISM, or faier file).

Exit codes: 0 the formula holds in the asked state(s) (or a ``P=?`` query was
answered), 1 it fails, 3 unknown (``--timeout`` reached: loading and checking
run in a forked child that is killed then), 2 bad input.  Parsing and printing only;
the work is :func:`faier.cli.checking.run_check`, shared with the typer-free
front door (:mod:`faier.cli.entry`), and is done by :mod:`faier.logic`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from faier.cli import checking
from faier.cli.checking import CheckRequest
from faier.cli.common import (
    JsonOption,
    SetOption,
    TimeoutOption,
    app,
)
from faier.cli.report import ReportOption

ModelArgument = Annotated[
    str,
    typer.Argument(
        help="built-in dpCTL* example (survey, geometric, subsampling-majority, double-survey, "
        "interactive-survey, above-threshold), PRISM file (.pm/.prism/.nm/.sm), JANI file (.jani) "
        "or chain/MDP file (.yaml/.json)"
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
ConstOption = Annotated[
    list[str] | None,
    typer.Option(
        "--const",
        help="PRISM constant NAME=VALUE (or A=1,B=2), overriding the file's own definition",
    ),
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
    settings: SetOption = None,
    const: ConstOption = None,
    as_json: JsonOption = False,
    max_words: WordsOption = None,
    timeout: TimeoutOption = None,
    report: ReportOption = None,
) -> None:
    """Check a dpCTL* formula (exit 0 holds, 1 fails, 3 unknown, 2 bad input)."""
    checking.run_check(
        CheckRequest(
            model=model,
            formula=formula,
            neighbors=neighbors,
            state=tuple(state or ()),
            settings=tuple(settings or ()),
            const=tuple(const or ()),
            as_json=as_json,
            max_words=max_words,
            timeout=timeout,
            report=report,
        )
    )
