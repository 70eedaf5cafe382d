"""results.py: how a certified enclosure is shown in a table cell."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from faier.results import Enclosure

finite = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_a_brief_interval_still_contains_the_enclosure(a: float, b: float) -> None:
    low, high = min(a, b), max(a, b)
    shown = Enclosure(low, high).brief()
    if shown.startswith("≈"):
        assert f"{low:.10g}" == f"{high:.10g}" == shown.removeprefix("≈ ")
        return
    left, right = shown.strip("[]").split(", ")
    assert float(left) <= low and high <= float(right)
    assert len(left.replace("-", "").split("e")[0].replace(".", "").lstrip("0")) <= 10


def test_closed_forms_and_infinity_are_shown_as_such() -> None:
    assert Enclosure(0.69, 0.71, "7/10").brief() == "7/10"
    assert Enclosure(math.inf, math.inf).brief() == "∞"
    assert Enclosure(1.0799676730937, 1.0799676730938).brief() == "≈ 1.079967673"
    assert Enclosure(1.05, 1.0500000005).brief() == "[1.05, 1.050000001]"
