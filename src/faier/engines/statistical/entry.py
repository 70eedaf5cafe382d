"""The statistical tester's entry in the registry: evidence by sampling, never a verdict."""

from __future__ import annotations

from typing import TYPE_CHECKING

from faier.core.backends import installed
from faier.core.engine import AnswersAnotherCommand, Backend, Refusal

if TYPE_CHECKING:
    from faier.engines.statistical.config import Config
    from faier.engines.statistical.reports import StatReport
    from faier.engines.statistical.subjects import Subject
    from faier.engines.statistical.tester import Progress as TestProgress

REFUSAL = Refusal(
    "the statistical tester gives evidence against a claim (p-values), never a proof "
    "of privacy or an exact ε*",
    "use 'faier test' for p-values, 'faier certify' or 'faier bound' to finish exactly",
)


class StatisticalEngine(AnswersAnotherCommand):
    """StatDP's hypothesis test: event selection, input patterns, Fisher's exact test."""

    name = "statistical"
    summary = (
        "p-values over a grid of ε from samples (StatDP), candidates for certify/bound; "
        "discrete and continuous-noise mechanisms"
    )
    needs = "a mechanism that can be sampled; answers 'faier test', not epsilon/verify"
    refused = REFUSAL

    def backends(self) -> tuple[Backend, ...]:
        return installed("numpy", "scipy", "z3-solver")

    def test(
        self, subject: Subject, config: Config, progress: TestProgress | None = None
    ) -> StatReport:
        """p-values over the configured ε grid (evidence of violations only)."""
        from faier.engines.statistical import tester

        return tester.run(subject, config, progress)


ENGINE = StatisticalEngine()
