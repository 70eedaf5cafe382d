"""The ``faier`` command: parses arguments, calls the API, prints; no logic of its own.

Exit codes: 0 holds (or ε* computed), 1 violated, 2 bad input, 3 unknown.
Foundation commands live here; each further engine registers its commands from
its own module, listed in ``COMMAND_MODULES``.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from faier import api
from faier.cli.common import (
    ArithmeticOption,
    DeltaOption,
    HorizonOption,
    JsonOption,
    NameOption,
    NeighboursOption,
    SetOption,
    StatesOption,
    Target,
    TimeoutOption,
    app,
    err,
    error_line,
    out,
    parse_settings,
    progress,
    run_result,
)
from faier.cli.smt import (
    EmitOption,
    EncodingOption,
    EngineOption,
    ParamOption,
    PrecisionOption,
    SolverOption,
)
from faier.errors import InputError
from faier.examples import table2
from faier.examples.registry import EXAMPLES
from faier.results import Verdict

COMMAND_MODULES: tuple[str, ...] = ("faier.cli.smt", "faier.cli.check", "faier.cli.testing")
"""Modules that add commands to ``app`` when imported (one per further engine)."""


@app.command()
def epsilon(
    target: Target,
    set_: SetOption = None,
    horizon: HorizonOption = None,
    neighbors: NeighboursOption = None,
    delta: DeltaOption = None,
    as_json: JsonOption = False,
    timeout: TimeoutOption = None,
    max_states: StatesOption = None,
    arithmetic: ArithmeticOption = "float",
    name: NameOption = None,
    engine: EngineOption = "auto",
    param: ParamOption = None,
    solver: SolverOption = None,
    encoding: EncodingOption = None,
    emit_smt2: EmitOption = None,
    precision: PrecisionOption = None,
) -> None:
    """Compute the exact privacy loss ε* (with --delta: the least ε with δ(ε) ≤ δ).

    With unknown parameters: the supremum of ε* over their domain.
    """
    run_result(
        lambda: api.epsilon(
            target,
            settings=parse_settings(set_),
            neighbours=neighbors,
            horizon=horizon,
            delta=delta,
            timeout=timeout,
            max_states=max_states,
            arithmetic=arithmetic,
            name=name,
            progress=progress,
            engine=engine,
            params=param,
            solver=solver,
            encoding=encoding,
            emit_smt2=emit_smt2,
            precision=precision,
        ),
        as_json,
    )


@app.command()
def verify(
    target: Target,
    eps: Annotated[str, typer.Option("--epsilon", "-e", help="ε, e.g. ln(2), 4*ln(2), 1.372")],
    set_: SetOption = None,
    horizon: HorizonOption = None,
    neighbors: NeighboursOption = None,
    delta: DeltaOption = None,
    as_json: JsonOption = False,
    timeout: TimeoutOption = None,
    max_states: StatesOption = None,
    arithmetic: ArithmeticOption = "float",
    name: NameOption = None,
    engine: EngineOption = "auto",
    param: ParamOption = None,
    solver: SolverOption = None,
    encoding: EncodingOption = None,
    emit_smt2: EmitOption = None,
) -> None:
    """Decide whether TARGET is ε-private (exit 0 holds, 1 violated, 3 unknown, 2 bad input).

    With unknown parameters: for every value in their domain (or where it fails).
    """
    run_result(
        lambda: api.verify(
            target,
            eps,
            settings=parse_settings(set_),
            neighbours=neighbors,
            horizon=horizon,
            delta=delta,
            timeout=timeout,
            max_states=max_states,
            arithmetic=arithmetic,
            name=name,
            progress=progress,
            engine=engine,
            params=param,
            solver=solver,
            encoding=encoding,
            emit_smt2=emit_smt2,
        ),
        as_json,
    )


@app.command()
def examples(as_json: JsonOption = False) -> None:
    """List the built-in case studies, their parameters and defaults."""
    if as_json:
        data = [
            {
                "name": e.name,
                "title": e.title,
                "seed": e.seed,
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
            caption=example.seed,
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
    """Recompute the seeds' Table 2 exactly from the built-in case studies."""
    rows = []
    table = Table(
        title="faier: the FAIER papers' Table 2, recomputed exactly", title_justify="left"
    )
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
            lambda c: err.print(f"… {c.mechanism}: {c.scenario}", highlight=False)
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
    except InputError as problem:
        error_line(problem.render())
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        wide.print(table)


for _module in COMMAND_MODULES:
    importlib.import_module(_module)


def main() -> None:
    """Console-script entry point."""
    app()
