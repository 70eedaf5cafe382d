"""What ``faier check`` does, given its parsed command line: the work, the output, the exit.

The typer command (:mod:`faier.cli.check`) and the typer-free front door
(:mod:`faier.cli.entry`) both build a :class:`CheckRequest` and call
:func:`run_check`, so they share every line of behaviour.  Nothing is imported
here at the start beyond the exits: the logic layer when the work starts,
rich only for a text report.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NoReturn

from faier.cli.exits import bad_input_exits, check_report_path, emit

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console

    from faier.logic.outcome import CheckResult

TEXT_WIDTH = 160
"""Columns of the text report when stdout is not a terminal."""


@dataclass(frozen=True)
class CheckRequest:
    """``faier check``'s arguments as parsed (repeatable options as tuples, in order)."""

    model: str
    formula: str
    neighbors: str | None = None
    state: tuple[str, ...] = ()
    settings: tuple[str, ...] = ()
    const: tuple[str, ...] = ()
    as_json: bool = False
    max_words: int | None = None
    timeout: float | None = None
    report: Path | None = None


def run_check(request: CheckRequest) -> NoReturn:
    """Check the formula, print the report and exit with its code (``SystemExit``).

    Exit codes: 0 the formula holds in the asked state(s) (or a ``P=?`` query
    was answered), 1 it fails, 3 unknown (``--timeout`` reached: loading and
    checking run in a forked child that is killed then), 2 bad input
    (stormpy missing included).
    """
    check_report_path(request.report)
    with bad_input_exits(ImportError):
        result = _checked(request)

    def show(console: Console) -> None:
        from faier.report.check import render_check

        render_check(result, console)

    emit(result, "check", request.as_json, show, width=TEXT_WIDTH, html_report=request.report)


def _checked(request: CheckRequest) -> CheckResult:
    """The work, within ``--timeout`` when one is given."""
    from faier.logic import directed, loading
    from faier.logic.parser import ConstantNeeded, ParsedFormula, parse_formula

    overrides = _assignments("--const", request.const)
    limit = None if request.timeout is None else _seconds(request.timeout)
    given = _assignments("--set", request.settings) or {}
    words = _word_limit(request.max_words)

    def work() -> CheckResult:
        """Load the model (for the question alone where Storm can answer it) and check."""
        started = time.perf_counter()
        try:
            parsed: ParsedFormula | None = parse_formula(request.formula)
        except ConstantNeeded:  # F<=B: read again with the model's constants
            parsed = None
        whole = bool(request.state) or request.neighbors is not None  # every state may be named
        question = None if whole or parsed is None else parsed.formula
        build = loading.build_file(request.model, given, overrides, question, for_answer=True)
        if (
            build is not None and parsed is not None and directed.answerable(build, parsed)
        ):  # Storm answers the question it built the model for
            built = time.perf_counter()
            result = directed.answer(build, parsed)
            return replace(
                result, seconds=time.perf_counter() - started, model_seconds=built - started
            )
        from faier.logic import checker

        target = (
            build.model()
            if build is not None and not build.for_answer
            else loading.load_model(request.model, given, overrides, question)
        )
        if parsed is None:
            parsed = parse_formula(request.formula, constants=checker.constants_of(target))
        built = time.perf_counter()
        neighbours = request.neighbors
        relation = loading.load_neighbours(neighbours) if neighbours is not None else None
        result = checker.check(
            target,
            parsed,
            neighbours=relation,
            state=list(request.state) or None,
            word_limit=checker.WORD_LIMIT if words is None else words,
        )
        return replace(result, seconds=time.perf_counter() - started, model_seconds=built - started)

    if limit is None:
        return work()
    from faier.logic.checker import within

    return within(limit, work, request.model, request.formula)


def _assignments(flag: str, given: tuple[str, ...]) -> dict[str, str] | None:
    """``--set``/``--const`` pairs (None: not given), a mistake placed at the flag."""
    if not given:
        return None
    from faier.core.assignments import read_settings
    from faier.errors import SpecError

    try:
        return read_settings(given)
    except SpecError as exc:
        raise exc.located(flag) from None


def _seconds(timeout: float) -> float | None:
    """``--timeout`` read as every command reads it (:data:`faier.core.options.SPECS`)."""
    from faier.core.options import Options

    return Options.parse(timeout=timeout).timeout


def _word_limit(max_words: int | None) -> int | None:
    """--max-words: at least 1 (the search needs one node to start); None: the default."""
    if max_words is None:
        return None
    if max_words < 1:
        from faier.errors import SpecError
        from faier.logic import checker

        raise SpecError(
            f"needs at least 1 search node, got {max_words}",
            where="--max-words",
            fix=f"e.g. --max-words {checker.WORD_LIMIT}",
        )
    return max_words
