"""What the certified engine proves of a program whose released numbers it refuses.

Where a program releases numbers without a closed form here (several under
branches, a sum of noise variables), the engine decides the program
*coarsened* (``mechanisms/coarsen.py``): each released number replaced by
where it lies among a few cut points.  By post-processing, each event of the
coarsened program is an event of the program ("the output has this pattern,
each number in its interval"), so the coarsened program's exact ε* on the
grid is a certified *lower* bound of the program's, and a violation of the
coarsened program at ε is one of the program, its witness event's two
probabilities exact.  A proof for the coarsened program proves nothing
about the program: the upper bound stays unknown (∞ in the JSON).

Tried, cheapest first, within the run's timeout: every released number cut
at 0, then at all the cut points (0, the released numbers' constants and
the noise scales, ``coarsen.cut_points``), then, where those are refused too
(a released prefix sum compares a sum of noise variables with the cut),
only the first released number kept and cut at 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import engine
from faier.engines.certified.symbolic import Output, paths
from faier.errors import BudgetExceeded, Unanswerable
from faier.mechanisms import coarsen
from faier.mechanisms.handlers import guarded
from faier.mechanisms.program import Program
from faier.model.rational import exact_fraction
from faier.privacy.budget import Epsilon
from faier.results import Enclosure, Result, Verdict


@dataclass(frozen=True)
class View:
    """One coarsening: its cut points and how many released numbers it keeps (None: all)."""

    cuts: tuple[Fraction, ...]
    released: int | None = None

    def describe(self) -> str:
        return coarsen.describe(self.cuts, self.released)

    def brief(self) -> str:
        shown = ", ".join(str(c) for c in self.cuts)
        if self.released is None:
            return f"cut at {shown}"
        kept = "the first number" if self.released == 1 else f"the first {self.released}"
        return f"{kept} alone cut at {shown}"


def refused(result: Result) -> bool:
    """The engine refused the program's shape (no closed form), not a pair or a claim."""
    return (result.reason or "").startswith("no closed form")


def views(problem: Problem, budget: Budget) -> list[View]:
    """The coarsenings to try (none where the program releases no number on its first
    input: then the refusal is about something else)."""
    program = problem.mechanism
    assert isinstance(program, Program)
    first = next(iter(program.inputs.values))
    found = guarded(program.name, lambda: list(paths(lambda ctx: program.body(first, ctx))))
    budget.spend(len(found))
    released: list[Output] = []
    for p in found:
        _numbers(p.output, released)
    if not released:
        return []
    constants = sorted({exact_fraction(abs(n.constant)) for n in released if n.constant})
    scales = (exact_fraction(d.scale) for p in found for d in p.noise)
    cuts = coarsen.cut_points(constants, scales)
    out = [View(c) for c in coarsen.partitions(cuts)]
    out.append(View((Fraction(0),), 1))
    return out


def _numbers(output: Hashable, into: list[Output]) -> None:
    if isinstance(output, Output):
        into.append(output)
    elif isinstance(output, tuple):
        for o in output:
            _numbers(o, into)


@dataclass(frozen=True)
class Bound:
    """The coarsened program's ε* (a lower bound of the program's) and where it was found."""

    view: View
    problem: Problem
    result: Result
    enclosure: Enclosure


def _coarse(problem: Problem, view: View) -> Problem:
    program = problem.mechanism
    assert isinstance(program, Program)
    return replace(problem, mechanism=coarsen.coarsened(program, view.cuts, view.released))


def best_bound(
    problem: Problem, budget: Budget, enough: float = math.inf
) -> tuple[Bound | None, list[str]]:
    """The largest coarsened ε* found, and what each view gave (for the reason); the finer
    views are skipped once a bound is certainly above ``enough`` (a claim it refutes)."""
    best: Bound | None = None
    tried: list[str] = []
    try:
        candidates = views(problem, budget)
    except (Unanswerable, BudgetExceeded) as exc:
        return None, [f"coarsening not tried ({exc})"]
    if not candidates:
        return None, ["not coarsened (the program releases no number on its first input)"]
    for view in candidates:
        if view.released is not None and best is not None:
            break  # every number was kept and decided: keeping fewer cannot raise ε*
        coarse = _coarse(problem, view)
        try:
            result = engine.epsilon(coarse, budget)
        except Unanswerable as exc:
            tried.append(f"{view.brief()}: no closed form ({exc})")
            continue
        except BudgetExceeded as exc:
            tried.append(f"{view.brief()}: not finished ({exc})")
            break
        star = result.enclosure
        if star is None or refused(result):
            tried.append(f"{view.brief()}: {result.reason or 'no ε*'}")
            continue
        shown = "∞" if star.infinite else star.closed_form or f"{star.lower:.10g}"
        tried.append(f"{view.brief()}: ε* {'=' if star.infinite else '≥'} {shown}")
        if best is None or star.lower > best.enclosure.lower:
            best = Bound(view, coarse, result, star)
        if star.infinite or star.lower > enough:
            break
    return best, tried


def _witness_of(bound: Bound, result: Result) -> Any:
    witness = result.certified_witness
    if witness is None:
        return None
    return replace(witness, output=f"{witness.output}, {bound.view.describe()}")


def _method(bound: Bound, result: Result) -> str:
    return (
        f"certified on the program with {bound.view.describe()} (a function of the output "
        f"alone, so its events are the program's; docs/PROOFS.md, 'Coarsening'): "
        f"{result.method}"
    )


def lower_bound(problem: Problem, eps: Epsilon | None, refusal: Result, budget: Budget) -> Result:
    """``refusal`` (the engine's "no closed form") with what the coarsenings prove: ε* ≥ x
    with the event attaining it; for a claim ε, violated when the coarsened program is
    (its witness event exact), else unknown with the bound."""
    started = time.perf_counter()
    bound, tried = best_bound(problem, budget, math.inf if eps is None else eps.value)
    why = f"{refusal.reason}; coarsened: {'; '.join(tried)}"
    if bound is None:
        return replace(refusal, reason=why)
    star = bound.enclosure
    result = bound.result
    if eps is not None and star.upper >= eps.value:  # floats screen; the verify decides
        try:
            checked = engine.verify(bound.problem, eps, budget)
        except (Unanswerable, BudgetExceeded):
            checked = None
        if checked is not None and checked.verdict is Verdict.VIOLATED:
            return replace(
                checked,
                target=problem.name,
                method=_method(bound, checked),
                enclosure=Enclosure(star.lower, math.inf),
                epsilon_star=None,
                certified_witness=_witness_of(bound, checked),
                reason=f"{why}: the coarsened program violates ε = {eps.text}, so the program does",
                statistics=replace(
                    checked.statistics,
                    seconds=refusal.statistics.seconds + time.perf_counter() - started,
                ),
            )
    if star.infinite:
        lower = star
        note = (
            "; ε* = ∞: an event of the coarsened program has positive probability on one "
            "input and exactly 0 on its neighbour"
        )
    else:
        lower = Enclosure(star.lower, math.inf)
        note = (
            f"; ε* ≥ {star.lower:.10g} on the grid, the coarsened program's ε*: a lower bound "
            "(the program's ε* may be larger; its upper bound is unknown)"
        )
        if eps is not None:
            note += f", not above ε = {eps.text}: no violation found"
    return replace(
        refusal,
        privacy=result.privacy,
        method=_method(bound, result),
        enclosure=lower,
        certified_witness=_witness_of(bound, result),
        reason=why + note,
        statistics=replace(
            result.statistics, seconds=refusal.statistics.seconds + time.perf_counter() - started
        ),
    )
