"""diffprivlib's geometric mechanisms decided for the distribution they are meant to sample."""

from __future__ import annotations

from fractions import Fraction

import pytest

import faier
from faier import adapters
from faier.results import Verdict

mechanisms = pytest.importorskip("diffprivlib.mechanisms")
pytest.importorskip("flint")


@pytest.mark.parametrize(("epsilon", "sensitivity"), [(1, 1), (0.7, 2), (0.25, 3)])
def test_geometric_epsilon_is_its_stated_epsilon(epsilon: float, sensitivity: int) -> None:
    mechanism = mechanisms.Geometric(epsilon=epsilon, sensitivity=sensitivity)
    found = adapters.decidable(mechanism)
    assert found is not None
    star = faier.epsilon(found.problem).enclosure
    assert star is not None and star.closed_form is not None
    assert Fraction(star.closed_form) == Fraction(epsilon)  # the float ε, read exactly
    assert faier.assert_private(mechanism).method == "certified"
    with pytest.raises(AssertionError, match="violated"):
        faier.assert_private(mechanism, epsilon=epsilon * 0.9)


def test_truncated_geometric_holds_at_its_epsilon_exactly() -> None:
    mechanism = mechanisms.GeometricTruncated(epsilon=0.5, sensitivity=1, lower=0, upper=5)
    found = adapters.decidable(mechanism)
    assert found is not None
    assert faier.verify(found.problem, "1/2").verdict is Verdict.HOLDS  # a tie, decided exactly
    assert faier.assert_private(mechanism).verdict == "holds"


def test_folded_geometric_is_only_tested() -> None:
    folded = mechanisms.GeometricFolded(epsilon=0.5, sensitivity=1, lower=0, upper=5)
    assert adapters.decidable(folded) is None
