"""faier's own Markov chain / MDP files for dpCTL* (YAML or JSON; see docs/LOGIC.md).

A file has ``transitions`` (a Markov chain) or ``actions`` (an MDP), never
both.  Every mistake is a :class:`~faier.errors.ModelError` naming the file,
the place inside it and the fix; a repeated key is an error, never silently
the last one.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from faier.errors import ModelError, SpecError
from faier.logic.models import LogicModel, logic_model, markov_chain, mdp
from faier.logic.neighbours import neighbour_spec_from_data
from faier.model.documents import read_document_file

KEYS = (
    "name",
    "description",
    "states",
    "initial",
    "labels",
    "transitions",
    "actions",
    "neighbours",
)
SUFFIXES = (".yaml", ".yml", ".json")


def load_logic_file(path: str | Path) -> LogicModel:
    """Read a chain/MDP file (``.yaml``, ``.yml`` or ``.json``)."""
    source = str(path)
    file = Path(path)
    if file.suffix.lower() not in SUFFIXES:
        raise ModelError(
            f"unknown file type {file.suffix or '(no suffix)'!r}",
            where=source,
            fix="name model files *.yaml, *.yml or *.json (PRISM files *.pm, *.prism, *.nm, *.sm)",
        )
    data = read_document_file(file, source)
    return parse_model_document(data, source=source, default_name=file.stem)


def _name(value: object, where: str) -> str:
    if isinstance(value, bool):
        raise ModelError(
            f"the name {value!r} was read as a boolean", where=where, fix=f"quote it: '{value}'"
        )
    if isinstance(value, int) or (isinstance(value, str) and value.strip()):
        return str(value)
    raise ModelError(f"expected a name, got {value!r}", where=where, fix="write a non-empty name")


def _names(value: object, where: str) -> list[str]:
    if not isinstance(value, list):
        raise ModelError(
            f"expected a list of names, got {value!r}", where=where, fix="write [a, b]"
        )
    return [_name(item, where) for item in value]


def _mapping(value: object, where: str, shape: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ModelError(f"expected a mapping, got {value!r}", where=where, fix=f"write {shape}")
    return {_name(k, where): v for k, v in value.items()}


def parse_model_document(data: object, *, source: str, default_name: str = "model") -> LogicModel:
    """A :class:`LogicModel` from parsed YAML/JSON (see docs/LOGIC.md for the schema)."""
    if not isinstance(data, Mapping):
        raise ModelError(
            "the top level is not a mapping",
            where=source,
            fix=f"write 'key: value' entries; keys are {', '.join(KEYS)}",
        )
    for key in data:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), KEYS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ModelError(
                f"unknown key {key!r}", where=source, fix=f"{hint}keys are {', '.join(KEYS)}"
            )
    if "transitions" in data and "actions" in data:
        raise ModelError(
            "both 'transitions' and 'actions' are given",
            where=source,
            fix="a Markov chain has transitions, an MDP has actions",
        )
    if data.get("states") is None:
        raise ModelError("missing 'states'", where=source, fix="list the states: states: [a, b]")
    states = _names(data["states"], f"{source}: states")
    labels = {
        label: _names(members, f"{source}: labels.{label}")
        for label, members in _mapping(
            data.get("labels") or {}, f"{source}: labels", "{out1: [s]}"
        ).items()
    }
    if "actions" in data:
        actions = _mapping(data["actions"], f"{source}: actions", "{state: {action: {next: 1/2}}}")
        table = {
            state: _mapping(offered, f"{source}: actions.{state}", "{action: {next: 1/2}}")
            for state, offered in actions.items()
        }
        system: Any = mdp(table, states=states, labels=labels, where=source)
    else:
        rows = _mapping(
            data.get("transitions") or {}, f"{source}: transitions", "{state: {next: 1/2}}"
        )
        system = markov_chain(rows, states=states, labels=labels, where=source)
    initial = data.get("initial")
    initial_states = None if initial is None else _names(initial, f"{source}: initial")
    neighbours = None
    if data.get("neighbours") is not None:
        neighbours = neighbour_spec_from_data(data["neighbours"], source=f"{source}: neighbours")
    name = data.get("name")
    try:
        return logic_model(
            _name(name, f"{source}: name") if name is not None else default_name,
            system,
            initial=initial_states,
            neighbours=neighbours,
            description=str(data.get("description") or ""),
            labels=labels,
        )
    except (ModelError, SpecError) as exc:
        raise (exc if exc.where and exc.where.startswith(source) else exc.located(source)) from None
