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
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import discrete_shift as shift
from faier.engines.certified import discrete_window as window
from faier.engines.certified import engine, intervals
from faier.errors import Unanswerable
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.discrete_noise import DiscreteNoise
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.results import Result, Verdict


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


METHOD = "certified: symbolic execution over integer noise"


def _answer(
    problem: Problem,
    eps: Epsilon | None,
    delta: Fraction | None,
    budget: Budget,
    closed_form: Callable[[tuple[shift.Shifted, ...], float], Result | None],
    on_window: Callable[[intervals.BallTable], Result],
) -> Result:
    """The closed form where every input releases shifted noise, else the decision on the
    window's certified table; unknown with the reason where neither applies."""
    started = time.perf_counter()
    shapes = shift.shifted_shape(problem)
    if shapes is not None:
        found = closed_form(shapes, started)
        if found is not None:
            return found
    try:
        table = window.ball_table(problem, window.WIDTHS[0], window.BITS, budget)
        return on_window(table)
    except Unanswerable as exc:
        result = engine.no_closed_form(problem, eps, str(exc), started, METHOD)
        return result if delta is None else replace(result, delta=delta)


def epsilon(problem: Problem, budget: Budget) -> Result:
    """ε* exactly (a released noisy integer) or as a certified interval, with its witness."""
    return _answer(
        problem,
        None,
        None,
        budget,
        lambda shapes, started: shift.epsilon(problem, shapes, started),
        lambda table: window.closed_epsilon(
            problem, window.explained(intervals.epsilon(problem, table, budget)), budget
        ),
    )


def verify(problem: Problem, eps: Epsilon, budget: Budget) -> Result:
    """holds (proved on enclosures), violated (a certified witness) or unknown."""

    def on_window(table: intervals.BallTable) -> Result:
        result = window.explained(intervals.verify(problem, eps, table, budget))
        if result.verdict is Verdict.UNKNOWN:
            result = window.exact_verify(problem, eps, result, budget)
        return result

    return _answer(
        problem,
        eps,
        None,
        budget,
        lambda shapes, started: shift.verify(problem, shapes, eps, started),
        on_window,
    )


def verify_delta(problem: Problem, eps: Epsilon, delta: Fraction, budget: Budget) -> Result:
    """(ε, δ) on certified enclosures of δ(ε) for every neighbouring pair."""
    return _answer(
        problem,
        eps,
        delta,
        budget,
        lambda shapes, started: shift.verify_delta(problem, shapes, eps, delta, budget, started),
        lambda table: window.explained(intervals.verify_delta(problem, eps, delta, table, budget)),
    )


def epsilon_delta(problem: Problem, delta: Fraction, budget: Budget) -> Result:
    """The least ε with δ(ε) ≤ δ, enclosed on the window's certified table."""
    return _answer(
        problem,
        None,
        delta,
        budget,
        lambda shapes, started: shift.epsilon_delta(problem, shapes, delta, budget, started),
        lambda table: window.explained(intervals.epsilon_delta(problem, delta, table, budget)),
    )
