"""Neighbour relations on the states of a model: which states D compares.

A relation is reflexive and symmetric (dpCTL* §5).  Users write some pairs —
explicit state pairs, label pairs ("every in0-state neighbours every
in1-state") or a Python predicate — and :class:`NeighbourRelation` closes
them under symmetry, recording how many pairs that added, and rejects names
that are not states or labels of the model.  Reflexive pairs are implicit:
a state's probability is always (ε, δ)-close to itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from faier.errors import SpecError


def _suggest(what: str, name: str, known: Sequence[str]) -> str:
    import difflib  # for a mistake's message only

    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    shown = ", ".join(known[:12]) + (f", ... ({len(known)} in all)" if len(known) > 12 else "")
    return f"{hint}{what} are {shown or '(none)'}"


def _parts(name: str) -> dict[str, str] | None:
    """``b=1, a = 0`` as {a: 0, b: 1}; None for a name that is not a valuation."""
    parts = [part.partition("=") for part in name.split(",")]
    if any(not sep or not var.strip() for var, sep, _ in parts):
        return None
    return {var.strip(): value.strip() for var, _, value in parts}


def matching_valuation(partial: str, states: Sequence[str]) -> list[str]:
    """The states (named by valuations, ``a=0,b=1``) whose variables have every value
    ``partial`` gives, in any order and any subset (``b=1``, ``b=1,a=0``)."""
    wanted = _parts(partial)
    if wanted is None:
        return []
    found = []
    for state in states:
        values = _parts(state)
        if values is not None and all(values.get(k) == v for k, v in wanted.items()):
            found.append(state)
    return found


def _valuation_pairs(left: str, right: str, states: Sequence[str]) -> list[tuple[str, str]]:
    """Pairs for ``left~right`` where a side is a partial valuation: the two states, when
    each side names one; else (``x=0~x=1``) each state matching the left with each matching
    the right that has the same value in every variable neither side names."""
    named = set((_parts(left) or {}) | (_parts(right) or {}))
    lefts = [left] if left in states else matching_valuation(left, states)
    rights = [right] if right in states else matching_valuation(right, states)
    if len(lefts) == 1 and len(rights) == 1:
        return [(lefts[0], rights[0])]

    def rest(state: str) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((k, v) for k, v in (_parts(state) or {}).items() if k not in named))

    by_rest: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for state in rights:
        by_rest.setdefault(rest(state), []).append(state)
    return [(u, v) for u in lefts for v in by_rest.get(rest(u), [])]


@dataclass(frozen=True)
class NeighbourSpec:
    """Neighbour pairs as written, before they meet a model's states and labels."""

    state_pairs: tuple[tuple[str, str], ...] = ()
    label_pairs: tuple[tuple[str, str], ...] = ()
    source: str = "neighbours"

    def resolve(
        self, states: Sequence[str], labels: Mapping[str, frozenset[str]]
    ) -> NeighbourRelation:
        """The relation on ``states``; ``labels`` maps a label to the states that carry it."""
        pairs: list[tuple[str, str]] = []
        known = set(states)
        for left, right in self.state_pairs:
            if left in known and right in known:
                pairs.append((left, right))
                continue
            for name in (left, right):
                if name not in known and not matching_valuation(name, states):
                    raise SpecError(
                        f"neighbour pair names {name!r}, which is not a state",
                        where=self.source,
                        fix=_suggest("states", name, list(states)),
                    )
            found = _valuation_pairs(left, right, states)
            if not any(u != v for u, v in found):
                raise SpecError(
                    f"{left}~{right} pairs no two states: no state matching {left!r} has the"
                    f" values of one matching {right!r} in every variable neither side names",
                    where=self.source,
                    fix="name both states in full, or write on each side every variable in"
                    " which the two states differ",
                )
            pairs.extend(found)
        for left, right in self.label_pairs:
            for name in (left, right):
                if not labels.get(name):
                    raise SpecError(
                        f"neighbour pair names the label {name!r}, which no state carries",
                        where=self.source,
                        fix=_suggest("labels", name, sorted(k for k, v in labels.items() if v)),
                    )
            pairs.extend((u, v) for u in sorted(labels[left]) for v in sorted(labels[right]))
        return NeighbourRelation.from_pairs(states, pairs, description=self.describe())

    def describe(self) -> str:
        parts = [f"{a}~{b}" for a, b in self.state_pairs]
        parts += [f"@{a}~@{b}" for a, b in self.label_pairs]
        return "; ".join(parts)


@dataclass(frozen=True)
class NeighbourRelation:
    """A symmetric relation on a model's states (reflexive pairs implicit).

    ``pairs`` holds both orders of every pair; ``added`` counts the ordered
    pairs that symmetry closure added to what was given.
    """

    states: tuple[str, ...]
    pairs: frozenset[tuple[str, str]]
    added: int = 0
    description: str = ""

    def __post_init__(self) -> None:
        known = set(self.states)
        for left, right in self.pairs:
            for name in (left, right):
                if name not in known:
                    raise SpecError(f"neighbour pair names {name!r}, which is not a state")
            if left == right:
                raise SpecError(
                    f"{left!r} is paired with itself", fix="reflexive pairs are implicit"
                )
            if (right, left) not in self.pairs:
                raise SpecError(
                    f"the relation has {left!r}~{right!r} but not {right!r}~{left!r}",
                    fix="use NeighbourRelation.from_pairs, which closes it under symmetry",
                )

    @classmethod
    def from_pairs(
        cls, states: Sequence[str], pairs: Iterable[tuple[str, str]], *, description: str = ""
    ) -> NeighbourRelation:
        """Close the given pairs under symmetry (self-pairs are dropped: they are implicit)."""
        given = {(a, b) for a, b in pairs if a != b}
        closed = given | {(b, a) for a, b in given}
        return cls(tuple(states), frozenset(closed), len(closed) - len(given), description)

    @classmethod
    def from_predicate(
        cls, states: Sequence[str], related: Callable[[str, str], bool], *, description: str = ""
    ) -> NeighbourRelation:
        """Pairs (s, t) with ``related(s, t)``, closed under symmetry."""
        pairs = [(s, t) for s in states for t in states if s != t and related(s, t)]
        return cls.from_pairs(states, pairs, description=description or "predicate")

    @classmethod
    def identity(cls, states: Sequence[str]) -> NeighbourRelation:
        """Only the implicit reflexive pairs: every D holds."""
        return cls(tuple(states), frozenset(), 0, "none (each state is only its own neighbour)")

    @cached_property
    def _index(self) -> dict[str, tuple[str, ...]]:
        """Each related state's neighbours in model order, built once from the pairs."""
        order = {s: i for i, s in enumerate(self.states)}
        found: dict[str, list[str]] = {}
        for left, right in self.pairs:
            found.setdefault(left, []).append(right)
        return {s: tuple(sorted(ts, key=order.__getitem__)) for s, ts in found.items()}

    def neighbours(self, state: str) -> tuple[str, ...]:
        """The other states related to ``state``, in model order (from an index: no scan)."""
        return self._index.get(state, ())

    def related(self, left: str, right: str) -> bool:
        return left == right or (left, right) in self.pairs

    def unordered(self) -> tuple[tuple[str, str], ...]:
        """Each pair once, in model order."""
        order = {s: i for i, s in enumerate(self.states)}
        return tuple(sorted((a, b) for a, b in self.pairs if order[a] < order[b]))

    def describe(self) -> str:
        count = len(self.pairs) // 2
        text = self.description or "given pairs"
        plural = "" if count == 1 else "s"
        closure = (
            f", symmetric closure added {self.added} of {2 * count} orders" if self.added else ""
        )
        return f"{text} ({count} pair{plural}{closure}; reflexive)"


def parse_neighbour_spec(text: str, *, source: str = "--neighbors") -> NeighbourSpec:
    """Read ``a~b; c~d`` (states) and ``@in0~@in1`` (every in0-state with every in1-state)."""
    state_pairs: list[tuple[str, str]] = []
    label_pairs: list[tuple[str, str]] = []
    items = [item.strip() for item in text.replace("\n", ";").split(";")]
    for item in filter(None, items):
        left, sep, right = (part.strip() for part in item.partition("~"))
        if not sep or not left or not right or "~" in right:
            raise SpecError(
                f"cannot read the neighbour pair {item!r}",
                where=source,
                fix="write pairs as a~b separated by ';', and @label~@label for labels",
            )
        if left.startswith("@") != right.startswith("@"):
            raise SpecError(
                f"{item!r} pairs a label with a state",
                where=source,
                fix="write both sides as states (a~b) or both as labels (@in0~@in1)",
            )
        if left.startswith("@"):
            label_pairs.append((left[1:], right[1:]))
        else:
            state_pairs.append((left, right))
    if not state_pairs and not label_pairs:
        raise SpecError("no neighbour pairs given", where=source, fix="write e.g. '+~-'")
    return NeighbourSpec(tuple(state_pairs), tuple(label_pairs), source)


def neighbour_spec_from_data(data: object, *, source: str) -> NeighbourSpec:
    """A spec from parsed YAML/JSON: ``{states: [[a, b]], labels: [[in0, in1]]}`` or a pair list."""
    if isinstance(data, list):
        data = {"states": data}
    if not isinstance(data, Mapping):
        raise SpecError(
            "neighbours must be a list of pairs or a mapping with 'states' and/or 'labels'",
            where=source,
            fix="write e.g. {states: [[a, b]], labels: [[in0, in1]]}",
        )
    unknown = [k for k in data if k not in ("states", "labels")]
    if unknown:
        raise SpecError(
            f"unknown key {unknown[0]!r} under neighbours", where=source, fix="use states, labels"
        )
    found = {key: _pairs(data.get(key), f"{source}: {key}") for key in ("states", "labels")}
    if not found["states"] and not found["labels"]:
        raise SpecError("no neighbour pairs given", where=source, fix="list pairs like [a, b]")
    return NeighbourSpec(found["states"], found["labels"], source)


def _pairs(value: object, where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SpecError("expected a list of pairs", where=where, fix="write e.g. [[a, b], [b, c]]")
    out: list[tuple[str, str]] = []
    for item in value:
        if not isinstance(item, list | tuple) or len(item) != 2:
            raise SpecError(f"{item!r} is not a pair", where=where, fix="write each pair as [a, b]")
        names = []
        for name in item:
            if isinstance(name, bool) or not isinstance(name, str | int):
                raise SpecError(f"{name!r} is not a name", where=where, fix="quote the name")
            names.append(str(name))
        out.append((names[0], names[1]))
    return tuple(out)
