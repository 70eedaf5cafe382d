"""Integer noise by enumeration: a window of values, symbolic tails, certified enclosures.

The paths of :mod:`.lattice_paths` give every output's probability as a
ball; paths that could not be followed leave their mass as an interval
[0, mass] on their output, or as mass on an unknown output.  The tables go
to the interval layer (:mod:`.intervals`) with that mass folded in, so pure
ε holds only when no mass is on an unknown output and every ratio's upper
bound is at most e^ε; the window widens (half-widths 0, 4, 16, 64 around
each location, while the paths stay affordable) before the precision is
raised.  Discrete Laplace masses are also exact sums over a common
denominator, which settle ties exactly.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import balls, intervals
from faier.engines.certified.engine import _exceeds, _log_ratio
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.intervals import neighbour_indices, plain
from faier.engines.certified.lattice_paths import lattice_paths
from faier.errors import InternalError
from faier.mechanisms.handlers import guarded
from faier.mechanisms.program import Program
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Verdict

WIDTHS = (0, 4, 16, 64)
"""Half-widths of the enumerated window, tried in turn while paths stay open."""
MAX_PATHS = 200_000
"""Paths over all inputs beyond which a wider window is not tried."""
BITS = 64
"""The working precision a table starts at."""


def _enclosure(value: Any) -> Enclosure:
    return Enclosure(*balls.floats(value))


@dataclass(frozen=True)
class Enclosed:
    """Every input's output probabilities as balls, and the mass on unknown outputs."""

    inputs: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    probabilities: tuple[dict[Hashable, Any], ...]
    lost: tuple[Any, ...]
    """Per input: a ball enclosing the mass of paths whose output is unknown."""
    reasons: tuple[str, ...]
    paths: int
    width: int
    open_paths: int = 0
    """Paths whose probability is only bounded (a tail they could not follow)."""
    exact: tuple[dict[Hashable, ExpSum], ...] | None = None
    """Per input: each output's probability times the common denominator Π(1 + e^{−1/t}),
    exactly, when every path has a closed form over the same discrete Laplace draws."""

    @property
    def complete(self) -> bool:
        return all(lost == 0 for lost in self.lost)


def enclosed_table(problem: Problem, width: int, bits: int, budget: Budget) -> Enclosed:
    import flint

    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    inputs = tuple(mechanism.inputs.values)
    probabilities: list[dict[Hashable, Any]] = []
    lost_all: list[Any] = []
    reasons: dict[str, None] = {}
    outputs: dict[Hashable, None] = {}
    numerators: list[dict[Hashable, ExpSum]] | None = []
    denominators: set[tuple[Fraction, ...]] = set()
    count = 0
    open_paths = 0
    with balls.precision(bits):
        for x in inputs:
            budget.check_time()
            found = guarded(
                mechanism.name,
                lambda x=x: lattice_paths(
                    lambda ctx: mechanism.body(x, ctx), width, bits, max_paths=MAX_PATHS
                ),
            )
            count += len(found)
            budget.spend(len(found))
            dist: dict[Hashable, Any] = {}
            closed: dict[Hashable, ExpSum] = {}
            lost = flint.arb(0)
            total = flint.arb(0)
            for path in found:
                if path.reason is not None:
                    reasons.setdefault(path.reason)
                open_paths += not path.exact
                if path.closed_form is None or path.output is None:
                    numerators = None
                elif numerators is not None:
                    value, scales = path.closed_form
                    denominators.add(scales)
                    closed[path.output] = closed.get(path.output, ExpSum(())) + value
                total += path.probability
                if path.output is None:
                    lost += path.probability
                    continue
                dist[path.output] = dist.get(path.output, flint.arb(0)) + path.probability
                outputs.setdefault(path.output)
            if not total.overlaps(flint.arb(1)):
                raise InternalError(
                    f"the output probabilities of {mechanism.name} on {show_input(x)} sum to "
                    f"{total.str(10)}, not 1"
                )
            if len(dist) == 1 and all(p.exact and p.output is not None for p in found):
                # Every path followed, all to one output: its probability is exactly 1 (a
                # ball around 1 could never decide ε = 0 on a constant output).
                dist = {o: flint.arb(1) for o in dist}
            probabilities.append(dist)
            lost_all.append(lost)
            if numerators is not None:
                numerators.append({o: v for o, v in closed.items() if not v.is_zero})
    common = numerators is not None and len(denominators) <= 1
    return Enclosed(
        inputs,
        tuple(outputs),
        tuple(probabilities),
        tuple(lost_all),
        tuple(reasons),
        count,
        width,
        open_paths,
        tuple(numerators) if common and numerators is not None else None,
    )


UNKNOWN = "(an output the paths could not follow)"
"""The pseudo-output holding the mass whose output is unknown, so no decision can ignore it."""


def ball_table(problem: Problem, width: int, bits: int, budget: Budget) -> intervals.BallTable:
    """The window's enclosures as the interval layer's table, unknown mass folded in.

    The mass an input lost to unknown outputs may sit on any output: it is
    added to the upper end of every output's ball on that input (an output
    not seen there gets [0, lost]), and held by :data:`UNKNOWN` so that pure ε
    never holds and δ(ε)'s upper bound counts it.  ``refine`` widens the
    window while mass is lost, else raises the precision.
    """
    import flint

    table = enclosed_table(problem, width, bits, budget)
    values: list[dict[Hashable, Any]] = []
    with balls.precision(bits):
        for dist, lost in zip(table.probabilities, table.lost, strict=True):
            widened = dict(dist)
            if lost != 0:
                spill = flint.arb(lost.upper())
                widened = {o: p.union(p + spill) for o, p in dist.items()}
                for o in table.outputs:
                    widened.setdefault(o, flint.arb(0).union(spill))
                widened[UNKNOWN] = flint.arb(0).union(spill)
            values.append(_capped(widened) if table.open_paths else widened)
    outputs = table.outputs if table.complete else (*table.outputs, UNKNOWN)
    wider = [w for w in WIDTHS if w > width]

    widen = bool(table.open_paths and wider and _affordable(table, wider[0]))

    def refine(higher: int) -> intervals.BallTable:
        """A wider window while paths are open, else (only then) a higher precision."""
        budget.check_time()
        if widen:
            return ball_table(problem, wider[0], bits, budget)
        return ball_table(problem, width, higher, budget)

    reasons = "; ".join(table.reasons)
    if not table.complete:
        reasons = f"; mass left on unknown outputs: {reasons}"
    elif table.open_paths:
        reasons = f"; {table.open_paths} paths bounded, not computed: {reasons}"
    method = (
        f"certified: symbolic execution over integer noise (window of half-width {width} "
        f"around each location, both tails followed symbolically; {table.paths} paths on "
        f"{len(table.inputs)} inputs), each output's probability enclosed in arb balls with "
        f"the tails' mass certified{reasons}"
    )
    can_refine = widen or (not table.open_paths and bits < intervals.MAX_BITS)
    return intervals.BallTable(
        table.inputs,
        outputs,
        tuple(values),
        method,
        bits,
        refine=refine if can_refine else None,
        names={UNKNOWN: UNKNOWN},
    )


def _capped(values: dict[Hashable, Any]) -> dict[Hashable, Any]:
    """Each upper bound lowered to 1 − Σ of the other outputs' lower bounds (they sum to 1)."""
    import flint

    floor = flint.arb(0)
    for p in values.values():
        floor += flint.arb(p.lower())
    capped = {}
    for o, p in values.items():
        room = 1 - (floor - flint.arb(p.lower()))
        high = flint.arb(room.upper())
        capped[o] = p if p.upper() <= high else flint.arb(p.lower()).union(high)
    return capped


MARKS = ("mass left on unknown outputs: ", "paths bounded, not computed: ")


def explained(result: Result) -> Result:
    """An open answer from a table with unfollowed paths says why (the layer sees only balls)."""
    mark = next((m for m in MARKS if m in result.method), None)
    if mark is None:
        return result
    if result.verdict == Verdict.UNKNOWN or (
        result.enclosure is not None
        and (
            math.isinf(result.enclosure.upper)
            or result.enclosure.upper - result.enclosure.lower > 1e-6
        )
    ):
        why = result.method.split(mark, 1)[1].split(";")[0]
        return replace(
            result,
            reason=f"some paths could not be followed ({why}); their mass bounds the answer "
            f"(the window widens while it stays under {MAX_PATHS} paths)",
        )
    return result


def _affordable(table: Enclosed, width: int) -> bool:
    """Whether a window of ``width`` stays within :data:`MAX_PATHS` (as if three draws)."""
    growth = (2 * width + 3) / (2 * table.width + 3)
    return table.paths * growth**3 <= MAX_PATHS


def _exact_enclosed(problem: Problem, budget: Budget) -> Enclosed | None:
    """The narrowest window's table whose paths all have closed forms (discrete Laplace)."""
    for width in WIDTHS:
        table = enclosed_table(problem, width, BITS, budget)
        if table.complete and not table.open_paths:
            return table if table.exact is not None else None
        wider = [w for w in WIDTHS if w > width]
        if not wider or not _affordable(table, wider[0]):
            return None
    return None


EXACT_METHOD = (
    "; the comparisons the balls left open decided exactly: every probability is an exact sum "
    "Σ q·e^r over the common denominator Π(1 + e^(−1/t)) of the discrete Laplace draws"
)


def _exact_witness(
    problem: Problem, table: Enclosed, i: int, j: int, o: Hashable
) -> CertifiedWitness:
    import flint

    mechanism = problem.mechanism
    assert isinstance(mechanism, Program) and table.exact is not None
    p = table.probabilities[i][o]
    q = table.probabilities[j].get(o, flint.arb(0))
    with balls.precision(BITS):
        return CertifiedWitness(
            plain(table.inputs[i]),
            plain(table.inputs[j]),
            mechanism.output_name(o),
            _enclosure(p),
            _enclosure(q) if o in table.probabilities[j] else Enclosure(0.0, 0.0, "0"),
            Enclosure(*balls.floats(p / q))
            if o in table.probabilities[j]
            else Enclosure(math.inf, math.inf, "∞"),
        )


def exact_verify(problem: Problem, eps: Epsilon, found: Result, budget: Budget) -> Result:
    """An undecided pure-ε answer settled on the exact numerators, when they exist."""
    table = _exact_enclosed(problem, budget)
    if table is None or table.exact is None:
        return found
    for i, j in neighbour_indices(problem, table.inputs):
        budget.check_time()
        for o, p in table.exact[i].items():
            q = table.exact[j].get(o)
            answer = True if q is None else _exceeds(p, q, eps)
            if answer is None:
                return found
            if answer:
                return replace(
                    found,
                    verdict=Verdict.VIOLATED,
                    reason=None,
                    method=found.method + EXACT_METHOD,
                    certified_witness=_exact_witness(problem, table, i, j, o),
                    epsilon_star=Loss(None) if q is None else None,
                )
    return replace(
        found,
        verdict=Verdict.HOLDS,
        reason=None,
        certified_witness=None,
        method=found.method + EXACT_METHOD,
    )


def closed_epsilon(problem: Problem, found: Result, budget: Budget) -> Result:
    """ε* with its closed form (``7/10``) when the probabilities have exact numerators."""
    enclosure = found.enclosure
    if enclosure is None or not math.isfinite(enclosure.upper):
        return found
    table = _exact_enclosed(problem, budget)
    if table is None or table.exact is None:
        return found
    best: tuple[float, ExpSum, ExpSum] | None = None
    with balls.precision(BITS):
        for i, j in neighbour_indices(problem, table.inputs):
            for o, p in table.exact[i].items():
                q = table.exact[j].get(o)
                if q is None:
                    return found
                # the log: ratios past e^709 all read as the largest float
                low = balls.log_floats(balls.ball(p) / balls.ball(q))[0]
                if best is None or low > best[0]:
                    best = (low, p, q)
    if best is None:
        return found
    closed = _log_ratio(best[1], best[2])
    if closed is None:
        return found
    return replace(found, enclosure=replace(enclosure, closed_form=closed))
