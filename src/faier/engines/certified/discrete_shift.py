"""A released noisy integer: x + K for discrete Laplace or Gaussian K, decided in closed form.

When a program releases c + K (or a tuple of such numbers) without branching
on the noise, its output probabilities are the noise's own, shifted, so a
pair's loss is exact.  Discrete Laplace: Σ|c − c′|/t, attained at the output
c (a rational ε*, decided exactly; a shift that is not whole is an output
possible on one side only, ∞).  Discrete Gaussian: ε* = ∞ when c ≠ c′ (the
log ratio (c − c′)(2v − c − c′)/(2σ²) grows without bound in the output v),
and δ(ε) of a pair moving one number is P_c(A) − e^ε·P_c′(A) for the
half-line A = {v : P_c(v) > e^ε·P_c′(v)} (the ratio is monotone in v), two
sums with certified tails (:mod:`.lattice`); the least ε for a δ is bisected
on it.
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
from faier.engines.certified import balls, lattice
from faier.engines.certified.densities import NUMBER, fill
from faier.engines.certified.engine import (
    UNDECIDED_CLAIM,
    _exceeds,
    largest_loss,
    loss_enclosure,
    loss_exceeds,
)
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.intervals import (
    describe_grid,
    neighbour_indices,
    plain,
    verdict_fields,
)
from faier.engines.certified.lattice_paths import LatticeRun, Tail, TailVariable
from faier.engines.certified.least_epsilon import least_epsilon
from faier.mechanisms.discrete_noise import DiscreteNoise
from faier.mechanisms.program import Program
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict

BITS = (128, 512, 2048)
"""Working precisions of the exact shapes' δ(ε)."""


class _NotShifted(Exception):
    pass


class _Free(LatticeRun):
    """Integer noise as free variables; any branch or other draw means another shape."""

    def draw(self, dist: Any) -> Any:
        if not isinstance(dist, DiscreteNoise):
            raise _NotShifted
        # noise located at an integer is that integer plus the same noise at 0
        return self._tail(TailVariable(replace(dist, loc=Fraction(0)), None, None)) + dist.loc

    def compare(self, difference: Tail, *, strict: bool) -> bool:
        raise _NotShifted

    def equal(self, difference: Tail) -> bool:
        raise _NotShifted


@dataclass(frozen=True)
class Shifted:
    """One input's output: a skeleton and its numbers, each c + K for a noise K."""

    skeleton: Hashable
    numbers: tuple[tuple[DiscreteNoise, Fraction], ...]


def _shifted(mechanism: Program[Any], x: Any) -> Shifted | None:
    run = _Free(prefix=[])
    try:
        raw = mechanism.body(x, run)
    except KeyboardInterrupt:
        raise
    except Exception:  # another shape; the enumeration reports the mechanism's own errors
        return None
    numbers: list[tuple[DiscreteNoise, Fraction]] = []
    seen: set[int] = set()

    def walk(value: Any) -> Hashable:
        if isinstance(value, Tail):
            if len(value.coefficients) != 1 or value.coefficients[0][1] != 1:
                raise _NotShifted
            var = value.coefficients[0][0]
            if var in seen:
                raise _NotShifted
            seen.add(var)
            numbers.append((run.tails[var].dist, value.constant))
            return NUMBER
        if isinstance(value, list | tuple):
            return tuple(walk(v) for v in value)
        return value  # type: ignore[no-any-return]

    try:
        skeleton = walk(raw)
    except _NotShifted:
        return None
    if not numbers:
        return None
    return Shifted(skeleton, tuple(numbers))


def _inputs(problem: Problem) -> tuple[Hashable, ...]:
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    return tuple(mechanism.inputs.values)


def shifted_shape(problem: Problem) -> tuple[Shifted, ...] | None:
    """Every input's output as shifted noise, or None when the program has another shape."""
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    found = []
    for x in mechanism.inputs.values:
        shape = _shifted(mechanism, x)
        if shape is None:
            return None
        found.append(shape)
    return tuple(found)


def _energy(dist: DiscreteNoise, offset: Fraction) -> Fraction:
    """−ln of the unnormalised weight at ``offset`` from the location: |j|/t or j²/(2σ²)."""
    if dist.kind == "discrete_laplace":
        return abs(offset) / dist.scale
    return offset * offset / (2 * dist.scale * dist.scale)


def _pair_loss(a: Shifted, b: Shifted) -> Fraction | str | None:
    """The exact sup of ln(P_a/P_b) over outputs: a rational, None for ∞, 'other' if unknown."""
    if a.skeleton != b.skeleton or len(a.numbers) != len(b.numbers):
        return None
    total = Fraction(0)
    for (dist, c), (other, d) in zip(a.numbers, b.numbers, strict=True):
        if dist != other:
            return "other"
        if c == d:
            continue
        if (c - d).denominator != 1 or dist.kind == "discrete_gaussian":
            return None
        total += abs(c - d) / dist.scale
    return total


def _witness_point(a: Shifted, b: Shifted, target: Fraction) -> list[Fraction]:
    """An output where ln(P_a/P_b) ≥ the exact loss (Laplace) or ≥ target (Gaussian, ∞)."""
    values = []
    pushed = False
    for (dist, c), (_, d) in zip(a.numbers, b.numbers, strict=True):
        v = c + dist.loc
        if dist.kind == "discrete_gaussian" and c != d and not pushed:
            step = math.ceil(2 * dist.scale * dist.scale * (target + 1) / abs(c - d)) + 1
            v += step if c > d else -step
            pushed = True
        values.append(v)
    return values


def _point_mass(shape: Shifted, values: list[Fraction], bits: int) -> Any:
    import flint

    total = flint.arb(1)
    for (dist, c), v in zip(shape.numbers, values, strict=True):
        k = v - c
        if k.denominator != 1:
            return flint.arb(0)
        total *= lattice.point(dist, int(k), bits)
    return total


def _enclosure(value: Any) -> Enclosure:
    return Enclosure(*balls.floats(value))


def _shift_witness(
    problem: Problem, shapes: tuple[Shifted, ...], i: int, j: int, target: Fraction
) -> CertifiedWitness:
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    a, b = shapes[i], shapes[j]
    values = _witness_point(a, b, target)
    bits = BITS[0]
    with balls.precision(bits):
        p = _point_mass(a, values, bits)
        q = _point_mass(b, values, bits) if a.skeleton == b.skeleton else None
        ratio = (
            Enclosure(math.inf, math.inf, "∞")
            if q is None or q == 0
            else Enclosure(*balls.floats(p / q))
        )
        return CertifiedWitness(
            plain(mechanism.inputs.values[i]),
            plain(mechanism.inputs.values[j]),
            mechanism.output_name(fill(a.skeleton, values)),
            _enclosure(p),
            Enclosure(0.0, 0.0, "0") if q is None else _enclosure(q),
            ratio,
        )


SHIFT_METHOD = (
    "certified: the output is the input's value plus integer noise ({noise}); the loss of a "
    "pair is exact and depends only on c − c′, so it holds for any inputs as far apart "
    "(discrete Laplace: Σ|c − c′|/t, attained at the output c; discrete Gaussian: unbounded "
    "when c ≠ c′); every neighbouring pair of the {inputs} inputs"
)


def _noise_names(shapes: tuple[Shifted, ...]) -> str:
    return ", ".join(dict.fromkeys(dist.describe() for s in shapes for dist, _ in s.numbers))


def _shift_losses(
    problem: Problem, shapes: tuple[Shifted, ...]
) -> list[tuple[Fraction | None, int, int]] | None:
    pairs = neighbour_indices(problem, _inputs(problem))
    losses: list[tuple[Fraction | None, int, int]] = []
    for i, j in pairs:
        loss = _pair_loss(shapes[i], shapes[j])
        if isinstance(loss, str):
            return None
        losses.append((loss, i, j))
    return losses


def epsilon(problem: Problem, shapes: tuple[Shifted, ...], started: float) -> Result | None:
    losses = _shift_losses(problem, shapes)
    if losses is None or not losses:
        return None
    value, i, j = largest_loss(losses)
    witness = _shift_witness(problem, shapes, i, j, Fraction(10))
    reason = (
        None
        if value is not None
        else f"the log ratio of {show_input(_inputs(problem)[i])} over "
        f"{show_input(_inputs(problem)[j])} grows without bound in the output "
        "(or the outputs' supports differ): no finite ε; the witness shows a ratio above e^10"
    )
    return _result(
        problem,
        shapes,
        len(losses),
        started,
        epsilon_star=Loss(None) if value is None else None,
        enclosure=loss_enclosure(value),
        certified_witness=witness,
        reason=reason,
    )


def verify(
    problem: Problem, shapes: tuple[Shifted, ...], eps: Epsilon, started: float
) -> Result | None:
    losses = _shift_losses(problem, shapes)
    if losses is None or not losses:
        return None
    loss, i, j = largest_loss(losses)
    exceeds = loss_exceeds(loss, eps)
    if exceeds is None:
        fields = verdict_fields(Verdict.UNKNOWN, eps, None, False)
        undecided = _result(problem, shapes, len(losses), started, **fields)
        return replace(undecided, reason=UNDECIDED_CLAIM.format(loss=loss))
    if not exceeds:
        fields = verdict_fields(Verdict.HOLDS, eps, None, False)
        return _result(problem, shapes, len(losses), started, **fields)
    target = Fraction(math.ceil(eps.value)) if math.isfinite(eps.value) else Fraction(10)
    witness = _shift_witness(problem, shapes, i, j, target)
    fields = verdict_fields(Verdict.VIOLATED, eps, witness, loss is None)
    return _result(problem, shapes, len(losses), started, **fields)


def _result(
    problem: Problem,
    shapes: tuple[Shifted, ...],
    comparisons: int,
    started: float,
    more_method: str = "",
    **fields: Any,
) -> Result:
    """Every answer's frame: the grid, the closed-form method (and what follows it), the
    statistics."""
    return Result(
        target=problem.name,
        privacy=describe_grid(problem, len(shapes), comparisons),
        method=SHIFT_METHOD.format(noise=_noise_names(shapes), inputs=len(shapes)) + more_method,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=comparisons),
        **fields,
    )


def _threshold(dist: DiscreteNoise, c: Fraction, d: Fraction, eps: Epsilon) -> int | None:
    """For c > d: the least v with w(v − c) > e^ε·w(v − d) (None: no such v).

    w is the noise's unnormalised weight around 0; its log ratio is
    nondecreasing in v, so the outputs where P_c > e^ε·P_d form a half-line.
    """
    zero = DiscreteNoise(dist.kind, Fraction(0), dist.scale)

    def above(v: int) -> bool:
        gain = _energy(zero, v - d) - _energy(zero, v - c)
        return bool(_exceeds(ExpSum.exp(gain), ExpSum.rational(1), eps))

    if dist.kind == "discrete_laplace":
        top = math.ceil(c)  # from here on the log ratio is its largest, |c − d|/t
        if not above(top):
            return None
        low = math.floor(d)
    else:
        guess = (2 * float(dist.scale) ** 2 * eps.value / float(c - d) + float(c + d)) / 2
        start = math.floor(guess) if math.isfinite(guess) else math.floor(c)  # a start only
        low, top = start - 2, start + 3
        while above(low):
            low -= 2 * (top - low)
        while not above(top):
            top += 2 * (top - low)
    while top - low > 1:  # above(top), not above(low): the ratio is monotone in v
        middle = (low + top) // 2
        if above(middle):
            top = middle
        else:
            low = middle
    return top


@dataclass(frozen=True)
class _Move:
    """A pair whose outputs differ in one released integer: c + K against d + K."""

    coordinate: int
    dist: DiscreteNoise
    c: int
    d: int


def _move(a: Shifted, b: Shifted) -> _Move | str | None:
    """The one coordinate a pair moves ('same' when none), or None for other shapes."""
    if a.skeleton != b.skeleton:
        return None
    moved = [k for k, (x, y) in enumerate(zip(a.numbers, b.numbers, strict=True)) if x != y]
    if not moved:
        return "same"
    if len(moved) > 1:
        return None
    (dist, c), (_, d) = a.numbers[moved[0]], b.numbers[moved[0]]
    if c.denominator != 1 or d.denominator != 1:
        return None
    return _Move(moved[0], dist, int(c), int(d))


@dataclass(frozen=True)
class _Gap:
    """δ(ε) of one pair as a ball, with the half-line where p > e^ε·q and its masses."""

    value: Any
    p: Any
    q: Any
    edge: int
    below: bool
    """The event is v ≤ edge (else v ≥ edge)."""


def _gap(move: _Move, eps: Epsilon, bits: int) -> _Gap | None:
    """δ(ε) = P_c(A) − e^ε·P_d(A) on the half-line A (None: A is empty, δ(ε) = 0)."""
    dist, c, d = move.dist, move.c, move.d
    below = c < d  # outputs v = c + K with K around dist.loc: weights w(v − c − loc)
    loc = dist.loc
    edge = (
        _threshold(dist, -c - loc, -d - loc, eps)
        if below
        else _threshold(dist, c + loc, d + loc, eps)
    )
    if edge is None:
        return None
    with balls.precision(bits):
        if below:  # mirrored: v ≤ −edge
            p = lattice.mass(dist, None, -edge - c, bits)
            q = lattice.mass(dist, None, -edge - d, bits)
        else:
            p = lattice.mass(dist, edge - c, None, bits)
            q = lattice.mass(dist, edge - d, None, bits)
        value = p - balls.exp_epsilon_ball(eps, bits) * q
    return _Gap(value, p, q, -edge if below else edge, below)


def _moves(
    problem: Problem, shapes: tuple[Shifted, ...]
) -> tuple[list[tuple[int, int, _Move]], list[Any]] | None:
    losses = _shift_losses(problem, shapes)
    if losses is None or not losses:
        return None
    moves = []
    for _, i, j in losses:
        move = _move(shapes[i], shapes[j])
        if move is None:
            return None
        if isinstance(move, _Move):
            moves.append((i, j, move))
    return moves, losses


DELTA_METHOD = (
    "; δ(ε) = P_c(A) − e^ε·P_c′(A) on the half-line A where the ratio exceeds e^ε "
    "(the log ratio is monotone in the output), its tails certified"
)


def verify_delta(
    problem: Problem,
    shapes: tuple[Shifted, ...],
    eps: Epsilon,
    delta: Fraction,
    budget: Budget,
    started: float,
) -> Result | None:
    """δ(ε) per pair for pairs differing in one coordinate, decided on certified balls."""
    found = _moves(problem, shapes)
    if found is None:
        return None
    moves, losses = found
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)

    def answer(verdict: Verdict, witness: CertifiedWitness | None, reason: str | None) -> Result:
        fields = {**verdict_fields(verdict, eps, witness, False), "delta": delta, "reason": reason}
        return _result(problem, shapes, len(losses), started, DELTA_METHOD, **fields)

    undecided: _Gap | None = None
    for i, j, move in moves:
        budget.check_time()
        for bits in BITS:
            gap = _gap(move, eps, bits)
            if gap is None:
                break
            limit = balls.rational_ball(delta)
            if gap.value > limit:
                where = (
                    f" in coordinate {move.coordinate + 1}" if len(shapes[i].numbers) > 1 else ""
                )
                witness = CertifiedWitness(
                    plain(mechanism.inputs.values[i]),
                    plain(mechanism.inputs.values[j]),
                    f"an output {'≤' if gap.below else '≥'} {gap.edge}{where}",
                    _enclosure(gap.p),
                    _enclosure(gap.q),
                    Enclosure(*balls.floats(gap.p / gap.q)),
                )
                reason = f"δ(ε) ∈ {_enclosure(gap.value).show()} > δ = {delta} on this pair"
                return answer(Verdict.VIOLATED, witness, reason)
            if gap.value <= limit:
                break
        else:
            undecided = gap
    if undecided is None:
        return answer(Verdict.HOLDS, None, None)
    shown = _enclosure(undecided.value).show()
    return answer(Verdict.UNKNOWN, None, f"δ(ε) ∈ {shown} equals δ to {BITS[-1]} bits")


EPSILON_CAP = 512
"""The largest ε the least-ε search tries before reporting a lower bound."""


def epsilon_delta(
    problem: Problem, shapes: tuple[Shifted, ...], delta: Fraction, budget: Budget, started: float
) -> Result | None:
    """The least ε with δ(ε) ≤ δ on every pair, bisected on certified δ(ε) (nonincreasing)."""
    found = _moves(problem, shapes)
    if found is None:
        return None
    moves, losses = found
    limit = balls.rational_ball(delta)

    def above(value: Fraction) -> bool | None:
        eps = Epsilon.parse(str(value))
        answer: bool | None = False
        for _, _, move in moves:
            budget.check_time()
            gap = _gap(move, eps, BITS[0])
            if gap is None or gap.value <= limit:
                continue
            if gap.value > limit:
                return True
            answer = None
        return answer

    bracket = least_epsilon(above, Fraction(0), Fraction(EPSILON_CAP), Fraction(1, 10**10))
    lower = 0.0 if bracket.low is None else float(bracket.low)
    enclosure = (
        Enclosure(0.0, 0.0, "0")
        if bracket.high == 0
        else Enclosure(
            math.nextafter(lower, -math.inf) if lower else 0.0,
            math.inf if bracket.high is None else math.nextafter(float(bracket.high), math.inf),
        )
    )
    return _result(
        problem,
        shapes,
        len(losses),
        started,
        DELTA_METHOD + "; the least ε bisected on it (δ(ε) is nonincreasing in ε)",
        delta=delta,
        enclosure=enclosure,
        reason=bracket.stopped,
    )
