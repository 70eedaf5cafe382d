"""Refutations: where a loop's cost passes ε, and coarsened released numbers."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import faier
from faier.core.budget import Budget
from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.alignment import horizon, loops, refute, states
from faier.engines.alignment.walks import bounded, first_beyond
from faier.mechanisms import coarsen
from faier.mechanisms.coarsen import coarsened
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Enclosure, Verdict

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "checkdp"
F = Fraction


def test_bounded_walks_count_at_most_the_horizon_iterations() -> None:
    """A start state, a loop costing 1/4 per pass, a run's end costing 1/2."""
    edges = [("s", "s", 0, F(1)), ("s", None, -1, F(0))]
    weights = [F(1, 4), F(1, 2)]
    assert bounded(edges, weights, "s", 0) == (F(1, 2), [1])
    assert bounded(edges, weights, "s", 3) == (F(5, 4), [0, 0, 0, 1])
    # 1/2 + k/4 > 1 first at k = 3
    assert first_beyond(edges, weights, "s", F(0), F(1), 64) == 3
    assert first_beyond(edges, weights, "s", F(1, 4), F(1), 64) == 2
    assert first_beyond([("s", None, -1, F(0))], [F(1, 2)], "s", F(0), F(1), 64) is None


def _growth(name: str) -> horizon.Growth | None:
    program = faier.load_problem(str(EXAMPLES / f"{name}.py")).mechanism
    assert isinstance(program, Program)
    graph = states.explore(loops.split(program.body), False, Budget())
    return horizon.growth(graph, F(1), F(1), False, False, Budget())


@pytest.mark.parametrize(
    ("name", "length", "below", "bound"),
    [
        ("bad_svt4", 5, F(1), F(5, 4)),  # each query costs 1/4
        ("bad_gap_svt", 9, F(1), F(9, 8)),  # each ⊥ and release costs 1/8
        ("bad_adaptive_svt", 3, F(3, 4), F(9, 8)),  # each ⊥ costs 1/8 + 1/4
    ],
)
def test_the_length_where_the_loop_cost_passes_epsilon(
    name: str, length: int, below: Fraction, bound: Fraction
) -> None:
    found = _growth(name)
    assert found is not None
    assert (found.length, found.below, found.bound) == (length, below, bound)
    assert len(found.changes) == length and all(abs(c) == 1 for c in found.changes)


def test_a_loop_private_for_every_n_has_no_such_length() -> None:
    assert _growth("sparse_vector") is None


def test_run_pairs_follow_the_neighbour_relation() -> None:
    every = refute.run_pairs([F(-1), F(-1), F(0)], EveryQuery(1))
    zero = (0, 0, 0)
    assert every == [(zero, (1, 1, 0)), (zero, (-1, -1, 0)), (zero, (1, 1, 1)), (zero, (-1,) * 3)]
    one = refute.run_pairs([F(0), F(1), F(0)], OneQuery(1))
    assert one == [((0, 0, 0), (0, 1, 0)), ((0, 0, 0), (0, -1, 0))]


def test_a_coarsened_laplace_mechanism_has_the_exact_loss_of_its_events() -> None:
    """q + Lap(1) cut at 0: Pr[< 0 | 0] = 1/2 and Pr[< 0 | 1] = e^(−1)/2, so ε* = 1 exactly,
    the mechanism's own ε* (a half-line is where the Laplace ratio is largest)."""
    problem = faier.load_problem(str(EXAMPLES / "laplace_mechanism.py"))
    assert isinstance(problem.mechanism, Program)
    coarse = Problem(problem.name, coarsened(problem.mechanism, (0,)), problem.privacy)
    star = faier.epsilon(coarse, engine="certified").epsilon_star
    assert isinstance(star, Enclosure) and star.closed_form == "1"


@pytest.mark.parametrize("name", ["gap_svt", "num_svt", "adaptive_svt"])
def test_coarsening_never_refutes_a_correct_sparse_vector(name: str) -> None:
    """Post-processing keeps privacy: the correct SVT family, proved for every n, stays
    private when its released numbers are cut, at n = 4 on the run-shaped pairs and at
    every coarsening the refutation would try (decided exactly: "holds")."""
    problem = faier.load_problem(str(EXAMPLES / f"{name}.py"))
    assert isinstance(problem.mechanism, Program)
    pairs = refute.run_pairs([F(1)] * 4, EveryQuery(1))[:2]
    attempt = refute.on_pairs(problem, pairs, 4, "run-shaped pairs")
    options = Options()
    eps = Epsilon.parse("1")
    from faier.engines.certified.entry import ENGINE as CERTIFIED

    for cuts in coarsen.partitions(coarsen.cut_points([F(1), F(17)], [F(2)])):
        narrowed = attempt.problem
        assert isinstance(narrowed.mechanism, Program)
        coarse = Problem(problem.name, coarsened(narrowed.mechanism, cuts), narrowed.privacy)
        assert CERTIFIED.verify(coarse, eps, options, None).verdict is Verdict.HOLDS


@faier.program(inputs=faier.grid(1, 1))
def _difference(q, ctx):  # type: ignore[no-untyped-def]
    return q[0] + ctx.draw(faier.laplace(0, 1)) - ctx.draw(faier.laplace(0, 1))


def test_a_released_sum_of_noise_is_refuted_through_its_coarsening() -> None:
    """q + η₁ − η₂ (Laplace(1) each) at ε = 1/2: no alignment costs less than 1, and the
    certified engine refuses the released sum (its density is a convolution).  Cut at 0:
    Pr[< 0 | q = 0] = 1/2 and Pr[< 0 | q = 1] = Pr[η₁ − η₂ < −1] = 3/(4e) (the difference
    of two Laplace(1) has Pr[X > t] = (2 + t)·e^(−t)/4 for t ≥ 0), so the event's loss is
    ln(2e/3) = 1 + ln(2/3) ≈ 0.59 > 1/2."""
    import math

    import mpmath

    def below(q: int) -> mpmath.mpf:
        """Pr[q + η₁ − η₂ < 0], integrating over η₂."""

        def cdf(t: mpmath.mpf) -> mpmath.mpf:
            return mpmath.exp(t) / 2 if t < 0 else 1 - mpmath.exp(-t) / 2

        kinks = sorted({0, q})  # |η₂| and the cdf of η₁ at η₂ − q
        return mpmath.quad(
            lambda e: mpmath.exp(-abs(e)) / 2 * cdf(e - q), [-mpmath.inf, *kinks, mpmath.inf]
        )

    problem = Problem("difference", _difference, DifferentialPrivacy(EveryQuery(1)))
    result = faier.verify(problem, "1/2", engine="alignment")
    assert result.verdict is Verdict.VIOLATED
    witness = result.certified_witness
    assert witness is not None
    event, _, named = witness.output.partition(", ")
    assert named == "each released number replaced by where it lies among the cut point 0"
    assert event in ("< 0", "≥ 0")

    def chance(q: int) -> mpmath.mpf:
        return below(q) if event == "< 0" else 1 - below(q)

    (left,), (right,) = witness.left_value, witness.right_value
    assert abs(left - right) == 1
    with mpmath.workdps(30):
        p, q = chance(left), chance(right)
        assert witness.p.lower - 1e-15 <= p <= witness.p.upper + 1e-15
        assert witness.q.lower - 1e-15 <= q <= witness.q.upper + 1e-15
        assert abs(mpmath.log(p / q) - (1 + mpmath.log(mpmath.mpf(2) / 3))) < 1e-20
    assert "ε* ≥ 1 + ln(2/3)" in result.method
    assert result.enclosure is not None and math.isinf(result.enclosure.upper)
