"""OpenDP measurements with integer noise, decided by the certified engine.

Each verdict is checked against OpenDP's own privacy map: the exact ε* faier
computes must not exceed the ε OpenDP states, and equals it up to the float
OpenDP rounds its map to (upward).
"""

from __future__ import annotations

import collections
from fractions import Fraction

import pytest

import faier
from faier import adapters
from faier.errors import SpecError
from faier.results import Verdict

dp = pytest.importorskip("opendp.prelude")
pytest.importorskip("flint")
dp.enable_features("contrib")


def _integer_laplace(scale: float) -> object:
    return dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale)


@pytest.mark.parametrize("scale", [2.0, 0.7, 3.3])
@pytest.mark.parametrize("d_in", [1, 2])
def test_integer_laplace_epsilon_is_opendps_map(scale: float, d_in: int) -> None:
    measurement = _integer_laplace(scale)
    found = adapters.decidable(measurement, d_in=d_in)
    assert found is not None and found.epsilon == measurement.map(d_in)
    star = faier.epsilon(found.problem).enclosure
    assert star is not None and star.closed_form == str(d_in / Fraction(scale))
    exact = d_in / Fraction(scale)  # the float scale, read exactly
    assert exact <= Fraction(found.epsilon) <= exact * (1 + Fraction(1, 10**15))
    claim = str(Fraction(found.epsilon))
    assert faier.verify(found.problem, claim).verdict is Verdict.HOLDS
    assert faier.verify(found.problem, str(exact * Fraction(999, 1000))).verdict is (
        Verdict.VIOLATED
    )


def test_assert_private_decides_opendp_at_its_own_epsilon() -> None:
    sure = faier.assert_private(_integer_laplace(2.0))
    assert (sure.verdict, sure.method, sure.epsilon) == ("holds", "certified", "1/2")
    with pytest.raises(AssertionError, match="violated"):
        faier.assert_private(_integer_laplace(2.0), epsilon=0.25)


def test_bounded_geometric_is_the_censored_truncated_geometric() -> None:
    measurement = dp.m.make_geometric(
        dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0, bounds=(0, 3)
    )
    counts = collections.Counter(measurement(0) for _ in range(2000))
    assert set(counts) <= {0, 1, 2, 3}  # OpenDP clamps to the bounds: outputs stay inside
    found = adapters.decidable(measurement)
    assert found is not None and found.epsilon == 1.0
    assert faier.verify(found.problem, "1").verdict is Verdict.HOLDS  # the boundary, exactly
    assert faier.assert_private(measurement).verdict == "holds"


def test_vector_laplace_over_the_l1_ball() -> None:
    measurement = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=2.0
    )
    found = adapters.decidable(measurement, d_in=2, length=3)
    assert found is not None
    star = faier.epsilon(found.problem).enclosure
    assert star is not None and star.closed_form == "1" and found.epsilon == 1.0


def test_discrete_gaussian_against_opendps_approximate_dp() -> None:
    gaussian = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=float), scale=2.0)
    with pytest.raises(SpecError, match="zero-concentrated"):
        faier.assert_private(gaussian)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), 1e-6)
    found = adapters.decidable(fixed)
    assert found is not None and found.delta == 1e-6
    assert faier.assert_private(fixed).verdict == "holds"  # OpenDP's (ε, δ) from ρ = 1/8
    pure = faier.verify(found.problem, "5")
    assert pure.verdict is Verdict.VIOLATED  # no finite pure ε
    # OpenDP's conversion from ρ is an upper bound; a quarter of its ε is too little
    tight = faier.verify(found.problem, str(found.epsilon / 4), delta="1e-6")
    assert tight.verdict is Verdict.VIOLATED


def test_float_laplace_is_only_tested() -> None:
    measurement = dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0
    )
    assert adapters.decidable(measurement) is None
    with pytest.raises(SpecError, match="cannot decide"):
        faier.verify(measurement, "1")  # type: ignore[arg-type]


def test_a_count_then_integer_laplace_is_decided_behind_the_stability_map() -> None:
    count = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())
    chained = count >> dp.m.then_laplace(scale=2.0)
    found = adapters.decidable(chained, d_in=3)
    assert found is not None and "make_count" in found.constructor
    star = faier.epsilon(found.problem).enclosure
    assert star is not None and star.closed_form == "3/2" and found.epsilon == chained.map(3)
    assert faier.assert_private(chained).method == "certified"


def test_fixed_delta_gaussian_on_integer_distances_is_decided() -> None:
    """``absolute_distance(T=int)`` takes d_in as an int: the map was called with 1.0 and
    raised a raw TypeError (exit 4)."""
    gaussian = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=3.0)
    fixed = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gaussian), 1e-6)
    found = adapters.decidable(fixed)
    assert found is not None
    assert (found.epsilon, found.delta) == fixed.map(1)
    assert found.constructor.startswith("make_fix_delta(make_zCDP_to_approxDP(make_gaussian")
    sure = faier.assert_private(fixed)
    assert (sure.verdict, sure.method) == ("holds", "certified")
    assert sure.assumptions[0].startswith("checked: the object runs opendp Measurement's own")


def test_a_measurement_whose_map_is_replaced_is_tested_not_decided() -> None:
    laplace = _integer_laplace(2.0)
    laplace.map = lambda d_in: 0.1  # type: ignore[method-assign]
    assert adapters.decidable(laplace) is None
    assert "instance.map" in adapters.why_not_decided(laplace)
    with pytest.raises(AssertionError, match="statistical evidence"):
        faier.assert_private(laplace, samples=4000, seed=1)  # the replaced map claims ε = 0.1
