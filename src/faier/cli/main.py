"""The ``faier`` command: parses arguments, calls the API, prints; no logic of its own.

Exit codes: 0 holds (or ε* computed), 1 violated, 2 bad input, 3 unknown.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from faier import api
from faier.errors import FaierError, InputError
from faier.examples import table2
from faier.examples.registry import EXAMPLES
from faier.report.terminal import render
from faier.results import Result, Verdict

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Exact verification of differential and Pufferfish privacy for discrete mechanisms.",
)
out = Console()
err = Console(stderr=True)

Target = Annotated[
    str, typer.Argument(help="built-in example, model file (.yaml/.json) or mechanism file (.py)")
]
SetOption = Annotated[
    list[str] | None, typer.Option("--set", help="example or model parameter NAME=VALUE")
]
HorizonOption = Annotated[
    int | None,
    typer.Option("--horizon", help="length of observation sequences / number of queries"),
]
NeighboursOption = Annotated[
    str | None,
    typer.Option(
        "--neighbors", "--neighbours", help="every-query[:Δ], one-query[:Δ] or add-remove"
    ),
]
DeltaOption = Annotated[Optional[str], typer.Option("--delta", help="δ for (ε, δ)-DP")]  # noqa: UP045
JsonOption = Annotated[bool, typer.Option("--json", help="print machine-readable JSON")]
TimeoutOption = Annotated[
    float | None, typer.Option("--timeout", help="seconds before answering 'unknown'")
]
StatesOption = Annotated[
    int | None, typer.Option("--max-states", help="state budget before answering 'unknown'")
]
NameOption = Annotated[str | None, typer.Option("--name", help="which mechanism of a Python file")]


def _settings(pairs: list[str] | None) -> dict[str, str]:
    settings: dict[str, str] = {}
    for pair in pairs or []:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InputError(f"--set needs NAME=VALUE, got {pair!r}", fix="e.g. --set n=5")
        settings[name.strip()] = value.strip()
    return settings


def _error(message: str) -> None:
    """One unwrapped line on stderr; ``[a, b]`` in a message is text, not rich markup."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)


def _run(action: Callable[[], Result], as_json: bool) -> None:
    """Run an API call; bad input becomes one message and exit 2."""
    try:
        with err.status("computing…", spinner="dots") if err.is_terminal else _null():
            result = action()
    except InputError as problem:
        _error(problem.render())
        raise typer.Exit(2) from None
    except FaierError as problem:
        _error(str(problem))
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        render(result, out)
    raise typer.Exit(result.exit_code)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: Any) -> None:
        return None


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
    name: NameOption = None,
) -> None:
    """Compute the exact privacy loss ε* (with --delta: the least ε with δ(ε) ≤ δ)."""
    _run(
        lambda: api.epsilon(
            target,
            settings=_settings(set_),
            neighbours=neighbors,
            horizon=horizon,
            delta=delta,
            timeout=timeout,
            max_states=max_states,
            name=name,
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
    name: NameOption = None,
) -> None:
    """Decide whether TARGET is ε-private (exit 0 holds, 1 violated, 3 unknown, 2 bad input)."""
    _run(
        lambda: api.verify(
            target,
            eps,
            settings=_settings(set_),
            neighbours=neighbors,
            horizon=horizon,
            delta=delta,
            timeout=timeout,
            max_states=max_states,
            name=name,
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
        _error(problem.render())
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    else:
        wide.print(table)


def main() -> None:
    """Console-script entry point."""
    app()
