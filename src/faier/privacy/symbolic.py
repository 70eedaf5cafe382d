"""Pufferfish priors with unknown parameters, by symbolic Bayesian conditioning.

The attacker's prior is often known only up to parameters ("some infection
rate p").  This is the symbolic counterpart of :mod:`faier.privacy.datamodel`:
the same records, attributes and secrets, but attribute probabilities are
sympy expressions and the conditioned priors are rational functions of the
parameters.  Pufferfish only compares secrets of non-zero probability, so
every comparison keeps Pr(secret | θ) (``left_mass``, ``right_mass``): an
engine must restrict θ to where both are non-zero.  Fixing every parameter
turns a :class:`ParametricPufferfish` back into an ordinary (rational)
:class:`~faier.privacy.specs.Pufferfish`, so the exact engine can check any
single point.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from faier.errors import SpecError
from faier.model.constraints import Constraint
from faier.model.distribution import Distribution
from faier.model.parameters import Parameter
from faier.privacy.datamodel import Attribute, DataModel, Dataset, Independent, Secret
from faier.privacy.specs import Comparison, Pufferfish, check_priors_on

if TYPE_CHECKING:
    import sympy


def _one() -> sympy.Expr:
    """The mass of an unconditioned prior (sympy loaded only when priors are symbolic)."""
    import sympy

    return sympy.Integer(1)


def rational(expr: sympy.Expr) -> Fraction:
    """A parameter-free sympy expression as an exact Fraction."""
    import sympy

    value = expr if expr.is_Rational else sympy.cancel(expr)
    if not value.is_Rational:
        raise SpecError(f"{expr} is not a rational number")
    return Fraction(int(value.p), int(value.q))


def substitute(expr: sympy.Expr, values: Mapping[str, Fraction]) -> sympy.Expr:
    """Fix the named parameters in an expression (others stay symbolic, unexpanded)."""
    import sympy

    subs = {
        s: sympy.Rational(values[str(s)].numerator, values[str(s)].denominator)
        for s in expr.free_symbols
        if str(s) in values
    }
    return expr.subs(subs) if subs else expr


@dataclass(frozen=True)
class SymbolicDistribution:
    """Outcomes with weights that are rational functions of the parameters."""

    items: tuple[tuple[Hashable, sympy.Expr], ...]

    @classmethod
    def of(cls, weights: Mapping[Any, sympy.Expr | Fraction | int]) -> SymbolicDistribution:
        """Build from a mapping; weights that are identically 0 are dropped."""
        import sympy

        items = []
        for outcome, weight in weights.items():
            expr = (
                sympy.Rational(weight.numerator, weight.denominator)
                if isinstance(weight, Fraction)
                else sympy.sympify(weight)
            )
            if expr != 0:
                items.append((outcome, expr))
        return cls(tuple(items))

    @classmethod
    def exact(cls, dist: Distribution[Hashable]) -> SymbolicDistribution:
        """A rational distribution seen as a (constant) symbolic one."""
        return cls.of(dict(dist.items))

    def support(self) -> tuple[Hashable, ...]:
        return tuple(x for x, _ in self.items)

    def names(self) -> set[str]:
        return {str(s) for _, w in self.items for s in w.free_symbols}

    def substitute(self, values: Mapping[str, Fraction]) -> SymbolicDistribution:
        return SymbolicDistribution.of({x: substitute(w, values) for x, w in self.items})

    def instantiate(self, values: Mapping[str, Fraction]) -> Distribution[Hashable]:
        """The rational distribution at a point (all its parameters given)."""
        weights = {x: rational(substitute(w, values)) for x, w in self.items}
        return Distribution.of(weights)


@dataclass(frozen=True)
class SymbolicComparison:
    """Two priors, and the probabilities of the secrets they were conditioned on."""

    left: SymbolicDistribution
    right: SymbolicDistribution
    left_name: str
    right_name: str
    kind: str = "initial"
    left_mass: sympy.Expr = field(default_factory=_one)
    right_mass: sympy.Expr = field(default_factory=_one)

    def swapped(self) -> SymbolicComparison:
        return SymbolicComparison(
            self.right,
            self.left,
            self.right_name,
            self.left_name,
            self.kind,
            self.right_mass,
            self.left_mass,
        )

    def names(self) -> set[str]:
        masses = {str(s) for m in (self.left_mass, self.right_mass) for s in m.free_symbols}
        return self.left.names() | self.right.names() | masses

    def substitute(self, values: Mapping[str, Fraction]) -> SymbolicComparison:
        return SymbolicComparison(
            self.left.substitute(values),
            self.right.substitute(values),
            self.left_name,
            self.right_name,
            self.kind,
            substitute(self.left_mass, values),
            substitute(self.right_mass, values),
        )

    def instantiate(self, values: Mapping[str, Fraction]) -> Comparison[Hashable] | None:
        """The rational comparison at a point; None if a secret has probability 0 there."""
        masses = [rational(substitute(m, values)) for m in (self.left_mass, self.right_mass)]
        if 0 in masses:
            return None
        return Comparison(
            self.left.instantiate(values),
            self.right.instantiate(values),
            self.left_name,
            self.right_name,
            self.kind,
        )


@dataclass(frozen=True)
class ParametricPufferfish:
    """Pufferfish privacy whose priors depend on parameters with domains and constraints."""

    pairs: tuple[SymbolicComparison, ...]
    parameters: tuple[Parameter, ...]
    constraints: tuple[Constraint, ...] = ()
    description: str = "Pufferfish privacy with unknown prior parameters"

    def __post_init__(self) -> None:
        declared = {p.name for p in self.parameters}
        if len(declared) != len(self.parameters):
            raise SpecError("a parameter is declared twice", fix="declare each parameter once")
        for pair in self.pairs:
            undeclared = pair.names() - declared
            if undeclared:
                raise SpecError(
                    f"the prior {pair.left_name!r} / {pair.right_name!r} uses undeclared "
                    f"parameters {', '.join(sorted(undeclared))}",
                    fix="declare every parameter with a domain, e.g. Parameter('p')",
                )
        for constraint in self.constraints:
            undeclared = constraint.names() - declared
            if undeclared:
                raise SpecError(
                    f"constraint {constraint.text!r} uses undeclared parameters "
                    f"{', '.join(sorted(undeclared))}",
                    fix=f"declared parameters: {', '.join(sorted(declared)) or 'none'}",
                )

    def unknowns(self) -> tuple[Parameter, ...]:
        """Parameters without a fixed value."""
        return tuple(p for p in self.parameters if p.value is None)

    def values(self) -> dict[str, Fraction]:
        return {p.name: p.value for p in self.parameters if p.value is not None}

    def symbolic_comparisons(self, inputs: Sequence[Hashable]) -> list[SymbolicComparison]:
        """Each pair in both orders, fixed parameters substituted, support checked."""
        known = set(inputs)
        fixed = self.values()
        out: list[SymbolicComparison] = []
        for pair in self.pairs:
            check_priors_on(pair, known)
            current = pair.substitute(fixed) if fixed else pair
            out.extend((current, current.swapped()))
        if not out:
            raise SpecError("a Pufferfish specification needs at least one pair of priors")
        return out

    def instantiate(self, values: Mapping[str, Fraction] | None = None) -> Pufferfish:
        """The rational Pufferfish question at a point (fixed values plus ``values``)."""
        point = {**self.values(), **(values or {})}
        missing = [p.name for p in self.parameters if p.name not in point]
        if missing:
            raise SpecError(
                f"parameters {', '.join(missing)} have no value",
                fix="fix them with --param NAME=VALUE, or use the SMT engine (--engine smt)",
            )
        pairs = tuple(c for pair in self.pairs if (c := pair.instantiate(point)) is not None)
        if not pairs:
            raise SpecError(
                "every discriminative pair has a secret of probability 0 at "
                + ", ".join(f"{k} = {v}" for k, v in point.items())
            )
        shown = ", ".join(f"{p.name} = {point[p.name]}" for p in self.parameters)
        return Pufferfish(pairs, f"{self.description}, at {shown}")

    def comparisons(self, inputs: Sequence[Hashable]) -> list[Comparison[Hashable]]:
        """Rational comparisons; only when every parameter has a value (exact engine)."""
        return self.instantiate().comparisons(inputs)

    def with_parameters(
        self, parameters: tuple[Parameter, ...], constraints: tuple[Constraint, ...]
    ) -> ParametricPufferfish:
        return replace(self, parameters=parameters, constraints=constraints)

    def describe(self) -> str:
        parts = [self.description]
        for p in self.parameters:
            parts.append(
                f"{p.name} = {p.value}" if p.value is not None else f"{p.name} ∈ {p.domain}"
            )
        parts.extend(c.text for c in self.constraints)
        return ", ".join(parts)


@dataclass(frozen=True)
class SymbolicAttribute:
    """A boolean column drawn independently per record, or shared by all (contagious)."""

    name: str
    p: sympy.Expr
    contagious: bool = False

    def column_weights(self, records: int) -> dict[tuple[bool, ...], sympy.Expr]:
        """Joint weight of each column value over all records."""
        import sympy

        p = sympy.sympify(self.p)
        if self.contagious:
            return {(True,) * records: p, (False,) * records: 1 - p}
        weights = {}
        for column in itertools.product((False, True), repeat=records):
            k = sum(column)
            weights[column] = p**k * (1 - p) ** (records - k)
        return weights


@dataclass(frozen=True)
class SymbolicDataModel:
    """Records and attributes whose probabilities are expressions of parameters."""

    records: tuple[str, ...]
    attributes: tuple[SymbolicAttribute, ...]
    _structure: DataModel = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        placeholder = tuple(Attribute(a.name, Independent(Fraction(1, 2))) for a in self.attributes)
        object.__setattr__(self, "_structure", DataModel(self.records, placeholder))

    def counts(self, dataset: Dataset) -> tuple[int, ...]:
        return self._structure.counts(dataset)

    def conditioned(
        self, secret: Secret, query: Callable[[Dataset], Hashable]
    ) -> tuple[SymbolicDistribution, sympy.Expr]:
        """Pr(query(D) | secret) and Pr(secret), conditioning column by column.

        Attributes are independent and a secret fixes one cell, so only the
        secret's column is conditioned; the other columns keep their prior.
        """
        import sympy

        check = tuple(tuple(False for _ in self.attributes) for _ in self.records)
        self._structure.holds(secret, check)
        row = self.records.index(secret.record)
        columns: list[list[tuple[tuple[bool, ...], sympy.Expr]]] = []
        mass: sympy.Expr = sympy.Integer(1)
        for attribute in self.attributes:
            weights = attribute.column_weights(len(self.records))
            if attribute.name == secret.attribute:
                kept = {c: w for c, w in weights.items() if c[row] == secret.value}
                mass = sympy.factor(sum(kept.values()))
                weights = {c: sympy.factor(w / mass) for c, w in kept.items()}
            columns.append([(c, w) for c, w in weights.items() if w != 0])
        grouped: dict[Hashable, sympy.Expr] = {}
        for choice in itertools.product(*columns):
            weight = sympy.Mul(*(w for _, w in choice))
            dataset = tuple(tuple(col[r] for col, _ in choice) for r in range(len(self.records)))
            key = query(dataset)
            grouped[key] = grouped.get(key, sympy.Integer(0)) + weight
        return SymbolicDistribution.of(grouped), mass


def parametric_pufferfish_from_data(
    model: SymbolicDataModel,
    pairs: tuple[tuple[Secret, Secret], ...],
    query: Callable[[Dataset], Hashable],
    description: str,
    parameters: tuple[Parameter, ...],
) -> ParametricPufferfish:
    """Comparisons for each discriminative pair, conditioned on the secrets themselves."""
    comparisons = []
    for s_i, s_j in pairs:
        left, left_mass = model.conditioned(s_i, query)
        right, right_mass = model.conditioned(s_j, query)
        comparisons.append(
            SymbolicComparison(
                left, right, s_i.describe(), s_j.describe(), "initial", left_mass, right_mass
            )
        )
    return ParametricPufferfish(tuple(comparisons), parameters, (), description)
