"""The float64 frontier's prune and record decisions are certified, not merely likely.

Floats decide only outside ``BAND``·η of an incumbent; in between the exact
bound decides, and every exact decision audits the float value against η.
These tests check the pieces the margin rests on (numpy's log accuracy, the
audit) and that the certified search gives the exact arithmetic's ε*.
"""

from __future__ import annotations

import itertools
import math
import random
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, float_frontier, sequence_mode
from faier.engines.exact.float_frontier import LOG_ULPS, _audit, _margin
from faier.errors import InternalError
from faier.model.hmm import HMM

System = tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison], int]


@st.composite
def weights(draw: st.DrawFn, count: int, width: int, top: int) -> tuple[tuple[Fraction, ...], ...]:
    out = []
    for _ in range(count):
        row = [draw(st.integers(0, top)) for _ in range(width)]
        if not any(row):
            row[draw(st.integers(0, width - 1))] = 1
        out.append(tuple(Fraction(w, sum(row)) for w in row))
    return tuple(out)


@st.composite
def hmms(draw: st.DrawFn) -> System:
    """Random HMMs; small weights make many exact ties, where the band decides."""
    n, k, top = draw(st.integers(2, 7)), draw(st.integers(2, 3)), draw(st.sampled_from([2, 9]))
    hmm = HMM(
        tuple(f"s{i}" for i in range(n)),
        tuple(f"o{i}" for i in range(k)),
        draw(weights(n, n, top)),
        draw(weights(n, k, top)),
        {},
    )
    starts = [{s: p for s, p in enumerate(row) if p} for row in draw(weights(3, n, top))]
    comparisons = [
        sequence_mode.SequenceComparison(starts[i], starts[j], None)  # type: ignore[arg-type]
        for i, j in itertools.permutations(range(3), 2)
    ]
    return sequence_mode.hmm_system(hmm), comparisons, draw(st.integers(1, 6))


def per_length(case: System, arithmetic: str) -> list[Fraction | None]:
    system, comparisons, horizon = case
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    branch_and_bound.merged_search(
        system, comparisons, horizon, Budget(), state, arithmetic=arithmetic
    )
    return [None if r is None else r.loss.ratio for r in sequence_mode.cumulative(state)]


@settings(max_examples=60, deadline=None)
@given(hmms())
def test_certified_pruning_gives_the_exact_epsilon(case: System) -> None:
    assert per_length(case, "float") == per_length(case, "exact")


@settings(max_examples=25, deadline=None)
@given(hmms())
def test_deciding_every_prune_exactly_changes_nothing(case: System) -> None:
    """With the band wide open every prune is exact (and audited): the same ε*."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(float_frontier, "BAND", 1e12)
        wide = per_length(case, "float")
    assert wide == per_length(case, "exact")


def test_numpy_log_is_within_the_assumed_ulps() -> None:
    """The margin assumes np.log within LOG_ULPS ulps on the range the search uses (checked with decimal)."""
    rng = random.Random(7)
    xs = [10.0 ** rng.uniform(-300, 300) for _ in range(3000)]
    xs += [1.0, 0.5, 2.0, 1e-300, 1e300, 1 - 2**-53, 1 + 2**-52, 0.9999, 1.0001]
    got = np.log(np.array(xs))
    context = Context(prec=60)  # Decimal.ln is correctly rounded to 60 digits
    for x, y in zip(xs, got.tolist(), strict=True):
        error = abs(Decimal(y) - Decimal(x).ln(context))
        assert error <= LOG_ULPS * Decimal(math.ulp(y)), x


def test_the_margin_grows_with_depth_states_and_log_size() -> None:
    assert _margin(1, 2, 0.0) == 1e-9  # the floor
    deep = _margin(10**6, 1000, 500.0)
    assert deep > _margin(10**5, 1000, 500.0) > 1e-9
    assert _margin(10**6, 10**4, 500.0) > deep and _margin(10**6, 1000, 5000.0) > deep


def test_the_audit_rejects_a_float_beyond_the_margin() -> None:
    _audit(1.0 + 1e-10, 1.0, 1e-9)
    _audit(5.0, math.inf, 1e-9)  # infinite exact values are decided exactly, not audited
    with pytest.raises(InternalError, match="round-off margin"):
        _audit(1.0 + 1e-8, 1.0, 1e-9)


def test_a_margin_too_small_for_the_round_off_is_caught() -> None:
    """η = 0 cannot cover round-off: the audit of the exact decisions notices."""
    rng = random.Random(3)
    n = 6

    def row(width: int) -> tuple[Fraction, ...]:
        w = [rng.randint(1, 97) for _ in range(width)]
        return tuple(Fraction(x, sum(w)) for x in w)

    hmm = HMM(
        tuple(f"s{i}" for i in range(n)),
        ("a", "b"),
        tuple(row(n) for _ in range(n)),
        tuple(row(2) for _ in range(n)),
        {},
    )
    starts = [dict(enumerate(row(n))) for _ in range(2)]
    comparisons = [
        sequence_mode.SequenceComparison(starts[0], starts[1], None),  # type: ignore[arg-type]
        sequence_mode.SequenceComparison(starts[1], starts[0], None),  # type: ignore[arg-type]
    ]
    case = (sequence_mode.hmm_system(hmm), comparisons, 5)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(float_frontier, "_margin", lambda *_: 0.0)
        patch.setattr(float_frontier, "BAND", 1e12)
        with pytest.raises(InternalError, match="round-off margin"):
            per_length(case, "float")
