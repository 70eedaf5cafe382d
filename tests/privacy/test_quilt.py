"""The discrete Markov Quilt Mechanism: its calibration beside the exact Pufferfish loss.

The table of docs/MARKOV_QUILT.md is pinned here.  Each exact ε* is also
recomputed by brute force (every sequence of the chain enumerated, the count
conditioned on each step's state, the truncated geometric rows of
``reference``), and the quilts' max-influence from the enumerated joint.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

import reference as ref
from faier.api import epsilon, verify
from faier.core.problem import Problem
from faier.examples.correlated import markov_quilt_problem
from faier.examples.paper_hmms import geometric_hmm
from faier.model.parameters import Interval, Parameter
from faier.privacy.quilt import calibration, quilt_privacy, quilts, symmetric_chain
from faier.results import Verdict

F = Fraction
TABLE = [
    # alpha, T, stay, e^ε_MQM, e^ε*
    (F(1, 2), 3, F(1, 2), F(2), F(2)),
    (F(1, 2), 3, F(3, 5), F(9, 2), F(128, 49)),
    (F(1, 2), 3, F(7, 10), F(8), F(578, 169)),
    (F(1, 2), 3, F(4, 5), F(8), F(9, 2)),
    (F(1, 2), 3, F(9, 10), F(8), F(722, 121)),
    (F(1, 2), 5, F(1, 2), F(2), F(2)),
    (F(1, 2), 5, F(3, 5), F(9, 2), F(7688, 2809)),
    (F(1, 2), 5, F(7, 10), F(98, 9), F(153458, 37249)),
    (F(1, 2), 5, F(4, 5), F(32), F(338, 49)),
    (F(1, 2), 5, F(9, 10), F(32), F(249218, 18769)),
    (F(1, 2), 8, F(4, 5), F(32), F(5809, 657)),
    (F(1, 2), 8, F(9, 10), F(144), F(1541963014, 59009587)),
    (F(3, 4), 5, F(3, 5), F(676, 243), F(44944, 29403)),
    (F(3, 4), 5, F(9, 10), F(1024, 243), F(996004, 328683)),
    (F(3, 4), 8, F(4, 5), F(311296, 35721), F(11750527, 4401759)),
]


def _sequences(stay: Fraction, length: int) -> list[tuple[tuple[int, ...], Fraction]]:
    out = []
    for seq in itertools.product((0, 1), repeat=length):
        w = Fraction(1, 2)
        for a, b in itertools.pairwise(seq):
            w *= stay if a == b else 1 - stay
        out.append((seq, w))
    return out


def _brute_loss(alpha: Fraction, length: int, stay: Fraction) -> Fraction:
    joint = _sequences(stay, length)
    rows = {x: ref.truncated_geometric_row(alpha, length, x) for x in range(length + 1)}
    best = Fraction(1)
    for step in range(length):
        outputs = []
        for value in (0, 1):
            kept = [(sum(s), w) for s, w in joint if s[step] == value]
            mass = sum(w for _, w in kept)
            outputs.append(
                {o: sum(w / mass * rows[c][o] for c, w in kept) for o in range(length + 1)}
            )
        for o in range(length + 1):
            best = max(best, outputs[0][o] / outputs[1][o], outputs[1][o] / outputs[0][o])
    return best


@pytest.mark.parametrize(("alpha", "length", "stay", "claimed", "exact"), TABLE)
def test_calibration_is_sound_and_pinned(
    alpha: Fraction, length: int, stay: Fraction, claimed: Fraction, exact: Fraction
) -> None:
    assert calibration(symmetric_chain(stay, length), alpha).ratio == claimed
    result = epsilon(markov_quilt_problem(length, stay, alpha))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == exact
    assert _brute_loss(alpha, length, stay) == exact
    assert exact <= claimed


def test_quilt_influence_matches_the_enumerated_joint() -> None:
    stay, length = Fraction(7, 10), 5
    joint = _sequences(stay, length)
    for quilt in quilts(symmetric_chain(stay, length), 3):
        nodes = [
            3 - q - 1 if side == "before" else 3 + q - 1
            for side, q in (("before", quilt.before), ("after", quilt.after))
            if q is not None
        ]
        conditional = {}
        for x in (0, 1):
            kept = [(tuple(s[n] for n in nodes), w) for s, w in joint if s[2] == x]
            mass = sum(w for _, w in kept)
            table: dict[tuple[int, ...], Fraction] = {}
            for key, w in kept:
                table[key] = table.get(key, Fraction(0)) + w / mass
            conditional[x] = table
        worst = max(
            conditional[x][k] / conditional[1 - x][k] for x in (0, 1) for k in conditional[x]
        )
        assert quilt.influence == worst
        low = 3 - quilt.before if quilt.before is not None else 0
        high = 3 + quilt.after if quilt.after is not None else length + 1
        assert quilt.nearby == high - low - 1


@pytest.mark.parametrize(("length", "limit"), [(3, 8), (5, 32)])
def test_over_the_chains_parameter_the_supremum_is_the_group_bound(length: int, limit: int) -> None:
    """stay ∈ (½, 1) unknown: sup ε* = T·ln 2, approached as stay → 1, where the
    calibration (the empty quilt) claims exactly that: tight only in the limit."""
    stay = Parameter("q", Interval(Fraction(1, 2), Fraction(1)))
    privacy = quilt_privacy(symmetric_chain("q", length), "1", (stay,), as_text=True)
    problem = Problem("chain", geometric_hmm(Fraction(1, 2), length), privacy, 1)
    result = epsilon(problem, timeout=60)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == limit
    assert result.parametric is not None and result.parametric.attained is False
    assert [(v.name, v.value) for v in result.parametric.limit] == [("q", 1)]
    assert calibration(symmetric_chain(Fraction(99, 100), length), Fraction(1, 2)).ratio == limit


def test_verify_the_claimed_epsilon_from_the_command_line_api() -> None:
    held = verify("markov-quilt", "ln(32)", settings={"length": "5", "stay": "4/5"})
    assert held.verdict is Verdict.HOLDS
    broken = verify("markov-quilt", "ln(6)", settings={"length": "5", "stay": "4/5"})
    assert broken.verdict is Verdict.VIOLATED
