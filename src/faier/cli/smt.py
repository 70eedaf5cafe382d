"""The ``closed-form`` command of the SMT engine (its options are declared in core.options).

Parameters are set with ``--param`` (``p=0.3`` fixes, ``'p in (0, 1)'``
ranges, ``'pA <= pB'`` constrains); ``--engine auto`` uses the exact engine
when every parameter is fixed and the SMT engine when some remain.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from faier.cli.common import (
    HorizonOption,
    JsonOption,
    NameOption,
    ParamOption,
    PrecisionOption,
    SetOption,
    SolverOption,
    TimeoutOption,
    app,
    options_from,
    out,
)
from faier.cli.exits import bad_input_exits
from faier.results import show_point

if TYPE_CHECKING:
    from faier.engines.smt.closed_form import ClosedForms

OutputOption = Annotated[
    str | None,
    typer.Option("--output", help="one outcome (e.g. '2~' or 'start 1'): also ε*(θ) and its sup"),
]


def _forms_json(forms: ClosedForms) -> dict[str, Any]:
    from faier.engines.smt.closed_form import show

    data: dict[str, Any] = {
        "parameters": forms.space.describe(),
        "pairs": [
            {
                "left": pair.left_name,
                "right": pair.right_name,
                "outcomes": [
                    {
                        "outcome": " ".join(row.outcome),
                        "left": show(row.left, forms.space),
                        "right": show(row.right, forms.space),
                        "ratio": show(row.ratio, forms.space),
                    }
                    for row in pair.rows
                ],
            }
            for pair in forms.pairs
        ],
    }
    if forms.supremum is not None:
        sup = forms.supremum
        data["supremum"] = {
            "exact": None if sup.exact is None else str(sup.exact),
            "lower": None if sup.lower is None else str(sup.lower),
            "upper": None if sup.upper is None else str(sup.upper),
            "infinite": sup.infinite,
            "attained": sup.attained,
        }
    return data


def _print_forms(forms: ClosedForms) -> None:
    from faier.engines.smt.closed_form import ratio_text, show

    out.print(Text(f"parameters: {forms.space.describe()}"))
    for pair in forms.pairs:
        table = Table(title=f"{pair.left_name}  vs  {pair.right_name}", title_justify="left")
        table.add_column("outcome")
        table.add_column(escape(f"Pr[outcome | {pair.left_name}]"))
        table.add_column(escape(f"Pr[outcome | {pair.right_name}]"))
        table.add_column("ratio")
        for row in pair.rows:
            table.add_row(
                Text(" ".join(row.outcome)),
                Text(show(row.left, forms.space)),
                Text(show(row.right, forms.space)),
                Text(show(row.ratio, forms.space)),
            )
        out.print(table)
    sup = forms.supremum
    if sup is None or forms.outcome is None:
        return
    label = " ".join(forms.outcome)
    out.print(Text(f"ε*(θ) for {label} = ln max(ratio, 1/ratio) over the pairs above"))
    if sup.infinite:
        out.print(Text("sup over the domain: ∞ (the outcome is impossible on one side only)"))
    elif sup.exact is not None:
        attained = {True: "attained", False: "not attained (a limit)", None: "attainment unknown"}
        out.print(Text(f"sup over the domain: {ratio_text(sup.exact)}, {attained[sup.attained]}"))
        if sup.limit:
            out.print(Text(f"approached at {show_point(sup.limit)}"))
    elif sup.lower is not None:
        upper = ratio_text(sup.upper) if sup.upper is not None else "unknown"
        out.print(Text(f"sup over the domain: between {ratio_text(sup.lower)} and {upper}"))
    if sup.found is not None:
        out.print(Text(f"best point found: {show_point(sup.found.values)}"))


@app.command("closed-form")
def closed_form(
    target: Annotated[str, typer.Argument(help="built-in example or model file")],
    settings: SetOption = None,
    params: ParamOption = None,
    horizon: HorizonOption = None,
    output: OutputOption = None,
    solver: SolverOption = None,
    timeout: TimeoutOption = None,
    precision: PrecisionOption = None,
    as_json: JsonOption = False,
    name: NameOption = None,
) -> None:
    """Print each outcome's probability under each prior as a function of the parameters."""
    given = locals()
    from faier import api

    with bad_input_exits():
        forms = api.closed_forms(target, options_from(given), output=output)
    if as_json:
        sys.stdout.write(json.dumps(_forms_json(forms), ensure_ascii=False, indent=2) + "\n")
    else:
        _print_forms(forms)
