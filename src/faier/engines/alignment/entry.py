"""The alignment engine's entry in the registry: proofs of ε-DP for every input."""

from __future__ import annotations

from faier.core.backends import installed
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Result


class AlignmentEngine:
    """Randomness alignments synthesised with z3 (CheckDP), re-checked by cvc5."""

    name = "alignment"
    summary = (
        "proves ε-DP for every real input by a randomness alignment synthesised with z3 "
        "(CheckDP), re-checked by cvc5; refutes with the certified engine's exact witness"
    )
    needs = (
        "a one-shot @faier.program drawing faier.laplace / faier.exponential / "
        "faier.discrete_laplace noise, every-query or one-query neighbours, a claimed ε (verify)"
    )

    def backends(self) -> tuple[Backend, ...]:
        return installed("z3-solver", "cvc5")

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        if question != "verify":
            return Refusal(
                "the alignment engine proves a claimed ε (it computes no ε*)",
                "run 'faier verify TARGET --epsilon E --engine alignment'",
            )
        if options.delta is not None:
            return Refusal("the alignment engine proves pure ε-DP", "leave out --delta")
        if not isinstance(problem.mechanism, Program):
            return Refusal(
                f"{problem.name} is not a one-shot @faier.program",
                "write the mechanism as @faier.program(inputs=faier.grid(n, m))",
            )
        privacy = problem.privacy
        if not isinstance(privacy, DifferentialPrivacy) or not isinstance(
            privacy.neighbours, EveryQuery | OneQuery
        ):
            return Refusal(
                "the alignment engine proves DP with every-query or one-query neighbours",
                "use --neighbours every-query or one-query",
            )
        from faier.engines.certified.entry import draws_noise

        if not draws_noise(problem, options.timeout):
            return Refusal(
                f"{problem.name} draws no noise the alignment engine aligns",
                "use --engine exact or auto",
            )
        try:
            import z3  # noqa: F401
        except ImportError:
            return Refusal("z3 is not installed", "pip install 'faier[smt]'")
        return None

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        raise AssertionError("refused: the alignment engine answers verify only")

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        from faier.engines.alignment import engine

        return engine.verify(problem, eps, options)

    def widen(self, problem: Problem, eps: Epsilon, options: Options) -> Result:
        """Try to prove, for every input, a claim that holds on the grid (``auto``): with a
        few seconds and paths, and no refutation."""
        from faier.engines.alignment import engine

        return engine.verify(problem, eps, options, widen=True)


ENGINE = AlignmentEngine()
