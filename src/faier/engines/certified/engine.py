"""ε* and verdicts for programs with continuous noise over a finite input grid.

Each input's output distribution is computed exactly once: the program is
executed symbolically over its noise (:mod:`.symbolic`), each path's
probability is an exact exponential polynomial (:mod:`.integrate`), and the
paths of one output are summed; the sum over outputs must be exactly 1
(checked on every input).  Every ordered neighbour pair and output is then
screened in float64 (values read off 128-bit balls, so each is within a few
ulps of the truth) and every comparison within a relative margin of 10⁻⁹
of the decision is settled exactly: the sign of ``p − e^ε·q`` as an exact
ExpSum, or ball arithmetic with rising precision when e^ε is not one.  An
output possible on one side and exactly impossible on the other is an
infinite loss with both closed forms as its certificate.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import (
    argmax,
    balls,
    densities,
    gaussian,
    intervals,
    laplace_delta,
    orbits,
    supremum,
)
from faier.engines.certified.exppoly import ExpSum, Piecewise
from faier.engines.certified.integrate import probability
from faier.engines.certified.symbolic import Constraint, Path, has_number, paths
from faier.errors import InternalError, Unanswerable
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.handlers import guarded
from faier.mechanisms.program import Program
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict

MARGIN = 1e-9
"""Relative band around a decision inside which floats do not decide."""
SUP_MARGIN = 5e-10
"""How far above the best lower bound's log a density ratio's supremum's log is proved to
stay."""


@dataclass(frozen=True)
class Table:
    """Every input's exact output probabilities, or output densities at chosen points.

    For a discrete output ``measure`` is ``Pr`` and the table is complete;
    for one released number (``densities.line_densities``) an output is a
    (skeleton, point) and the table holds the exact density there: its
    losses are lower bounds (``complete`` False), and an exact zero counts as
    an infinite loss only at points inside a piece (``interior``).
    """

    inputs: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    exact: tuple[dict[Hashable, ExpSum], ...]
    paths: int
    integrals: int
    measure: str = "Pr"
    complete: bool = True
    interior: frozenset[Hashable] | None = None
    """Outputs where a zero density is an infinite loss (None: every output)."""
    names: dict[Hashable, str] | None = None
    curves: tuple[dict[Hashable, Any], ...] = ()
    """Per input: skeleton → its density (Piecewise) or probability (ExpSum)."""
    reduced: orbits.Reduced | None = None
    """Rows and pairs up to a declared symmetry (:mod:`.orbits`); None: every pair."""


@dataclass(frozen=True)
class Separable:
    """The histogram shape: each input's released numbers (``densities.separable``)."""

    inputs: tuple[Hashable, ...]
    numbers: tuple[dict[Hashable, tuple[densities.Shifted, ...]], ...]
    paths: int
    reduced: orbits.Reduced | None = None
    """Rows and pairs up to a declared symmetry (:mod:`.orbits`); None: every pair."""


def _runs(mechanism: Program[Any], budget: Budget) -> list[list[Path]]:
    runs = []
    for x in mechanism.inputs.values:
        found = guarded(mechanism.name, lambda x=x: list(paths(lambda ctx: mechanism.body(x, ctx))))
        budget.spend(len(found))
        runs.append(found)
    return runs


def build_table(mechanism: Program[Any], budget: Budget) -> Table | Separable | gaussian.Table:
    """Each input's output distribution in closed form (path integrals memoised)."""
    runs = _runs(mechanism, budget)
    inputs = tuple(mechanism.inputs.values)
    count = sum(len(r) for r in runs)
    if gaussian.draws_gaussian(runs):
        return gaussian.build(mechanism.name, inputs, runs, budget)
    if any(has_number(path.output) for run in runs for path in run):
        shapes = [densities.separable(run) for run in runs]
        found = [s for s in shapes if s is not None]
        single = all(len(numbers) == 1 for shape in found for numbers in shape.values())
        if len(found) == len(shapes) and (densities.same_noise(found) or not single):
            # several numbers whose noise differs: unknown with the reason (separable_loss)
            return Separable(inputs, tuple(found), count)
        # numbers under branches, or noise that differs between inputs (x + laplace(0, 1 + x)):
        # the densities themselves, whose ratio's supremum is searched (∞ included)
        return _line_table(mechanism, inputs, runs, count, budget)
    memo: dict[tuple[tuple[Continuous, ...], tuple[Constraint, ...]], ExpSum] = {}
    exact: list[dict[Hashable, ExpSum]] = []
    outputs: dict[Hashable, None] = {}
    for x, run in zip(inputs, runs, strict=True):
        dist: dict[Hashable, ExpSum] = {}
        for path in argmax.merged(run) or run:
            budget.check_time()
            key = (path.noise, path.constraints)
            value = memo.get(key)
            if value is None:
                value = probability(path.noise, path.constraints)
                memo[key] = value
            if path.weight != 1:
                value = value.scaled(path.weight)
            if value.is_zero:
                continue
            dist[path.output] = dist[path.output] + value if path.output in dist else value
            outputs.setdefault(path.output)
        total = ExpSum(())
        for value in dist.values():
            total = total + value
        if total != ExpSum.rational(1):
            raise InternalError(
                f"the output probabilities of {mechanism.name} on {show_input(x)} sum to "
                f"{total.show()}, not 1"
            )
        exact.append(dist)
    return Table(inputs, tuple(outputs), tuple(exact), count, len(memo))


def _line_table(
    mechanism: Program[Any],
    inputs: tuple[Hashable, ...],
    runs: list[list[Path]],
    count: int,
    budget: Budget,
) -> Table:
    """Output densities of one released number at the points that screen its supremum."""
    functions = []
    for run in runs:
        budget.check_time()
        functions.append(densities.line_densities(run))
    skeletons = list(dict.fromkeys(s for f in functions for s in f))
    exact: list[dict[Hashable, ExpSum]] = [{} for _ in inputs]
    outputs: list[Hashable] = []
    interior: set[Hashable] = set()
    names: dict[Hashable, str] = {}
    for skeleton in skeletons:
        if any(isinstance(f.get(skeleton), ExpSum) for f in functions):
            output = (skeleton, None)
            outputs.append(output)
            names[output] = mechanism.output_name(skeleton)
            interior.add(output)
            for i, f in enumerate(functions):
                mass = f.get(skeleton)
                if isinstance(mass, ExpSum) and not mass.is_zero:
                    exact[i][output] = mass
            continue
        present = [g for f in functions if isinstance(g := f.get(skeleton), Piecewise)]
        kinks, inner = densities.points(present)
        for v in (*kinks, *inner):
            output = (skeleton, v)
            outputs.append(output)
            names[output] = mechanism.output_name(densities.fill(skeleton, [Fraction(v)]))
            if v in inner:
                interior.add(output)
            for i, f in enumerate(functions):
                g = f.get(skeleton)
                if isinstance(g, Piecewise):
                    value = g.at(v)
                    if not value.is_zero:
                        exact[i][output] = value
    return Table(
        inputs,
        tuple(outputs),
        tuple(exact),
        count,
        sum(len(f) for f in functions),
        measure="density",
        complete=False,
        interior=frozenset(interior),
        names=names,
        curves=tuple(functions),
    )


@dataclass(frozen=True)
class Screen:
    """Float images of the table and the ordered neighbour pairs."""

    values: Any
    """values[i, o]: Pr[o | input i] as a float read off a 128-bit ball (for δ, where
    absolute errors count; it may underflow to 0)."""
    logs: Any
    """logs[i, o]: ln Pr[o | input i] as a float read off the ball (for ratios, which stay
    in range where a probability underflows); NaN where the ball is not certainly > 0."""
    zero: Any
    """zero[i, o]: Pr[o | input i] is exactly 0."""
    pairs: Any
    """pairs[k] = (i, j): input j is a neighbour of input i."""
    infinite_ok: Any
    """infinite_ok[o]: a zero on one side and not the other is an infinite loss."""


def screen(table: Table, problem: Problem) -> Screen:
    out_index = {o: k for k, o in enumerate(table.outputs)}
    values = np.zeros((len(table.inputs), len(table.outputs)))
    logs = np.full(values.shape, np.nan)
    zero = np.ones(values.shape, dtype=bool)
    with balls.precision(balls.PRECISIONS[0]):
        for i, dist in enumerate(table.exact):
            for o, value in dist.items():
                b = balls.ball(value)
                values[i, out_index[o]] = float(b.mid())
                if b > 0:
                    logs[i, out_index[o]] = float(b.log().mid())
                zero[i, out_index[o]] = False
    pairs = intervals.pairs_of(problem, table.inputs, table.reduced)
    infinite_ok = np.array(
        [table.interior is None or o in table.interior for o in table.outputs], dtype=bool
    )
    return Screen(values, logs, zero, pairs, infinite_ok)


def _ratio_enclosure(p: ExpSum, q: ExpSum) -> Enclosure:
    """A witness's ratio p/q as a float interval from balls; ∞ when q is exactly 0."""
    if q.is_zero:
        return Enclosure(math.inf, math.inf, "∞")
    with balls.precision(balls.PRECISIONS[0]):
        return Enclosure(*balls.floats(balls.ball(p) / balls.ball(q)))


def _confirm(problem: Problem, table: Table | Separable, i: int, j: int, budget: Budget) -> None:
    """A witness's pair recomputed on its real inputs where the table was reduced by orbits."""
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    orbits.confirm(mechanism, table, i, j, budget, build_table)


def _witness(
    problem: Problem, table: Table, i: int, j: int, o: Hashable, budget: Budget
) -> tuple[CertifiedWitness, ExpSum, ExpSum]:
    _confirm(problem, table, i, j, budget)
    p = table.exact[i].get(o, ExpSum(()))
    q = table.exact[j].get(o, ExpSum(()))
    name = table.names[o] if table.names is not None else _program(problem).output_name(o)
    return _exact_witness(table.inputs, i, j, name, p, q, table.measure), p, q


def _exact_witness(
    inputs: tuple[Hashable, ...],
    i: int,
    j: int,
    output: str,
    p: ExpSum,
    q: ExpSum,
    measure: str = "Pr",
) -> CertifiedWitness:
    """Inputs i and j, the output (or event) and its two exact probabilities (or densities),
    enclosed, with their ratio (∞ where q is exactly 0)."""
    return CertifiedWitness(
        intervals.plain(inputs[i]),
        intervals.plain(inputs[j]),
        output,
        balls.enclose(p),
        balls.enclose(q),
        _ratio_enclosure(p, q),
        measure,
    )


def _program(problem: Problem) -> Program[Any]:
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    return mechanism


def _candidates(s: Screen, log_threshold: float) -> tuple[list[tuple[float, int, int, int]], bool]:
    """(log ratio, i, j, o) with a float ln(p/q) ≥ log_threshold less a margin, largest
    first; ∞ first.  NaN (the largest log ratio) for ``log_threshold``.

    The screen is in log space, where the floats read off the balls stay in range; a
    comparison whose log is not a finite float (a ball not certainly positive) is always
    a candidate, settled exactly."""
    left = s.pairs[:, 0]
    right = s.pairs[:, 1]
    possible = ~s.zero[left]
    infinite = possible & s.zero[right] & s.infinite_ok[None, :]
    found: list[tuple[float, int, int, int]] = []
    for k, o in zip(*np.nonzero(infinite), strict=True):
        found.append((math.inf, int(left[k]), int(right[k]), int(o)))
    if found:
        return found, True
    finite = possible & ~s.zero[right]
    lp, lq = s.logs[left], s.logs[right]
    with np.errstate(invalid="ignore"):
        ratio = np.where(finite, lp - lq, -math.inf)
    unclear = finite & ~np.isfinite(ratio)
    if math.isnan(log_threshold):
        clear = ratio[finite & ~unclear]
        log_threshold = float(clear.max()) if clear.size else -math.inf
    tol = intervals.tolerance(log_threshold, lp, lq)
    with np.errstate(invalid="ignore"):
        near = finite & (unclear | (ratio >= log_threshold - tol))
    for k, o in zip(*np.nonzero(near), strict=True):
        value = float(ratio[k, o])
        value = value if math.isfinite(value) else math.inf
        found.append((value, int(left[k]), int(right[k]), int(o)))
    found.sort(key=lambda c: -round(c[0], 9))  # ties (equal up to the floats) keep their order
    return found, False


def _sizes(table: Table | Separable, pairs: int) -> tuple[int, int]:
    """(inputs, ordered pairs) of the whole grid, also where orbits stand for them."""
    if table.reduced is not None:
        return table.reduced.grid_inputs, table.reduced.grid_pairs
    return len(table.inputs), pairs


def _method(table: Table, s: Screen, rechecked: int) -> str:
    if table.measure == "density":
        what = (
            f"the density of the released number as an exact piecewise exponential "
            f"polynomial ({table.integrals} per-input densities), evaluated exactly at "
            f"{len(table.outputs)} points (breakpoints, midpoints, tails)"
        )
    else:
        what = (
            f"each path's probability in closed form (exact exponential polynomials, "
            f"{table.integrals} distinct integrals, outputs summing to exactly 1 on every input)"
        )
    reduced = "" if table.reduced is None else f"; {table.reduced.describe()}"
    runs = len(table.inputs) if table.reduced is None else table.reduced.input_orbits
    return (
        f"certified: symbolic execution over the noise ({table.paths} paths on "
        f"{runs} inputs), {what}, enclosed in arb balls; "
        f"{len(s.pairs) * len(table.outputs)} comparisons screened in float64, "
        f"{rechecked} settled in exact/ball arithmetic{reduced}"
    )


def no_closed_form(
    problem: Problem,
    eps: Epsilon | None,
    reason: str,
    started: float,
    method: str = "certified: symbolic execution over the noise",
) -> Result:
    """Unknown (no ε* for ``epsilon``): the program's shape has no closed form here, and why."""
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe(),
        method=method,
        verdict=None if eps is None else Verdict.UNKNOWN,
        epsilon=None if eps is None else str(eps),
        reason=f"no closed form: {reason}",
        statistics=Statistics(seconds=time.perf_counter() - started),
    )


def delta_unknown(problem: Problem, eps: Epsilon | None, delta: Any) -> Result:
    """(ε, δ) is not decided for continuous noise yet: unknown, saying so (never a guess)."""
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe(),
        method="certified: pure ε only",
        verdict=None if eps is None else Verdict.UNKNOWN,
        epsilon=None if eps is None else str(eps),
        delta=delta,
        reason="(ε, δ) for continuous noise is not decided yet: the hockey-stick divergence "
        "over densities needs their integrals over the region where p > e^ε·q",
    )


def epsilon_delta(problem: Problem, delta: Fraction, budget: Budget) -> Result:
    """The least ε with δ(ε) ≤ δ on every pair, as a certified interval (:mod:`.intervals`)."""
    started = time.perf_counter()
    try:
        table = _table(problem, budget)
    except Unanswerable as exc:
        return replace(no_closed_form(problem, None, str(exc), started), delta=delta)
    return _assuming(table, _epsilon_delta_on(problem, delta, table, budget, started))


def _epsilon_delta_on(
    problem: Problem, delta: Fraction, table: AnyTable, budget: Budget, started: float
) -> Result:
    if isinstance(table, gaussian.Table):
        return gaussian.epsilon_delta(problem, delta, table, budget, started)
    if isinstance(table, Separable):
        return _separable_delta(problem, table, None, delta, started, budget)
    if isinstance(table, Table) and table.complete:
        result = intervals.epsilon_delta(problem, delta, _balls_of(problem, table, budget), budget)
        seconds = time.perf_counter() - started
        return replace(result, statistics=replace(result.statistics, seconds=seconds))
    return delta_unknown(problem, None, delta)


def _balls_of(problem: Problem, table: Table, budget: Budget) -> intervals.BallTable:
    """An exact table's closed forms as balls, for the interval decisions (witnesses
    recomputed on their real pairs where the table was reduced by orbits)."""
    method = (
        f"certified: symbolic execution over the noise ({table.paths} paths on "
        f"{len(table.inputs)} inputs), each path's probability in closed form (exact "
        f"exponential polynomials, {table.integrals} distinct integrals), enclosed in arb balls"
    )
    return intervals.from_exact(
        table.inputs,
        table.outputs,
        table.exact,
        method,
        confirm=lambda i, j: _confirm(problem, table, i, j, budget),
        reduced=table.reduced,
    )


def verify_delta(problem: Problem, eps: Epsilon, delta: Fraction, budget: Budget) -> Result:
    """(ε, δ) for discrete outputs: δ(ε) = Σ_ω max(0, p − e^ε·q) per pair, decided exactly."""
    started = time.perf_counter()
    try:
        table = _table(problem, budget)
    except Unanswerable as exc:
        return replace(no_closed_form(problem, eps, str(exc), started), delta=delta)
    return _assuming(table, _verify_delta_on(problem, eps, delta, table, budget, started))


def _verify_delta_on(
    problem: Problem, eps: Epsilon, delta: Fraction, table: AnyTable, budget: Budget, started: float
) -> Result:
    exp_eps = balls.exp_epsilon(eps)
    if isinstance(table, gaussian.Table):
        return gaussian.verify_delta(problem, eps, delta, table, budget, started)
    if isinstance(table, Separable):
        return _separable_delta(problem, table, eps, delta, started, budget)
    if not table.complete:
        return delta_unknown(problem, eps, delta)
    if exp_eps is None:  # e^ε is no ExpSum (ln(2)/2): the closed forms' balls decide
        balls_table = _balls_of(problem, table, budget)
        result = intervals.verify_delta(problem, eps, delta, balls_table, budget)
        seconds = time.perf_counter() - started
        return replace(result, statistics=replace(result.statistics, seconds=seconds))
    s = screen(table, problem)
    e = math.exp(eps.value) if eps.value < 709 else sys.float_info.max  # below e^ε: safe
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    with np.errstate(invalid="ignore"):
        gaps = np.maximum(s.values[left] - e * s.values[right], 0.0)
    gaps = np.nan_to_num(gaps, nan=1.0)
    near = np.nonzero(gaps.sum(axis=1) >= float(delta) - DELTA_MARGIN)[0]
    order = sorted(near, key=lambda k: -float(gaps[k].sum()))
    describe = intervals.describe_grid(problem, *_sizes(table, len(s.pairs)))
    method = (
        _method(table, s, len(order))
        + "; δ(ε) = Σ max(0, p − e^ε·q) per pair, screened in float64 and, within "
        f"{DELTA_MARGIN:g} of δ, summed and compared exactly"
    )
    for k in order:
        budget.check_time()
        i, j = int(left[k]), int(right[k])
        event = []
        total = ExpSum(())
        for o, p in table.exact[i].items():
            difference = p - table.exact[j].get(o, ExpSum(())) * exp_eps
            if balls.sign(difference) > 0:
                event.append(o)
                total = total + difference
        if balls.sign(total - ExpSum.rational(delta)) > 0:
            p_event = sum((table.exact[i][o] for o in event), ExpSum(()))
            q_event = sum((table.exact[j].get(o, ExpSum(())) for o in event), ExpSum(()))
            _confirm(problem, table, i, j, budget)
            witness = _event_witness(problem, table, i, j, event, p_event, q_event)
            stats = Statistics(seconds=time.perf_counter() - started, comparisons=len(s.pairs))
            return replace(
                _verdict(problem, eps, describe, method, stats, Verdict.VIOLATED, witness, False),
                delta=delta,
                reason=f"δ(ε) = {balls.enclose(total).show()} > δ = {delta} on this pair",
            )
    stats = Statistics(seconds=time.perf_counter() - started, comparisons=len(s.pairs))
    return replace(
        _verdict(problem, eps, describe, method, stats, Verdict.HOLDS, None, False), delta=delta
    )


def _separable_delta(
    problem: Problem,
    table: Separable,
    eps: Epsilon | None,
    delta: Fraction,
    started: float,
    budget: Budget,
) -> Result:
    """(ε, δ) of released Laplace numbers in closed form (:mod:`.laplace_delta`)."""

    def confirm(i: int, j: int) -> None:
        _confirm(problem, table, i, j, budget)

    run = laplace_delta.Released(
        problem, table.inputs, table.numbers, table.paths, started, confirm
    )
    try:
        if eps is None:
            result = laplace_delta.epsilon_delta(run, delta)
        else:
            result = laplace_delta.verify_delta(run, eps, delta)
    except Unanswerable as exc:
        return replace(no_closed_form(problem, eps, str(exc), started), delta=delta)
    if table.reduced is None:
        return result
    # orbit rows: every pair among them was searched, which covers every pair orbit
    return replace(
        result,
        privacy=intervals.describe_grid(
            problem, table.reduced.grid_inputs, table.reduced.grid_pairs
        ),
        method=f"{result.method}; {table.reduced.describe()}",
    )


DELTA_MARGIN = 1e-9
"""Absolute band below δ inside which a pair's float δ(ε) is recomputed exactly."""


def _event_witness(
    problem: Problem,
    table: Table,
    i: int,
    j: int,
    event: list[Hashable],
    p: ExpSum,
    q: ExpSum,
) -> CertifiedWitness:
    names = ", ".join(_program(problem).output_name(o) for o in event)
    return _exact_witness(table.inputs, i, j, f"one of {{{names}}}", p, q)


AnyTable = Table | Separable | gaussian.Table


def _assuming(table: AnyTable, result: Result) -> Result:
    """The result with what the table takes on trust (a declared symmetry checked on a
    sample of the grid: :meth:`.orbits.Reduced.assumptions`)."""
    reduced = getattr(table, "reduced", None)
    if reduced is None or not reduced.assumptions():
        return result
    return replace(result, assumptions=(*result.assumptions, *reduced.assumptions()))


def _table(problem: Problem, budget: Budget) -> AnyTable:
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    if orbits.applies(problem):
        reduced = orbits.reduce(problem, budget, build_table)
        if reduced is not None:
            return reduced  # type: ignore[no-any-return]
    return build_table(mechanism, budget)


def epsilon(problem: Problem, budget: Budget) -> Result:
    """ε* as a certified interval (or ∞ with a certificate) and its witness."""
    started = time.perf_counter()
    try:
        table = _table(problem, budget)
    except Unanswerable as exc:
        return no_closed_form(problem, None, str(exc), started)
    return _assuming(table, _epsilon_on(problem, table, budget, started))


def _epsilon_on(problem: Problem, table: AnyTable, budget: Budget, started: float) -> Result:
    if isinstance(table, gaussian.Table):
        return gaussian.epsilon(problem, table, budget, started)
    if isinstance(table, Separable):
        return _separable_epsilon(problem, table, started, budget)
    s = screen(table, problem)
    found, infinite = _candidates(s, math.nan)
    describe = intervals.describe_grid(problem, *_sizes(table, len(s.pairs)))
    stats = Statistics(comparisons=len(s.pairs))
    if infinite:
        _, i, j, o = found[0]
        witness, _, _ = _witness(problem, table, i, j, table.outputs[o], budget)
        return Result(
            target=problem.name,
            privacy=describe,
            method=_method(table, s, 1)
            + f"; an output with positive {_measure(table)} on one input has {_measure(table)} "
            "exactly 0 on its neighbour: no finite ε",
            epsilon_star=Loss(None),
            enclosure=Enclosure(math.inf, math.inf),
            certified_witness=witness,
            statistics=replace(stats, seconds=time.perf_counter() - started),
        )
    best_low = -math.inf
    best_high = -math.inf
    best: tuple[int, int, int] | None = None
    for _, i, j, o in found:
        p = table.exact[i][table.outputs[o]]
        q = table.exact[j][table.outputs[o]]
        low, high = _log_ratio_floats(p, q)
        if low > best_low:
            best_low, best = low, (i, j, o)
        best_high = max(best_high, high)
    if best is None:
        return no_closed_form(problem, None, "no output is possible on both sides", started)
    witness, p_best, q_best = _witness(
        problem, table, best[0], best[1], table.outputs[best[2]], budget
    )
    narrow = best_high - best_low < 1e-12 * max(1.0, abs(best_low))
    closed_form = _log_ratio(p_best, q_best) if narrow else None
    reason = None
    method = _method(table, s, len(found))
    if not table.complete:
        bound = _bound_curves(table, s, best_low + SUP_MARGIN, True, budget)
        method += "; " + bound.describe()
        if bound.unbounded is not None:
            return Result(
                target=problem.name,
                privacy=describe,
                method=method,
                epsilon_star=Loss(None),
                enclosure=Enclosure(math.inf, math.inf),
                certified_witness=witness,
                reason=f"no finite ε: {bound.unbounded}",
                statistics=replace(stats, seconds=time.perf_counter() - started),
            )
        if bound.log_lower() > best_low:
            witness = _supremum_witness(problem, table, bound, budget) or witness
        best_low = max(best_low, bound.log_lower())
        if bound.proved:
            best_high = bound.log_upper()
        else:
            best_high = math.inf
            reason = (
                "a lower bound: the density ratio's supremum between the screened points "
                f"was not bounded within {supremum.LIMIT} splits for some pair"
            )
    return Result(
        target=problem.name,
        privacy=describe,
        method=method,
        enclosure=Enclosure(best_low, best_high, closed_form if table.complete else None),
        certified_witness=witness,
        reason=reason,
        statistics=replace(stats, seconds=time.perf_counter() - started),
    )


def _log_ratio_floats(p: ExpSum, q: ExpSum) -> tuple[float, float]:
    """ln(p/q) enclosed in floats, the precision raised while a ball is not certainly
    positive (cancellation in a tiny ExpSum); (−∞, ∞) if it stays so (never a NaN that
    a max would drop)."""
    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            ratio = balls.ball(p) / balls.ball(q)
            if ratio > 0:
                low, high = balls.floats(ratio.log())
                if not (math.isnan(low) or math.isnan(high)):
                    return low, high
    return -math.inf, math.inf


def _log_ratio(p: ExpSum, q: ExpSum) -> str | None:
    """ln(p/q) in closed form when p = c·e^r·q exactly (r + ln c), e.g. ``7/10``."""
    if p.is_zero or q.is_zero:
        return None
    (r1, c1), (r2, c2) = p.terms[-1], q.terms[-1]
    r, c = r1 - r2, c1 / c2
    if p != q * ExpSum.of([(r, c)]):
        return None
    if c == 1:
        return str(r)
    return f"ln({c})" if r == 0 else f"{r} + ln({c})"


def _measure(table: Table) -> str:
    return "probability" if table.measure == "Pr" else "density"


def _exceeds(p: ExpSum, q: ExpSum, eps: Epsilon) -> bool | None:
    """p > e^ε·q, decided exactly (None: undecided at the largest precision)."""
    return balls.exceeds(eps, lambda _: balls.ball(p), lambda _: balls.ball(q), (p, q))


L = TypeVar("L", bound=tuple[Any, ...])


def largest_loss(losses: Sequence[L]) -> L:
    """The entry (exact loss or None for ∞, then where) of largest loss, the first found."""
    return max(losses, key=lambda c: math.inf if c[0] is None else c[0])


UNDECIDED_CLAIM = "ε* = {loss} and the claimed ε could not be told apart at the working precision"


def loss_exceeds(loss: Fraction | None, eps: Epsilon) -> bool | None:
    """e^loss > e^ε, decided exactly (None: undecided, never counted as exceeding)."""
    return True if loss is None else _exceeds(ExpSum.exp(loss), ExpSum.rational(1), eps)


def loss_enclosure(loss: Fraction | None) -> Enclosure:
    """An exact loss as ε*'s interval, its closed form shown (∞ for None)."""
    if loss is None:
        return Enclosure(math.inf, math.inf)
    return Enclosure(*balls.floats(balls.ball(ExpSum.rational(loss))), str(loss))


def verify(problem: Problem, eps: Epsilon, budget: Budget) -> Result:
    """holds (every comparison ≤ e^ε, proved), violated (a certified witness) or unknown."""
    started = time.perf_counter()
    try:
        table = _table(problem, budget)
    except Unanswerable as exc:
        return no_closed_form(problem, eps, str(exc), started)
    return _assuming(table, _verify_on(problem, eps, table, budget, started))


def _verify_on(
    problem: Problem, eps: Epsilon, table: AnyTable, budget: Budget, started: float
) -> Result:
    if isinstance(table, gaussian.Table):
        return gaussian.verify(problem, eps, table, budget, started)
    if isinstance(table, Separable):
        return _separable_verify(problem, table, eps, started, budget)
    s = screen(table, problem)
    found, infinite = _candidates(s, eps.value)
    undecided: list[tuple[int, int, int]] = []
    violation: tuple[int, int, int] | None = None
    for _, i, j, o in found:
        budget.check_time()
        p = table.exact[i][table.outputs[o]]
        q = table.exact[j].get(table.outputs[o], ExpSum(()))
        answer = True if q.is_zero else _exceeds(p, q, eps)
        if answer is None:
            undecided.append((i, j, o))
        elif answer:
            violation = (i, j, o)
            break
    describe = intervals.describe_grid(problem, *_sizes(table, len(s.pairs)))
    method = _method(table, s, len(found))
    stats = Statistics(seconds=time.perf_counter() - started, comparisons=len(s.pairs))
    if violation is not None:
        i, j, o = violation
        found_witness, _, _ = _witness(problem, table, i, j, table.outputs[o], budget)
        return _verdict(
            problem, eps, describe, method, stats, Verdict.VIOLATED, found_witness, infinite
        )
    if not undecided and not table.complete:
        with balls.precision(balls.PRECISIONS[0]):
            threshold = balls.log_floats(balls.exp_epsilon_ball(eps, balls.PRECISIONS[0]))[0]
        bound = _bound_curves(table, s, threshold, False, budget)
        method += "; " + bound.describe()
        if bound.proved:
            return _verdict(problem, eps, describe, method, stats, Verdict.HOLDS, None, False)
        if bound.unbounded is not None or bound.location is not None:
            point_witness = _beyond(problem, table, bound, eps, budget)
            if point_witness is not None:
                return _verdict(
                    problem,
                    eps,
                    describe,
                    method,
                    stats,
                    Verdict.VIOLATED,
                    point_witness,
                    bound.unbounded is not None,
                )
    if undecided or not table.complete:
        reason = (
            f"{len(undecided)} comparisons equal e^ε to {balls.PRECISIONS[-1]} bits"
            if undecided
            else "no screened point of the density exceeds e^ε, and the supremum between "
            f"the points was not bounded below e^ε within {supremum.LIMIT} splits"
        )
        witness: CertifiedWitness | None = None
        if undecided:
            i, j, o = undecided[0]
            witness, _, _ = _witness(problem, table, i, j, table.outputs[o], budget)
        return replace(
            _verdict(problem, eps, describe, method, stats, Verdict.UNKNOWN, witness, False),
            reason=reason,
        )
    return _verdict(problem, eps, describe, method, stats, Verdict.HOLDS, None, False)


def _verdict(
    problem: Problem,
    eps: Epsilon,
    describe: str,
    method: str,
    stats: Statistics,
    verdict: Verdict,
    witness: CertifiedWitness | None,
    infinite: bool,
) -> Result:
    return Result(
        target=problem.name,
        privacy=describe,
        method=method,
        statistics=stats,
        **intervals.verdict_fields(verdict, eps, witness, infinite),
    )


SEPARABLE_METHOD = (
    "certified: symbolic execution over the noise ({paths} paths on {inputs} inputs); every "
    "released number is one noise variable plus a constant, so the density ratio factors and "
    "its supremum is exact (Σ|c − c′|/b for Laplace noise, attained at the output c)"
)


def _separable_method(table: Separable) -> str:
    if table.reduced is None:
        return SEPARABLE_METHOD.format(paths=table.paths, inputs=len(table.inputs))
    text = SEPARABLE_METHOD.format(paths=table.paths, inputs=table.reduced.input_orbits)
    return f"{text}; {table.reduced.describe()}"


def _separable_losses(
    problem: Problem, table: Separable
) -> tuple[list[tuple[Fraction | None, int, int, Hashable]], int]:
    pairs = (
        intervals.neighbour_indices(problem, table.inputs)
        if table.reduced is None
        else [(int(i), int(j)) for i, j in table.reduced.pairs]
    )
    losses = []
    for i, j in pairs:
        for skeleton, numbers in table.numbers[i].items():
            other = table.numbers[j].get(skeleton)
            loss = None if other is None else densities.separable_loss(numbers, other)
            losses.append((loss, i, j, skeleton))
    return losses, len(pairs)


def _separable_witness(
    problem: Problem, table: Separable, i: int, j: int, skeleton: Hashable, budget: Budget
) -> CertifiedWitness:
    _confirm(problem, table, i, j, budget)
    a = table.numbers[i][skeleton]
    b = table.numbers[j].get(skeleton)
    point = densities.separable_point(a, b if b is not None else a)
    p = densities.separable_density(a, point)
    q = ExpSum(()) if b is None else densities.separable_density(b, point)
    name = _program(problem).output_name(densities.fill(skeleton, point))
    return _exact_witness(table.inputs, i, j, name, p, q, "density")


def _separable_epsilon(
    problem: Problem, table: Separable, started: float, budget: Budget
) -> Result:
    losses, pairs = _separable_losses(problem, table)
    value, i, j, skeleton = largest_loss(losses)
    witness = _separable_witness(problem, table, i, j, skeleton, budget)
    return Result(
        target=problem.name,
        privacy=intervals.describe_grid(problem, *_sizes(table, pairs)),
        method=_separable_method(table),
        epsilon_star=Loss(None) if value is None else None,
        enclosure=loss_enclosure(value),
        certified_witness=witness,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=pairs),
    )


def _separable_verify(
    problem: Problem, table: Separable, eps: Epsilon, started: float, budget: Budget
) -> Result:
    losses, pairs = _separable_losses(problem, table)
    loss, i, j, skeleton = largest_loss(losses)
    stats = Statistics(seconds=time.perf_counter() - started, comparisons=pairs)
    describe = intervals.describe_grid(problem, *_sizes(table, pairs))
    method = _separable_method(table)
    exceeds = loss_exceeds(loss, eps)
    if exceeds is None:
        undecided = _verdict(problem, eps, describe, method, stats, Verdict.UNKNOWN, None, False)
        return replace(undecided, reason=UNDECIDED_CLAIM.format(loss=loss))
    if not exceeds:
        return _verdict(problem, eps, describe, method, stats, Verdict.HOLDS, None, False)
    witness = _separable_witness(problem, table, i, j, skeleton, budget)
    return _verdict(problem, eps, describe, method, stats, Verdict.VIOLATED, witness, loss is None)


@dataclass
class CurveBound:
    """The branch and bound over every neighbour pair's density ratio (one released number)."""

    proved: bool
    threshold: float
    """Proved: every ratio ≤ e^threshold (when ``proved``); a log, as ratios of e^2000
    are past the float range."""
    lower: float
    """ln of the best certified lower bound of a ratio's supremum seen."""
    location: tuple[int, int, Hashable, Any] | None = None
    """(i, j, skeleton, point or 'v → ±∞') of that lower bound."""
    unbounded: str | None = None
    searched: int = 0

    def log_lower(self) -> float:
        return self.lower

    def log_upper(self) -> float:
        return self.threshold

    def describe(self) -> str:
        return (
            f"the supremum of each of {self.searched} density ratios bounded by branch and "
            "bound in ball arithmetic (tails mapped to polynomials in e^(−δ|v|))"
        )


def _bound_curves(
    table: Table, s: Screen, threshold: float, adaptive: bool, budget: Budget
) -> CurveBound:
    """Prove every density ratio ≤ e^threshold (raised to the best lower bound when
    adaptive)."""
    result = CurveBound(True, threshold, -math.inf)
    for i, j in s.pairs:
        for skeleton, g in table.curves[i].items():
            h = table.curves[j].get(skeleton)
            if not isinstance(g, Piecewise) or not isinstance(h, Piecewise):
                continue
            budget.check_time()
            result.searched += 1
            for _ in range(3):
                outcome = supremum.prove_log_below(g, h, result.threshold)
                if outcome.log_lower > result.lower:
                    result.lower = outcome.log_lower
                    result.location = (int(i), int(j), skeleton, outcome.point)
                if outcome.unbounded:
                    result.unbounded = (
                        f"the density ratio of {show_input(table.inputs[i])} over "
                        f"{show_input(table.inputs[j])} grows without bound as {outcome.point} "
                        "(a slower-decaying exponential on one side)"
                    )
                    result.proved = False
                    return result
                if outcome.proved or not adaptive or outcome.log_lower <= result.threshold:
                    break
                result.threshold = outcome.log_lower + SUP_MARGIN
            if not outcome.proved:
                result.proved = False
                if not adaptive:
                    return result
    return result


def _beyond(
    problem: Problem, table: Table, bound: CurveBound, eps: Epsilon, budget: Budget
) -> CertifiedWitness | None:
    """A rational output whose exact density ratio exceeds e^ε, from the bound's location."""
    if bound.location is None:
        return None
    i, j, skeleton, point = bound.location
    g, h = table.curves[i][skeleton], table.curves[j][skeleton]
    if isinstance(point, str):
        edge = (min if "−" in point else max)(set(g.breaks) | set(h.breaks) or {0})
        step = -1 if "−" in point else 1
        candidates = [edge + step * 2**k for k in range(80)]  # the log ratio grows linearly
    else:
        candidates = [point]
    for v in candidates:
        p, q = g.at(v), h.at(v)
        if not q.is_zero and _exceeds(p, q, eps):
            _confirm(problem, table, i, j, budget)
            return _curve_witness(problem, table, i, j, skeleton, v, p, q)
    return None


def _supremum_witness(
    problem: Problem, table: Table, bound: CurveBound, budget: Budget
) -> CertifiedWitness | None:
    """The output where the search found its best lower bound, as a witness (None where
    that is a limit at ±∞, or the neighbour's density is 0 there)."""
    if bound.location is None or isinstance(bound.location[3], str):
        return None
    i, j, skeleton, v = bound.location
    p, q = table.curves[i][skeleton].at(v), table.curves[j][skeleton].at(v)
    if q.is_zero:
        return None
    _confirm(problem, table, i, j, budget)
    return _curve_witness(problem, table, i, j, skeleton, v, p, q)


def _curve_witness(
    problem: Problem,
    table: Table,
    i: int,
    j: int,
    skeleton: Hashable,
    v: Any,
    p: ExpSum,
    q: ExpSum,
) -> CertifiedWitness:
    name = _program(problem).output_name(densities.fill(skeleton, [Fraction(v)]))
    return _exact_witness(table.inputs, i, j, name, p, q, "density")  # q is not 0 here
