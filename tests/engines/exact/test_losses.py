"""Hockey-stick events: plain sums without choices, best adaptive strategy with them."""

from __future__ import annotations

from fractions import Fraction

from faier.engines.exact.losses import best_event, exceeds_delta, smallest_exp_epsilon
from faier.privacy.budget import Epsilon

F = Fraction


def test_adaptive_choices_depend_on_the_history() -> None:
    # First step: choice "a", observation x or y (each half).  Second step:
    # after x the adversary should pick "u", after y it should pick "v".
    outcomes = {
        (("a", "x"), ("u", "1")): (F(1, 2), F(0)),
        (("a", "x"), ("v", "1")): (F(1, 2), F(1, 2)),
        (("a", "y"), ("u", "1")): (F(1, 2), F(1, 2)),
        (("a", "y"), ("v", "1")): (F(1, 2), F(0)),
    }
    event = best_event(outcomes, Epsilon.parse("0"))
    assert (event.p, event.q) == (F(1), F(0))
    exceeded, _, value = exceeds_delta(outcomes, Epsilon.parse("0"), F(9, 10))
    assert exceeded and value == 1


def test_without_choices_delta_is_the_hockey_stick_sum() -> None:
    outcomes = {((None, "0"),): (F(2, 3), F(1, 3)), ((None, "1"),): (F(1, 3), F(2, 3))}
    event = best_event(outcomes, Epsilon.parse("ln(3/2)"))
    assert (event.p, event.q) == (F(2, 3), F(1, 3))
    loss, _ = smallest_exp_epsilon(outcomes, F(0))
    assert loss.ratio == 2
    loss, _ = smallest_exp_epsilon(outcomes, F(1, 6))
    assert loss.ratio == F(3, 2)  # 2/3 − E/3 = 1/6
    loss, _ = smallest_exp_epsilon(outcomes, F(1, 3))
    assert loss.ratio == 1


def test_impossible_outcome_makes_epsilon_infinite_until_delta_covers_it() -> None:
    outcomes = {((None, "a"),): (F(1, 4), F(0)), ((None, "b"),): (F(3, 4), F(1))}
    assert smallest_exp_epsilon(outcomes, F(1, 5))[0].ratio is None
    assert smallest_exp_epsilon(outcomes, F(1, 4))[0].ratio == 1
