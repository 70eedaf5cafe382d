"""Verdicts for programs that draw discrete Laplace or discrete Gaussian noise.

Two shapes, tried in this order:

* a released noisy integer (``x + ctx.draw(faier.discrete_laplace(0, t))``,
  a tuple of them, no branch on the noise): decided in closed form
  (:mod:`.discrete_shift`);
* anything else: a window of integer values and symbolic tails, every
  output's probability a certified enclosure decided by the interval layer
  (:mod:`.discrete_window`), ties of discrete Laplace probabilities settled
  on their exact numerators.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import replace
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import discrete_shift as shift
from faier.engines.certified import discrete_window as window
from faier.engines.certified import intervals
from faier.engines.certified.integrate import Unsupported
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.discrete_noise import DiscreteNoise
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.results import Result, Statistics, Verdict


class _Found(Exception):
    pass


class _Probe:
    """One run taking first outcomes and locations, until integer noise is drawn."""

    def draw(self, dist: Any) -> Any:
        if isinstance(dist, DiscreteNoise):
            raise _Found
        if isinstance(dist, Continuous):
            return dist.loc
        return dist.items[0][0]


PROBES = 64
"""Inputs probed (one run each, first outcomes) for a draw of integer noise."""


def draws_integer_noise(problem: Problem) -> bool:
    """Whether the program draws discrete Laplace/Gaussian noise (one run on each of the
    first :data:`PROBES` inputs)."""
    mechanism = problem.mechanism
    if not isinstance(mechanism, Program):
        return False
    for x in itertools.islice(mechanism.inputs.values, PROBES):
        try:
            mechanism.body(x, _Probe())
        except _Found:
            return True
        except KeyboardInterrupt:
            raise
        except Exception:  # the engine that takes the problem reports the mechanism's errors
            continue
    return False


def _unsupported(problem: Problem, eps: Epsilon | None, reason: str, started: float) -> Result:
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe(),
        method="certified: symbolic execution over integer noise",
        verdict=None if eps is None else Verdict.UNKNOWN,
        epsilon=None if eps is None else str(eps),
        reason=reason,
        statistics=Statistics(seconds=time.perf_counter() - started),
    )


def epsilon(problem: Problem, budget: Budget) -> Result:
    """ε* exactly (a released noisy integer) or as a certified interval, with its witness."""
    started = time.perf_counter()
    shapes = shift.shifted_shape(problem)
    if shapes is not None:
        found = shift.epsilon(problem, shapes, started)
        if found is not None:
            return found
    try:
        table = window.ball_table(problem, window.WIDTHS[0], window.BITS, budget)
        return window.closed_epsilon(
            problem, window.explained(intervals.epsilon(problem, table, budget)), budget
        )
    except Unsupported as exc:
        return _unsupported(problem, None, f"no closed form: {exc}", started)


def verify(problem: Problem, eps: Epsilon, budget: Budget) -> Result:
    """holds (proved on enclosures), violated (a certified witness) or unknown."""
    started = time.perf_counter()
    shapes = shift.shifted_shape(problem)
    if shapes is not None:
        found = shift.verify(problem, shapes, eps, started)
        if found is not None:
            return found
    try:
        table = window.ball_table(problem, window.WIDTHS[0], window.BITS, budget)
        result = window.explained(intervals.verify(problem, eps, table, budget))
        if result.verdict is Verdict.UNKNOWN:
            result = window.exact_verify(problem, eps, result, budget)
        return result
    except Unsupported as exc:
        return _unsupported(problem, eps, f"no closed form: {exc}", started)


def verify_delta(problem: Problem, eps: Epsilon, delta: Fraction, budget: Budget) -> Result:
    """(ε, δ) on certified enclosures of δ(ε) for every neighbouring pair."""
    started = time.perf_counter()
    shapes = shift.shifted_shape(problem)
    if shapes is not None:
        found = shift.verify_delta(problem, shapes, eps, delta, budget, started)
        if found is not None:
            return found
    try:
        table = window.ball_table(problem, window.WIDTHS[0], window.BITS, budget)
        return window.explained(intervals.verify_delta(problem, eps, delta, table, budget))
    except Unsupported as exc:
        return replace(_unsupported(problem, eps, f"no closed form: {exc}", started), delta=delta)


def epsilon_delta(problem: Problem, delta: Fraction, budget: Budget) -> Result:
    """The least ε with δ(ε) ≤ δ, enclosed on the window's certified table."""
    started = time.perf_counter()
    shapes = shift.shifted_shape(problem)
    if shapes is not None:
        found = shift.epsilon_delta(problem, shapes, delta, budget, started)
        if found is not None:
            return found
    try:
        table = window.ball_table(problem, window.WIDTHS[0], window.BITS, budget)
        return window.explained(intervals.epsilon_delta(problem, delta, table, budget))
    except Unsupported as exc:
        return replace(_unsupported(problem, None, f"no closed form: {exc}", started), delta=delta)
