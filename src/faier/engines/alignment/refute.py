"""When no alignment is found: decide candidate inputs exactly with the certified engine.

A failed proof leaves places to look, never a verdict, tried in this order:

- where the loop's cost grows with n (``horizon.py``), the first number of
  queries at which no alignment keeps it within ε and a few beyond, on inputs
  shaped like the costliest run there (all answers 0 against the run's
  changes; all 0 against all ±Δ);
- the synthesis's counterexamples, neighbouring inputs where the last
  candidates broke (as the solver gave them, and rounded to integers when
  the rounded pair is still neighbouring), and the program's own grid.

Each is decided by the certified engine on exactly those inputs.  Where it
does not decide (a released sum of noise variables, several numbers released
under branches) or finds no violation while the program releases numbers,
the same inputs are decided again on the program *coarsened*
(``mechanisms/coarsen.py``): each released number replaced by where it lies
among cut points.  By post-processing, a violation of the coarsened program
is one of the original, its witness the event "the output has this
pattern, each number in its interval"; its loss is a lower bound of the
original's ε*.  "violated" is said only with the certified engine's witness;
otherwise the answer is "unknown".
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from faier.core.budget import Budget
from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.alignment.synthesis import Counterexample
from faier.mechanisms import coarsen
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, ExplicitPairs, NeighbourRelation, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Enclosure, Result, Verdict

MAX_PAIRS = 8
SECONDS = 6.0
"""The certified runs at the lengths where the loop's cost passes ε get this many seconds
in all (a run still going then ends in "unknown", and no new one starts)."""

Pair = tuple[Hashable, Hashable]


def _plain(v: Fraction) -> int | float | None:
    """An input as the program's inputs are written: an int, or a float that is exactly
    the rational (a dyadic one); None for any other rational."""
    if v.denominator == 1:
        return int(v)
    if v.denominator & (v.denominator - 1) == 0 and v.denominator <= 2**20:
        return float(v)
    return None


def related(relation: NeighbourRelation, x: Sequence[Fraction], y: Sequence[Fraction]) -> bool:
    """Whether two exact vectors are neighbours (every-query or one-query ±Δ)."""
    if tuple(x) == tuple(y):
        return False
    gaps = [abs(a - b) for a, b in zip(x, y, strict=True)]
    if isinstance(relation, EveryQuery):
        return all(g <= relation.delta for g in gaps)
    if isinstance(relation, OneQuery):
        moved = [g for g in gaps if g]
        return len(moved) == 1 and moved[0] <= relation.delta
    return False


def candidate_pairs(found: Sequence[Counterexample], relation: NeighbourRelation) -> list[Pair]:
    """Distinct neighbouring pairs from the counterexamples, integer roundings first."""
    out: list[Pair] = []
    for cex in found:
        rounded = (
            tuple(Fraction(round(v)) for v in cex.x),
            tuple(Fraction(round(v)) for v in cex.y),
        )
        for x, y in (rounded, (cex.x, cex.y)):
            left, right = tuple(_plain(v) for v in x), tuple(_plain(v) for v in y)
            if None in left or None in right or not related(relation, x, y):
                continue
            if (left, right) not in out:
                out.append((left, right))
    return out[:MAX_PAIRS]


def run_pairs(changes: Sequence[Fraction], relation: NeighbourRelation) -> list[Pair]:
    """Pairs shaped like a costly run: all answers 0 against the run's changes and against
    their opposite (the one moving up first: a cost bound is the same either way, and the
    program's constants are more often on the upper side), and (every-query neighbours)
    all 0 against all +Δ and all −Δ."""
    n = len(changes)
    zero = tuple(Fraction(0) for _ in range(n))
    shapes = [tuple(changes), tuple(-c for c in changes)]
    if sum(changes) < 0:
        shapes.reverse()
    if isinstance(relation, EveryQuery):
        delta = Fraction(relation.delta)
        shapes += [(delta,) * n, (-delta,) * n]
    out: list[Pair] = []
    for y in shapes:
        if not related(relation, zero, y):
            continue
        left, right = tuple(_plain(v) for v in zero), tuple(_plain(v) for v in y)
        if None not in right and (left, right) not in out:
            out.append((left, right))
    return out


@dataclass(frozen=True)
class Attempt:
    """One question for the certified engine: the program at one length, on given pairs
    (or on its own grid)."""

    what: str
    problem: Problem
    queries: int


def on_pairs(problem: Problem, pairs: Sequence[Pair], queries: int, what: str) -> Attempt:
    """The program on exactly ``pairs`` (vectors of ``queries`` answers)."""
    program = problem.mechanism
    assert isinstance(program, Program)
    inputs = tuple(dict.fromkeys(v for pair in pairs for v in pair))
    narrowed = Problem(
        problem.name,
        replace(program, inputs=InputSpace(inputs, what), symmetry=None),
        DifferentialPrivacy(ExplicitPairs(tuple(pairs))),
        title=problem.title,
    )
    return Attempt(what, narrowed, queries)


@dataclass(frozen=True)
class Found:
    """A violation the certified engine decided, and where: which attempt, which cuts
    (None: on the program itself)."""

    result: Result
    attempt: Attempt
    cuts: tuple[Fraction, ...] | None
    loss: Enclosure | None = None
    """With cuts: the coarsened program's ε* on the witness pair, a lower bound of the
    program's ε* (the largest loss of its events there)."""
    attained: str | None = None
    """The coarsened output that attains ``loss`` (the witness's, when they agree)."""


def decide(
    attempts: Sequence[Attempt],
    eps: Epsilon,
    options: Options,
    cuts: Sequence[Fraction],
    budget: Budget,
    seconds: float | None = None,
) -> tuple[Found | None, str]:
    """The first violation the certified engine finds on the attempts (each on the program
    itself, then on its coarsenings by ``cuts``), or None with what was decided.  With
    ``seconds``, the certified runs share that many (and always the run's own timeout,
    counted by ``budget``)."""
    from faier.engines.certified.coarsened import refused as shape_refused
    from faier.engines.certified.entry import ENGINE as CERTIFIED

    started = time.perf_counter()
    if seconds is not None:
        limit = budget.elapsed() + seconds
        if options.timeout is not None:
            limit = min(limit, options.timeout)
        options = replace(options, timeout=limit)
    else:
        seconds = math.inf
    tried: list[str] = []
    open_attempts: list[Attempt] = []
    refused = False
    for attempt in attempts:
        if time.perf_counter() - started > seconds:
            tried.append(f"{attempt.what}: not tried (time)")
            continue
        if refused:
            open_attempts.append(attempt)
            continue
        result = CERTIFIED.verify_released(attempt.problem, eps, options, None)
        if result.verdict is Verdict.VIOLATED:
            return Found(result, attempt, None), ""
        tried.append(f"{attempt.what}: {_answer(result)}")
        if result.verdict is not Verdict.HOLDS:
            open_attempts.append(attempt)
        # the same refusal would come again at every length: skip the program itself
        refused = result.verdict is Verdict.UNKNOWN and shape_refused(result)
    for points in coarsen.partitions(cuts):
        for attempt in open_attempts:
            if time.perf_counter() - started > seconds:
                tried.append(f"{attempt.what}, coarsened: not tried (time)")
                break
            program = attempt.problem.mechanism
            assert isinstance(program, Program)
            coarse = replace(attempt.problem, mechanism=coarsen.coarsened(program, points))
            result = CERTIFIED.verify_released(coarse, eps, options, None)
            if result.verdict is Verdict.VIOLATED:
                found = Found(result, replace(attempt, problem=coarse), points)
                loss, attained = _pair_loss(found, options)
                return replace(found, loss=loss, attained=attained), ""
            shown = ", ".join(str(c) for c in points)
            tried.append(f"{attempt.what}, released numbers cut at {shown}: {_answer(result)}")
    return None, "; ".join(tried)


def _pair_loss(found: Found, options: Options) -> tuple[Enclosure | None, str | None]:
    """The certified engine's ε* of the coarsened program on the witness pair alone, and the
    output attaining it."""
    from faier.engines.certified.entry import ENGINE as CERTIFIED

    witness = found.result.certified_witness
    if witness is None:
        return None, None
    pair = (_vector(witness.left_value), _vector(witness.right_value))
    narrowed = on_pairs(found.attempt.problem, [pair], found.attempt.queries, "the pair")
    result = CERTIFIED.epsilon_released(narrowed.problem, options, None)
    star = result.epsilon_star
    if not isinstance(star, Enclosure) or star.infinite:
        return None, None
    best = result.certified_witness
    return star, None if best is None else best.output


def _vector(value: object) -> Hashable:
    return tuple(value) if isinstance(value, list) else value


def _answer(result: Result) -> str:
    """The certified engine's verdict, with its reason when it did not decide: what it
    refused is what a reader must know to see why no witness was found."""
    verdict = result.verdict.value if result.verdict else "?"
    if result.verdict is Verdict.UNKNOWN and result.reason:
        return f"{verdict} ({result.reason})"
    return verdict
