"""A data model as a Bayesian network over records' attributes, conditioned exactly.

Each node is one attribute of one record ("John.sick"), with parents and a
conditional table whose probabilities may mention parameters.  A secret about
one record becomes an indicator factor on that record's nodes; the variables
the query does not read are summed out by variable elimination (greedy
min-degree order), and what remains is enumerated and pushed through the
query.  All arithmetic is exact: Fractions, or sympy rational functions.

pgmpy was evaluated for this and not used: its factors hold numpy arrays of a
process-wide float dtype (``config.set_dtype``), its model check compares
conditional tables' sums with a float tolerance and its elimination contracts
with opt_einsum, so neither rationals nor parameters survive inference
(docs/MECHANISMS.md, "Correlated data").
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from faier.errors import SpecError
from faier.privacy.correlated import (
    Conditioned,
    Dataset,
    Query,
    RecordSecret,
    check_record,
    grouped_by_query,
)
from faier.privacy.weights import (
    Weight,
    expanded,
    is_symbolic,
    is_zero,
    names,
    simplified,
    total,
    weight,
)

Variable = tuple[str, str]  # (record, attribute)


@dataclass(frozen=True)
class Node:
    """One attribute of one record: its values, parents and conditional table.

    ``table`` maps each tuple of parent values (in ``parents`` order; ``()``
    for a root) to a distribution over ``values``.
    """

    record: str
    attribute: str
    values: tuple[str, ...]
    parents: tuple[Variable, ...]
    table: Mapping[tuple[str, ...], Mapping[str, Weight]] = field(hash=False)

    @property
    def variable(self) -> Variable:
        return (self.record, self.attribute)

    @property
    def label(self) -> str:
        return f"{self.record}.{self.attribute}"

    @classmethod
    def of(
        cls,
        record: str,
        attribute: str,
        values: Sequence[str],
        parents: Sequence[Variable],
        table: Mapping[tuple[str, ...], Mapping[str, object]],
    ) -> Node:
        """Probabilities as numbers, text (``1-p``) or sympy expressions."""
        where = f"{record}.{attribute}"
        read = {
            key: {v: weight(w, where=f"{where} {key}") for v, w in row.items()}
            for key, row in table.items()
        }
        return cls(record, attribute, tuple(values), tuple(parents), read)


@dataclass(frozen=True)
class _Factor:
    """A sparse factor: assignments of its variables (zeros left out) to weights."""

    variables: tuple[Variable, ...]
    table: dict[tuple[str, ...], Weight]

    def times(self, other: _Factor) -> _Factor:
        joined = self.variables + tuple(v for v in other.variables if v not in self.variables)
        shared = [v for v in other.variables if v in self.variables]
        where = [self.variables.index(v) for v in shared]
        there = [other.variables.index(v) for v in shared]
        fresh = [i for i, v in enumerate(other.variables) if v not in self.variables]
        index: dict[tuple[str, ...], list[tuple[tuple[str, ...], Weight]]] = {}
        for key, w in other.table.items():
            index.setdefault(tuple(key[i] for i in there), []).append(
                (tuple(key[i] for i in fresh), w)
            )
        out: dict[tuple[str, ...], Weight] = {}
        for key, w in self.table.items():
            for rest, u in index.get(tuple(key[i] for i in where), ()):
                out[key + rest] = w * u
        return _Factor(joined, out)

    def summed_out(self, variable: Variable) -> _Factor:
        i = self.variables.index(variable)
        out: dict[tuple[str, ...], list[Weight]] = {}
        for key, w in self.table.items():
            out.setdefault(key[:i] + key[i + 1 :], []).append(w)
        kept = self.variables[:i] + self.variables[i + 1 :]
        return _Factor(kept, {k: expanded(total(ws)) for k, ws in out.items()})


def _degree(pool: list[_Factor], v: Variable) -> int:
    """Greedy min-degree order: how many variables share a factor with ``v``."""
    return len({u for f in pool if v in f.variables for u in f.variables})


@dataclass(frozen=True)
class BayesianNetwork:
    """Nodes over records' attributes; records and attributes in order of appearance."""

    nodes: tuple[Node, ...]

    def __post_init__(self) -> None:
        if not self.nodes:
            raise SpecError("a Bayesian network needs at least one node")
        known: dict[Variable, Node] = {}
        for node in self.nodes:
            if node.variable in known:
                raise SpecError(f"node {node.label} is declared twice", fix="declare it once")
            if not node.values or len(set(node.values)) != len(node.values):
                raise SpecError(f"node {node.label} needs distinct values")
            known[node.variable] = node
        for node in self.nodes:
            for parent in node.parents:
                if parent not in known:
                    raise SpecError(
                        f"node {node.label} has an unknown parent {'.'.join(parent)}",
                        fix="declare every parent as a node",
                    )
            self._check_table(node, known)
        self.order()

    def _check_table(self, node: Node, known: Mapping[Variable, Node]) -> None:
        combos = list(itertools.product(*(known[p].values for p in node.parents)))
        for key in node.table:
            if key not in combos:
                raise SpecError(
                    f"node {node.label}: the row {key} is not a combination of its parents' values",
                    fix=f"parents: {', '.join('.'.join(p) for p in node.parents) or 'none'}",
                )
        for combo in combos:
            row = node.table.get(combo)
            if row is None:
                raise SpecError(
                    f"node {node.label} has no row for parent values {combo}",
                    fix="give a distribution for every combination of the parents' values",
                )
            for value in row:
                if value not in node.values:
                    raise SpecError(
                        f"node {node.label}: {value!r} is not one of its values",
                        fix=f"values: {', '.join(node.values)}",
                    )
            s = simplified(total(row.values()))
            if is_symbolic(s) or s != 1:
                raise SpecError(
                    f"node {node.label}: the row for {combo} sums to {s}, not 1",
                    fix="make every row sum to 1 for every parameter value",
                )

    def order(self) -> tuple[Node, ...]:
        """The nodes parents first; a cycle is bad input."""
        by_variable = {n.variable: n for n in self.nodes}
        done: dict[Variable, None] = {}
        visiting: set[Variable] = set()

        def visit(v: Variable) -> None:
            if v in done:
                return
            if v in visiting:
                raise SpecError(
                    f"the network has a cycle through {'.'.join(v)}",
                    fix="a Bayesian network's parents must not lead back to a node",
                )
            visiting.add(v)
            for p in by_variable[v].parents:
                visit(p)
            visiting.discard(v)
            done[v] = None

        for node in self.nodes:
            visit(node.variable)
        return tuple(by_variable[v] for v in done)

    @property
    def records(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.record for n in self.nodes))

    def attributes(self, record: str) -> tuple[str, ...]:
        return tuple(n.attribute for n in self.nodes if n.record == record)

    def parameters(self) -> set[str]:
        return names(w for n in self.nodes for row in n.table.values() for w in row.values())

    def _factors(self) -> list[_Factor]:
        out = []
        for node in self.nodes:
            table: dict[tuple[str, ...], Weight] = {}
            for key, row in node.table.items():
                for value, w in row.items():
                    if not is_zero(w):
                        table[(*key, value)] = w
            out.append(_Factor((*node.parents, node.variable), table))
        return out

    def _evidence(self, secret: RecordSecret) -> _Factor:
        record = secret.record
        nodes = [n for n in self.nodes if n.record == record]
        table: dict[tuple[str, ...], Weight] = {}
        for values in itertools.product(*(n.values for n in nodes)):
            row = tuple((n.attribute, v) for n, v in zip(nodes, values, strict=True))
            if secret.holds(row):
                table[values] = weight(1)
        return _Factor(tuple(n.variable for n in nodes), table)

    def joint_factor(self, factors: list[_Factor], keep: Sequence[Variable]) -> _Factor:
        """Variable elimination of everything outside ``keep``, then the product of the rest."""
        pool = list(factors)
        hidden = [n.variable for n in self.nodes if n.variable not in keep]
        while hidden:
            v = min(hidden, key=lambda h: _degree(pool, h))
            hidden.remove(v)
            touching = [f for f in pool if v in f.variables]
            pool = [f for f in pool if v not in f.variables]
            product = touching[0]
            for f in touching[1:]:
                product = product.times(f)
            pool.append(product.summed_out(v))
        result = _Factor((), {(): weight(1)})
        for f in pool:
            result = result.times(f)
        return result

    def conditioned(self, secret: RecordSecret, query: Query) -> Conditioned:
        check_record(self, secret)
        keep = [n.variable for n in self.nodes if query.reads is None or n.attribute in query.reads]
        joint = self.joint_factor([*self._factors(), self._evidence(secret)], keep)
        records = self.records

        def dataset(key: tuple[str, ...]) -> Dataset:
            values = dict(zip(joint.variables, key, strict=True))
            return tuple(
                tuple((a, values[(r, a)]) for a in self.attributes(r) if (r, a) in values)
                for r in records
            )

        pairs = ((dataset(k), w) for k, w in joint.table.items())
        grouped = grouped_by_query(pairs, query)
        return Conditioned.normalised(grouped, simplified(total(grouped.values())))

    def describe(self) -> str:
        return f"a Bayesian network over {len(self.records)} records ({len(self.nodes)} nodes)"
