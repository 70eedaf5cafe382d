"""Privacy scenarios of the FAIER papers' case studies: DP, and Pufferfish priors.

The ``*-paper`` scenarios take the papers' hand-derived distributions verbatim
(conditioning on "count ≥ 1" for "John has the disease"); the others derive
the priors by exact Bayesian conditioning on the secret itself.  See
docs/DISCREPANCIES.md.  The ``*_with_unknowns`` scenarios leave the disease
probabilities as parameters (symbolic priors for the SMT engine).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.errors import SpecError
from faier.examples.paper_hmms import vector_state
from faier.model.distribution import Distribution
from faier.model.parameters import Parameter
from faier.privacy.datamodel import (
    Attribute,
    Contagious,
    DataModel,
    Dataset,
    Independent,
    Secret,
    pufferfish_from_data,
)
from faier.privacy.specs import Comparison, Pufferfish
from faier.privacy.symbolic import (
    ParametricPufferfish,
    SymbolicAttribute,
    SymbolicComparison,
    SymbolicDataModel,
    SymbolicDistribution,
    parametric_pufferfish_from_data,
)

if TYPE_CHECKING:
    import sympy

JOHN = "John"


def _binomial_two(p: Fraction) -> dict[Hashable, Fraction]:
    return {0: (1 - p) ** 2, 1: 2 * p * (1 - p), 2: p**2}


def _check_probability(name: str, p: Fraction) -> None:
    if not 0 < p < 1:
        raise SpecError(
            f"{name} = {p} must lie strictly between 0 and 1", where=f"--set {name}={p}"
        )


def disease_count(m: int, p: Fraction, contagious: bool) -> Pufferfish:
    """John and m−1 others; does John have the disease?  The count is released."""
    _check_probability("p", p)
    prior = Contagious(p) if contagious else Independent(p)
    records = (JOHN, *(f"person {i}" for i in range(2, m + 1)))
    model = DataModel(records, (Attribute("disease", prior),))
    kind = "contagious (shared by all)" if contagious else "independent"
    return pufferfish_from_data(
        model,
        ((Secret(JOHN, "disease", True), Secret(JOHN, "disease", False)),),
        lambda d: model.counts(d)[0],
        f"Pufferfish, {kind} disease, p = {p}, secret: does John have it",
    )


def disease_count_paper(p: Fraction) -> Pufferfish:
    """FAIER journal Ex. 4.5 / conf. Ex. 4 verbatim: prior (1−p)², 2p(1−p), p² vs. count ≥ 1."""
    _check_probability("p", p)
    prior = _binomial_two(p)
    at_least_one: dict[Hashable, Fraction] = {
        1: prior[1] / (prior[1] + prior[2]),
        2: prior[2] / (prior[1] + prior[2]),
    }
    left: Distribution[Hashable] = Distribution.of(at_least_one)
    right: Distribution[Hashable] = Distribution.of(prior)
    comparison: Comparison[Hashable] = Comparison(
        left,
        right,
        "John has it (paper: count ≥ 1)",
        "without John's record (paper: prior)",
        "initial",
    )
    return Pufferfish((comparison,), f"Pufferfish as in FAIER journal Ex. 4.5 (verbatim), p = {p}")


def three_diseases(pa: Fraction, pb: Fraction, pc: Fraction, contagious_a: bool) -> Pufferfish:
    """FAIER journal Ex. 6.2 (independent) / 6.3 (A contagious): John and one other person."""
    for name, p in (("pA", pa), ("pB", pb), ("pC", pc)):
        _check_probability(name, p)
    a_prior = Contagious(pa) if contagious_a else Independent(pa)
    model = DataModel(
        (JOHN, "family member"),
        (Attribute("A", a_prior), Attribute("B", Independent(pb)), Attribute("C", Independent(pc))),
    )
    kind = "A contagious in the family" if contagious_a else "independent diseases"

    def counts(d: Dataset) -> Hashable:
        return model.counts(d)

    return pufferfish_from_data(
        model,
        ((Secret(JOHN, "A", True), Secret(JOHN, "A", False)),),
        counts,
        f"Pufferfish, {kind}, pA = {pa}, pB = {pb}, pC = {pc}, secret: does John have A",
    )


def three_diseases_paper(pa: Fraction, pb: Fraction, pc: Fraction) -> Pufferfish:
    """FAIER journal Ex. 6.2 verbatim: fA conditioned on ≥ 1 (has A) and on ≤ 1 (has not)."""
    for name, p in (("pA", pa), ("pB", pb), ("pC", pc)):
        _check_probability(name, p)
    fa = _binomial_two(pa)
    has: dict[Hashable, Fraction] = {1: fa[1] / (fa[1] + fa[2]), 2: fa[2] / (fa[1] + fa[2])}
    has_not: dict[Hashable, Fraction] = {0: fa[0] / (fa[0] + fa[1]), 1: fa[1] / (fa[0] + fa[1])}
    fb, fc = _binomial_two(pb), _binomial_two(pc)

    def joint(first: dict[Hashable, Fraction]) -> Distribution[Hashable]:
        return Distribution.of(
            {(a, b, c): first[a] * fb[b] * fc[c] for a in first for b in fb for c in fc}
        )

    comparison: Comparison[Hashable] = Comparison(
        joint(has),
        joint(has_not),
        "John has A (paper: fA ≥ 1)",
        "John has not A (paper: fA ≤ 1)",
        "initial",
    )
    return Pufferfish(
        (comparison,),
        f"Pufferfish as in FAIER journal Ex. 6.2 (verbatim), pA = {pa}, pB = {pb}, pC = {pc}",
    )


def _symbol(parameter: Parameter) -> sympy.Symbol:
    import sympy

    return sympy.Symbol(parameter.name, real=True)


def counts_state(prefix: str | None) -> Callable[[tuple[int, ...]], Hashable]:
    """The input of a count vector: an HMM state (``"2"`` for one count, ``in120`` for
    several) or, with no prefix, the count vector itself (a one-shot program's input)."""

    def state(counts: tuple[int, ...]) -> Hashable:
        if prefix is None:
            return counts
        if not prefix:
            return str(counts[0])
        return vector_state(prefix, counts)

    return state


def diseases_with_unknowns(
    attributes: tuple[SymbolicAttribute, ...],
    secret: str,
    parameters: tuple[Parameter, ...],
    description: str,
    prefix: str | None = "in",
) -> ParametricPufferfish:
    """John and one family member; does John have ``secret``?  The counts are the input.

    Attribute probabilities are symbols of ``parameters`` (or numbers); the
    priors are conditioned on the secret itself (docs/DISCREPANCIES.md).
    """
    model = SymbolicDataModel((JOHN, "family member"), attributes)
    state = counts_state(prefix)
    return parametric_pufferfish_from_data(
        model,
        ((Secret(JOHN, secret, True), Secret(JOHN, secret, False)),),
        lambda d: state(model.counts(d)),
        description,
        parameters,
    )


def attribute(
    name: str, parameter: Parameter | Fraction, contagious: bool = False
) -> SymbolicAttribute:
    """A disease whose probability is an unknown parameter or a known number."""
    import sympy

    p = (
        _symbol(parameter)
        if isinstance(parameter, Parameter)
        else sympy.Rational(parameter.numerator, parameter.denominator)
    )
    return SymbolicAttribute(name, p, contagious)


def count_paper_with_unknown(parameter: Parameter) -> ParametricPufferfish:
    """FAIER journal Ex. 4.5 verbatim with p unknown: prior (1−p)², 2p(1−p), p² vs. count ≥ 1."""
    import sympy

    p = _symbol(parameter)
    prior = {"0": (1 - p) ** 2, "1": 2 * p * (1 - p), "2": p**2}
    mass = sympy.factor(prior["1"] + prior["2"])
    at_least_one = {"1": sympy.factor(prior["1"] / mass), "2": sympy.factor(prior["2"] / mass)}
    comparison = SymbolicComparison(
        SymbolicDistribution.of(at_least_one),
        SymbolicDistribution.of(prior),
        "John has it (paper: count ≥ 1)",
        "without John's record (paper: prior)",
        "initial",
        mass,
    )
    return ParametricPufferfish(
        (comparison,), (parameter,), (), "Pufferfish as in FAIER journal Ex. 4.5 (verbatim)"
    )


def three_diseases_paper_with_unknowns(parameters: tuple[Parameter, ...]) -> ParametricPufferfish:
    """FAIER journal Ex. 6.2 verbatim with pA, pB, pC unknown: fA ≥ 1 (has A) against fA ≤ 1."""
    import sympy

    pa, pb, pc = (_symbol(p) for p in parameters)

    def binomial(p: sympy.Expr) -> dict[int, sympy.Expr]:
        return {0: (1 - p) ** 2, 1: 2 * p * (1 - p), 2: p**2}

    fa, fb, fc = binomial(pa), binomial(pb), binomial(pc)
    has_mass, has_not_mass = sympy.factor(fa[1] + fa[2]), sympy.factor(fa[0] + fa[1])
    has = {a: sympy.factor(fa[a] / has_mass) for a in (1, 2)}
    has_not = {a: sympy.factor(fa[a] / has_not_mass) for a in (0, 1)}

    def joint(first: dict[int, sympy.Expr]) -> SymbolicDistribution:
        return SymbolicDistribution.of(
            {
                vector_state("in", (a, b, c)): first[a] * fb[b] * fc[c]
                for a in first
                for b in fb
                for c in fc
            }
        )

    comparison = SymbolicComparison(
        joint(has),
        joint(has_not),
        "John has A (paper: fA ≥ 1)",
        "John has not A (paper: fA ≤ 1)",
        "initial",
        has_mass,
        has_not_mass,
    )
    return ParametricPufferfish(
        (comparison,), parameters, (), "Pufferfish as in FAIER journal Ex. 6.2 (verbatim)"
    )
