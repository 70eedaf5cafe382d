"""Exact privacy loss distributions against brute force over product outputs, and dp_accounting."""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import faier
from faier.accounting.build import comparison_of, pld_of
from faier.accounting.pld import PrivacyLossDistribution, from_distributions
from faier.errors import SpecError
from faier.model.distribution import truncated_geometric
from faier.privacy.budget import Epsilon

Table = dict[int, Fraction]


def geometric(x: int, m: int = 4, alpha: Fraction = Fraction(1, 2)) -> Table:
    """The truncated geometric mechanism's row, written out from its definition."""
    return {int(o): p for o, p in truncated_geometric(alpha, m, x).as_dict().items()}


def brute_delta(p: Table, q: Table, k: int, exp_eps: Fraction) -> Fraction:
    """δ(ε) of P^k vs Q^k by summing over every output tuple (the definition)."""
    outputs = sorted(set(p) | set(q))
    total = Fraction(0)
    for word in itertools.product(outputs, repeat=k):
        pw = math.prod((p.get(o, Fraction(0)) for o in word), start=Fraction(1))
        qw = math.prod((q.get(o, Fraction(0)) for o in word), start=Fraction(1))
        total += max(Fraction(0), pw - exp_eps * qw)
    return total


def test_single_pld_lists_every_loss_and_its_probability() -> None:
    problem = faier.load_problem("geometric", settings={"m": "4"})
    pld = pld_of(problem, comparison_of(problem, "1;2"))
    p, q = geometric(1), geometric(2)
    expected: dict[Fraction, Fraction] = {}
    for o in p:
        expected[p[o] / q[o]] = expected.get(p[o] / q[o], Fraction(0)) + p[o]
    assert {a.ratio: a.p for a in pld.atoms} == expected
    assert sum(a.p for a in pld.atoms) == 1 and sum(a.q for a in pld.atoms) == 1
    assert pld.epsilon.ratio == 2 and pld.left_value == 1 and pld.right_value == 2


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_k_fold_delta_is_the_exact_hockey_stick_of_the_product(k: int) -> None:
    problem = faier.load_problem("geometric", settings={"m": "4"})
    single = pld_of(problem, comparison_of(problem, "1;2"))
    composed = single.compose(k)
    assert composed.compositions == k
    p, q = geometric(1), geometric(2)
    for t in (Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5), Fraction(2) ** k):
        eps = Epsilon.from_ratio(t)
        assert composed.delta(eps).exact == brute_delta(p, q, k, t)
        assert composed.reversed().delta(eps).exact == brute_delta(q, p, k, t)


def test_decimal_epsilon_keeps_delta_exact_in_e_to_the_epsilon() -> None:
    problem = faier.load_problem("geometric", settings={"m": "4"})
    composed = pld_of(problem, comparison_of(problem, "1;2")).compose(3)
    stick = composed.delta("0.5")
    assert stick.exact is None
    p, q = geometric(1), geometric(2)
    # the outputs with ratio > e^0.5 ≈ 1.65 are those with ratio 2 or 8
    assert stick.value == pytest.approx(float(brute_delta(p, q, 3, Fraction(1.6487212707))), 1e-9)


def test_epsilon_for_delta_is_the_least_exact_ratio() -> None:
    problem = faier.load_problem("geometric", settings={"m": "4"})
    composed = pld_of(problem, comparison_of(problem, "1;2")).compose(3)
    for delta in (Fraction(0), Fraction(1, 100), Fraction(1, 10), Fraction(1, 3), Fraction(1)):
        ratio = composed.epsilon_for_delta(delta).ratio
        assert ratio is not None
        assert composed.delta(Epsilon.from_ratio(ratio)).exact <= delta  # type: ignore[operator]
        if ratio > 1:
            below = ratio - Fraction(1, 10**9)
            assert composed.delta(Epsilon.from_ratio(below)).exact > delta  # type: ignore[operator]


def test_epsilon_for_delta_reads_delta_as_every_other_door_does() -> None:
    problem = faier.load_problem("geometric", settings={"m": "4"})
    composed = pld_of(problem, comparison_of(problem, "1;2")).compose(3)
    exact = composed.epsilon_for_delta(Fraction(1, 1000))
    assert composed.epsilon_for_delta("1e-3") == exact  # was a TypeError
    assert composed.epsilon_for_delta("1/1000") == exact
    assert composed.epsilon_for_delta(0.001) == exact  # a float as its shortest decimal
    with pytest.raises(SpecError, match="cannot read") as caught:
        composed.epsilon_for_delta("abc")
    assert caught.value.where == "--delta"


@pytest.mark.parametrize("k", [1, 3, 5])
def test_dp_accounting_brackets_the_exact_k_fold_delta(k: int) -> None:
    pytest.importorskip("dp_accounting")
    problem = faier.load_problem("geometric", settings={"m": "4"})
    single = pld_of(problem, comparison_of(problem, "1;2"))
    upper = single.to_dp_accounting(pessimistic_estimate=True).self_compose(k)
    lower = single.to_dp_accounting(pessimistic_estimate=False).self_compose(k)
    p, q = geometric(1), geometric(2)
    for t in (Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3)):
        if k <= 3:  # the definition, summed over all 5^k output tuples, both orders
            exact = max(brute_delta(p, q, k, t), brute_delta(q, p, k, t))
        else:  # faier's composition, itself checked against the definition above
            composed, eps = single.compose(k), Epsilon.from_ratio(t)
            forward, backward = composed.delta(eps).exact, composed.reversed().delta(eps).exact
            assert forward is not None and backward is not None
            exact = max(forward, backward)
        pessimistic = float(upper.get_delta_for_epsilon(math.log(t)))
        optimistic = float(lower.get_delta_for_epsilon(math.log(t)))
        assert optimistic <= float(exact) + 1e-12 <= pessimistic + 2e-12
        assert pessimistic == pytest.approx(float(exact), abs=2e-3)


def test_outputs_only_one_side_has_are_infinite_losses() -> None:
    pld = from_distributions(
        {"a": Fraction(1, 2), "b": Fraction(1, 2)},
        {"b": Fraction(1, 4), "c": Fraction(3, 4)},
        "x",
        "y",
    )
    assert pld.epsilon.infinite and pld.reversed().epsilon.infinite
    assert pld.delta("ln(100)").exact == Fraction(1, 2)
    assert pld.reversed().delta("ln(100)").exact == Fraction(3, 4)
    assert pld.compose(2).delta("ln(100)").exact == 1 - Fraction(1, 2) ** 2
    pytest.importorskip("dp_accounting")
    exported = pld.to_dp_accounting().self_compose(2)
    assert float(exported.get_delta_for_epsilon(math.log(100))) == pytest.approx(
        1 - Fraction(1, 4) ** 2, abs=1e-9
    )


def distributions(size: int) -> st.SearchStrategy[list[Fraction]]:
    weights = st.lists(st.integers(0, 4), min_size=size, max_size=size).filter(any)
    return weights.map(lambda w: [Fraction(v, sum(w)) for v in w])


@settings(max_examples=40, deadline=None)
@given(distributions(3), distributions(3), st.integers(1, 3), st.fractions(1, 6))
def test_composition_matches_brute_force_on_random_pairs(
    p: list[Fraction], q: list[Fraction], k: int, t: Fraction
) -> None:
    pt, qt = dict(enumerate(p)), dict(enumerate(q))
    pld = from_distributions(pt, qt, "x", "y").compose(k)
    eps = Epsilon.from_ratio(t)
    assert pld.delta(eps).exact == brute_delta(pt, qt, k, t)
    assert pld.reversed().delta(eps).exact == brute_delta(qt, pt, k, t)


def test_api_takes_the_worst_pair_when_none_is_given() -> None:
    report = faier.pld("noisy-max", settings={"n": "3"}, epsilons=["ln(2)"], accountant=False)
    assert report.single.left_value == [1, 1, 1] and report.single.right_value == [0, 2, 2]
    assert report.epsilon_star.ratio == Fraction(24, 7)
    assert "worst pair" in report.pair_source
    assert report.deltas[0].worst.exact == Fraction(5, 36)


def test_pufferfish_pairs_are_named_by_their_priors() -> None:
    report = faier.pld("markov-quilt", "X3 = 0;X3 = 1", accountant=False)
    assert report.single.left == "X3 = 0"
    assert report.epsilon_star.ratio == Fraction(338, 49)


def test_a_pair_that_is_not_neighbouring_is_bad_input() -> None:
    with pytest.raises(SpecError, match="not neighbours"):
        faier.pld("geometric", "0;2")
    with pytest.raises(SpecError, match="not an input"):
        faier.pld("geometric", "0;9")
    with pytest.raises(SpecError, match="has 3 starts"):
        faier.pld("above-threshold", "1;2", horizon=2)


def test_a_pld_needs_both_distributions_to_be_complete() -> None:
    with pytest.raises(SpecError, match="sum to"):
        PrivacyLossDistribution.from_outcomes([("a", Fraction(1, 2), Fraction(1))], "x", "y")


def test_the_python_example_in_docs_accounting_runs() -> None:
    pytest.importorskip("dp_accounting")
    text = (Path(__file__).parents[2] / "docs" / "ACCOUNTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks
    for code in blocks:
        namespace: dict[str, object] = {}
        exec(compile(code, "docs/ACCOUNTING.md", "exec"), namespace)
    assert namespace["geometric"].compose(10).delta("ln(4)").exact == Fraction(9460, 19683)  # type: ignore[attr-defined]


def test_an_hmm_at_a_horizon_has_the_pld_of_its_observation_sequences() -> None:
    """Absorbing states emit independently each step: horizon k is the k-fold composition."""
    model = str(Path(faier.__file__).parent / "examples" / "models" / "geometric.yaml")
    one = faier.pld(model, "0;1", horizon=1, accountant=False).distribution
    three = faier.pld(model, "0;1", horizon=3, accountant=False).distribution
    assert [(a.ratio, a.p, a.q) for a in three.atoms] == [
        (a.ratio, a.p, a.q) for a in one.compose(3).atoms
    ]
    emissions = {
        "0": {0: Fraction(2, 3), 1: Fraction(1, 6), 2: Fraction(1, 6)},
        "1": {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)},
    }
    for t in (Fraction(1), Fraction(2), Fraction(4)):
        expected = brute_delta(emissions["0"], emissions["1"], 3, t)
        assert three.delta(Epsilon.from_ratio(t)).exact == expected
    assert sum(a.count for a in three.atoms) == 27


@settings(max_examples=40, deadline=None)
@given(distributions(4), distributions(4), st.integers(1, 9))
def test_multinomial_and_square_and_multiply_compose_alike(
    p: list[Fraction], q: list[Fraction], k: int
) -> None:
    from faier.accounting import pld as module

    atoms = from_distributions(dict(enumerate(p)), dict(enumerate(q)), "x", "y").atoms
    by_terms = module._multinomial_power(atoms, k)
    assert by_terms is not None
    by_squares = module._square_and_multiply(atoms, k)
    assert [(a.p, a.q, a.count) for a in by_terms] == [(a.p, a.q, a.count) for a in by_squares]
