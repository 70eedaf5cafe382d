"""``holds`` only from the structural proof: the corpus's provable fixed functions hold, every
buggy one is still violated, and near misses are never proved (whatever the search finds)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import audit_corpus as corpus
import proof_near_misses as near

from faier import audit
from faier.auditing.data import from_value
from faier.auditing.proof import Escape, _Records, _Trace, prove
from faier.results import Verdict

NUMBERS = np.array([0.2, 0.5, 0.9])

PROVED: list[tuple[Callable[..., Any], dict[str, Any], str, str, Fraction]] = [
    (corpus.clipped_data_noised, {}, "1", "add-remove", Fraction(1)),
    (corpus.mean_over_public_size, {}, "1", "add-remove", Fraction(1)),
    (corpus.scale_divided, {"epsilon": 2.0}, "2", "add-remove", Fraction(2)),
    (corpus.scale_from_the_bounds, {}, "1", "replace-one", Fraction(1)),
    (corpus.fresh_noise, {}, "1", "add-remove", Fraction(1)),
    (near.clipped_sum_doubled, {}, "1", "add-remove", Fraction(1)),
    (near.clipped_sum_on_both_sides, {}, "1", "add-remove", Fraction(1)),
    (near.two_halves, {}, "1", "replace-one", Fraction(1)),
]


@pytest.mark.parametrize(
    "function, args, epsilon, relation, loss", PROVED, ids=[p[0].__name__ for p in PROVED]
)
def test_a_provable_fixed_function_holds_beside_a_search_that_found_nothing(
    function: Callable[..., Any], args: dict[str, Any], epsilon: str, relation: str, loss: Fraction
) -> None:
    report = audit(function, NUMBERS, epsilon=epsilon, args=args, neighbours=relation, budget=20)
    assert report.verdict is Verdict.HOLDS, (report.outcome, report.no_proof)
    assert report.exit_code == 0 and report.witness is None
    assert report.proof is not None and report.proof.loss == loss
    assert report.outcome.startswith(f"holds for every {relation} neighbouring pair")
    envelope = report.to_json()["proof"]
    assert envelope["loss_bound"] == str(loss) and envelope["rests_on"]


def test_the_shift_is_the_largest_magnitude_under_add_remove_and_the_width_under_replace() -> None:
    """Records clipped to [−1, 1]: a sum moves by 1 when a record comes or goes, by 2 when one is
    replaced (−1 → 1); the replace-one search finds that pair violated."""
    data = from_value(NUMBERS)
    added, _ = prove(near.clipped_sum_on_both_sides, data, {}, "add-remove")
    replaced, _ = prove(near.clipped_sum_on_both_sides, data, {}, "replace-one")
    assert added is not None and added.loss == 1
    assert replaced is not None and replaced.loss == 2
    report = audit(near.clipped_sum_on_both_sides, NUMBERS, epsilon=1, neighbours="replace-one")
    assert report.verdict is Verdict.VIOLATED and report.proof is None


BUGS = [
    corpus.raw_data_noised,
    corpus.mean_over_private_size,
    corpus.nan_through_clip,
    corpus.scale_floored,
    corpus.budget_spent_twice,
    corpus.noisy_sum_per_batch,
    corpus.scale_from_the_data,
    corpus.seeded_noise,
    corpus.gaussian_for_pure_epsilon,
]


@pytest.mark.parametrize("function", BUGS, ids=[f.__name__ for f in BUGS])
def test_a_buggy_corpus_function_is_never_proved(function: Callable[..., Any]) -> None:
    args = {"epsilon": 2.0} if function is corpus.scale_floored else {}
    for relation in ("add-remove", "replace-one"):
        proof, why = prove(function, from_value(NUMBERS), args, relation)
        assert proof is None and why


NEAR_MISSES = [
    (near.clip_without_nan_to_num, "NaN"),
    (near.divided_by_len, "'len'"),
    (near.scale_is_the_sum, "scale is not a positive constant"),
    (near.branch_on_the_sum, "POP_JUMP"),
    (near.branch_on_the_release, "JUMP"),
    (near.two_draws_over_epsilon, "exceeds ε"),
    (near.loop_sum, "GET_ITER"),
    (near.one_draw_twice, "one draw added to two values"),
    (near.draw_released_beside, "not a noised release"),
    (near.sum_after_the_release, "after a release was converted"),
    (near.seeded_generator, "seeded"),
    (near.gaussian_noise, "'normal'"),
    (near.unnoised_beside, "not a noised release"),
    (near.clip_bounds_from_the_release, "after a release was converted"),
    (near.clip_then_records_noised, "draw used other than added"),
]


@pytest.mark.parametrize("function, why", NEAR_MISSES, ids=[n[0].__name__ for n in NEAR_MISSES])
def test_a_near_miss_is_never_holds(function: Callable[..., Any], why: str) -> None:
    report = audit(function, NUMBERS, epsilon=1, budget=12)
    assert report.verdict is not Verdict.HOLDS and report.proof is None
    assert why in report.no_proof or report.witness is not None, report.no_proof
    proof, reason = prove(function, from_value(NUMBERS), {}, "add-remove")
    if proof is None:
        assert why in reason, reason
    else:  # proved, but beyond ε: the search must not say holds, and finds the violation
        assert proof.loss > 1 and report.verdict is Verdict.VIOLATED


def test_a_bound_that_a_sum_could_overflow_is_not_proved() -> None:
    proof, why = prove(near.clipped_beyond_the_largest_bound, from_value(NUMBERS), {}, "add-remove")
    assert proof is None and "2**20" in why


def test_a_scale_rounded_below_its_ideal_is_not_proved() -> None:
    """1.0 / 3 is below 1/3: the loss read exactly from the float is above 3."""
    report = audit(near.scale_a_third, NUMBERS, epsilon=3, budget=8)
    assert report.verdict is None and report.proof is None and "exceeds ε" in report.no_proof
    proof, _ = prove(near.scale_a_third, from_value(NUMBERS), {}, "add-remove")
    assert proof is not None and proof.loss == 1 / Fraction(1.0 / 3) > 3


def test_a_dataset_of_several_columns_is_not_proved() -> None:
    rows = [{"x": 0.2, "y": 0.1}, {"x": 0.5, "y": 0.3}]
    proof, why = prove(corpus.clipped_data_noised, from_value(rows), {}, "add-remove")
    assert proof is None and "one number per record" in why


def test_an_argument_that_is_not_plain_is_not_proved() -> None:
    data = from_value(NUMBERS)
    proof, why = prove(corpus.clipped_data_noised, data, {"epsilon": object()}, "add-remove")
    assert proof is None and "argument" in why


@pytest.mark.parametrize(
    "use",
    [len, iter, bool, float, int, repr, str, hash, lambda r: r[0], lambda r: r < 1, np.mean],
)
def test_the_tracer_escapes_on_every_use_it_does_not_model(use: Callable[[Any], Any]) -> None:
    """The bytecode check keeps these out of provable code; the tracer refuses them as well."""
    trace = _Trace("add-remove", test_the_tracer_escapes_on_every_use_it_does_not_model.__code__)
    records = _Records(trace, Fraction(0), Fraction(1), False)
    with pytest.raises(Escape):
        use(records)
    assert trace.escaped is not None


def test_a_proof_beside_a_found_violation_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The search still runs under a proof; were they to disagree, faier says it is broken."""
    from faier.auditing import search
    from faier.auditing.proof import Charge, Proof
    from faier.errors import InternalError

    wrong = Proof("add-remove", (Charge(Fraction(1), Fraction(1), 20),))
    monkeypatch.setattr(search, "prove", lambda *args: (wrong, ""))
    with pytest.raises(InternalError, match="proved private"):
        audit(corpus.raw_data_noised, NUMBERS, epsilon=1, budget=12)


def test_code_reached_through_a_patched_numpy_function_is_never_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bytecode check reads the function itself; code it calls outside numpy, faier and the
    standard library (here a patched ``np.sum``) ends the proof."""
    genuine = np.sum
    monkeypatch.setattr(np, "sum", lambda values: genuine(values))
    proof, why = prove(corpus.clipped_data_noised, from_value(NUMBERS), {}, "add-remove")
    assert proof is None and "a call into" in why and "test_proof.py" in why


def test_a_numpy_name_rebound_to_another_numpy_function_is_not_taken_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(np, "sum", np.prod)
    proof, why = prove(corpus.clipped_data_noised, from_value(NUMBERS), {}, "add-remove")
    assert proof is None and "numpy.prod" in why
