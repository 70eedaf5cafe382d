"""The dpCTL* checker's entry in the registry: formulas on Markov chains and MDPs via Storm."""

from __future__ import annotations

from faier.core.backends import installed
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.errors import SpecError
from faier.privacy.budget import Epsilon
from faier.results import Result

REFUSAL = Refusal(
    "the dpCTL* checker answers formulas about states of a Markov chain or MDP, "
    "not ε* of a mechanism",
    "use 'faier check MODEL -f FORMULA'",
)


class DpctlEngine:
    """dpCTL* model checking: P and D operators, exact probabilities from Storm."""

    name = "dpctl"
    summary = (
        "dpCTL* formulas (the D operator for differential privacy between states) on "
        "Markov chains and MDPs"
    )
    needs = "a PRISM or JANI file, a chain/MDP file or a built-in chain; answers 'faier check'"

    def backends(self) -> tuple[Backend, ...]:
        return installed("stormpy", "lark")

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        return REFUSAL

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        raise SpecError(REFUSAL.reason, fix=REFUSAL.fix)

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        raise SpecError(REFUSAL.reason, fix=REFUSAL.fix)


ENGINE = DpctlEngine()
