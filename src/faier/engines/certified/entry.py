"""The certified engine's entry in the registry: programs that draw continuous noise."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from faier.core.backends import installed
from faier.core.budget import Budget, hard_deadline
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.errors import Unanswerable
from faier.mechanisms import isolation
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Result


class _Found(Exception):
    """The probe met a continuous draw."""


class _Probe:
    """Runs a body once, taking every finite draw's first outcome, until noise is drawn."""

    def draw(self, dist: Any) -> Any:
        if isinstance(dist, Continuous):
            raise _Found
        return dist.items[0][0]


PROBE_SECONDS = 2.0
"""The longest the probing run may take; a mechanism slower than that before its first
draw is left to the other engines (whose refusal of continuous noise names this engine)."""


def draws_noise(problem: Problem, timeout: float | None = None) -> bool:
    """Whether the problem's program draws continuous noise (one cheap run on one input)."""
    mechanism = problem.mechanism
    if not isinstance(mechanism, Program):
        return False
    limit = PROBE_SECONDS if timeout is None else min(timeout, PROBE_SECONDS)
    try:
        first = next(iter(mechanism.inputs.values))
        with hard_deadline(limit):
            mechanism.body(first, _Probe())
    except _Found:
        return True
    except KeyboardInterrupt:
        if isolation.interrupt_requested():  # Ctrl-C, not the mechanism's own SIGINT
            raise
        return False
    except BaseException:  # user code may raise (or exit) anything; the engine that
        return False  # takes the problem reports the mechanism's own failure
    return False


class CertifiedEngine:
    """Path probabilities of continuous noise (closed forms, or certified integrals for
    Gaussian noise) in arb balls."""

    name = "certified"
    summary = (
        "continuous noise (Laplace, exponential, Gaussian): symbolic execution, closed-form "
        "or certified-integral probabilities, certified ε* intervals and (ε, δ) verdicts over "
        "the input grid; where released numbers have no closed form, a certified lower bound "
        "from the program with its released numbers cut into intervals"
    )
    needs = (
        "a one-shot @faier.program drawing faier.laplace / faier.exponential / faier.gaussian "
        "noise (DP)"
    )

    def backends(self) -> tuple[Backend, ...]:
        return installed("python-flint", "gmpy2")

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        if not draws_noise(problem, options.timeout):
            return Refusal(
                f"{problem.name} draws no continuous noise (the certified engine decides "
                "programs that draw faier.laplace, faier.exponential or faier.gaussian)",
                "use --engine exact or auto",
            )
        if not isinstance(problem.privacy, DifferentialPrivacy):
            return Refusal(
                "the certified engine decides differential privacy over an input grid",
                "leave out the Pufferfish scenario",
            )
        try:
            import flint  # noqa: F401
        except ImportError:
            return Refusal("python-flint is not installed", "pip install 'faier[certified]'")
        return None

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        result = self.epsilon_released(problem, options, progress)
        return _coarsened_unless_answered(problem, None, options, progress, result)

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        result = self.verify_released(problem, eps, options, progress)
        return _coarsened_unless_answered(problem, eps, options, progress, result)

    def epsilon_released(
        self, problem: Problem, options: Options, progress: Progress | None
    ) -> Result:
        """``epsilon`` on the program as it releases its numbers, without falling back to
        its coarsenings (for a caller that chooses its own, as the alignment engine's
        refutation does)."""
        return _unknown_unless_answered(
            problem, None, options, lambda: self._epsilon(problem, options, progress)
        )

    def verify_released(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        """``verify`` without the coarsening fallback (see ``epsilon_released``)."""
        return _unknown_unless_answered(
            problem, eps, options, lambda: self._verify(problem, eps, options, progress)
        )

    def _epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        from faier.engines.certified import discrete_noise, engine

        if discrete_noise.draws_integer_noise(problem):
            budget = Budget(options.timeout, options.max_states, progress=progress)
            if options.delta is not None:
                return discrete_noise.epsilon_delta(problem, options.delta, budget)
            return discrete_noise.epsilon(problem, budget)
        if options.delta is not None:
            budget = Budget(options.timeout, options.max_states, progress=progress)
            return engine.epsilon_delta(problem, options.delta, budget)
        return engine.epsilon(
            problem, Budget(options.timeout, options.max_states, progress=progress)
        )

    def _verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        from faier.engines.certified import discrete_noise, engine

        if discrete_noise.draws_integer_noise(problem):
            budget = Budget(options.timeout, options.max_states, progress=progress)
            if options.delta is not None:
                return discrete_noise.verify_delta(problem, eps, options.delta, budget)
            return discrete_noise.verify(problem, eps, budget)
        if options.delta is not None:
            budget = Budget(options.timeout, options.max_states, progress=progress)
            return engine.verify_delta(problem, eps, options.delta, budget)
        return engine.verify(
            problem, eps, Budget(options.timeout, options.max_states, progress=progress)
        )


def _unknown_unless_answered(
    problem: Problem, eps: Epsilon | None, options: Options, run: Callable[[], Result]
) -> Result:
    """The engine's answer; a part of the program it cannot follow (an operation on noise,
    a shape without a closed form) raised anywhere on the way is "unknown" with the
    reason, never an internal error or a complaint about the user's program."""
    from faier.engines.certified import engine

    started = time.perf_counter()
    try:
        return run()
    except Unanswerable as exc:
        result = engine.no_closed_form(problem, eps, str(exc), started)
        return result if options.delta is None else replace(result, delta=options.delta)


def _coarsened_unless_answered(
    problem: Problem,
    eps: Epsilon | None,
    options: Options,
    progress: Progress | None,
    result: Result,
) -> Result:
    """A refusal of what a pure-ε program with continuous noise releases, with what its
    coarsenings prove (a lower bound of ε*, or a violation: :mod:`.coarsened`)."""
    from faier.engines.certified import coarsened, discrete_noise

    if options.delta is not None or not coarsened.refused(result):
        return result
    if discrete_noise.draws_integer_noise(problem):
        return result  # its released numbers are integers, which coarsening keeps
    budget = Budget(options.timeout, options.max_states, progress=progress)
    return _unknown_unless_answered(
        problem, eps, options, lambda: coarsened.lower_bound(problem, eps, result, budget)
    )


ENGINE = CertifiedEngine()
