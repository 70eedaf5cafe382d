"""Symbolic Pufferfish priors: the same conditioning as the rational data model, for all p."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import reference as ref
from faier.errors import SpecError
from faier.model.constraints import Constraint
from faier.model.parameters import Parameter
from faier.privacy.datamodel import Attribute, Contagious, DataModel, Independent, Secret
from faier.privacy.symbolic import (
    ParametricPufferfish,
    SymbolicAttribute,
    SymbolicComparison,
    SymbolicDataModel,
    SymbolicDistribution,
    parametric_pufferfish_from_data,
)

P = sympy.Symbol("p", real=True)
POINTS = (Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10))


def test_independent_conditioning_is_one_plus_bernoulli_for_every_p() -> None:
    model = SymbolicDataModel(("John", "Ann"), (SymbolicAttribute("d", P),))
    has, has_mass = model.conditioned(Secret("John", "d", True), lambda d: model.counts(d)[0])
    has_not, _ = model.conditioned(Secret("John", "d", False), lambda d: model.counts(d)[0])
    assert dict(has.items) == {1: 1 - P, 2: P}
    assert dict(has_not.items) == {0: 1 - P, 1: P}
    assert sympy.simplify(has_mass - P) == 0
    for p in POINTS:
        assert has.instantiate({"p": p}).as_dict() == ref.two_person_count_prior(True, p, False)
        assert has_not.instantiate({"p": p}).as_dict() == ref.two_person_count_prior(
            False, p, False
        )


@pytest.mark.parametrize("contagious", [False, True])
def test_symbolic_conditioning_agrees_with_the_rational_data_model(contagious: bool) -> None:
    a, b = sympy.symbols("a b", real=True)
    symbolic = SymbolicDataModel(
        ("John", "Ann", "Bob"),
        (SymbolicAttribute("x", a, contagious), SymbolicAttribute("y", b)),
    )
    for pa, pb in ((Fraction(1, 4), Fraction(2, 3)), (Fraction(1, 2), Fraction(1, 7))):
        prior = Contagious(pa) if contagious else Independent(pa)
        rational = DataModel(
            ("John", "Ann", "Bob"), (Attribute("x", prior), Attribute("y", Independent(pb)))
        )
        for secret in (Secret("John", "x", True), Secret("Ann", "y", False)):
            dist, mass = symbolic.conditioned(secret, symbolic.counts)
            expected = rational.conditioned(secret, rational.counts)
            assert expected is not None
            point = {"a": pa, "b": pb}
            assert dist.instantiate(point).as_dict() == expected.as_dict()
            exact_mass = sum(p for d, p in rational.datasets() if rational.holds(secret, d))
            assert sympy.Rational(exact_mass) == mass.subs({a: pa, b: pb})


def test_comparisons_keep_the_secrets_probability_and_drop_zero_secrets() -> None:
    model = SymbolicDataModel(("John", "Ann"), (SymbolicAttribute("d", P, contagious=True),))
    spec = parametric_pufferfish_from_data(
        model,
        ((Secret("John", "d", True), Secret("John", "d", False)),),
        lambda d: model.counts(d)[0],
        "contagious",
        (Parameter("p"),),
    )
    (pair,) = spec.pairs
    assert dict(pair.left.items) == {2: 1} and dict(pair.right.items) == {0: 1}
    assert (pair.left_mass, pair.right_mass) == (P, 1 - P)
    assert pair.instantiate({"p": Fraction(0)}) is None
    fixed = spec.instantiate({"p": Fraction(1, 3)})
    assert len(fixed.comparisons([0, 1, 2])) == 2
    with pytest.raises(SpecError, match="have no value"):
        spec.comparisons([0, 1, 2])


def test_undeclared_parameters_are_errors() -> None:
    q = sympy.Symbol("q", real=True)
    pair = SymbolicComparison(
        SymbolicDistribution.of({0: q, 1: 1 - q}), SymbolicDistribution.of({0: 1}), "a", "b"
    )
    with pytest.raises(SpecError, match="undeclared parameters q"):
        ParametricPufferfish((pair,), (Parameter("p"),))
    constraint = Constraint.parse("p <= 1/2", ["p"])
    with pytest.raises(SpecError, match="undeclared parameters p"):
        ParametricPufferfish((), (Parameter("r"),), (constraint,))
    with pytest.raises(SpecError, match="declared twice"):
        ParametricPufferfish((), (Parameter("p"), Parameter("p")))


def test_constraints_parse_and_check_exactly() -> None:
    c = Constraint.parse("pA + pB < 1", ["pA", "pB"])
    assert c.names() == {"pA", "pB"}
    assert c.holds_at({"pA": Fraction(1, 2), "pB": Fraction(1, 3)})
    assert not c.holds_at({"pA": Fraction(1, 2), "pB": Fraction(1, 2)})
    assert Constraint.parse("pA = 2*pB", ["pA", "pB"]).relation == "=="
    with pytest.raises(SpecError, match="unknown name 'q'"):
        Constraint.parse("q < 1", ["p"])
    with pytest.raises(SpecError, match="mentions no parameter"):
        Constraint.parse("1 < 2", ["p"])
