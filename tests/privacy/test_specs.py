from __future__ import annotations

import pytest
import sympy

from faier.errors import SpecError
from faier.model.distribution import Distribution
from faier.model.parameters import Parameter
from faier.privacy.specs import Comparison, Pufferfish
from faier.privacy.symbolic import ParametricPufferfish, SymbolicComparison, SymbolicDistribution


def test_pufferfish_pairs_come_in_both_orders() -> None:
    pair = Comparison(Distribution.point(0), Distribution.uniform([0, 1]), "a", "b")
    assert Pufferfish((pair,)).comparisons([0, 1]) == [pair, pair.swapped()]


def test_a_prior_off_the_inputs_is_refused_by_name() -> None:
    pair = Comparison(Distribution.point(0), Distribution.uniform([0, 2]), "a", "b")
    with pytest.raises(SpecError, match="prior 'b' puts mass on 2, which is not an input"):
        Pufferfish((pair,)).comparisons([0, 1])


def test_a_symbolic_prior_off_the_inputs_is_refused_by_name() -> None:
    p = sympy.Symbol("p", real=True)
    pair = SymbolicComparison(
        SymbolicDistribution.of({3: p, 1: 1 - p}), SymbolicDistribution.of({0: 1}), "a", "b"
    )
    spec = ParametricPufferfish((pair,), (Parameter("p"),))
    with pytest.raises(SpecError, match="prior 'a' puts mass on 3, which is not an input"):
        spec.symbolic_comparisons([0, 1])
