"""``faier check``: a dpCTL* formula on a Markov chain or MDP (built-in, PRISM, or faier file).

Exit codes: 0 the formula holds in the asked state(s) (or a ``P=?`` query was
answered), 1 it fails, 3 unknown (``--timeout`` reached: loading and checking
run in a forked child that is killed then), 2 bad input.  Parsing and printing only;
the work is done by :mod:`faier.logic`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated

import typer

from faier.cli.common import (
    JsonOption,
    SetOption,
    TimeoutOption,
    app,
)
from faier.cli.exits import bad_input_exits, check_report_path, emit
from faier.cli.report import ReportOption
from faier.core.options import Options, read_settings
from faier.errors import SpecError

if TYPE_CHECKING:
    from faier.logic.outcome import CheckResult

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
    check_report_path(report)
    with bad_input_exits(ImportError):
        from faier.logic import directed, loading
        from faier.logic.parser import ConstantNeeded, ParsedFormula, parse_formula
        from faier.report.check import render_check

        try:
            overrides = read_settings(const) if const else None
        except SpecError as exc:
            raise exc.located("--const") from None
        limit = Options.parse(timeout=timeout).timeout
        given = Options.parse(settings=settings).settings
        words = _word_limit(max_words)

        def work() -> CheckResult:
            started = time.perf_counter()
            try:
                parsed: ParsedFormula | None = parse_formula(formula)
            except ConstantNeeded:  # F<=B: read again with the model's constants
                parsed = None
            question = None if state or parsed is None else parsed.formula
            build = loading.build_file(model, given, overrides, question)
            if (
                build is not None
                and parsed is not None
                and neighbors is None
                and directed.answerable(build, parsed)
            ):  # Storm answers the question it built the model for
                built = time.perf_counter()
                result = directed.answer(build, parsed)
                return replace(
                    result, seconds=time.perf_counter() - started, model_seconds=built - started
                )
            from faier.logic import checker

            target = (
                build.model()
                if build is not None
                else loading.load_model(model, given, overrides, question)
            )
            if parsed is None:
                parsed = parse_formula(formula, constants=checker.constants_of(target))
            built = time.perf_counter()
            relation = loading.load_neighbours(neighbors) if neighbors is not None else None
            result = checker.check(
                target,
                parsed,
                neighbours=relation,
                state=state or None,
                word_limit=checker.WORD_LIMIT if words is None else words,
            )
            return replace(
                result, seconds=time.perf_counter() - started, model_seconds=built - started
            )

        if limit is None:
            result = work()
        else:
            from faier.logic.checker import within

            result = within(limit, work, model, formula)
    emit(
        result,
        "check",
        as_json,
        lambda console: render_check(result, console),
        width=160,
        html_report=report,
    )


def _word_limit(max_words: int | None) -> int | None:
    """--max-words: at least 1 (the search needs one node to start); None: the default."""
    if max_words is None:
        return None
    if max_words < 1:
        from faier.logic import checker

        raise SpecError(
            f"needs at least 1 search node, got {max_words}",
            where="--max-words",
            fix=f"e.g. --max-words {checker.WORD_LIMIT}",
        )
    return max_words
