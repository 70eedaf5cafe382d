"""Pin the facts computed by the brute-force reference module ``tests/reference.py``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import reference as ref

HALF = Fraction(1, 2)


def geometric(x: int) -> dict[int, Fraction]:
    """The alpha=1/2, m=2 truncated geometric mechanism."""
    return ref.truncated_geometric_row(HALF, 2, x)


def adjacent(x: int, y: int) -> bool:
    """Distinct integers at distance at most one."""
    return x != y and abs(x - y) <= 1


def grid(n: int) -> list[tuple[int, ...]]:
    """All vectors in {0,1,2}^n."""
    return list(product(range(3), repeat=n))


# --- truncated geometric ---------------------------------------------------------


def test_geometric_rows() -> None:
    F = Fraction
    assert [geometric(i) for i in range(3)] == [
        {0: F(2, 3), 1: F(1, 6), 2: F(1, 6)},
        {0: F(1, 3), 1: F(1, 3), 2: F(1, 3)},
        {0: F(1, 6), 1: F(1, 6), 2: F(2, 3)},
    ]
    assert ref.truncated_geometric_row(HALF, 0, 0) == {0: 1}


@pytest.mark.parametrize("alpha", [Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)])
@pytest.mark.parametrize("m", [1, 2, 4])
def test_geometric_rows_sum_to_one(alpha: Fraction, m: int) -> None:
    for i in range(m + 1):
        assert sum(ref.truncated_geometric_row(alpha, m, i).values()) == 1


def test_geometric_ratio_is_two() -> None:
    assert ref.dp_epsilon_ratio(geometric, range(3), adjacent) == 2


# --- ratio helpers ----------------------------------------------------------------


def test_max_ratio_and_infinity() -> None:
    F = Fraction
    assert ref.max_ratio({0: F(1, 2), 1: F(1, 2)}, {0: F(1, 4), 1: F(3, 4)}) == 2
    assert ref.max_ratio({0: F(1), 1: F(0)}, {0: F(1, 2), 1: F(1, 2)}) == 2
    assert ref.max_ratio({0: F(1, 2), 1: F(1, 2)}, {0: F(1)}) is None
    identity = ref.dp_epsilon_ratio(lambda x: {x: Fraction(1)}, range(3), adjacent)
    assert identity is None


def test_neighbour_predicates() -> None:
    every, one = ref.every_query_neighbours(), ref.one_query_neighbours()
    assert every((0, 0), (1, 1)) and not one((0, 0), (1, 1))
    assert every((0, 1), (0, 2)) and one((0, 1), (0, 2))
    assert not every((0, 0), (0, 0)) and not one((0, 0), (0, 0))
    assert not every((0, 0), (0, 2)) and not one((0, 0), (0, 2))
    assert ref.every_query_neighbours(2)((0, 0), (2, 1))


def test_hockey_stick() -> None:
    p, q = geometric(0), geometric(1)
    assert ref.hockey_stick(p, q, Fraction(2)) == 0
    assert ref.hockey_stick(p, q, Fraction(1)) == Fraction(1, 3)  # total variation
    assert ref.hockey_stick({0: Fraction(1)}, {1: Fraction(1)}, Fraction(5)) == 1


# --- Pufferfish -----------------------------------------------------------------


def test_contagious_prior_ratio_is_four() -> None:
    has = ref.two_person_count_prior(True, Fraction(1, 3), contagious=True)
    hasnt = ref.two_person_count_prior(False, Fraction(1, 3), contagious=True)
    assert has == {2: 1} and hasnt == {0: 1}
    assert ref.pufferfish_ratio(geometric, has, hasnt) == 4


@pytest.mark.parametrize("p", [Fraction(1, 10), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)])
def test_independent_prior_ratio_is_two(p: Fraction) -> None:
    has = ref.two_person_count_prior(True, p, contagious=False)
    hasnt = ref.two_person_count_prior(False, p, contagious=False)
    assert has == {1: 1 - p, 2: p} and hasnt == {0: 1 - p, 1: p}
    assert ref.pufferfish_ratio(geometric, has, hasnt) == 2


# --- randomized response and histogram -------------------------------------------


def test_randomized_response_ratio_is_three() -> None:
    assert ref.randomized_response_distribution(1) == {0: Fraction(1, 4), 1: Fraction(3, 4)}
    ratio = ref.dp_epsilon_ratio(ref.randomized_response_distribution, [0, 1], adjacent)
    assert ratio == 3
    p, q = (ref.randomized_response_distribution(x) for x in (0, 1))
    assert ref.hockey_stick(p, q, Fraction(1)) == HALF


def test_histogram() -> None:
    def hist(c: tuple[int, ...]) -> dict[tuple[int, ...], Fraction]:
        return ref.histogram_distribution(c, HALF, 2)

    assert sum(hist((0, 2)).values()) == 1
    assert hist((1, 0))[(1, 0)] == Fraction(1, 3) * Fraction(2, 3)
    assert ref.dp_epsilon_ratio(hist, grid(2), ref.one_query_neighbours()) == 2
    assert ref.dp_epsilon_ratio(hist, grid(2), ref.every_query_neighbours()) == 4


# --- noisy max --------------------------------------------------------------------


def noisy_max_ratio(
    n: int, ties: str, neighbours: Callable[[tuple, tuple], bool]
) -> Fraction | None:
    """Brute-force ratio of discrete Noisy Max over inputs {0,1,2}^n."""
    return ref.dp_epsilon_ratio(lambda x: ref.noisy_max_distribution(x, ties), grid(n), neighbours)


@pytest.mark.parametrize(
    ("n", "expected"),
    [(2, Fraction(12, 5)), (3, Fraction(24, 7)), (4, Fraction(432, 113)), (5, Fraction(288, 73))],
)
def test_noisy_max_uniform_ties(n: int, expected: Fraction) -> None:
    assert noisy_max_ratio(n, "uniform", ref.every_query_neighbours()) == expected


def test_noisy_max_uniform_witness() -> None:
    p = ref.noisy_max_distribution((1, 1, 1, 1, 1), "uniform")
    q = ref.noisy_max_distribution((0, 2, 2, 2, 2), "uniform")
    assert p[1] == Fraction(1, 5) and q[1] == Fraction(73, 1440)
    assert p[1] / q[1] == Fraction(288, 73)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_noisy_max_first_ties(n: int) -> None:
    assert noisy_max_ratio(n, "first", ref.every_query_neighbours()) == 2**n


def test_noisy_max_value_one_query() -> None:
    assert noisy_max_ratio(5, "value", ref.one_query_neighbours()) == 2


def test_noisy_max_distributions_sum_to_one() -> None:
    for ties in ("first", "uniform", "value"):
        assert sum(ref.noisy_max_distribution((0, 1, 2), ties).values()) == 1
    with pytest.raises(ValueError):
        ref.noisy_max_distribution((0, 1), "bogus")


# --- above threshold --------------------------------------------------------------


def naive_transcripts(t: int, answers: tuple[int, ...]) -> dict[str, Fraction]:
    """Transcript distribution by simulating every full noise vector (no pruning)."""
    trow = ref.truncated_geometric_row(Fraction(1, 4), 2, t)
    qrows = [geometric(r) for r in answers]
    out: dict[str, Fraction] = {}
    for t_noisy, noisy in product(range(3), product(range(3), repeat=len(answers))):
        transcript = ""
        for z in noisy:
            transcript += "T" if z >= t_noisy else "F"
            if z >= t_noisy:
                break
        p = trow[t_noisy]
        for row, z in zip(qrows, noisy, strict=True):
            p *= row[z]
        out[transcript] = out.get(transcript, Fraction(0)) + p
    return out


def test_above_threshold_transcripts_match_naive_simulation() -> None:
    for t, answers in product(range(3), grid(3)):
        naive = naive_transcripts(t, answers)
        assert sum(naive.values()) == 1
        for j in range(3):
            halting = ref.above_threshold_transcript_prob(t, answers[: j + 1], True)
            assert halting == naive.get("F" * j + "T", 0)
        assert ref.above_threshold_transcript_prob(t, answers, False) == naive.get("FFF", 0)


@pytest.mark.parametrize("K", [1, 2, 3, 4, 5, 6])
def test_above_threshold_ratio(K: int) -> None:
    assert ref.above_threshold_ratio(K) == 2**K
