"""HMM model files: one schema, written in YAML or JSON (see docs/MODEL_FILES.md).

A model file is where a user's mistakes surface, so every problem becomes a
:class:`~faier.errors.ModelError` that names the file, the place inside it
(``emissions.s0``) and the fix.  Saving writes probabilities as exact strings
(``1/6``, ``1 - p``) so that loading what was saved gives the same model back.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Protocol

from faier.errors import BudgetExceeded, ModelError
from faier.model.documents import read_document_file
from faier.model.hmm import HMM, MAX_HORIZON, Row, SparseRow, Vector, entries
from faier.model.parameters import PROBABILITY_DOMAIN, Interval, Parameter
from faier.model.probability import (
    ParsedProbability,
    Probability,
    check_row,
    format_probability,
    parse_number,
    parse_probability,
)

__all__ = [
    "KEYS",
    "HMMFile",
    "hmm_document",
    "load_hmm_file",
    "parse_hmm_document",
    "save_hmm_file",
]

KEYS = (
    "name",
    "description",
    "parameters",
    "states",
    "observations",
    "transitions",
    "emissions",
    "initial",
    "pairs",
    "horizon",
    "data",
)
"""The top-level keys a model file may use, in the order :func:`save_hmm_file` writes them."""

_REQUIRED = ("states", "observations", "emissions")
_FORMATS = {".yaml": "YAML", ".yml": "YAML", ".json": "JSON"}
_PARAMETER_KEYS = ("domain", "value")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class HMMFile:
    """An HMM together with what its file says to check: pairs and a horizon.

    ``source`` only labels messages, so two models read from different paths
    still compare equal.
    """

    name: str
    hmm: HMM
    pairs: tuple[tuple[str, str], ...]
    horizon: int | None
    description: str = ""
    source: str = field(default="", compare=False)
    data: Mapping[str, object] | None = field(default=None, hash=False)
    """A ``data:`` section (a correlated prior, read by :mod:`faier.privacy.datafile`)."""

    def __post_init__(self) -> None:
        where = self.source or self.name
        if self.horizon is not None and (
            isinstance(self.horizon, bool) or not isinstance(self.horizon, int) or self.horizon < 1
        ):
            raise ModelError(
                f"horizon must be a positive whole number, got {self.horizon!r}",
                where=f"{where}: horizon",
                fix="the horizon is the length of observation sequences, e.g. 2",
            )
        for pair in self.pairs:
            for name in pair:
                try:
                    self.distribution(name)
                except ModelError as exc:
                    raise exc.located(f"{where}: pairs") from None

    def distribution(self, name: str) -> Vector:
        """The initial distribution called ``name``, else the point mass on state ``name``.

        This is how a pair's names are read, so a pair can compare inputs
        (states) or priors (initial distributions) alike.
        """
        if name in self.hmm.initial:
            return self.hmm.initial[name]
        if name in self.hmm.states:
            return self.hmm.point_mass(name)
        names = (*self.hmm.initial, *self.hmm.states)
        raise ModelError(
            f"{name!r} is neither an initial distribution nor a state",
            fix=_known("names", name, names),
        )


# --- reading -----------------------------------------------------------------------


def load_hmm_file(path: str | Path, *, limits: LoadLimits | None = None) -> HMMFile:
    """Read a ``.yaml``/``.yml`` or ``.json`` model file, within ``limits`` if given."""
    source = str(path)
    file = Path(path)
    _format(file, source)
    document = read_document_file(file, source)
    if limits is not None:
        limits.check_time()
    return parse_hmm_document(document, source=source, limits=limits)


def parse_hmm_document(
    document: object, *, source: str, limits: LoadLimits | None = None
) -> HMMFile:
    """Build an :class:`HMMFile` from already-parsed YAML or JSON data."""
    if document is None:
        raise ModelError("the file is empty", where=source, fix="see docs/MODEL_FILES.md")
    if not isinstance(document, Mapping):
        raise ModelError(
            f"the top level is {_kind(document)}, not a mapping",
            where=source,
            fix=f"write 'key: value' entries; keys are {', '.join(KEYS)}",
        )
    doc: dict[str, object] = {}
    for key, value in document.items():
        if key not in KEYS:
            raise ModelError(
                f"unknown key {key!r}", where=source, fix=_known("keys", str(key), KEYS)
            )
        doc[key] = value
    for key in _REQUIRED:
        if doc.get(key) is None:
            raise ModelError(
                f"missing '{key}'",
                where=source,
                fix=f"every model file lists {', '.join(_REQUIRED)}",
            )
    reader = _Reader(source, limits)
    parameters = reader.parameters(doc.get("parameters"))
    names = tuple(p.name for p in parameters)
    states = reader.names(doc["states"], "states", "state")
    reader.within(states)
    observations = reader.names(doc["observations"], "observations", "observation")
    transition = reader.transitions(doc.get("transitions"), states, names)
    emission = reader.emissions(doc["emissions"], states, observations, names)
    initial = reader.initial(doc.get("initial"), states, names)
    try:
        hmm = HMM(states, observations, transition, emission, initial, parameters)
    except ModelError as exc:
        raise exc.located(source) from None
    return HMMFile(
        name=reader.text(doc.get("name"), "name", default=Path(source).stem or "model"),
        hmm=hmm,
        pairs=reader.pairs(doc.get("pairs"), states, initial),
        horizon=reader.horizon(doc.get("horizon")),
        description=reader.text(doc.get("description"), "description", default=""),
        source=source,
        data=reader.data(doc.get("data")),
    )


def _format(file: Path, source: str) -> str:
    try:
        return _FORMATS[file.suffix.lower()]
    except KeyError:
        raise ModelError(
            f"unknown file type {file.suffix or '(no suffix)'!r}",
            where=source,
            fix="name model files *.yaml, *.yml or *.json",
        ) from None


def _kind(value: object) -> str:
    """How a YAML/JSON value reads to a user, for messages."""
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return f"the boolean {value!r}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _listing(names: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, ... ({len(names)} in all)"


def _known(what: str, name: str, known: Sequence[str]) -> str:
    """A fix for an unknown name: the closest known one, then the known ones."""
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}{what} are {_listing(known) or '(none)'}"


def _positions(names: Sequence[str]) -> dict[str, int]:
    return {name: i for i, name in enumerate(names)}


class LoadLimits(Protocol):
    """What bounds loading a model file (``faier.core.budget.Budget`` is one): a cap on the
    states, checked before any row is built, and a deadline checked row by row; both raise
    :class:`~faier.errors.BudgetExceeded`."""

    @property
    def max_states(self) -> int | None: ...

    def check_time(self) -> None: ...


@dataclass(frozen=True)
class _Reader:
    """Turns each section of a parsed document into model values, locating every error."""

    source: str
    limits: LoadLimits | None = None

    def tick(self) -> None:
        """Between rows: past the deadline, stop (a model of 10⁶ states takes a while)."""
        if self.limits is not None:
            self.limits.check_time()

    def within(self, states: tuple[str, ...]) -> None:
        """Refuse a model with more states than the state budget, before building it."""
        cap = None if self.limits is None else self.limits.max_states
        if cap is not None and len(states) > cap:
            raise BudgetExceeded(
                f"state budget of {cap} exhausted: {self.source} declares {len(states)} "
                "states (not loaded)"
            )

    def error(self, place: str, message: str, fix: str) -> ModelError:
        return ModelError(message, where=f"{self.source}: {place}", fix=fix)

    def mapping(self, value: object, place: str, shape: str) -> Mapping[object, object]:
        if not isinstance(value, Mapping):
            raise self.error(place, f"expected a mapping, got {_kind(value)}", f"write {shape}")
        return value

    def name(self, value: object, place: str, what: str) -> str:
        """A name as text; YAML reads ``0`` as an int, which is fine, but not ``yes``."""
        if isinstance(value, bool):
            raise self.error(
                place, f"{what} name {value!r} was read as a boolean", f"quote it: '{value}'"
            )
        if isinstance(value, int):
            return str(value)
        if isinstance(value, str) and value.strip():
            return value
        raise self.error(
            place, f"{what} names must be non-empty text, got {_kind(value)}", "write a name"
        )

    def names(self, value: object, place: str, what: str) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not value:
            raise self.error(
                place,
                f"expected a non-empty list of {what} names, got {_kind(value)}",
                f"write e.g. {place}: [a, b]",
            )
        out: dict[str, None] = {}
        for item in value:
            name = self.name(item, place, what)
            if name in out:
                raise self.error(place, f"{what} {name!r} is listed twice", "list each name once")
            out[name] = None
        return tuple(out)

    def parameters(self, value: object) -> tuple[Parameter, ...]:
        if value is None:
            return ()
        section = self.mapping(value, "parameters", "e.g. 'p: {domain: \"(0, 1)\"}'")
        out: list[Parameter] = []
        for key, spec in section.items():
            name = self.name(key, "parameters", "parameter")
            place = f"parameters.{name}"
            domain_text: object = None
            raw_value: object = None
            if isinstance(spec, str):
                domain_text = spec
            elif isinstance(spec, Mapping):
                for field_name in spec:
                    if field_name not in _PARAMETER_KEYS:
                        raise self.error(
                            place,
                            f"unknown key {field_name!r}",
                            _known("keys", str(field_name), _PARAMETER_KEYS),
                        )
                domain_text = spec.get("domain")
                raw_value = spec.get("value")
            elif spec is not None:
                raise self.error(
                    place,
                    f"expected a domain or a mapping, got {_kind(spec)}",
                    'write e.g. {domain: "(0, 1)"} or {domain: "[0, 1]", value: 1/3}',
                )
            if not _IDENTIFIER.fullmatch(name):
                raise self.error(
                    place,
                    f"parameter name {name!r} is not an identifier",
                    "use letters, digits and _, starting with a letter, e.g. p or p_2",
                )
            domain = self.domain(domain_text, f"{place}.domain")
            fixed = None if raw_value is None else self.number(raw_value, f"{place}.value")
            if fixed is not None and not domain.contains(fixed):
                raise self.error(
                    place,
                    f"the value {fixed} of parameter {name!r} lies outside its domain {domain}",
                    "choose a value inside the domain, or widen the domain",
                )
            out.append(Parameter(name, domain, fixed))
        return tuple(out)

    def domain(self, value: object, place: str) -> Interval:
        if value is None:
            return PROBABILITY_DOMAIN
        if not isinstance(value, str):
            raise self.error(
                place,
                f"a domain is an interval written as text, got {_kind(value)}",
                'quote it, e.g. "(0, 1)" or "[0, 1/2]" (YAML reads [0, 1] as a list)',
            )
        try:
            return Interval.parse(value)
        except ModelError as exc:
            raise ModelError(
                exc.message,
                where=f"{self.source}: {place}",
                fix=exc.fix or "write e.g. (0, 1) or [0, 1/2]: numbers, the smaller one first",
            ) from None

    def number(self, value: object, place: str) -> Fraction:
        finite = not (isinstance(value, float) and not math.isfinite(value))
        if isinstance(value, int | float | str) and not isinstance(value, bool) and finite:
            try:
                return parse_number(value)[0]
            except ValueError:
                pass
        raise self.error(place, f"expected a number, got {_kind(value)}", "write e.g. 1/3 or 0.25")

    def row(
        self,
        value: object,
        place: str,
        known: tuple[str, ...],
        what: str,
        parameters: tuple[str, ...],
    ) -> Vector:
        """One distribution over ``known`` names; names left out get probability 0."""
        values = self._row_values(value, place, _positions(known), known, what, parameters)
        return tuple(values.get(name, Fraction(0)) for name in known)

    def _row_values(
        self,
        value: object,
        place: str,
        positions: Mapping[str, int],
        known: tuple[str, ...],
        what: str,
        parameters: tuple[str, ...],
    ) -> Mapping[str, Probability]:
        """A row's written entries, checked to be one distribution over ``known``."""
        shape = f"'{what}: probability' entries, e.g. {{a: 1/2, b: 1/2}}"
        section = self.mapping(value, place, shape)
        parsed: dict[str, ParsedProbability] = {}
        for key, raw in section.items():
            name = self.name(key, place, what)
            if name not in positions:
                raise self.error(place, f"unknown {what} {name!r}", _known(f"{what}s", name, known))
            if name in parsed:
                raise self.error(place, f"{what} {name!r} appears twice", "keep one entry")
            parsed[name] = self.probability(raw, f"{place}.{name}", parameters)
        return check_row(parsed, where=f"{self.source}: {place}")

    def probability(
        self, raw: object, place: str, parameters: tuple[str, ...]
    ) -> ParsedProbability:
        if isinstance(raw, float) and not math.isfinite(raw):
            raise self.error(place, f"{raw!r} is not a probability", "probabilities lie in [0, 1]")
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise self.error(
                place,
                f"expected a probability, got {_kind(raw)}",
                "write a fraction like 1/6, a decimal like 0.25, or an expression like 1-p",
            )
        try:
            return parse_probability(raw, parameters, where=f"{self.source}: {place}")
        except ModelError as exc:
            if exc.fix:
                raise
            raise ModelError(
                exc.message,
                where=exc.where,
                fix="write a fraction like 1/6, a decimal like 0.25, or an expression like 1-p",
            ) from None

    def transitions(
        self, value: object, states: tuple[str, ...], parameters: tuple[str, ...]
    ) -> tuple[SparseRow, ...]:
        """Rows for every state, kept sparse (as many entries as the file writes); a state
        left out is absorbing (stays with probability 1)."""
        positions = _positions(states)
        n = len(states)
        given: dict[str, SparseRow] = {}
        if value is not None:
            section = self.mapping(value, "transitions", "state: {next-state: probability}")
            for key, row in section.items():
                self.tick()
                state = self.name(key, "transitions", "state")
                if state not in positions:
                    raise self.error(
                        "transitions", f"unknown state {state!r}", _known("states", state, states)
                    )
                if state in given:
                    raise self.error(
                        "transitions", f"state {state!r} appears twice", "keep one row"
                    )
                values = self._row_values(
                    row, f"transitions.{state}", positions, states, "state", parameters
                )
                given[state] = SparseRow(n, {positions[t]: p for t, p in values.items()})
        return tuple(given.get(s) or SparseRow(n, {i: Fraction(1)}) for i, s in enumerate(states))

    def emissions(
        self,
        value: object,
        states: tuple[str, ...],
        observations: tuple[str, ...],
        parameters: tuple[str, ...],
    ) -> tuple[Vector, ...]:
        section = self.mapping(value, "emissions", "state: {observation: probability}")
        known, outputs = _positions(states), _positions(observations)
        given: dict[str, Vector] = {}
        for key, row in section.items():
            self.tick()
            state = self.name(key, "emissions", "state")
            if state not in known:
                raise self.error(
                    "emissions", f"unknown state {state!r}", _known("states", state, states)
                )
            if state in given:
                raise self.error("emissions", f"state {state!r} appears twice", "keep one row")
            values = self._row_values(
                row, f"emissions.{state}", outputs, observations, "observation", parameters
            )
            given[state] = tuple(values.get(name, Fraction(0)) for name in observations)
        missing = [s for s in states if s not in given]
        if missing:
            raise self.error(
                "emissions",
                f"no emissions for state {missing[0]!r}",
                "every state needs a row 'state: {observation: probability}'",
            )
        return tuple(given[s] for s in states)

    def initial(
        self, value: object, states: tuple[str, ...], parameters: tuple[str, ...]
    ) -> dict[str, Vector]:
        if value is None:
            return {}
        section = self.mapping(value, "initial", "name: {state: probability}")
        out: dict[str, Vector] = {}
        for key, row in section.items():
            name = self.name(key, "initial", "initial distribution")
            if name in states:
                raise self.error(
                    "initial",
                    f"initial distribution {name!r} has the name of a state",
                    "rename it: in pairs a state name means the point mass on that state",
                )
            if name in out:
                raise self.error(
                    "initial", f"initial distribution {name!r} appears twice", "keep one"
                )
            out[name] = self.row(row, f"initial.{name}", states, "state", parameters)
        return out

    def pairs(
        self, value: object, states: tuple[str, ...], initial: Mapping[str, Vector]
    ) -> tuple[tuple[str, str], ...]:
        if value is None:
            return ()
        if not isinstance(value, list | tuple):
            raise self.error(
                "pairs",
                f"expected a list of pairs, got {_kind(value)}",
                "write e.g. pairs: [[with-secret, without-secret]]",
            )
        known = (*initial, *states)
        out: list[tuple[str, str]] = []
        for i, item in enumerate(value):
            place = f"pairs[{i}]"
            if not isinstance(item, list | tuple) or len(item) != 2:
                raise self.error(
                    place,
                    f"a pair is a list of two names, got {_kind(item)}",
                    "write e.g. [with-secret, without-secret]",
                )
            left, right = (self.name(x, place, "distribution") for x in item)
            for name in (left, right):
                if name not in known:
                    raise self.error(
                        place,
                        f"{name!r} is neither an initial distribution nor a state",
                        _known("names", name, known),
                    )
            if left == right:
                raise self.error(
                    place,
                    f"the pair compares {left!r} with itself",
                    "compare two different distributions or states",
                )
            if (left, right) in out or (right, left) in out:
                raise self.error(
                    place,
                    f"the pair of {left!r} and {right!r} is listed twice",
                    "list each pair once; both orders are always checked",
                )
            out.append((left, right))
        return tuple(out)

    def data(self, value: object) -> Mapping[str, object] | None:
        """Kept as written; the privacy layer reads it (it needs the parameters' values)."""
        if value is None:
            return None
        section = self.mapping(value, "data", "records, a model, query and pairs")
        return {str(k): v for k, v in section.items()}

    def horizon(self, value: object) -> int | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.error(
                "horizon",
                f"expected a positive whole number, got {_kind(value)}",
                "the horizon is the length of observation sequences, e.g. horizon: 2",
            )
        if value > MAX_HORIZON:
            raise self.error(
                "horizon",
                f"{value} is longer than faier searches (at most {MAX_HORIZON})",
                "give a shorter horizon, or leave it out to look for an unbounded loss",
            )
        return value

    def text(self, value: object, place: str, *, default: str) -> str:
        if value is None:
            return default
        if not isinstance(value, str):
            raise self.error(place, f"expected text, got {_kind(value)}", "quote it")
        return value


# --- writing -----------------------------------------------------------------------


def _row_document(names: Sequence[str], row: Row) -> dict[str, str]:
    """Non-zero entries only: a missing name means probability 0 when read back."""
    return {names[i]: format_probability(p) for i, p in entries(row)}


def _absorbing(row: Row, state: int) -> bool:
    """Whether a transition row stays at ``state`` with probability 1 (the default)."""
    return [(i, p) for i, p in entries(row)] == [(state, Fraction(1))]


def hmm_document(model: HMMFile) -> dict[str, object]:
    """The YAML/JSON data for a model, probabilities as exact strings."""
    hmm = model.hmm
    doc: dict[str, object] = {"name": model.name}
    if model.description:
        doc["description"] = model.description
    if hmm.parameters:
        parameters: dict[str, dict[str, str]] = {}
        for p in hmm.parameters:
            entry = {"domain": str(p.domain)}
            if p.value is not None:
                entry["value"] = str(p.value)
            parameters[p.name] = entry
        doc["parameters"] = parameters
    doc["states"] = list(hmm.states)
    doc["observations"] = list(hmm.observations)
    transitions = {
        s: _row_document(hmm.states, row)
        for i, (s, row) in enumerate(zip(hmm.states, hmm.transition, strict=True))
        if not _absorbing(row, i)
    }
    if transitions:
        doc["transitions"] = transitions
    doc["emissions"] = {
        s: _row_document(hmm.observations, row)
        for s, row in zip(hmm.states, hmm.emission, strict=True)
    }
    if hmm.initial:
        doc["initial"] = {k: _row_document(hmm.states, v) for k, v in hmm.initial.items()}
    if model.pairs:
        doc["pairs"] = [list(pair) for pair in model.pairs]
    if model.horizon is not None:
        doc["horizon"] = model.horizon
    if model.data is not None:
        doc["data"] = dict(model.data)
    return doc


def save_hmm_file(model: HMMFile, path: str | Path) -> None:
    """Write YAML or JSON by the file's suffix, so that loading it gives ``model`` back."""
    file = Path(path)
    kind = _format(file, str(path))
    doc = hmm_document(model)
    if kind == "YAML":
        import yaml

        text = yaml.safe_dump(
            doc, sort_keys=False, default_flow_style=None, allow_unicode=True, width=100
        )
    else:
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        file.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ModelError(
            f"cannot write the file: {exc.strerror}",
            where=str(path),
            fix="check that the folder exists and is writable",
        ) from None
