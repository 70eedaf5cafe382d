"""FAIER journal Table 2, recomputed: every row's verdict and exact ε*."""

from __future__ import annotations

from fractions import Fraction

import pytest

import faier
from faier.examples import table2
from faier.results import Verdict

EXPECTED = {
    ("truncated ½-geometric", "ln 2-DP (Ex. 4.2)"): (Verdict.HOLDS, Fraction(2)),
    ("truncated ½-geometric", "ln 2-Pufferfish, contagious (Ex. 4.3/4.4)"): (
        Verdict.VIOLATED,
        Fraction(4),
    ),
    ("truncated ½-geometric", "ln 2-Pufferfish, independent p=1/3 (Ex. 4.5)"): (
        Verdict.HOLDS,
        Fraction(2),
    ),
    ("noisy max (ties first), n=3", "ln 2-DP (Ex. 6.1)"): (Verdict.VIOLATED, Fraction(8)),
    ("noisy max (ties uniform), n=3", "ln 2-DP (§6.2.2, §7.3.2)"): (
        Verdict.VIOLATED,
        Fraction(24, 7),
    ),
    ("noisy max (ties uniform), n=5", "1.372-DP (conf. §7.2)"): (
        Verdict.VIOLATED,
        Fraction(288, 73),
    ),
    ("noisy max (ties uniform), n=3", "ln 2-Pufferfish, independent diseases (Ex. 6.2)"): (
        Verdict.HOLDS,
        Fraction(79, 49),
    ),
    ("noisy max (ties uniform), n=3", "ln 2-Pufferfish, contagious A (Ex. 6.3)"): (
        Verdict.VIOLATED,
        Fraction(287, 107),
    ),
    ("noisy max (max value), n=5", "ln 2-DP, one query ±1 (notes Ex. 7.2)"): (
        Verdict.HOLDS,
        Fraction(2),
    ),
    ("above threshold", "4 ln 2-DP, 5 queries (Alg. 4)"): (Verdict.VIOLATED, Fraction(32)),
    ("above threshold", "10-DP, unboundedly many queries (§6.3)"): (Verdict.VIOLATED, None),
}


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str], object]:
    return {(case.mechanism, case.scenario): result for case, result in table2.run(faier.verify)}


def test_every_case_is_pinned(rows: dict[tuple[str, str], object]) -> None:
    assert set(rows) == set(EXPECTED)


@pytest.mark.parametrize("key", list(EXPECTED), ids=[" / ".join(k) for k in EXPECTED])
def test_row(rows: dict[tuple[str, str], object], key: tuple[str, str]) -> None:
    result = rows[key]
    verdict, ratio = EXPECTED[key]
    assert result.verdict is verdict  # type: ignore[attr-defined]
    assert result.epsilon_star.ratio == ratio  # type: ignore[attr-defined]
    if verdict is Verdict.VIOLATED:
        witness = result.witness  # type: ignore[attr-defined]
        assert witness is not None and witness.p > 0
        assert witness.q == 0 or witness.p / witness.q > 1
