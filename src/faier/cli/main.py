"""The ``faier`` command: parses arguments, calls the API, prints; no logic of its own.

Exit codes: 0 holds (or ε* computed), 1 violated, 2 bad input, 3 unknown.
Foundation commands live here; each further engine registers its commands from
its own module, listed in ``COMMAND_MODULES``.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from faier.cli.common import (
    ArithmeticOption,
    ClusterOption,
    DeltaOption,
    EmitOption,
    EncodingOption,
    EngineOption,
    HorizonOption,
    JsonOption,
    NameOption,
    NeighboursOption,
    ParamOption,
    PrecisionOption,
    SetOption,
    SolverOption,
    StatesOption,
    Target,
    TimeoutOption,
    app,
    err,
    options_from,
    out,
    progress,
    run_result,
)
from faier.cli.exits import WIDTH, error_line, exit_code_of, run_command
from faier.cli.report import ReportOption, result_extras
from faier.errors import InputError
from faier.results import Verdict

COMMAND_MODULES: tuple[str, ...] = (
    "faier.cli.smt",
    "faier.cli.check",
    "faier.cli.testing",
    "faier.cli.pld",
    "faier.cli.batch",
    "faier.cli.audit",
)
"""Modules that add commands to ``app`` when imported (one per further engine)."""


@app.command()
def epsilon(
    target: Target,
    settings: SetOption = None,
    horizon: HorizonOption = None,
    neighbours: NeighboursOption = None,
    delta: DeltaOption = None,
    as_json: JsonOption = False,
    timeout: TimeoutOption = None,
    max_states: StatesOption = None,
    arithmetic: ArithmeticOption = "float",
    cluster: ClusterOption = None,
    name: NameOption = None,
    engine: EngineOption = "auto",
    params: ParamOption = None,
    solver: SolverOption = None,
    encoding: EncodingOption = None,
    emit_smt2: EmitOption = None,
    precision: PrecisionOption = None,
    report: ReportOption = None,
) -> None:
    """Compute the exact privacy loss ε* (with --delta: the least ε with δ(ε) ≤ δ).

    With unknown parameters: the supremum of ε* over their domain.
    """
    given = locals()
    from faier import api

    run_result(
        "epsilon",
        lambda: api.epsilon(target, options_from(given), progress=progress),
        as_json,
        report,
        lambda result: result_extras(target, options_from(given), result),
    )


@app.command()
def verify(
    target: Target,
    eps: Annotated[
        str, typer.Option("--epsilon", "-e", "--claimed", help="ε, e.g. ln(2), 4*ln(2), 1.372")
    ],
    settings: SetOption = None,
    horizon: HorizonOption = None,
    neighbours: NeighboursOption = None,
    delta: DeltaOption = None,
    as_json: JsonOption = False,
    timeout: TimeoutOption = None,
    max_states: StatesOption = None,
    arithmetic: ArithmeticOption = "float",
    cluster: ClusterOption = None,
    name: NameOption = None,
    engine: EngineOption = "auto",
    params: ParamOption = None,
    solver: SolverOption = None,
    encoding: EncodingOption = None,
    emit_smt2: EmitOption = None,
    report: ReportOption = None,
) -> None:
    """Decide whether TARGET is ε-private (exit 0 holds, 1 violated, 3 unknown, 2 bad input).

    With unknown parameters: for every value in their domain (or where it fails).
    """
    given = locals()
    from faier import api

    run_result(
        "verify",
        lambda: api.verify(target, eps, options_from(given), progress=progress),
        as_json,
        report,
        lambda result: result_extras(target, options_from(given), result),
    )


@app.command()
def engines(as_json: JsonOption = False) -> None:
    """List the engines: what each answers, what it needs, and its installed back ends."""
    from faier.core import engine as registry

    found = [registry.get(name) for name in registry.names()]
    if as_json:
        data = [
            {
                "name": engine.name,
                "summary": engine.summary,
                "needs": engine.needs,
                "backends": {b.name: b.version for b in engine.backends()},
            }
            for engine in found
        ]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    table = Table(
        title="engines (--engine NAME; --engine auto asks them in this order)",
        title_justify="left",
    )
    for column in ("engine", "answers", "needs", "back ends"):
        table.add_column(column)
    for engine in found:
        backends = ", ".join(b.show() for b in engine.backends())
        table.add_row(engine.name, engine.summary, engine.needs, backends)
    (out if out.is_terminal else Console(width=WIDTH)).print(table)


@app.command()
def examples(as_json: JsonOption = False) -> None:
    """List the built-in case studies, their parameters and defaults."""
    from faier.examples.registry import EXAMPLES

    if as_json:
        data = [
            {
                "name": e.name,
                "title": e.title,
                "reference": e.reference,
                "parameters": [
                    {
                        "name": p.name,
                        "default": p.show_default(),
                        "help": p.help,
                        **({"choices": list(p.choices)} if p.choices else {}),
                    }
                    for p in e.parameters
                ],
                **(
                    {
                        "unknowns": [
                            {"name": u.name, "default": u.show_default(), "help": u.help}
                            for u in e.unknowns
                        ]
                    }
                    if e.unknowns
                    else {}
                ),
            }
            for e in EXAMPLES
        ]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    for example in EXAMPLES:
        table = Table(
            title=f"{example.name} — {example.title}",
            title_justify="left",
            caption=example.reference,
            caption_justify="left",
        )
        table.add_column("parameter")
        table.add_column("default")
        table.add_column("meaning")
        for p in example.parameters:
            meaning = p.help + (f" ({' | '.join(p.choices)})" if p.choices else "")
            table.add_row(p.name, p.show_default(), meaning)
        for u in example.unknowns:
            table.add_row(u.name, u.show_default(), f"{u.help} (--param {u.name}=… or 'in (a, b)')")
        out.print(table)


@app.command()
def demo(as_json: JsonOption = False) -> None:
    """Recompute FAIER journal Table 2 exactly, then decide StatDP's continuous-noise suite.

    Besides the journal's rows: Noisy Max with uniform ties for n = 3 (FAIER
    journal §6.2.2, §7.3.2) and n = 5 (FAIER conference §7.2), the max-value
    variant (Noisy Max notes, Ex. 7.2) and Above Threshold over unboundedly
    many queries (FAIER journal §6.3).  The second table: StatDP §5's
    mechanisms (and Gaussian variants) on 3 queries at ε₀ = 0.7, verdicts and
    ε* with certified arithmetic.  docs/REFERENCES.md cites the papers.
    """
    from faier import api
    from faier.examples import table2

    rows = []
    table = Table(title="faier: FAIER journal Table 2, recomputed exactly", title_justify="left")
    for column in (
        "mechanism",
        "privacy scenario",
        "paper",
        "verdict",
        "ε*",
        "counterexample",
        "time",
    ):
        table.add_column(column)
    wide = out if out.is_terminal else Console(width=150)
    try:
        for case, result in table2.run(
            api.verify, lambda c: err.print(f"… {c.mechanism}: {c.scenario}", highlight=False)
        ):
            rows.append(
                {
                    "mechanism": case.mechanism,
                    "scenario": case.scenario,
                    "paper": case.paper,
                    **result.to_json(),
                }
            )
            loss = result.epsilon_star or result.lower_bound
            star = "" if loss is None else loss.show()
            violated = result.verdict is Verdict.VIOLATED
            witness = result.witness.short() if result.witness and violated else ""
            if result.certificate is not None:
                growth = result.certificate.pi_rate / result.certificate.tau_rate
                witness = f"({' · '.join(result.certificate.block)})^k: ratio ≥ c·{growth}^k"
            verdict = result.verdict.value if result.verdict else ""
            table.add_row(
                case.mechanism,
                case.scenario,
                case.paper,
                verdict,
                star,
                witness,
                f"{result.statistics.seconds:.2f} s",
            )
        suite = _statdp_suite(rows)
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        wide.print(table)
        wide.print(suite)


def _statdp_suite(rows: list[dict[str, Any]]) -> Table:
    """StatDP's suite with continuous noise decided, appended to the demo's rows."""
    from faier import api
    from faier.examples import statdp_suite

    table = Table(
        title="StatDP's suite, continuous noise decided with certified arithmetic "
        f"(n = 3 queries over {{0, 1, 2}}, claim ε₀ = {statdp_suite.CLAIM})",
        title_justify="left",
    )
    for column in ("mechanism", "paper", "verdict", "ε* (certified)", "witness", "time"):
        table.add_column(column)
    for row in statdp_suite.run(
        api.verify, api.epsilon, lambda name: err.print(f"… {name}", highlight=False)
    ):
        result, star = row.verdict, row.epsilon
        rows.append(
            {
                "mechanism": row.example,
                "scenario": f"ε = {statdp_suite.CLAIM}, n = 3",
                "paper": row.paper,
                **result.to_json(),
                "epsilon_star_certified": star.to_json().get("epsilon_star"),
            }
        )
        shown = star.enclosure.brief() if star.enclosure is not None else ""
        if not shown and star.epsilon_star is not None:
            shown = star.epsilon_star.show()
        witness = result.certified_witness
        seconds = result.statistics.seconds + star.statistics.seconds
        table.add_row(
            row.example,
            row.paper,
            result.verdict.value if result.verdict else "",
            shown,
            witness.short() if witness is not None else "",
            f"{seconds:.2f} s",
        )
    return table


for _module in COMMAND_MODULES:
    importlib.import_module(_module)


def main(argv: list[str] | None = None) -> None:
    """The typer command line: every way out is one of the documented exit codes.

    typer turns bad usage into 2 and Ctrl-C into 130; the commands turn bad
    input into 2 and verdicts into 0, 1 or 3.  Anything else is faier's own
    failure: exit 4 with the traceback in a log file (and on stderr with
    ``--debug``), never a verdict.  The command runs in a forked child
    (:func:`faier.cli.exits.run_command`) whose exit code is passed back, so
    user code that ends the process (``os._exit``, a signal, a crash) ends
    in exit 4 too.  The console script is :func:`faier.cli.entry.main`, which
    runs a plain ``faier check`` without typer and hands the rest here.
    """
    sys.exit(run_command(_run_app, argv))


def _run_app(argv: list[str] | None) -> int:
    """Run the command in this process; its exit code."""
    return exit_code_of(lambda args: app(args=args), argv)
