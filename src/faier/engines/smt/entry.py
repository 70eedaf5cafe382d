"""The SMT engine's entry in the registry: problems with unknown parameters, via z3/cvc5."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from faier.core.backends import installed
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.privacy.budget import Epsilon
from faier.results import Result

if TYPE_CHECKING:
    from faier.engines.smt.session import SolverSettings


def settings(options: Options) -> SolverSettings:
    """The SMT engine's own settings from the run's options."""
    from faier.engines.smt.session import SolverSettings

    chosen = SolverSettings(
        solver=options.solver or "portfolio",
        encoding=options.encoding or "fast",
        timeout=options.timeout,
        emit_smt2=options.emit_smt2,
    )
    return chosen if options.precision is None else replace(chosen, precision=options.precision)


class SmtEngine:
    """FAIER journal Algorithm 1 and a fast per-outcome polynomial encoding, z3 and cvc5."""

    name = "smt"
    summary = (
        "ε-privacy for every value of unknown parameters (proof or synthesized violation), "
        "sup ε* over their domain, closed forms"
    )
    needs = "pure ε (no δ); HMMs, one-shot programs or Pufferfish priors, parameters may be unknown"

    def backends(self) -> tuple[Backend, ...]:
        return installed("z3-solver", "cvc5", "sympy")

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        if options.delta is not None:
            what = "computes pure ε*" if question == "epsilon" else "decides pure ε-privacy"
            return Refusal(
                f"the SMT engine {what}; (ε, δ) needs every parameter fixed",
                "fix the parameters with --param NAME=VALUE and use --engine exact",
            )
        return None

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        from faier.engines.smt import engine

        return engine.epsilon(problem, settings(options))

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        from faier.engines.smt import engine

        return engine.verify(problem, eps, settings(options))


ENGINE = SmtEngine()
