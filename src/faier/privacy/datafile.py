"""The ``data:`` section of a model file: a correlated prior, its secrets and the query.

The section names a data model (an explicit ``table``, a Bayesian
``network`` or a Markov ``chain``), the ``query`` that turns a data set into
the HMM's initial state, and the discriminative ``pairs`` of secrets.  The
priors of each pair are derived by exact conditioning
(:mod:`faier.privacy.correlated`), so a user never conditions by hand in
``initial``.  Every mistake names the place inside ``data`` and the fix
(docs/MODEL_FILES.md, "Correlated data").
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from faier.errors import InputError, ModelError, SpecError
from faier.model.parameters import Parameter
from faier.privacy.bayesnet import BayesianNetwork, Node
from faier.privacy.correlated import (
    ABSENT,
    CorrelatedModel,
    Query,
    RecordSecret,
    count,
    pufferfish,
)
from faier.privacy.joint import JointTable
from faier.privacy.markovdata import MarkovChainData
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish
from faier.privacy.weights import Weight, weight

KEYS = ("records", "table", "network", "chain", "query", "pairs", "description")
_SECRET = re.compile(
    r"^\s*(?P<record>[^\s.=!{}]+)(?:\.(?P<attribute>[^\s=!{}]+))?\s*"
    r"(?:(?P<op>=|!=|\bin\b)\s*(?P<value>.+?)|(?P<word>absent|present))\s*$"
)


class _Reader:
    def __init__(self, source: str, parameters: tuple[Parameter, ...]) -> None:
        self.source = source
        self.names = tuple(p.name for p in parameters)

    def error(self, place: str, message: str, fix: str) -> ModelError:
        return ModelError(message, where=f"{self.source}: data.{place}", fix=fix)

    def mapping(self, value: object, place: str, shape: str) -> Mapping[object, object]:
        if not isinstance(value, Mapping):
            raise self.error(place, "expected a mapping", f"write {shape}")
        return value

    def texts(self, value: object, place: str) -> tuple[str, ...]:
        if not isinstance(value, list | tuple) or not value:
            raise self.error(place, "expected a non-empty list of names", "write e.g. [a, b]")
        out = tuple(str(v) for v in value if not isinstance(v, bool))
        if len(out) != len(value) or len(set(out)) != len(out):
            raise self.error(place, "names must be distinct text", "quote yes/no/true/false")
        return out

    def probability(self, raw: object, place: str) -> Weight:
        from faier.model.probability import parse_probability

        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise self.error(place, "expected a probability", "write e.g. 1/2, 0.25 or 1-p")
        where = f"{self.source}: data.{place}"
        return weight(parse_probability(raw, self.names, where=where).value, where=where)

    def row(self, value: object, place: str) -> dict[str, Weight]:
        section = self.mapping(value, place, "{value: probability}")
        for k in section:
            if isinstance(k, bool):
                raise self.error(place, f"the value {k!r} was read as a boolean", "quote it: 'yes'")
        return {str(k): self.probability(v, f"{place}.{k}") for k, v in section.items()}

    def model(self, doc: Mapping[object, object]) -> CorrelatedModel:
        kinds = [k for k in ("table", "network", "chain") if k in doc]
        if len(kinds) != 1:
            raise ModelError(
                "the data section needs exactly one of table, network, chain"
                + (f" (found {', '.join(kinds)})" if kinds else ""),
                where=f"{self.source}: data",
                fix="see docs/MODEL_FILES.md, 'Correlated data'",
            )
        kind = kinds[0]
        if kind == "chain":
            return self.chain(doc["chain"])
        records = self.texts(doc.get("records"), "records")
        if kind == "table":
            return self.table(records, doc["table"])
        return self.network(records, doc["network"])

    def table(self, records: tuple[str, ...], value: object) -> JointTable:
        section = self.mapping(value, "table", "{'sick healthy': probability, ...}")
        rows = {}
        for key, raw in section.items():
            values = tuple(str(key).split())
            if len(values) != len(records):
                raise self.error(
                    f"table.{key}",
                    f"{len(values)} values for {len(records)} records",
                    f"write one value per record ({' '.join(records)}), separated by spaces",
                )
            rows[values] = self.probability(raw, f"table.{key}")
        try:
            return JointTable.of(records, rows)
        except SpecError as exc:
            raise self.error("table", exc.message, exc.fix or "") from None

    def network(self, records: tuple[str, ...], value: object) -> BayesianNetwork:
        section = self.mapping(value, "network", "{John.status: {values: [...], ...}}")
        nodes = []
        for key, spec in section.items():
            name = str(key)
            place = f"network.{name}"
            if "." not in name or name.split(".", 1)[0] not in records:
                raise self.error(
                    place,
                    f"{name!r} is not RECORD.ATTRIBUTE of a listed record",
                    f"records: {', '.join(records)}",
                )
            record, attribute = name.split(".", 1)
            body = self.mapping(spec, place, "{values: [...], parents: [...], table: {...}}")
            for field_name in body:
                if field_name not in ("values", "parents", "table"):
                    raise self.error(
                        place, f"unknown key {field_name!r}", "keys: values, parents, table"
                    )
            values = self.texts(body.get("values"), f"{place}.values")
            parents_raw = body.get("parents") or []
            if not isinstance(parents_raw, list):
                raise self.error(f"{place}.parents", "expected a list", "write e.g. [Ann.status]")
            parents = []
            for p in parents_raw:
                if "." not in str(p):
                    raise self.error(
                        f"{place}.parents", f"{p!r} is not RECORD.ATTRIBUTE", "e.g. Ann.status"
                    )
                r, a = str(p).split(".", 1)
                parents.append((r, a))
            table = self.mapping(body.get("table"), f"{place}.table", "{parent values: {value: p}}")
            rows: dict[tuple[str, ...], dict[str, Weight]] = {}
            if not parents:
                rows[()] = self.row(table, f"{place}.table")
            else:
                for combo, row in table.items():
                    rows[tuple(str(combo).split())] = self.row(row, f"{place}.table.{combo}")
            nodes.append(Node(record, attribute, values, tuple(parents), rows))
        try:
            return BayesianNetwork(tuple(nodes))
        except SpecError as exc:
            raise self.error("network", exc.message, exc.fix or "") from None

    def chain(self, value: object) -> MarkovChainData:
        section = self.mapping(
            value, "chain", "{states: [...], initial: {...}, transition: {...}, length: T}"
        )
        for key in section:
            if key not in ("states", "initial", "transition", "length"):
                raise self.error(
                    f"chain.{key}",
                    f"unknown key {key!r}",
                    "keys: states, initial, transition, length",
                )
        states = self.texts(section.get("states"), "chain.states")
        length = section.get("length")
        if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= 1000:
            raise self.error(
                "chain.length", "expected a whole number from 1 to 1000", "e.g. length: 4"
            )
        initial = self.row(section.get("initial"), "chain.initial")
        transition_doc = self.mapping(
            section.get("transition"), "chain.transition", "{state: {next: p}}"
        )
        transition = {
            str(s): self.row(r, f"chain.transition.{s}") for s, r in transition_doc.items()
        }
        try:
            return MarkovChainData(states, initial, transition, length)
        except SpecError as exc:
            raise self.error("chain", exc.message, exc.fix or "") from None

    def query(self, value: object, model: CorrelatedModel) -> Query:
        section = self.mapping(value, "query", "{count: sick} or {record: X4}")
        attribute = str(section.get("attribute", "value"))
        if "count" in section:
            raw = section["count"]
            values = frozenset(str(v) for v in (raw if isinstance(raw, list) else [raw]))
            return count(values, attribute, as_text=True)
        if "record" in section:
            record = str(section["record"])
            if record not in model.records:
                raise self.error(
                    "query.record",
                    f"unknown record {record!r}",
                    f"records: {', '.join(model.records)}",
                )
            i = model.records.index(record)
            return Query(
                f"{record}.{attribute}",
                lambda d: dict(d[i]).get(attribute, ABSENT),
                frozenset({attribute}),
            )
        raise self.error("query", "expected 'count' or 'record'", "write e.g. query: {count: sick}")

    def secret(self, text: object, place: str, model: CorrelatedModel) -> RecordSecret:
        match = _SECRET.match(str(text))
        if match is None or isinstance(text, bool):
            raise self.error(
                place,
                f"{text!r} is not a secret about one record",
                "write 'John = sick', 'John.status != healthy', 'X3 in {a, b}' or 'John absent'",
            )
        record, attribute = match["record"], match["attribute"]
        if record not in model.records:
            raise self.error(
                place, f"unknown record {record!r}", f"records: {', '.join(model.records)}"
            )
        if match["word"] == "absent":
            return RecordSecret.absent(record)
        if match["word"] == "present":
            return RecordSecret.present(record)
        value = match["value"].strip()
        attrs = model.attributes(record)
        if attribute is None and len(attrs) != 1:
            raise self.error(
                place,
                f"record {record!r} has attributes {', '.join(attrs)}",
                f"write e.g. '{record}.{attrs[0]} = ...'",
            )
        name = attribute or attrs[0]
        if name not in attrs:
            raise self.error(
                place,
                f"record {record!r} has no attribute {name!r}",
                f"its attributes: {', '.join(attrs)}",
            )
        if match["op"] == "=":
            return RecordSecret.has(record, value, attribute)
        if match["op"] == "!=":
            return RecordSecret.where(record, lambda row: row[name] != value, str(text).strip())
        inside = value.strip()
        if not (inside.startswith("{") and inside.endswith("}")):
            raise self.error(
                place, f"{value!r} is not a set of values", "write e.g. 'John in {sick, carrier}'"
            )
        chosen = frozenset(v.strip() for v in inside[1:-1].split(",") if v.strip())
        return RecordSecret.where(record, lambda row: row[name] in chosen, str(text).strip())

    def pairs(
        self, value: object, model: CorrelatedModel
    ) -> tuple[tuple[RecordSecret, RecordSecret], ...]:
        if not isinstance(value, list) or not value:
            raise self.error(
                "pairs",
                "expected a non-empty list of pairs of secrets",
                "write e.g. pairs: [[John = sick, John = healthy]]",
            )
        out = []
        for i, item in enumerate(value):
            if not isinstance(item, list) or len(item) != 2:
                raise self.error(
                    f"pairs[{i}]",
                    "a pair is a list of two secrets",
                    "write e.g. [John = sick, John = healthy]",
                )
            left, right = (self.secret(s, f"pairs[{i}]", model) for s in item)
            out.append((left, right))
        return tuple(out)


def data_privacy(
    doc: object,
    *,
    source: str,
    parameters: tuple[Parameter, ...],
    states: tuple[str, ...],
) -> Pufferfish | ParametricPufferfish:
    """The Pufferfish question of a ``data:`` section over an HMM with these states."""
    reader = _Reader(source, parameters)
    section = reader.mapping(doc, "", "records, a model (table, network or chain), query and pairs")
    for key in section:
        if key not in KEYS:
            raise ModelError(
                f"unknown key {key!r}", where=f"{source}: data", fix=f"keys are {', '.join(KEYS)}"
            )
    for key in ("query", "pairs"):
        if key not in section:
            raise ModelError(
                f"missing '{key}'",
                where=f"{source}: data",
                fix="see docs/MODEL_FILES.md, 'Correlated data'",
            )
    model = reader.model(section)
    query = reader.query(section["query"], model)
    pairs = reader.pairs(section["pairs"], model)
    description = section.get("description")
    try:
        spec = pufferfish(
            model,
            pairs,
            query,
            parameters,
            str(description) if description else f"Pufferfish over {model.describe()}",
        )
    except InputError as exc:
        raise exc.located(f"{source}: data") from None
    for pair in spec.pairs:
        for name, support in (
            (pair.left_name, pair.left.support()),
            (pair.right_name, pair.right.support()),
        ):
            for x in support:
                if x not in states:
                    raise ModelError(
                        f"secret '{name}' leads to the query answer {x!r}, which is not a state",
                        where=f"{source}: data.query",
                        fix=f"states: {', '.join(states)}",
                    )
    return spec
