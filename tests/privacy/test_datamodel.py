"""Pufferfish priors by exact Bayesian conditioning on the secret."""

from __future__ import annotations

from fractions import Fraction

import pytest

import reference as ref
from faier.errors import SpecError
from faier.privacy.datamodel import Attribute, Contagious, DataModel, Independent, Secret

P = Fraction(1, 3)


def test_independent_conditioning_is_one_plus_bernoulli() -> None:
    model = DataModel(("John", "Ann"), (Attribute("d", Independent(P)),))
    has = model.conditioned(Secret("John", "d", True), lambda d: model.counts(d)[0])
    has_not = model.conditioned(Secret("John", "d", False), lambda d: model.counts(d)[0])
    assert has is not None and has_not is not None
    assert has.as_dict() == ref.two_person_count_prior(True, P, False)
    assert has_not.as_dict() == ref.two_person_count_prior(False, P, False)


def test_contagious_conditioning_is_all_or_none() -> None:
    model = DataModel(("John", "Ann"), (Attribute("d", Contagious(P)),))
    has = model.conditioned(Secret("John", "d", True), lambda d: model.counts(d)[0])
    assert has is not None and has.as_dict() == {2: Fraction(1)}


def test_prior_sums_to_one_and_secrets_of_probability_zero_are_skipped() -> None:
    model = DataModel(
        ("John", "Ann", "Bob"),
        (Attribute("a", Independent(P)), Attribute("b", Contagious(Fraction(0)))),
    )
    assert sum(p for _, p in model.datasets()) == 1
    assert model.conditioned(Secret("John", "b", True), lambda d: d) is None


def test_unknown_names_are_errors() -> None:
    model = DataModel(("John",), (Attribute("a", Independent(P)),))
    with pytest.raises(SpecError, match="unknown record or attribute"):
        model.conditioned(Secret("Jane", "a"), lambda d: d)
    with pytest.raises(SpecError):
        DataModel(("John", "John"), (Attribute("a", Independent(P)),))
