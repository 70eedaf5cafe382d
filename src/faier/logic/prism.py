"""PRISM DTMC and MDP files, read and built (exactly) by Storm, checked by faier.

The built model becomes a faier :class:`MarkovChain` or :class:`MDP`, so
rows are checked to sum to 1 exactly (Storm builds PRISM commands whose
probabilities do not) and every state gets a readable name: its variable
valuation, ``s=0`` or ``s=0,b=true``.  Undefined constants are given with
``--set NAME=VALUE``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from faier.errors import ModelError
from faier.logic._storm import stormpy, to_fraction
from faier.logic.models import LogicModel, logic_model
from faier.model.chains import MDP, MarkovChain
from faier.model.probability import parse_number

SUFFIXES = (".pm", ".prism", ".nm")
_PARSE_ERROR = re.compile(r"Parsing error at (\d+):(\d+):\s*(.*?),? here:", re.DOTALL)


def load_prism(path: str | Path, constants: Mapping[str, str] | None = None) -> LogicModel:
    """Build a PRISM DTMC or MDP exactly; states are named by their valuations."""
    source = str(path)
    if not Path(path).is_file():
        raise ModelError("file not found", where=source, fix="check the path and the file name")
    sp = stormpy()
    try:
        program = sp.parse_prism_program(source)
    except RuntimeError as exc:
        found = _PARSE_ERROR.search(str(exc))
        if found:
            line, column, what = found.groups()
            raise ModelError(
                f"not valid PRISM: {what}",
                where=f"{source}: line {line}, column {column}",
                fix="see the PRISM manual's syntax for that construct",
            ) from None
        raise ModelError(_storm_message(exc), where=source, fix="see the PRISM manual") from None
    kind = str(program.model_type).rsplit(".", 1)[-1]
    if kind not in ("DTMC", "MDP"):
        raise ModelError(
            f"a {kind} model", where=source, fix="faier checks dpCTL* on DTMCs and MDPs only"
        )
    program = _define(program, dict(constants or {}), source)
    try:
        built = sp.build_model[sp.Rational](program, options=sp.BuilderOptions(build_full=True))
    except RuntimeError as exc:
        raise ModelError(_storm_message(exc), where=source) from None
    names = _state_names(built)
    labels = {names[s.id]: frozenset(label for label in s.labels) for s in built.states}
    initial = tuple(names[i] for i in built.initial_states)
    system = _convert(built, names, labels, kind, source)
    return logic_model(
        Path(path).stem,
        system,
        initial=initial,
        description=f"PRISM {kind}",
        labels=built.labeling.get_labels(),
    )


def _storm_message(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text.split("Note that the used API")[0].strip()


def _define(program: Any, given: dict[str, str], source: str) -> Any:
    sp = stormpy()
    undefined = {c.name: c for c in program.constants if not c.defined}
    for name in given:
        if name not in undefined:
            raise ModelError(
                f"--set {name}: the model has no undefined constant {name!r}",
                where=source,
                fix=f"undefined constants: {', '.join(undefined) or '(none)'}",
            )
    missing = [name for name in undefined if name not in given]
    if missing:
        raise ModelError(
            f"undefined constants: {', '.join(missing)}",
            where=source,
            fix="give them with --set NAME=VALUE, e.g. --set " + f"{missing[0]}=1",
        )
    if not undefined:
        return program
    values: dict[str, Any] = {}
    for name, text in given.items():
        kind = str(undefined[name].type)
        if kind == "bool":
            if text not in ("true", "false"):
                raise ModelError(f"--set {name}={text}: expected true or false", where=source)
            values[name] = text == "true"
            continue
        try:
            number = parse_number(text)[0]
        except ValueError:
            raise ModelError(f"--set {name}={text}: not a number", where=source) from None
        if kind == "int":
            if number.denominator != 1:
                raise ModelError(f"--set {name}={text}: {name} is an int", where=source)
            values[name] = int(number)
        else:
            values[name] = sp.Rational(str(number))
    instantiated, _ = sp.instantiate_constants(program, values)
    return instantiated


def _state_names(built: Any) -> dict[int, str]:
    names: dict[int, str] = {}
    for state in built.states:
        valuation = json.loads(str(built.state_valuations.to_json(state.id)))
        text = ",".join(
            f"{var}={str(value).lower() if isinstance(value, bool) else value}"
            for var, value in valuation.items()
        )
        names[state.id] = text or str(state.id)
    if len(set(names.values())) != len(names):
        names = {i: f"{name}#{i}" for i, name in names.items()}
    return names


def _convert(
    built: Any, names: dict[int, str], labels: dict[str, frozenset[str]], kind: str, source: str
) -> MarkovChain | MDP:
    order = tuple(names[i] for i in sorted(names))
    try:
        if kind == "DTMC":
            rows = {names[s.id]: _row(s.actions[0].transitions, names) for s in built.states}
            return MarkovChain(order, rows, labels)
        matrix = built.transition_matrix
        table: dict[str, dict[str, dict[str, Fraction]]] = {}
        for state in built.states:
            start = matrix.get_row_group_start(state.id)
            offered: dict[str, dict[str, Fraction]] = {}
            for action in state.actions:
                tags = sorted(built.choice_labeling.get_labels_of_choice(start + action.id))
                name = "+".join(tags) or "-"
                if name in offered:
                    name = f"{name}#{action.id}"
                offered[name] = _row(action.transitions, names)
            table[names[state.id]] = offered
        return MDP(order, table, labels)
    except ModelError as exc:
        raise exc.located(source) from None


def _row(transitions: Any, names: dict[int, str]) -> dict[str, Fraction]:
    row: dict[str, Fraction] = {}
    for entry in transitions:
        target = names[entry.column]
        row[target] = row.get(target, Fraction(0)) + to_fraction(entry.value)
    return row
