"""The argument generator (StatDP §4.4.2): values for a mechanism's public arguments.

Two heuristics, per input pair (D1, D2):

* noise arguments take the value with the least noise (smaller noise, smaller
  variance in the test);
* branch arguments take values that make the noise-free runs on D1 and D2
  diverge on as many branches as possible (diverging branches spend budget).

How:

* A sampled mechanism with a scalar definition is executed concolically
  (:mod:`.symbolic`): every draw is 0, the branch conditions and noise
  scales become z3 formulas over the arguments, and z3's optimiser first
  minimises the total noise scale, then maximises the number of branch
  pairs that diverge (MaxSMT, one soft constraint per pair).  Re-running at
  the solution can change the path, so this repeats until it stops
  improving.  Among the solutions, the one in the middle of the feasible
  range is taken (the largest margin to every chosen branch), e.g. T = 1.5
  for [1, 1, 1] against [2, 2, 2].
* A faier interactive mechanism's public input (the threshold of Above
  Threshold or the sparse vector variants) has a finite domain: every value
  is tried with noise-free runs (each draw at its most likely outcome) and
  the one whose two transcripts differ most is taken (exhaustive, so exact).
* Otherwise (a vectorised black box without a scalar definition, code the
  concolic run cannot follow, or z3 not installed) the grid fallback makes
  each of a few values per argument its own candidate, and the event
  selector chooses among them.

The z3 part lives in :mod:`.maxsmt`, imported only when needed (z3 is the
optional ``faier[smt]`` extra).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from faier.engines.statistical.discrete import noise_free_transcript
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.sampled import Argument, Sampled

GRID = 5
MAX_GRID_CANDIDATES = 9
Z3_MISSING = "z3 is not installed: pip install 'faier[smt]'"

Args = tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Choice:
    """Argument values for one input pair and how they were found."""

    args: Args
    method: str


def domain(
    argument: Argument, left: Sequence[float], right: Sequence[float], delta: int
) -> tuple[float, float]:
    answers = [*left, *right]
    if argument.role == "branch":
        low = min(answers) - delta if argument.low is None else argument.low
        high = max(answers) + delta if argument.high is None else argument.high
    else:
        low = (1 if argument.integer else 0) if argument.low is None else argument.low
        high = float(len(left)) if argument.high is None else argument.high
    return float(low), float(max(low, high))


def grid_choices(
    mechanism: Sampled, left: Sequence[float], right: Sequence[float], delta: int, reason: str
) -> list[Choice]:
    """A few values per argument, each combination its own candidate (the selector chooses)."""
    axes = []
    for a in mechanism.arguments:
        low, high = domain(a, left, right, delta)
        points = np.linspace(low, high, GRID)
        values = (
            sorted({round(p) for p in points})
            if a.integer
            else [round(float(p), 3) for p in points]
        )
        axes.append([(a.name, v) for v in values])
    combos = list(itertools.product(*axes))
    if len(combos) > MAX_GRID_CANDIDATES:
        step = len(combos) / MAX_GRID_CANDIDATES
        combos = [combos[int(k * step)] for k in range(MAX_GRID_CANDIDATES)]
    return [Choice(tuple(c), f"grid fallback ({reason})") for c in combos]


def choose(
    mechanism: Sampled,
    left: Sequence[float],
    right: Sequence[float],
    epsilon: float,
    delta: int,
    context: Any = None,
) -> list[Choice]:
    """Argument candidates for one pair: one symbolic choice, or the grid fallback."""
    if not mechanism.arguments:
        return [Choice((), "no arguments")]
    if mechanism.reference is None:
        return grid_choices(mechanism, left, right, delta, "no scalar definition")
    try:
        from faier.engines.statistical import maxsmt
    except ImportError:
        return grid_choices(mechanism, left, right, delta, Z3_MISSING)
    try:
        return [maxsmt.symbolic_choice(mechanism, left, right, epsilon, delta, context)]
    except maxsmt.UNFOLLOWABLE as exc:
        return grid_choices(mechanism, left, right, delta, str(exc))


def new_context() -> Any:
    """A fresh z3 context for a sequence of choices (None without z3: grid fallback then)."""
    try:
        from faier.engines.statistical import maxsmt
    except ImportError:
        return None
    return maxsmt.new_context()


def choose_start(mechanism: Interactive, left: Sequence[Any], right: Sequence[Any]) -> Choice:
    """The public start whose noise-free transcripts on the two streams differ most."""

    def divergence(start: str) -> int:
        a = noise_free_transcript(mechanism, start, left)
        b = noise_free_transcript(mechanism, start, right)
        return sum(x != y for x, y in itertools.zip_longest(a, b))

    starts = list(mechanism.starts)
    scores = [divergence(s) for s in starts]
    top = max(scores)
    best = [s for s, score in zip(starts, scores, strict=True) if score == top]
    chosen = best[len(best) // 2]
    return Choice(
        (("start", chosen),), f"exhaustive over {len(starts)} starts: {top} steps diverge"
    )
