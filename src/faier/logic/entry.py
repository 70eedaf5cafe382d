"""The dpCTL* checker's entry in the registry: formulas on Markov chains and MDPs via Storm."""

from __future__ import annotations

from faier.core.backends import installed
from faier.core.engine import AnswersAnotherCommand, Backend, Refusal

REFUSAL = Refusal(
    "the dpCTL* checker answers formulas about states of a Markov chain or MDP, "
    "not ε* of a mechanism",
    "use 'faier check MODEL -f FORMULA'",
)


class DpctlEngine(AnswersAnotherCommand):
    """dpCTL* model checking: P and D operators, exact probabilities from Storm."""

    name = "dpctl"
    summary = (
        "dpCTL* formulas (the D operator for differential privacy between states) on "
        "Markov chains and MDPs"
    )
    needs = "a PRISM or JANI file, a chain/MDP file or a built-in chain; answers 'faier check'"
    refused = REFUSAL

    def backends(self) -> tuple[Backend, ...]:
        return installed("stormpy")


ENGINE = DpctlEngine()
