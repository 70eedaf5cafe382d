"""StatDP's suite with continuous noise, decided with certified arithmetic, for ``faier demo``.

Each mechanism of StatDP §5 (Laplace and exponential noise; the Gaussian
variants and the Gaussian mechanism besides) on n = 3 queries with answers
in {0, 1, 2}, checked against StatDP's ε₀ = 0.7: the verdict and ε* as a
certified interval (issue "Continuous noise, decided").  The papers' own
expectations: the index-reporting Noisy Max, the histogram and Sparse
Vector are 0.7-DP; the value-reporting variants, the wrong-scale histogram
and iSVT 1–4 are not (StatDP Table 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from faier.examples.continuous import SPECS
from faier.results import Result

CLAIM = "0.7"
SETTINGS = {"n": "3"}


@dataclass(frozen=True)
class SuiteRow:
    """One mechanism of the suite: its verdict at ε₀ = 0.7 and its ε*."""

    example: str
    paper: str
    verdict: Result
    epsilon: Result


def run(
    verify: Callable[..., Result],
    epsilon: Callable[..., Result],
    progress: Callable[[str], None] | None = None,
) -> Iterator[SuiteRow]:
    """Decide every mechanism of the suite (``faier.verify`` and ``faier.epsilon`` passed in)."""
    for name, _, paper, *_ in SPECS:
        if progress:
            progress(name)
        yield SuiteRow(
            name,
            paper,
            verify(name, CLAIM, settings=SETTINGS),
            epsilon(name, settings=SETTINGS),
        )
