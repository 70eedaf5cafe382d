"""When no alignment is found: decide the counterexamples' inputs exactly.

A failed synthesis leaves neighbouring inputs where the last candidates broke.
They are only candidates: an alignment outside the templates may still exist.
Each pair (as the solver gave it, and rounded to integers when the rounded
pair is still neighbouring) is decided by the certified engine on exactly
those inputs; then the program's own input grid.  "violated" is said only
with the certified engine's witness; otherwise the answer is "unknown".
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace
from fractions import Fraction

from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.alignment.synthesis import Counterexample
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, ExplicitPairs, NeighbourRelation, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Result, Verdict

MAX_PAIRS = 8


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


def candidate_pairs(
    found: Sequence[Counterexample], relation: NeighbourRelation
) -> list[tuple[Hashable, Hashable]]:
    """Distinct neighbouring pairs from the counterexamples, integer roundings first."""
    out: list[tuple[Hashable, Hashable]] = []
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


def decide(
    problem: Problem,
    program: Program[object],
    eps: Epsilon,
    pairs: Sequence[tuple[Hashable, Hashable]],
    options: Options,
) -> tuple[Result | None, str]:
    """The certified engine's verdict on the candidate pairs, then on the grid: a violated
    result, or None with what was decided."""
    from faier.engines.certified.entry import ENGINE as CERTIFIED

    tried = []
    if pairs:
        inputs = tuple(dict.fromkeys(v for pair in pairs for v in pair))
        narrowed = Problem(
            problem.name,
            replace(program, inputs=InputSpace(inputs, "counterexample inputs"), symmetry=None),
            DifferentialPrivacy(ExplicitPairs(tuple(pairs))),
            title=problem.title,
        )
        result = CERTIFIED.verify(narrowed, eps, options, None)
        if result.verdict is Verdict.VIOLATED:
            return result, "a counterexample of the synthesis"
        tried.append(f"{len(pairs)} counterexample pairs: {_answer(result)}")
    result = CERTIFIED.verify(problem, eps, options, None)
    if result.verdict is Verdict.VIOLATED:
        return result, "the program's input grid"
    tried.append(f"the input grid: {_answer(result)}")
    return None, "; ".join(tried)


def _answer(result: Result) -> str:
    """The certified engine's verdict, with its reason when it did not decide: what it
    refused is what a reader must know to see why no witness was found."""
    verdict = result.verdict.value if result.verdict else "?"
    if result.verdict is Verdict.UNKNOWN and result.reason:
        return f"{verdict} ({result.reason})"
    return verdict
