"""The exact engine's entry in the registry: which problems it takes, and how it is run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from faier.core import parametric
from faier.core.backends import installed
from faier.core.budget import Budget
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.privacy.budget import Epsilon
from faier.privacy.symbolic import ParametricPufferfish
from faier.results import Result


def _fixed(problem: Problem) -> Problem:
    """The rational problem (fixed parameter values substituted)."""
    if not parametric.declared(problem) and not isinstance(problem.privacy, ParametricPufferfish):
        return problem
    return parametric.at_point(problem, {})


def budget(options: Options, progress: Progress | None) -> Budget:
    """The time and state limits a run is given."""
    return Budget(options.timeout, options.max_states, progress=progress)


def _on_cluster(problem: Problem, options: Options, run: Callable[[], Result]) -> Result:
    """With ``--cluster``, the merged sequence search is split by prefix over the cluster.

    Other searches (one-shot distributions, grids, (ε, δ)'s exhaustive search)
    stay in this process; the method text says which happened.
    """
    if options.cluster is None:
        return run()
    if not problem.is_sequential:
        result = run()
        return replace(result, method=result.method + "; --cluster unused (not a sequence search)")
    from faier.engines.exact import hooks
    from faier.engines.exact.cluster_search import ClusterSearch

    search = ClusterSearch(options.cluster)
    with hooks.sequence_search(search):
        result = run()
    return replace(result, method=result.method + (search.note or "; --cluster unused"))


class ExactEngine:
    """Exact rational arithmetic over every comparison; float search steering where safe."""

    name = "exact"
    summary = (
        "exact ε*, (ε, δ) and verdicts: per-input distributions, grid search, merged "
        "sequence search, unbounded-loss certificates"
    )
    needs = "every parameter fixed (discrete programs, HMMs, interactive mechanisms)"

    def backends(self) -> tuple[Backend, ...]:
        return installed("numpy", "scipy")

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        unknown = [p.name for p in parametric.unknowns(problem)]
        if unknown:
            example = f"{unknown[0]}=1/3"
            return Refusal(
                f"parameters {', '.join(unknown)} have no value "
                "(the exact engine needs them fixed)",
                f"fix them with --set {example} or --param {example}, or use --engine smt",
            )
        if options.smt_asked:
            return Refusal(
                "--solver, --encoding and --emit-smt2 are options of the SMT engine",
                "use --engine smt, or leave those options out",
            )
        return None

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        from faier.engines.exact import engine

        return _on_cluster(
            problem,
            options,
            lambda: engine.epsilon(
                _fixed(problem),
                delta=options.delta,
                budget=budget(options, progress),
                arithmetic=options.arithmetic,
            ),
        )

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        from faier.engines.exact import engine

        return _on_cluster(
            problem,
            options,
            lambda: engine.verify(
                _fixed(problem),
                eps,
                delta=options.delta,
                budget=budget(options, progress),
                arithmetic=options.arithmetic,
            ),
        )


ENGINE = ExactEngine()
