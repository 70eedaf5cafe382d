"""The Gaussian mechanism: released numbers with Gaussian noise and no branch.

Every released number is one Gaussian noise variable plus a constant, so a
neighbouring pair's privacy loss is itself Gaussian, N(μ²/2, μ²) with
μ = ‖(c − c′)/σ‖₂.  Its log density ratio is linear in the output, so there
is no finite pure ε (the witness is an output where the ratio exceeds e^ε),
and its δ(ε) is exact: δ = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ) (Balle and
Wang 2018, Theorem 8), enclosed with arb at the pair of largest μ, since
δ(ε) grows with μ; the least ε for a δ is bisected on those balls.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core.problem import Problem
from faier.engines.certified import balls, densities, intervals
from faier.engines.certified.balls import rational_ball, sqrt_two_ball
from faier.engines.certified.integrate import Unsupported
from faier.engines.certified.least_epsilon import least_epsilon
from faier.engines.certified.symbolic import Path
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict


@dataclass(frozen=True)
class Numbers:
    """Released numbers without branches, Gaussian noise (``densities.separable``'s shape)."""

    inputs: tuple[Hashable, ...]
    numbers: tuple[dict[Hashable, tuple[densities.Shifted, ...]], ...]
    paths: int


def numbers_table(inputs: tuple[Hashable, ...], runs: Sequence[Sequence[Path]]) -> Numbers:
    shapes = [densities.separable(run) for run in runs]
    found = []
    for shape in shapes:
        if shape is None:
            raise Unsupported(
                "a Gaussian number released under branches (the Gaussian mechanism without "
                "branches is decided)"
            )
        for numbers in shape.values():
            for n in numbers:
                if n.noise.kind != "gaussian":
                    raise Unsupported(f"{n.noise.describe()} beside Gaussian noise in one output")
        found.append(shape)
    if len({frozenset(shape) for shape in found}) != 1:
        raise Unsupported("inputs release different output shapes")
    return Numbers(inputs, tuple(found), sum(len(run) for run in runs))


def _mu2(a: tuple[densities.Shifted, ...], b: tuple[densities.Shifted, ...]) -> Fraction:
    total = Fraction(0)
    for x, y in densities.released_pairs(a, b):
        total += ((x.shift - y.shift) / x.noise.scale) ** 2
    return total


@dataclass(frozen=True)
class _Worst:
    mu2: Fraction
    i: int
    j: int
    skeleton: Hashable
    pairs: int


def _worst(problem: Problem, table: Numbers) -> _Worst:
    """The pair and output of largest μ² (δ(ε) grows with μ, and ε* is ∞ iff μ > 0)."""
    pairs = intervals.pairs_of(problem, table.inputs)
    best: _Worst | None = None
    for i, j in pairs:
        for skeleton, numbers in table.numbers[i].items():
            mu2 = _mu2(numbers, table.numbers[j][skeleton])
            if best is None or mu2 > best.mu2:
                best = _Worst(mu2, int(i), int(j), skeleton, len(pairs))
    assert best is not None
    return best


NUMBERS_METHOD = (
    "certified: symbolic execution over the noise ({paths} paths on {inputs} inputs); every "
    "released number is one Gaussian noise variable plus a constant, so the privacy loss of a "
    "pair is Gaussian, N(μ²/2, μ²) with μ = ‖(c − c′)/σ‖₂, and its log density ratio is "
    "linear in the output (unbounded: no finite pure ε); δ(ε) = Φ(μ/2 − ε/μ) − "
    "e^ε·Φ(−μ/2 − ε/μ) (Balle and Wang 2018, Theorem 8) enclosed in arb at the pair of "
    "largest μ (δ(ε) grows with μ)"
)


def _numbers_result(
    problem: Problem, table: Numbers, worst: _Worst, started: float, **fields: Any
) -> Result:
    return Result(
        target=problem.name,
        privacy=intervals.describe_grid(problem, len(table.inputs), worst.pairs),
        method=NUMBERS_METHOD.format(paths=table.paths, inputs=len(table.inputs)),
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=worst.pairs),
        **fields,
    )


def _joint_density(numbers: tuple[densities.Shifted, ...], point: Sequence[Fraction]) -> Any:
    import flint

    value = flint.arb(1)
    pi2 = (2 * flint.arb.pi()).sqrt()
    for n, v in zip(numbers, point, strict=True):
        w = (rational_ball(v - n.shift - n.noise.loc)) / rational_ball(n.noise.scale)
        value *= (-(w * w) / 2).exp() / (rational_ball(n.noise.scale) * pi2)
    return value


def _point_witness(
    problem: Problem, table: Numbers, worst: _Worst, loss: Fraction
) -> tuple[CertifiedWitness, Any]:
    """The output c + t·(c − c′) where the log density ratio is μ²·(t + ½) = loss."""
    a = table.numbers[worst.i][worst.skeleton]
    b = table.numbers[worst.j][worst.skeleton]
    t = loss / worst.mu2 - Fraction(1, 2)
    point = [x.shift + x.noise.loc + t * (x.shift - y.shift) for x, y in zip(a, b, strict=True)]
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    with balls.precision(balls.PRECISIONS[0]):
        p, q = _joint_density(a, point), _joint_density(b, point)
        ratio = p / q
        witness = CertifiedWitness(
            intervals.plain(table.inputs[worst.i]),
            intervals.plain(table.inputs[worst.j]),
            mechanism.output_name(densities.fill(worst.skeleton, point)),
            intervals.enclose(p),
            intervals.enclose(q),
            Enclosure(*balls.floats(ratio), f"e^{loss}"),
            "density",
        )
    return witness, ratio


def epsilon(problem: Problem, table: Numbers, started: float) -> Result:
    worst = _worst(problem, table)
    if worst.mu2 == 0:
        return _numbers_result(problem, table, worst, started, enclosure=Enclosure(0.0, 0.0))
    witness, _ = _point_witness(problem, table, worst, Fraction(2))
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        epsilon_star=Loss(None),
        enclosure=Enclosure(math.inf, math.inf),
        certified_witness=witness,
        reason="no finite ε: the log density ratio μ²·(t + ½) at the output c + t·(c − c′) "
        "grows without bound in t (the witness shows the t where it is 2)",
    )


def verify(problem: Problem, eps: Epsilon, table: Numbers, started: float) -> Result:
    worst = _worst(problem, table)
    if worst.mu2 == 0:
        return _numbers_result(
            problem, table, worst, started, verdict=Verdict.HOLDS, epsilon=str(eps)
        )
    loss = Fraction(math.floor(eps.value) + 1)
    witness, ratio = _point_witness(problem, table, worst, loss)
    with balls.precision(balls.PRECISIONS[0]):
        certain = ratio > balls.exp_epsilon_ball(eps, balls.PRECISIONS[0])
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        verdict=Verdict.VIOLATED if certain else Verdict.UNKNOWN,
        epsilon=str(eps),
        epsilon_star=Loss(None),
        enclosure=Enclosure(math.inf, math.inf),
        certified_witness=witness,
        reason=None if certain else "the witness's ratio ball does not clear e^ε",
    )


def analytic_delta(mu2: Fraction, eps: Any) -> Any:
    """δ(ε) of the Gaussian mechanism at μ² (Balle and Wang 2018, Thm 8) as a ball; ε a ball."""
    mu = rational_ball(mu2).sqrt()
    root2 = sqrt_two_ball()

    def phi(x: Any) -> Any:
        return (-x / root2).erfc() / 2

    return phi(mu / 2 - eps / mu) - eps.exp() * phi(-mu / 2 - eps / mu)


def _delta_event(problem: Problem, table: Numbers, worst: _Worst, eps: Any) -> CertifiedWitness:
    mu = rational_ball(worst.mu2).sqrt()
    root2 = sqrt_two_ball()
    p = (-(mu / 2 - eps / mu) / root2).erfc() / 2
    q = (-(-mu / 2 - eps / mu) / root2).erfc() / 2
    return intervals.mass_witness(
        table.inputs[worst.i],
        table.inputs[worst.j],
        "outputs where the log density ratio exceeds ε (a half-space: "
        "Σ (cᵢ − c′ᵢ)(vᵢ − (cᵢ + c′ᵢ)/2)/σᵢ² > ε)",
        p,
        q,
    )


def verify_delta(
    problem: Problem, eps: Epsilon, delta: Fraction, table: Numbers, started: float
) -> Result:
    worst = _worst(problem, table)

    def answer(verdict: Verdict, reason: str | None, witness: Any = None) -> Result:
        return _numbers_result(
            problem,
            table,
            worst,
            started,
            verdict=verdict,
            epsilon=str(eps),
            delta=delta,
            certified_witness=witness,
            reason=reason,
        )

    if worst.mu2 == 0:
        return answer(Verdict.HOLDS, None)
    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            e = balls.exp_epsilon_ball(eps, bits).log()
            value = analytic_delta(worst.mu2, e)
            bound = rational_ball(delta)
            shown = intervals.enclose(value).show()
            if value <= bound:
                reason = f"δ(ε) ∈ {shown} ≤ δ at the pair of largest μ² = {worst.mu2}"
                return answer(Verdict.HOLDS, reason)
            if value > bound:
                reason = f"δ(ε) ∈ {shown} > δ = {delta} on this pair (μ² = {worst.mu2})"
                return answer(Verdict.VIOLATED, reason, _delta_event(problem, table, worst, e))
    return answer(Verdict.UNKNOWN, f"δ(ε) ∈ {shown} contains δ at {balls.PRECISIONS[-1]} bits")


def epsilon_delta(problem: Problem, delta: Fraction, table: Numbers, started: float) -> Result:
    """The least ε with δ(ε) ≤ δ: δ(ε) decreases strictly in ε, bisected on balls."""
    import flint

    worst = _worst(problem, table)

    def above(eps: float) -> bool | None:
        for bits in balls.PRECISIONS:
            with balls.precision(bits):
                bound = rational_ball(delta)  # δ at this precision, not the default 53 bits
                value = analytic_delta(worst.mu2, flint.arb(eps))
                if value > bound:
                    return True
                if value <= bound:
                    return False
        return None

    found = (
        least_epsilon(above, 0.0, intervals.EPSILON_CAP, intervals.TARGET / 4)
        if worst.mu2 != 0
        else None
    )
    enclosure, witness, reason = Enclosure(0.0, 0.0), None, None
    if found is not None and found.high != 0.0:
        low, reason = found.low or 0.0, found.stopped
        if found.high is None:
            enclosure = Enclosure(low, math.inf)
        else:
            enclosure = Enclosure(low, found.high)
            with balls.precision(balls.PRECISIONS[0]):
                witness = _delta_event(problem, table, worst, flint.arb(low))
    return _numbers_result(
        problem,
        table,
        worst,
        started,
        delta=delta,
        enclosure=enclosure,
        certified_witness=witness,
        reason=reason,
    )
