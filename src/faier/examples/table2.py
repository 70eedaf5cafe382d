"""FAIER journal Table 2, recomputed exactly from the built-in case studies.

Each row is one privacy question of the FAIER papers; ``faier demo`` prints
the verdict, the exact ε* and the counterexample faier finds for each.
Example, section and algorithm numbers in the scenarios are the journal's
("conf." marks the conference version's, "notes" the Noisy Max notes'; see
docs/REFERENCES.md).  Rows beyond the journal's table: Noisy Max with
uniform ties (journal §6.2.2 and §7.3.2, conference §7.2), the max-value
variant (notes Ex. 7.2) and Above Threshold over unboundedly many queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from faier.results import Result


@dataclass(frozen=True)
class Case:
    """One row: which example, with which settings, against which ε."""

    mechanism: str
    scenario: str
    example: str
    epsilon: str
    settings: dict[str, str] = field(default_factory=dict)
    horizon: int | None = None
    paper: str = ""


CASES: tuple[Case, ...] = (
    Case("truncated ½-geometric", "ln 2-DP (Ex. 4.2)", "geometric", "ln(2)", paper="✓"),
    Case(
        "truncated ½-geometric",
        "ln 2-Pufferfish, contagious (Ex. 4.3/4.4)",
        "geometric",
        "ln(2)",
        {"scenario": "contagious"},
        paper="✗ 0~ / 2~",
    ),
    Case(
        "truncated ½-geometric",
        "ln 2-Pufferfish, independent p=1/3 (Ex. 4.5)",
        "geometric",
        "ln(2)",
        {"scenario": "independent", "p": "1/3"},
        paper="✓ (all p)",
    ),
    Case(
        "noisy max (ties first), n=3",
        "ln 2-DP (Ex. 6.1)",
        "noisy-max",
        "ln(2)",
        {"ties": "first"},
        paper="✗, ε≈2.1",
    ),
    Case(
        "noisy max (ties uniform), n=3",
        "ln 2-DP (§6.2.2, §7.3.2)",
        "noisy-max",
        "ln(2)",
        paper="✗, ε≈1.232",
    ),
    Case(
        "noisy max (ties uniform), n=5",
        "1.372-DP (conf. §7.2)",
        "noisy-max",
        "1.372",
        {"n": "5"},
        paper="✗, ε≈1.372",
    ),
    Case(
        "noisy max (ties uniform), n=3",
        "ln 2-Pufferfish, independent diseases (Ex. 6.2)",
        "noisy-max",
        "ln(2)",
        {"scenario": "diseases"},
        paper="✓ (all p)",
    ),
    Case(
        "noisy max (ties uniform), n=3",
        "ln 2-Pufferfish, contagious A (Ex. 6.3)",
        "noisy-max",
        "ln(2)",
        {"scenario": "family"},
        paper="✗ at p=1/2",
    ),
    Case(
        "noisy max (max value), n=5",
        "ln 2-DP, one query ±1 (notes Ex. 7.2)",
        "noisy-max",
        "ln(2)",
        {"n": "5", "ties": "value"},
        paper="✓",
    ),
    Case(
        "above threshold",
        "4 ln 2-DP, 5 queries (Alg. 4)",
        "above-threshold",
        "4*ln(2)",
        horizon=5,
        paper="✗ ⊥⊥⊥⊥⊤",
    ),
    Case(
        "above threshold",
        "10-DP, unboundedly many queries (§6.3)",
        "above-threshold",
        "10",
        paper="✗ for every ε (by hand)",
    ),
)

NEIGHBOURS = {"noisy max (max value), n=5": "one-query"}


def run(
    verify: Callable[..., Result], progress: Callable[[Case], None] | None = None
) -> Iterator[tuple[Case, Result]]:
    """Verify every case with ``verify`` (``faier.verify``), yielding each result when known.

    The verifier is passed in so that the case studies do not depend on the API
    that loads them.
    """
    for case in CASES:
        if progress:
            progress(case)
        result = verify(
            case.example,
            case.epsilon,
            settings=case.settings,
            horizon=case.horizon,
            neighbours=NEIGHBOURS.get(case.mechanism),
        )
        yield case, result
