"""What dpCTL* is checked on: a Markov chain or MDP, its initial states and neighbours.

The Python builders take the shapes people write — label → states, rows as
``{"s": "3/4", "t": 1/4}``, states without a row staying where they are —
and check every row exactly (Storm's own builder accepts rows that do not
sum to 1; faier never hands it one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, TypeVar

from faier.errors import ModelError
from faier.logic.expressions import Valuations
from faier.logic.neighbours import NeighbourRelation, NeighbourSpec
from faier.logic.outcome import ModelSize
from faier.model.chains import MDP, MarkovChain
from faier.model.probability import ParsedProbability, check_row, parse_number

ProbabilityText = Fraction | int | str
_System = TypeVar("_System", MarkovChain, MDP)
STAY = "-"
"""The name of the one action of a state given no actions (it stays where it is)."""


@dataclass(frozen=True)
class LogicModel:
    """A model to check: the system, its initial states, its neighbour relation."""

    name: str
    system: MarkovChain | MDP
    initial: tuple[str, ...]
    neighbours: NeighbourRelation
    description: str = ""
    declared: frozenset[str] = frozenset()
    """Labels that exist even when no state carries them (a formula may name them)."""
    valuations: Valuations | None = field(default=None, compare=False)
    """Each state's variable values, where states are valuations (PRISM): formulas may
    then compare variables (``observe0 > 1``)."""
    built: Any = field(default=None, compare=False, repr=False)
    """Storm's build of the PRISM or JANI file, state i being ``system.states[i]``: its
    reward structures answer ``R`` questions where the rows are faier's own copy."""

    def __post_init__(self) -> None:
        known = set(self.system.states)
        if not self.initial:
            raise ModelError("no initial state", where=self.name, fix="name at least one state")
        for state in self.initial:
            if state not in known:
                raise ModelError(
                    f"initial state {state!r} is not a state",
                    where=self.name,
                    fix=f"states are {_few(self.system.states)}",
                )
        if set(self.neighbours.states) != known:
            raise ModelError(
                "the neighbour relation is over other states than the model", where=self.name
            )

    @property
    def kind(self) -> str:
        return "MDP" if isinstance(self.system, MDP) else "Markov chain"

    def label_sets(self) -> dict[str, frozenset[str]]:
        """Each label with the states that carry it (computed once per model)."""
        return dict(self._label_sets)

    def prefill_label_sets(self, by_label: Mapping[str, frozenset[str]]) -> None:
        """Give the label sets a loader already has (Storm keeps one set per label)."""
        sets: dict[str, frozenset[str]] = {label: frozenset() for label in self.declared}
        sets.update(by_label)
        self.__dict__["_label_sets"] = dict(sorted(sets.items()))

    @cached_property
    def _label_sets(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {label: set() for label in self.declared}
        for state in self.system.states:
            for label in self.system.label(state):
                out.setdefault(label, set()).add(state)
        return {label: frozenset(states) for label, states in sorted(out.items())}

    def with_neighbours(self, relation: NeighbourSpec | NeighbourRelation) -> LogicModel:
        """The same model with another neighbour relation (resolved against its states)."""
        if isinstance(relation, NeighbourSpec):
            relation = relation.resolve(self.system.states, self.label_sets())
        model = LogicModel(
            self.name,
            self.system,
            self.initial,
            relation,
            self.description,
            self.declared,
            self.valuations,
            self.built,
        )
        if "_label_sets" in self.__dict__:  # same system, same labels: keep what was computed
            model.__dict__["_label_sets"] = self._label_sets
        return model


def _row(row: Mapping[str, ProbabilityText], where: str) -> dict[str, Fraction]:
    if not isinstance(row, Mapping):
        raise ModelError(
            f"expected a mapping target → probability, got {row!r}",
            where=where,
            fix="write e.g. {s: 3/4, t: 1/4}",
        )
    parsed: dict[str, ParsedProbability] = {}
    for target, value in row.items():
        if isinstance(value, bool) or not isinstance(value, Fraction | int | float | str):
            raise ModelError(
                f"probability of {target!r} is {value!r}, not a number",
                where=where,
                fix="write 3/4 or 0.75",
            )
        try:
            parsed[str(target)] = ParsedProbability(*parse_number(value))
        except ValueError:
            raise ModelError(
                f"probability of {target!r} is {value!r}, not a number",
                where=where,
                fix="write a fraction like 3/4 or a decimal like 0.75",
            ) from None
    checked = check_row(parsed, where=where)
    out: dict[str, Fraction] = {}
    for target, p in checked.items():
        if not isinstance(p, Fraction):
            raise ModelError(f"probability of {target!r} is not a number", where=where)
        if p:
            out[target] = p
    return out


def _labels(
    labels: Mapping[str, Iterable[str]], states: Sequence[str], where: str
) -> dict[str, frozenset[str]]:
    known = set(states)
    by_state: dict[str, set[str]] = {}
    for label, members in labels.items():
        if isinstance(members, str):
            raise ModelError(
                f"label {label!r} lists {members!r} as text",
                where=f"{where}labels",
                fix=f"write a list: {label}: [{members}]",
            )
        for state in members:
            if state not in known:
                raise ModelError(
                    f"label {label!r} names {state!r}, which is not a state",
                    where=f"{where}labels",
                    fix=f"states are {_few(states)}",
                )
            by_state.setdefault(state, set()).add(label)
    return {state: frozenset(found) for state, found in by_state.items()}


def _states(
    states: Sequence[str] | None, rows: Mapping[str, object], where: str, section: str
) -> tuple[str, ...]:
    if states is None:
        return tuple(rows)
    out = tuple(states)
    known = set(out)
    if len(known) != len(out):
        raise ModelError("a state is listed twice", where=f"{where}states")
    for state in rows:
        if state not in known:
            raise ModelError(
                f"a row is given for {state!r}, which is not a state",
                where=f"{where}{section}",
                fix="add it to states, or correct the name",
            )
    return out


def markov_chain(
    transitions: Mapping[str, Mapping[str, ProbabilityText]],
    *,
    states: Sequence[str] | None = None,
    labels: Mapping[str, Iterable[str]] | None = None,
    where: str = "",
) -> MarkovChain:
    """A chain from rows ``state: {next: probability}``; a state without a row stays put."""
    prefix = f"{where}: " if where else ""
    names = _states(states, transitions, prefix, "transitions")
    rows = {
        state: (
            _row(transitions[state], f"{prefix}transitions.{state}")
            if state in transitions
            else {state: Fraction(1)}
        )
        for state in names
    }
    return _located(lambda: MarkovChain(names, rows, _labels(labels or {}, names, prefix)), where)


def mdp(
    actions: Mapping[str, Mapping[str, Mapping[str, ProbabilityText]]],
    *,
    states: Sequence[str] | None = None,
    labels: Mapping[str, Iterable[str]] | None = None,
    where: str = "",
) -> MDP:
    """An MDP from ``state: {action: {next: probability}}``; a state without actions stays put."""
    prefix = f"{where}: " if where else ""
    names = _states(states, actions, prefix, "actions")
    table: dict[str, dict[str, dict[str, Fraction]]] = {}
    for state in names:
        offered = actions.get(state)
        if offered is None:
            table[state] = {STAY: {state: Fraction(1)}}
            continue
        if not isinstance(offered, Mapping) or not offered:
            raise ModelError(
                f"state {state!r} offers no action",
                where=f"{prefix}actions.{state}",
                fix="write action: {next: probability}, or leave the state out to stay put",
            )
        table[state] = {
            str(action): _row(row, f"{prefix}actions.{state}.{action}")
            for action, row in offered.items()
        }
    return _located(lambda: MDP(names, table, _labels(labels or {}, names, prefix)), where)


def _located(build: Callable[[], _System], where: str) -> _System:
    try:
        return build()
    except ModelError as exc:  # located once: a row or label error may name ``where`` already
        placed = not where or (exc.where or "").startswith(where)
        raise (exc if placed else exc.located(where)) from None


def _few(states: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(states[:limit])
    return shown if len(states) <= limit else f"{shown}, ... ({len(states)} in all)"


def logic_model(
    name: str,
    system: MarkovChain | MDP,
    *,
    initial: Sequence[str] | None = None,
    neighbours: NeighbourSpec | NeighbourRelation | None = None,
    description: str = "",
    labels: Iterable[str] = (),
    valuations: Valuations | None = None,
    built: Any = None,
) -> LogicModel:
    """Bundle a system with initial states (default: all) and neighbours (default: none).

    ``labels`` names labels that may carry no state (a file declaring ``done: []``).
    """
    start = tuple(initial) if initial is not None else tuple(system.states)
    relation = NeighbourRelation.identity(system.states)
    model = LogicModel(
        name, system, start, relation, description, frozenset(labels), valuations, built
    )
    return model.with_neighbours(neighbours) if neighbours is not None else model


def model_size(system: MarkovChain | MDP) -> ModelSize:
    """States, transitions and choices: Storm's own counts where Storm built the model."""
    table = system.transitions if isinstance(system, MarkovChain) else system.actions
    built = getattr(table, "model", None)
    if built is not None:
        choices = built.nr_choices if isinstance(system, MDP) else None
        return ModelSize(built.nr_states, built.nr_transitions, choices)
    if isinstance(system, MarkovChain):
        rows = [system.transitions[s] for s in system.states]
        return ModelSize(len(rows), sum(len(row) for row in rows))
    offered = [system.actions[s] for s in system.states]
    return ModelSize(
        len(offered),
        sum(len(row) for choices in offered for row in choices.values()),
        sum(len(choices) for choices in offered),
    )
