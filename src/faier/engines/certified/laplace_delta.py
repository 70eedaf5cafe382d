"""(ε, δ) of released Laplace numbers without branches (the histogram), in closed form.

When a neighbouring pair's released numbers differ in one coordinate, by
c − c′ under Lap(b) noise, the pair's privacy loss is that of one Laplace
shift s = |c − c′|/b, and its hockey-stick divergence is

    δ(ε) = 1 − e^{−(s − ε)/2} for 0 ≤ ε < s,  0 for ε ≥ s

(the event is the half-line beyond the point where the log density ratio
falls to ε; at ε = 0 it is the total variation 1 − e^{−s/2}).  δ(ε) grows
with s, so the pair of largest s decides, and the least ε for a δ is
s + 2·ln(1 − δ), or 0 when that is negative.  With ε rational the
divergence is an exact ExpSum, so ``verify --delta`` is decided exactly.
Pairs that differ in several coordinates (a sum of Laplace losses) or
exponential noise are "unknown" with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core.problem import Problem
from faier.engines.certified import balls, densities, intervals
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.integrate import Unsupported
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Result, Statistics, Verdict

METHOD = (
    "certified: symbolic execution over the noise ({paths} paths on {inputs} inputs); every "
    "released number is one Laplace noise variable plus a constant and neighbours differ in "
    "one of them, so a pair's δ(ε) is that of one Laplace shift s = |c − c′|/b: "
    "1 − e^(−(s − ε)/2) below s, 0 above; the pair of largest s = {shift} decides"
)


Confirm = Callable[[int, int], None] | None
"""Recomputes a witness's pair on its real inputs (tables reduced by a declared symmetry)."""


@dataclass(frozen=True)
class Released:
    """One program's released Laplace numbers per input, and what every answer reports."""

    problem: Problem
    inputs: tuple[Hashable, ...]
    numbers: tuple[dict[Hashable, tuple[densities.Shifted, ...]], ...]
    paths: int
    started: float
    confirm: Confirm = None


@dataclass(frozen=True)
class _Worst:
    shift: Fraction
    i: int
    j: int
    pairs: int


def _worst(run: Released) -> _Worst:
    pairs = intervals.pairs_of(run.problem, run.inputs)
    best = _Worst(Fraction(-1), 0, 0, len(pairs))
    for i, j in pairs:
        for skeleton, released in run.numbers[i].items():
            other = run.numbers[j].get(skeleton)
            if other is None:
                raise Unsupported("neighbouring inputs release differently shaped outputs")
            shifts = []
            for x, y in zip(released, other, strict=True):
                if x.noise != y.noise or x.noise.kind != "laplace":
                    raise Unsupported(
                        f"(ε, δ) of released {x.noise.describe()} numbers (Laplace numbers are "
                        "decided)"
                    )
                if x.shift != y.shift:
                    shifts.append(abs(x.shift - y.shift) / x.noise.scale)
            if len(shifts) > 1:
                raise Unsupported(
                    "neighbours differ in several released Laplace numbers: δ(ε) of a sum of "
                    "Laplace losses has no closed form here (one-query neighbours are decided)"
                )
            shift = shifts[0] if shifts else Fraction(0)
            if shift > best.shift:
                best = _Worst(shift, int(i), int(j), len(pairs))
    return best


def _result(run: Released, worst: _Worst, **fields: Any) -> Result:
    """Every answer's frame: the grid, the method with the deciding shift, the statistics."""
    inputs = len(run.inputs)
    return Result(
        target=run.problem.name,
        privacy=intervals.describe_grid(run.problem, inputs, worst.pairs),
        method=METHOD.format(paths=run.paths, inputs=inputs, shift=worst.shift),
        statistics=Statistics(seconds=time.perf_counter() - run.started, comparisons=worst.pairs),
        **fields,
    )


def _divergence(shift: Fraction, eps: Fraction | None) -> ExpSum | None:
    """δ(ε) = 1 − e^{(ε − s)/2} exactly when ε is rational (None otherwise)."""
    if eps is None:
        return None
    return ExpSum.rational(1) - ExpSum.exp((eps - shift) / 2)


def _witness(run: Released, worst: _Worst, eps: Any) -> CertifiedWitness:
    """The event beyond the point where the log density ratio falls to ε, both masses."""
    if run.confirm is not None:
        run.confirm(worst.i, worst.j)
    s = balls.rational_ball(worst.shift)
    p = 1 - ((eps - s) / 2).exp() / 2
    q = (-(s + eps) / 2).exp() / 2
    return intervals.mass_witness(
        run.inputs[worst.i],
        run.inputs[worst.j],
        "outputs where the log density ratio exceeds ε (the differing number beyond the point "
        "where |v − c′| − |v − c| = ε·b, on c's side)",
        p,
        q,
    )


def verify_delta(run: Released, eps: Epsilon, delta: Fraction) -> Result:
    """(ε, δ) at the pair of largest shift: exact for rational ε, else on balls."""
    worst = _worst(run)
    fields: dict[str, Any] = {"epsilon": str(eps), "delta": delta}

    def answer(verdict: Verdict, value: Any, e: Any = None) -> Result:
        shown = "0" if value is None else intervals.enclose(value).show()
        relation = "≤" if verdict is Verdict.HOLDS else ">"
        return _result(
            run,
            worst,
            verdict=verdict,
            certified_witness=None if e is None else _witness(run, worst, e),
            reason=f"δ(ε) = {shown} {relation} δ = {delta} at the pair of largest shift "
            f"s = {worst.shift}",
            **fields,
        )

    rational = eps.rational
    if worst.shift == 0 or (rational is not None and rational >= worst.shift):
        return answer(Verdict.HOLDS, None)
    exact = _divergence(worst.shift, rational)
    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            e = balls.exp_epsilon_ball(eps, bits).log()
            s = balls.rational_ball(worst.shift)
            if e >= s:
                return answer(Verdict.HOLDS, None)
            if not e < s:
                continue
            if exact is not None:  # 1 − e^r with r ≠ 0 is never the rational δ
                above = balls.sign(exact - ExpSum.rational(delta)) > 0
                value = balls.ball(exact)
                return answer(*((Verdict.VIOLATED, value, e) if above else (Verdict.HOLDS, value)))
            value = 1 - ((e - s) / 2).exp()
            if value <= balls.rational_ball(delta):
                return answer(Verdict.HOLDS, value)
            if value > balls.rational_ball(delta):
                return answer(Verdict.VIOLATED, value, e)
    return _result(
        run,
        worst,
        verdict=Verdict.UNKNOWN,
        reason=f"δ(ε) and δ coincide to {balls.PRECISIONS[-1]} bits",
        **fields,
    )


def epsilon_delta(run: Released, delta: Fraction) -> Result:
    """The least ε with δ(ε) ≤ δ: s + 2·ln(1 − δ) at the largest shift s, or 0."""
    worst = _worst(run)
    if delta >= 1:
        value = None
    else:
        with balls.precision(balls.PRECISIONS[0]):
            least = balls.rational_ball(worst.shift) + 2 * balls.rational_ball(1 - delta).log()
            value = least if least > 0 else None
    if value is None:
        return _result(run, worst, delta=delta, enclosure=Enclosure(0.0, 0.0))
    low, high = balls.floats(value)
    form = f"{worst.shift} + 2·ln({1 - delta})"
    with balls.precision(balls.PRECISIONS[0]):
        witness = _witness(run, worst, balls.rational_ball(Fraction(low)))
    return _result(
        run,
        worst,
        delta=delta,
        enclosure=Enclosure(max(low, 0.0), high, form),
        certified_witness=witness,
    )
