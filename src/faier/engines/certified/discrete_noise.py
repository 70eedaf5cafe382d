"""Verdicts for programs that draw discrete Laplace or discrete Gaussian noise.

Two shapes:

* **A released noisy integer** (``x + ctx.draw(faier.discrete_laplace(0, t))``,
  a vector of them; no branch on the noise): the output's probabilities are
  the noise's own, shifted, so a pair's loss is exact.  Discrete Laplace:
  Σ|c − c′|/t, attained at the output c (a rational ε*, decided exactly);
  a shift that is not a whole number is an output possible on one side only
  (∞).  Discrete Gaussian: ε* = ∞ whenever c ≠ c′ (the log ratio
  (c − c′)(2v − c − c′)/(2σ²) grows without bound in the output v), and
  δ(ε) of a pair differing in one coordinate is P_c(A) − e^ε·P_c′(A) for
  the half-line A = {v : P_c(v) > e^ε·P_c′(v)} (the ratio is monotone in v),
  two theta-type sums with certified tails (:mod:`.lattice`).
* **Anything else**: symbolic execution with a window of integer values and
  symbolic tails (:mod:`.lattice_paths`), every output's probability a
  certified enclosure.  Paths that could not be followed leave their mass
  as an interval [0, mass] on their output, or as mass on an unknown output.
  Pure ε holds only when no mass is on an unknown output and every ratio's
  upper bound is at most e^ε; violated when a ratio's lower bound (the
  other side's unknown mass counted against it) exceeds e^ε; else the window
  is widened (half-widths 0, 4, 16, 64 around each location, while the paths
  stay under a limit) and in the end "unknown" with the enclosure.  (ε, δ)
  adds the unknown mass to δ(ε)'s upper bound.
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
from faier.engines.certified import balls, intervals, lattice
from faier.engines.certified.densities import NUMBER, fill
from faier.engines.certified.engine import _describe, _exceeds, _log_ratio, _pairs, _plain
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.integrate import Unsupported
from faier.engines.certified.lattice_paths import LatticeRun, Tail, TailVariable, lattice_paths
from faier.errors import InternalError
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.discrete_noise import DiscreteNoise
from faier.mechanisms.handlers import guarded
from faier.mechanisms.program import Program
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict

WIDTHS = (0, 4, 16, 64)
"""Half-widths of the enumerated window, tried in turn while a decision stays open."""
MAX_PATHS = 200_000
"""Paths over all inputs beyond which a wider window is not tried."""
BITS = (128, 512, 2048)
"""Working precisions of the exact shapes' δ(ε); the windows' tables start at the first."""


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


def draws_integer_noise(problem: Problem) -> bool:
    """Whether the program draws discrete Laplace/Gaussian noise (one run on one input)."""
    mechanism = problem.mechanism
    if not isinstance(mechanism, Program):
        return False
    try:
        mechanism.body(next(iter(mechanism.inputs.values)), _Probe())
    except _Found:
        return True
    except KeyboardInterrupt:
        raise
    except Exception:
        return False
    return False


# ---------------------------------------------------------------- released noisy integers


class _NotShifted(Exception):
    pass


class _Free(LatticeRun):
    """Integer noise as free variables; any branch or other draw means another shape."""

    def draw(self, dist: Any) -> Any:
        if not isinstance(dist, DiscreteNoise):
            raise _NotShifted
        return self._tail(TailVariable(dist, None, None))

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
            _plain(mechanism.inputs.values[i]),
            _plain(mechanism.inputs.values[j]),
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
    pairs = _pairs(problem, _inputs(problem))
    losses: list[tuple[Fraction | None, int, int]] = []
    for i, j in pairs:
        loss = _pair_loss(shapes[i], shapes[j])
        if isinstance(loss, str):
            return None
        losses.append((loss, i, j))
    return losses


def _shift_epsilon(problem: Problem, shapes: tuple[Shifted, ...], started: float) -> Result | None:
    losses = _shift_losses(problem, shapes)
    if losses is None or not losses:
        return None
    infinite = [c for c in losses if c[0] is None]
    best = infinite[0] if infinite else max(losses, key=lambda c: c[0] or 0)
    value, i, j = best
    witness = _shift_witness(problem, shapes, i, j, Fraction(10))
    enclosure = (
        Enclosure(math.inf, math.inf)
        if value is None
        else Enclosure(*balls.floats(balls.ball(ExpSum.rational(value))), str(value))
    )
    reason = (
        None
        if value is not None
        else f"the log ratio of {show_input(_inputs(problem)[i])} over "
        f"{show_input(_inputs(problem)[j])} grows without bound in the output "
        "(or the outputs' supports differ): no finite ε; the witness shows a ratio above e^10"
    )
    return Result(
        target=problem.name,
        privacy=_describe(problem, len(shapes), len(losses)),
        method=SHIFT_METHOD.format(noise=_noise_names(shapes), inputs=len(shapes)),
        epsilon_star=Loss(None) if value is None else None,
        enclosure=enclosure,
        certified_witness=witness,
        reason=reason,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=len(losses)),
    )


def _shift_verify(
    problem: Problem, shapes: tuple[Shifted, ...], eps: Epsilon, started: float
) -> Result | None:
    losses = _shift_losses(problem, shapes)
    if losses is None or not losses:
        return None
    for loss, i, j in sorted(losses, key=lambda c: -(c[0] if c[0] is not None else math.inf)):
        exceeded = True if loss is None else _exceeds(ExpSum.exp(loss), ExpSum.rational(1), eps)
        if not exceeded:
            break
        target = Fraction(math.ceil(eps.value)) if math.isfinite(eps.value) else Fraction(10)
        witness = _shift_witness(problem, shapes, i, j, target)
        return _result(
            problem, eps, shapes, losses, Verdict.VIOLATED, witness, loss is None, started
        )
    return _result(problem, eps, shapes, losses, Verdict.HOLDS, None, False, started)


def _result(
    problem: Problem,
    eps: Epsilon,
    shapes: tuple[Shifted, ...],
    losses: list[Any],
    verdict: Verdict,
    witness: CertifiedWitness | None,
    infinite: bool,
    started: float,
) -> Result:
    return Result(
        target=problem.name,
        privacy=_describe(problem, len(shapes), len(losses)),
        method=SHIFT_METHOD.format(noise=_noise_names(shapes), inputs=len(shapes)),
        verdict=verdict,
        epsilon=str(eps),
        epsilon_star=Loss(None) if infinite else None,
        enclosure=Enclosure(math.inf, math.inf) if infinite else None,
        certified_witness=witness,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=len(losses)),
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
        low, top = math.floor(guess) - 2, math.floor(guess) + 3
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


def _shift_delta(
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
    undecided: _Gap | None = None
    for i, j, move in moves:
        budget.check_time()
        for bits in BITS:
            gap = _gap(move, eps, bits)
            if gap is None:
                break
            limit = balls._rational(delta)
            if gap.value > limit:
                where = (
                    f" in coordinate {move.coordinate + 1}" if len(shapes[i].numbers) > 1 else ""
                )
                witness = CertifiedWitness(
                    _plain(mechanism.inputs.values[i]),
                    _plain(mechanism.inputs.values[j]),
                    f"an output {'≤' if gap.below else '≥'} {gap.edge}{where}",
                    _enclosure(gap.p),
                    _enclosure(gap.q),
                    Enclosure(*balls.floats(gap.p / gap.q)),
                )
                return replace(
                    _result(
                        problem, eps, shapes, losses, Verdict.VIOLATED, witness, False, started
                    ),
                    delta=delta,
                    method=SHIFT_METHOD.format(noise=_noise_names(shapes), inputs=len(shapes))
                    + DELTA_METHOD,
                    reason=f"δ(ε) ∈ {_enclosure(gap.value).show()} > δ = {delta} on this pair",
                )
            if gap.value <= limit:
                break
        else:
            undecided = gap
    verdict = Verdict.UNKNOWN if undecided is not None else Verdict.HOLDS
    result = replace(
        _result(problem, eps, shapes, losses, verdict, None, False, started), delta=delta
    )
    if undecided is not None:
        shown = _enclosure(undecided.value).show()
        result = replace(result, reason=f"δ(ε) ∈ {shown} equals δ to {BITS[-1]} bits")
    return replace(result, method=result.method + DELTA_METHOD)


EPSILON_CAP = 512
"""The largest ε the least-ε search tries before reporting a lower bound."""


def _shift_epsilon_delta(
    problem: Problem, shapes: tuple[Shifted, ...], delta: Fraction, budget: Budget, started: float
) -> Result | None:
    """The least ε with δ(ε) ≤ δ on every pair, bisected on certified δ(ε) (nonincreasing)."""
    found = _moves(problem, shapes)
    if found is None:
        return None
    moves, losses = found
    limit = balls._rational(delta)

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

    low: Fraction | None = None  # None: no ε is known to be too small
    high = Fraction(0)
    stopped = None
    if above(high) is not False:
        floor, high = Fraction(0), Fraction(1)
        while (state := above(high)) is not False:
            if state:
                floor = high
            if high >= EPSILON_CAP:
                stopped = f"δ(ε) stays above δ up to ε = {EPSILON_CAP}"
                break
            high *= 2
        while stopped is None and high - floor > Fraction(1, 10**10) * max(Fraction(1), floor):
            middle = (floor + high) / 2
            state = above(middle)
            if state is None:
                stopped = "the balls cannot separate δ(ε) from δ between these bounds"
                break
            floor, high = (middle, high) if state else (floor, middle)
        low = floor
    lower = 0.0 if low is None else float(low)
    capped = stopped is not None and "stays above" in stopped
    enclosure = (
        Enclosure(0.0, 0.0, "0")
        if high == 0
        else Enclosure(
            math.nextafter(lower, -math.inf) if lower else 0.0,
            math.inf if capped else math.nextafter(float(high), math.inf),
        )
    )
    return Result(
        target=problem.name,
        privacy=_describe(problem, len(shapes), len(losses)),
        method=SHIFT_METHOD.format(noise=_noise_names(shapes), inputs=len(shapes))
        + DELTA_METHOD
        + "; the least ε bisected on it (δ(ε) is nonincreasing in ε)",
        delta=delta,
        enclosure=enclosure,
        reason=stopped,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=len(losses)),
    )


# ---------------------------------------------------------------- enumerated windows


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
            if lost == 0:
                values.append(dict(dist))
                continue
            spill = flint.arb(lost.upper())
            widened = {o: p.union(p + spill) for o, p in dist.items()}
            for o in table.outputs:
                widened.setdefault(o, flint.arb(0).union(spill))
            widened[UNKNOWN] = flint.arb(0).union(spill)
            values.append(widened)
    outputs = table.outputs if table.complete else (*table.outputs, UNKNOWN)
    wider = [w for w in WIDTHS if w > width]

    widen = bool(table.open_paths and wider and _affordable(table, wider[0]))

    def refine(higher: int) -> intervals.BallTable:
        """A wider window while paths are open, else (only then) a higher precision."""
        budget.check_time()
        if widen:
            return ball_table(problem, wider[0], bits, budget)
        return ball_table(problem, width, higher, budget)

    reasons = (
        "" if table.complete else f"; mass left on unknown outputs: {'; '.join(table.reasons)}"
    )
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


def _explained(result: Result) -> Result:
    """An unknown answer whose table lost mass says why (the layer only knows its balls)."""
    if "mass left on unknown outputs" not in result.method:
        return result
    if result.verdict == Verdict.UNKNOWN or (
        result.enclosure is not None and math.isinf(result.enclosure.upper)
    ):
        lost = result.method.split("mass left on unknown outputs: ", 1)[1].split(";")[0]
        return replace(
            result,
            reason=f"some paths could not be followed ({lost}); their mass bounds the answer",
        )
    return result


def _affordable(table: Enclosed, width: int) -> bool:
    """Whether a window of ``width`` stays within :data:`MAX_PATHS` (as if three draws)."""
    growth = (2 * width + 3) / (2 * table.width + 3)
    return table.paths * growth**3 <= MAX_PATHS


def _exact_enclosed(problem: Problem, budget: Budget) -> Enclosed | None:
    """The narrowest window's table whose paths all have closed forms (discrete Laplace)."""
    for width in WIDTHS:
        table = enclosed_table(problem, width, BITS[0], budget)
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
    with balls.precision(BITS[0]):
        return CertifiedWitness(
            _plain(table.inputs[i]),
            _plain(table.inputs[j]),
            mechanism.output_name(o),
            _enclosure(p),
            _enclosure(q) if o in table.probabilities[j] else Enclosure(0.0, 0.0, "0"),
            Enclosure(*balls.floats(p / q))
            if o in table.probabilities[j]
            else Enclosure(math.inf, math.inf, "∞"),
        )


def _exact_verify(problem: Problem, eps: Epsilon, found: Result, budget: Budget) -> Result:
    """An undecided pure-ε answer settled on the exact numerators, when they exist."""
    table = _exact_enclosed(problem, budget)
    if table is None or table.exact is None:
        return found
    for i, j in _pairs(problem, table.inputs):
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


def _closed_epsilon(problem: Problem, found: Result, budget: Budget) -> Result:
    """ε* with its closed form (``7/10``) when the probabilities have exact numerators."""
    enclosure = found.enclosure
    if enclosure is None or not math.isfinite(enclosure.upper):
        return found
    table = _exact_enclosed(problem, budget)
    if table is None or table.exact is None:
        return found
    best: tuple[float, ExpSum, ExpSum] | None = None
    with balls.precision(BITS[0]):
        for i, j in _pairs(problem, table.inputs):
            for o, p in table.exact[i].items():
                q = table.exact[j].get(o)
                if q is None:
                    return found
                low = balls.floats(balls.ball(p) / balls.ball(q))[0]
                if best is None or low > best[0]:
                    best = (low, p, q)
    if best is None:
        return found
    closed = _log_ratio(best[1], best[2])
    if closed is None:
        return found
    return replace(found, enclosure=replace(enclosure, closed_form=closed))


# ---------------------------------------------------------------- entry points


def _unsupported(problem: Problem, eps: Epsilon | None, reason: str, started: float) -> Result:
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe(),
        method="certified: symbolic execution over integer noise",
        verdict=None if eps is None else Verdict.UNKNOWN,
        epsilon=None if eps is None else str(eps),
        reason=reason,
        statistics=Statistics(seconds=time.perf_counter() - started),
    )


def epsilon(problem: Problem, budget: Budget) -> Result:
    """ε* exactly (a released noisy integer) or as a certified interval, with its witness."""
    started = time.perf_counter()
    shapes = shifted_shape(problem)
    if shapes is not None:
        found = _shift_epsilon(problem, shapes, started)
        if found is not None:
            return found
    try:
        table = ball_table(problem, WIDTHS[0], BITS[0], budget)
        return _closed_epsilon(
            problem, _explained(intervals.epsilon(problem, table, budget)), budget
        )
    except Unsupported as exc:
        return _unsupported(problem, None, f"no closed form: {exc}", started)


def verify(problem: Problem, eps: Epsilon, budget: Budget) -> Result:
    """holds (proved on enclosures), violated (a certified witness) or unknown."""
    started = time.perf_counter()
    shapes = shifted_shape(problem)
    if shapes is not None:
        found = _shift_verify(problem, shapes, eps, started)
        if found is not None:
            return found
    try:
        table = ball_table(problem, WIDTHS[0], BITS[0], budget)
        result = _explained(intervals.verify(problem, eps, table, budget))
        if result.verdict is Verdict.UNKNOWN:
            result = _exact_verify(problem, eps, result, budget)
        return result
    except Unsupported as exc:
        return _unsupported(problem, eps, f"no closed form: {exc}", started)


def verify_delta(problem: Problem, eps: Epsilon, delta: Fraction, budget: Budget) -> Result:
    """(ε, δ) on certified enclosures of δ(ε) for every neighbouring pair."""
    started = time.perf_counter()
    shapes = shifted_shape(problem)
    if shapes is not None:
        found = _shift_delta(problem, shapes, eps, delta, budget, started)
        if found is not None:
            return found
    try:
        table = ball_table(problem, WIDTHS[0], BITS[0], budget)
        return _explained(intervals.verify_delta(problem, eps, delta, table, budget))
    except Unsupported as exc:
        return replace(_unsupported(problem, eps, f"no closed form: {exc}", started), delta=delta)


def epsilon_delta(problem: Problem, delta: Fraction, budget: Budget) -> Result:
    """The least ε with δ(ε) ≤ δ, enclosed on the window's certified table."""
    started = time.perf_counter()
    shapes = shifted_shape(problem)
    if shapes is not None:
        found = _shift_epsilon_delta(problem, shapes, delta, budget, started)
        if found is not None:
            return found
    try:
        table = ball_table(problem, WIDTHS[0], BITS[0], budget)
        return _explained(intervals.epsilon_delta(problem, delta, table, budget))
    except Unsupported as exc:
        return replace(_unsupported(problem, None, f"no closed form: {exc}", started), delta=delta)
