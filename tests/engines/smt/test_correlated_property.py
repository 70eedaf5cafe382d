"""The SMT supremum against the exact engine on random parametric joint tables.

A random two-record table whose weights are a mixture a·p + b·(1 − p) of two
distributions (so rows sum to 1 for every p), the truncated ½-geometric
mechanism on a count: the supremum's upper bound is never below the exact ε*
at sampled points, and its witness recomputes exactly.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from faier.api import epsilon
from faier.core.problem import Problem
from faier.examples.paper_hmms import geometric_hmm
from faier.model.parameters import Parameter
from faier.privacy.correlated import RecordSecret, count, pufferfish
from faier.privacy.joint import JointTable
from faier.privacy.specs import Pufferfish

DATASETS = [("x", "x"), ("x", "y"), ("y", "x"), ("y", "y")]


def _mixture(draw: st.DrawFn) -> list[Fraction]:
    raw = draw(st.lists(st.integers(0, 4), min_size=4, max_size=4).filter(lambda r: sum(r) > 0))
    return [Fraction(k, sum(raw)) for k in raw]


@st.composite
def tables(draw: st.DrawFn) -> tuple[JointTable, list[Fraction], list[Fraction]]:
    a, b = _mixture(draw), _mixture(draw)
    weights = {d: f"({x})*p + ({y})*(1 - p)" for d, x, y in zip(DATASETS, a, b, strict=True)}
    return JointTable.of(("r0", "r1"), weights), a, b


def _problem(table: JointTable, value: Fraction | None) -> Problem:
    pair = (RecordSecret.has("r0", "x"), RecordSecret.has("r0", "y"))
    privacy = pufferfish(table, (pair,), count("x", as_text=True), (Parameter("p", value=value),))
    return Problem("table", geometric_hmm(), privacy, 1)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_supremum_bounds_every_point(
    drawn: tuple[JointTable, list[Fraction], list[Fraction]],
) -> None:
    table, a, b = drawn
    for side in ((0, 1), (2, 3)):  # each secret possible under one of the mixture's parts
        assume(sum(a[i] for i in side) > 0 and sum(b[i] for i in side) > 0)
    result = epsilon(_problem(table, None), timeout=60)
    report = result.parametric
    assert report is not None
    upper = result.epsilon_star or report.upper
    assert upper is not None and upper.ratio is not None
    for k in (1, 2, 3, 5, 7, 9):
        p = Fraction(k, 10)
        fixed = _problem(table, p)
        assert isinstance(fixed.privacy, Pufferfish)
        exact = epsilon(fixed, engine="exact").epsilon_star
        assert exact is not None and exact.ratio is not None
        assert exact.ratio <= upper.ratio
    assert result.witness is not None
    point = {v.name: v.value for v in report.point}
    again = epsilon(_problem(table, point["p"]), engine="exact").epsilon_star
    assert again is not None and again.ratio is not None
    assert again.ratio >= result.witness.p / result.witness.q
