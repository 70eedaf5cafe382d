"""Decisions on interval-valued probability tables: every probability a certified ball.

Where a probability has no exact closed form (Gaussian noise: integrals of
densities times CDFs; discrete noise whose tails are truncated), a producer
gives each input's output probabilities as arb balls guaranteed to contain
the truth, and this module decides on them, soundly:

* :func:`verify` (pure ε): holds when every certified upper bound of p/q is
  ≤ e^ε; violated when some certified lower bound exceeds it (the witness
  carries both balls); otherwise the table is recomputed at a higher
  precision (``BallTable.refine``) up to :data:`MAX_BITS`, then unknown
  with the ratio's interval.
* :func:`epsilon`: ε* enclosed in [max of lower bounds, max of upper bounds]
  of ln(p/q) over every comparison, tightened the same way to a relative
  width of :data:`TARGET`.
* :func:`verify_delta`: δ(ε) = Σ_ω max(0, p − e^ε·q) enclosed for each
  ordered pair; decided when the enclosure is clear of δ (the witness is the
  event where p − e^ε·q is certainly positive, with both its probabilities).
* :func:`epsilon_delta`: the least ε with δ(ε) ≤ δ on every pair, enclosed by
  bisection on certified bounds of δ(ε), which is nonincreasing in ε.

A producer's interface is :class:`BallTable` alone: the inputs, the
outputs, the balls, a sentence for ``Result.method`` and optionally
``refine(bits)``.  An output missing from an input's dict has probability
exactly 0 (an infinite loss where the neighbour's ball is certainly
positive); a present output's ball may contain 0.  :func:`from_exact` wraps
exact closed forms (Laplace/exponential ExpSums) in the same interface.

Comparisons are screened in float64 on the balls' outward-rounded bounds,
with a relative margin of :data:`MARGIN` that covers the rounding of the
screen itself; every comparison inside the margin is settled in arb.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.certified import balls
from faier.engines.certified.exppoly import ExpSum
from faier.engines.certified.least_epsilon import least_epsilon
from faier.errors import InternalError, MechanismError
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import neighbour_pairs
from faier.privacy.specs import DifferentialPrivacy
from faier.results import CertifiedWitness, Enclosure, Loss, Result, Statistics, Verdict

R = TypeVar("R")

if TYPE_CHECKING:
    from faier.engines.certified.orbits import Reduced

MARGIN = 1e-9
"""Relative band around a decision inside which the float screen does not decide."""
TARGET = 1e-9
"""Relative width an ε* interval is tightened to (absolute below ε = 1)."""
LADDER = (64, 128, 256, 512, 1024)
"""Working precisions a table is recomputed at, in turn, when balls straddle a decision."""
MAX_BITS = LADDER[-1]
EPSILON_CAP = 512.0
"""The largest ε the search for the least ε at a given δ tries before reporting a lower bound."""


@dataclass(frozen=True)
class BallTable:
    """Each input's output probabilities as certified arb balls.

    ``values[i][o]`` contains Pr[o | inputs[i]] for certain; an output absent
    from ``values[i]`` has probability exactly 0.  ``refine(bits)`` returns
    the same table computed at a higher working precision (tighter balls);
    None when the balls cannot be tightened.
    """

    inputs: tuple[Hashable, ...]
    outputs: tuple[Hashable, ...]
    values: tuple[dict[Hashable, Any], ...]
    method: str
    """How the balls were computed (it opens ``Result.method``)."""
    bits: int = 128
    refine: Callable[[int], BallTable] | None = None
    names: dict[Hashable, str] | None = None
    """Output names for witnesses (default: the mechanism's ``output_name``)."""
    confirm: Callable[[int, int], None] | None = None
    """Recomputes a witness's pair (i, j) on its real inputs before it is reported (rows
    moved along a declared symmetry, :func:`.orbits.confirm`); raises when they differ."""
    reduced: Reduced | None = None
    """Rows and pairs up to a declared symmetry (:mod:`.orbits`); None: every pair."""

    def finer(self) -> BallTable | None:
        """The table at the next precision of :data:`LADDER`, or None at the end."""
        if self.refine is None:
            return None
        higher = [b for b in LADDER if b > self.bits]
        return self.refine(higher[0]) if higher else None


def from_exact(
    inputs: tuple[Hashable, ...],
    outputs: tuple[Hashable, ...],
    exact: tuple[dict[Hashable, ExpSum], ...],
    method: str,
    bits: int = 128,
    confirm: Callable[[int, int], None] | None = None,
    reduced: Reduced | None = None,
) -> BallTable:
    """Exact closed forms (ExpSums) as balls at ``bits``, refinable to any precision."""
    values = []
    with balls.precision(bits):
        for dist in exact:
            values.append({o: balls.ball(v) for o, v in dist.items() if not v.is_zero})
    return BallTable(
        inputs,
        outputs,
        tuple(values),
        method,
        bits,
        refine=lambda b: from_exact(inputs, outputs, exact, method, b, confirm, reduced),
        confirm=confirm,
        reduced=reduced,
    )


def check_total(name: str, table: BallTable) -> None:
    """Every input's balls must sum to a ball containing 1 (else the producer is wrong)."""
    import flint

    with balls.precision(table.bits):
        for x, dist in zip(table.inputs, table.values, strict=True):
            total = flint.arb(0)
            for value in dist.values():
                total += value
            if not total.contains(1):
                raise InternalError(
                    f"the output probabilities of {name} on {x} sum to {total.str()}, "
                    "a ball that does not contain 1"
                )


@dataclass(frozen=True)
class _Screen:
    """The table's balls as outward-rounded float bounds, and the ordered neighbour pairs.

    ``lower``/``upper`` bound each probability (for δ, where absolute errors are what
    count); ``log_lower``/``log_upper`` bound its logarithm (for ratios, which stay in
    the float range where a probability underflows: Φ(−50) ≈ 2·10⁻⁵⁴⁵); ``positive``
    is arb's own answer to "certainly > 0".
    """

    lower: Any
    upper: Any
    present: Any
    pairs: Any
    log_lower: Any
    log_upper: Any
    positive: Any


def _refined(
    table: BallTable,
    attempt: Callable[[BallTable], R],
    settled: Callable[[R], bool],
    budget: Budget,
) -> tuple[BallTable, R]:
    """The attempt on the table, then on finer ones (:meth:`BallTable.finer`) while its
    outcome is not settled: the last table and its outcome."""
    while True:
        outcome = attempt(table)
        finer = None if settled(outcome) else table.finer()
        if finer is None:
            return table, outcome
        table = finer
        budget.check_time()


def neighbour_indices(problem: Problem, inputs: tuple[Hashable, ...]) -> list[tuple[int, int]]:
    """Ordered neighbour pairs (i, j) of the grid as indices into ``inputs`` (maybe none)."""
    privacy = problem.privacy
    assert isinstance(privacy, DifferentialPrivacy)
    index = {x: i for i, x in enumerate(inputs)}
    return [(index[x], index[y]) for x, y in neighbour_pairs(privacy.neighbours, inputs)]


def pairs_of(problem: Problem, inputs: tuple[Hashable, ...], reduced: Reduced | None = None) -> Any:
    """Ordered neighbour pairs (i, j) of the grid, or the reduction's pair orbits, as an
    array; bad input when there are none."""
    privacy = problem.privacy
    assert isinstance(privacy, DifferentialPrivacy)
    pairs = (
        reduced.pairs
        if reduced is not None
        else np.array(neighbour_indices(problem, inputs), dtype=np.int64).reshape(-1, 2)
    )
    if len(pairs) == 0:
        raise MechanismError(
            f"no two inputs of {problem.name} are neighbours under "
            f"'{privacy.neighbours.describe()}'",
            fix="choose another neighbour relation or a larger input grid",
        )
    return pairs


def _screen(problem: Problem, table: BallTable) -> _Screen:
    out_index = {o: k for k, o in enumerate(table.outputs)}
    shape = (len(table.inputs), len(table.outputs))
    lower, upper = np.zeros(shape), np.zeros(shape)
    log_lower, log_upper = np.full(shape, -math.inf), np.full(shape, -math.inf)
    present = np.zeros(shape, dtype=bool)
    positive = np.zeros(shape, dtype=bool)
    for i, dist in enumerate(table.values):
        for o, value in dist.items():
            k = out_index[o]
            low, high = balls.floats(value)
            lower[i, k], upper[i, k] = max(low, 0.0), high
            log_lower[i, k], log_upper[i, k] = balls.log_floats(value)
            present[i, k] = True
            positive[i, k] = bool(value > 0)
    pairs = pairs_of(problem, table.inputs, table.reduced)
    return _Screen(lower, upper, present, pairs, log_lower, log_upper, positive)


def tolerance(*logs: Any) -> Any:
    """The absolute band around a log-space decision: :data:`MARGIN` times the largest
    finite magnitude involved (float rounding of logs of size L is about L·10⁻¹⁶)."""
    magnitude = np.ones(np.broadcast_shapes(*(np.shape(v) for v in logs)))
    for v in logs:
        magnitude = np.maximum(magnitude, np.where(np.isfinite(v), np.abs(v), 0.0))
    return MARGIN * magnitude


def _exp_bounds(eps: float) -> tuple[float, float]:
    """Floats below and above e^eps (math.exp is within an ulp; two steps outward); past
    the float range the largest float is still below e^eps, and ∞ above it."""
    if eps > 709:
        return sys.float_info.max, math.inf
    e = math.exp(eps)
    return math.nextafter(math.nextafter(e, 0), 0), math.nextafter(
        math.nextafter(e, math.inf), math.inf
    )


def _float_bounds(value: Fraction) -> tuple[float, float]:
    """Floats below and above a rational (a δ that may be below the float range)."""
    nearest = float(value)
    return math.nextafter(nearest, -math.inf), math.nextafter(nearest, math.inf)


def _arb_exp(eps: Epsilon | float, bits: int) -> Any:
    import flint

    if isinstance(eps, Epsilon):
        return balls.exp_epsilon_ball(eps, bits)
    return flint.arb(eps).exp()


def describe_grid(problem: Problem, inputs: int, pairs: int) -> str:
    """The privacy line: the spec and that "holds" means every neighbouring pair of the grid."""
    return (
        f"{problem.privacy.describe()}; every neighbouring pair of the {inputs} inputs of "
        f"the grid ({pairs} ordered pairs)"
    )


def _name(problem: Problem, table: BallTable, o: Hashable) -> str:
    if table.names is not None and o in table.names:
        return table.names[o]
    mechanism = problem.mechanism
    assert isinstance(mechanism, Program)
    return mechanism.output_name(o)


def plain(x: Hashable) -> Any:
    """An input as a witness shows it (a vector as a list)."""
    return list(x) if isinstance(x, tuple) else x


def enclose(value: Any) -> Enclosure:
    """A probability's ball as an outward-rounded float interval (never below 0)."""
    low, high = balls.floats(value)
    return Enclosure(max(low, 0.0), high, balls.beyond_floats(value))


def mass_witness(x: Hashable, y: Hashable, event: str, p: Any, q: Any) -> CertifiedWitness:
    """A witness event of inputs x and y with its two probabilities as balls and their
    ratio (q certainly positive)."""
    return CertifiedWitness(
        plain(x), plain(y), event, enclose(p), enclose(q), Enclosure(*balls.floats(p / q))
    )


def _ratio(p: Any, q: Any) -> Enclosure:
    if q is None:
        return Enclosure(math.inf, math.inf, "∞")
    if not q > 0:
        return Enclosure(balls.floats(p / q.upper())[0] if q.upper() > 0 else 0.0, math.inf)
    return Enclosure(*balls.floats(p / q), balls.beyond_floats(p / q))


def _confirmed(table: BallTable, i: int, j: int) -> None:
    if table.confirm is not None:
        table.confirm(i, j)


def _witness(problem: Problem, table: BallTable, i: int, j: int, o: Hashable) -> CertifiedWitness:
    _confirmed(table, i, j)
    p = table.values[i][o]
    q = table.values[j].get(o)
    return CertifiedWitness(
        plain(table.inputs[i]),
        plain(table.inputs[j]),
        _name(problem, table, o),
        enclose(p),
        Enclosure(0.0, 0.0) if q is None else enclose(q),
        _ratio(p, q),
    )


def _method(table: BallTable, s: _Screen, rechecked: int, extra: str = "") -> str:
    reduced = "" if table.reduced is None else f"; {table.reduced.describe()}"
    return (
        f"{table.method}; {len(s.pairs) * len(table.outputs)} comparisons screened in float64 on "
        f"the balls' bounds, {rechecked} settled in ball arithmetic at {table.bits} bits"
        + reduced
        + extra
    )


def _result(
    problem: Problem,
    table: BallTable,
    s: _Screen,
    started: float,
    method: str,
    **fields: Any,
) -> Result:
    return Result(
        target=problem.name,
        privacy=(
            describe_grid(problem, len(table.inputs), len(s.pairs))
            if table.reduced is None
            else describe_grid(problem, table.reduced.grid_inputs, table.reduced.grid_pairs)
        ),
        method=method,
        statistics=Statistics(seconds=time.perf_counter() - started, comparisons=len(s.pairs)),
        **fields,
    )


def verdict_fields(
    verdict: Verdict, eps: Epsilon, witness: CertifiedWitness | None, infinite: bool
) -> dict[str, Any]:
    """A verdict's fields of ``Result``; an infinite loss also reports ε* = ∞ as an interval."""
    return {
        "verdict": verdict,
        "epsilon": str(eps),
        "epsilon_star": Loss(None) if infinite else None,
        "enclosure": Enclosure(math.inf, math.inf) if infinite else None,
        "certified_witness": witness,
    }


# ---------------------------------------------------------------- pure ε


def _certainly_infinite(s: _Screen, table: BallTable) -> tuple[int, int, Hashable] | None:
    """The first comparison whose output is certainly possible on one input and exactly
    impossible on its neighbour: an infinite loss (None: there is none)."""
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    infinite = s.present[left] & ~s.present[right] & s.positive[left]
    if not infinite.any():
        return None
    k, o = (int(v[0]) for v in np.nonzero(infinite))
    return int(left[k]), int(right[k]), table.outputs[o]


def _verify_once(
    problem: Problem, table: BallTable, eps: Epsilon, budget: Budget
) -> tuple[str, tuple[int, int, Hashable] | None, _Screen, int]:
    """("holds" | "violated" | "infinite" | "unknown", the comparison that decided, …).

    The screen compares ln p − ln q with ε in floats on the balls' log bounds; a
    comparison is cleared or flagged only when it is :func:`tolerance` away from ε
    (a −∞ or NaN bound is never either), and every other one is settled in arb.
    """
    s = _screen(problem, table)
    infinite = _certainly_infinite(s, table)
    if infinite is not None:
        return "infinite", infinite, s, 0
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    lp_low, lp_high = s.log_lower[left], s.log_upper[left]
    lq_low, lq_high = s.log_lower[right], s.log_upper[right]
    has_p, has_q = s.present[left], s.present[right]
    unclear = has_p & ~has_q
    both = has_p & has_q
    with np.errstate(invalid="ignore", over="ignore"):
        high = lp_high - lq_low
        low = lp_low - lq_high
        tol = tolerance(eps.value, lp_low, lp_high, lq_low, lq_high)
        fine = ~has_p | (lp_high == -math.inf) | (high <= eps.value - tol)
        bad = both & (low >= eps.value + tol)
    near = both & ~fine & ~bad
    if bad.any():
        score = np.where(bad, low, -math.inf)
        top = np.unravel_index(int(np.argmax(score)), score.shape)
        first = [(int(top[0]), int(top[1]))]  # confirmed in ball arithmetic, first
    else:
        first = []
    order = first + [(int(k), int(o)) for k, o in zip(*np.nonzero(near), strict=True)]
    undecided: tuple[int, int, Hashable] | None = None
    if unclear.any():
        k, o = (int(v[0]) for v in np.nonzero(unclear))
        undecided = (int(left[k]), int(right[k]), table.outputs[o])
    with balls.precision(table.bits):
        e = _arb_exp(eps, table.bits)
        for k, o in order:
            budget.check_time()
            i, j = int(left[k]), int(right[k])
            output = table.outputs[o]
            difference = table.values[i][output] - e * table.values[j][output]
            if difference > 0:
                return "violated", (i, j, output), s, len(order)
            if not difference <= 0 and undecided is None:
                undecided = (i, j, output)
    return ("holds" if undecided is None else "unknown"), undecided, s, len(order)


def verify(problem: Problem, eps: Epsilon, table: BallTable, budget: Budget) -> Result:
    """holds (every certified ratio ≤ e^ε), violated (a certified witness) or unknown."""
    started = time.perf_counter()
    table, (outcome, where, s, rechecked) = _refined(
        table,
        lambda t: _verify_once(problem, t, eps, budget),
        lambda found: found[0] != "unknown",
        budget,
    )
    witness = None if where is None else _witness(problem, table, *where)
    verdict = {
        "holds": Verdict.HOLDS,
        "violated": Verdict.VIOLATED,
        "infinite": Verdict.VIOLATED,
        "unknown": Verdict.UNKNOWN,
    }[outcome]
    reason = None
    if outcome == "unknown":
        reason = (
            f"a ratio's ball contains e^ε at {table.bits} bits (the largest precision tried): "
            "undecided"
        )
    return _result(
        problem,
        table,
        s,
        started,
        _method(table, s, rechecked),
        reason=reason,
        **verdict_fields(verdict, eps, witness, outcome == "infinite"),
    )


def _epsilon_once(
    problem: Problem, table: BallTable, budget: Budget
) -> tuple[Enclosure, tuple[int, int, Hashable] | None, _Screen, int]:
    s = _screen(problem, table)
    infinite = _certainly_infinite(s, table)
    if infinite is not None:
        return Enclosure(math.inf, math.inf), infinite, s, 1
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    has_p, has_q = s.present[left], s.present[right]
    both = has_p & has_q
    with np.errstate(invalid="ignore"):
        low = np.where(both, s.log_lower[left] - s.log_upper[right], -math.inf)
        high = np.where(both, s.log_upper[left] - s.log_lower[right], -math.inf)
    low = np.nan_to_num(low, nan=-math.inf, posinf=-math.inf)  # a NaN or ∞ proves nothing
    high = np.where(has_p & ~has_q, math.inf, np.nan_to_num(high, nan=math.inf))
    high = np.where(has_p & (s.log_upper[left] == -math.inf), -math.inf, high)
    best = float(low.max()) if low.size else -math.inf
    tol = tolerance(best)
    candidates = np.nonzero(high >= best - tol) if math.isfinite(best) else np.nonzero(has_p)
    lower, upper = -math.inf, -math.inf
    where: tuple[int, int, Hashable] | None = None
    with balls.precision(table.bits):
        for k, o in zip(*candidates, strict=True):
            budget.check_time()
            i, j, output = int(left[k]), int(right[k]), table.outputs[int(o)]
            p, q = table.values[i].get(output), table.values[j].get(output)
            if p is None:
                continue
            if q is None or not q > 0:
                upper = math.inf
                continue
            ratio = p / q
            lo = balls.floats(ratio.log())[0] if ratio > 0 else -math.inf
            hi = balls.floats(ratio.upper().log())[1] if ratio.upper() > 0 else -math.inf
            if lo > lower:
                lower, where = lo, (i, j, output)
            upper = max(upper, hi)
    # both orders of every pair are compared and each side sums to 1: some ratio is ≥ 1
    return Enclosure(max(lower, 0.0), max(upper, 0.0)), where, s, len(candidates[0])


def _narrow(enclosure: Enclosure) -> bool:
    if enclosure.lower == math.inf:
        return True
    return enclosure.upper - enclosure.lower <= TARGET * max(1.0, abs(enclosure.lower))


def epsilon(problem: Problem, table: BallTable, budget: Budget) -> Result:
    """ε* as a certified interval (∞ with a certificate), tightened to :data:`TARGET`."""
    started = time.perf_counter()
    table, (enclosure, where, s, rechecked) = _refined(
        table,
        lambda t: _epsilon_once(problem, t, budget),
        lambda found: _narrow(found[0]),
        budget,
    )
    witness = None if where is None else _witness(problem, table, *where)
    infinite = enclosure.lower == math.inf
    reason = None
    if not _narrow(enclosure):
        reason = f"the interval is as narrow as the balls at {table.bits} bits allow"
    method = _method(table, s, rechecked)
    if infinite:
        method += "; an output certainly possible on one input has probability exactly 0 on "
        method += "its neighbour: no finite ε"
    return _result(
        problem,
        table,
        s,
        started,
        method,
        epsilon_star=Loss(None) if infinite else None,
        enclosure=enclosure,
        certified_witness=witness,
        reason=reason,
    )


# ---------------------------------------------------------------- (ε, δ)


def _delta_bounds(s: _Screen, eps: float) -> tuple[Any, Any]:
    """Certified float bounds of δ(ε) for every ordered pair (the screen's rounding included)."""
    e_low, e_high = _exp_bounds(eps)
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    q_low = np.where(s.present[right], s.lower[right], 0.0)
    q_high = np.where(s.present[right], s.upper[right], 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        high_terms = np.where(q_low > 0, s.upper[left] - e_low * q_low, s.upper[left])
        low_terms = np.where(q_high > 0, s.lower[left] - e_high * q_high, s.lower[left])
    upper = np.maximum(np.nan_to_num(high_terms, nan=0.0, neginf=0.0), 0.0).sum(axis=1)
    lower = np.maximum(np.nan_to_num(low_terms, nan=0.0, neginf=0.0), 0.0).sum(axis=1)
    # each term's rounding (a product, a difference, a sum) is within a few ulps of the
    # magnitudes it combines: bound the pair's error by 2^-49 times their sum
    with np.errstate(invalid="ignore", over="ignore"):
        magnitude = (s.upper[left] + min(e_high, 1e300) * q_high).sum(axis=1)
    slack = np.nan_to_num(magnitude, nan=np.inf) * 2.0**-49 + 1e-300
    return lower - slack, upper + slack


def _delta_ball(table: BallTable, i: int, j: int, e: Any) -> tuple[Any, list[Hashable]]:
    """δ(ε) of the pair (i, j) as a ball, and the event where p − e^ε·q is certainly > 0."""
    import flint

    total = flint.arb(0)
    event: list[Hashable] = []
    for o, p in table.values[i].items():
        q = table.values[j].get(o)
        difference = p if q is None else p - e * q
        if difference > 0:
            event.append(o)
        total += difference.max(flint.arb(0))
    return total, event


def _event_witness(
    problem: Problem, table: BallTable, i: int, j: int, event: list[Hashable], note: str = ""
) -> CertifiedWitness:
    import flint

    _confirmed(table, i, j)
    p, q = flint.arb(0), flint.arb(0)
    for o in event:
        p += table.values[i][o]
        q += table.values[j].get(o, flint.arb(0))
    names = ", ".join(_name(problem, table, o) for o in event)
    return CertifiedWitness(
        plain(table.inputs[i]),
        plain(table.inputs[j]),
        f"one of {{{names}}}{note}",
        enclose(p),
        enclose(q),
        _ratio(p, q if q > 0 or not q.is_zero() else None),
    )


def _delta_once(
    problem: Problem, table: BallTable, eps: Epsilon, delta: Fraction, budget: Budget
) -> tuple[str, tuple[int, int, list[Hashable], Any] | None, _Screen, int]:
    s = _screen(problem, table)
    lower, upper = _delta_bounds(s, eps.value)
    d = float(delta)
    order = sorted(np.nonzero(upper > d * (1 - MARGIN))[0], key=lambda k: -float(lower[k]))
    undecided = None
    with balls.precision(table.bits):
        e = _arb_exp(eps, table.bits)
        bound = balls.rational_ball(delta)
        for k in order:
            budget.check_time()
            i, j = int(s.pairs[k, 0]), int(s.pairs[k, 1])
            total, event = _delta_ball(table, i, j, e)
            if total > bound:
                return "violated", (i, j, event, total), s, len(order)
            if not total <= bound and undecided is None:
                undecided = (i, j, event, total)
    return ("holds" if undecided is None else "unknown"), undecided, s, len(order)


DELTA_METHOD = "; δ(ε) = Σ max(0, p − e^ε·q) enclosed per ordered pair"


def verify_delta(
    problem: Problem, eps: Epsilon, delta: Fraction, table: BallTable, budget: Budget
) -> Result:
    """(ε, δ): holds when every pair's δ(ε) is certainly ≤ δ, violated when one is above."""
    started = time.perf_counter()
    table, (outcome, where, s, rechecked) = _refined(
        table,
        lambda t: _delta_once(problem, t, eps, delta, budget),
        lambda found: found[0] != "unknown",
        budget,
    )
    witness = None
    reason = None
    if where is not None:
        i, j, event, total = where
        witness = _event_witness(problem, table, i, j, event) if event else None
        shown = enclose(total).show()
        reason = (
            f"δ(ε) ∈ {shown} > δ = {delta} on this pair"
            if outcome == "violated"
            else f"δ(ε) ∈ {shown} contains δ = {delta} at {table.bits} bits: undecided"
        )
    verdict = {"holds": Verdict.HOLDS, "violated": Verdict.VIOLATED, "unknown": Verdict.UNKNOWN}
    return _result(
        problem,
        table,
        s,
        started,
        _method(table, s, rechecked, DELTA_METHOD),
        verdict=verdict[outcome],
        epsilon=str(eps),
        delta=delta,
        certified_witness=witness,
        reason=reason,
    )


AMBIGUOUS = 64
"""At most this many pairs whose float bounds straddle δ are recomputed in ball arithmetic."""


def _bisect(
    s: _Screen, table: BallTable, delta: Fraction
) -> tuple[float | None, float | None, str | None]:
    """(ε known too small, ε known large enough, why the search stopped early) in floats."""
    d_low, d_high = _float_bounds(delta)

    def above(eps: float) -> bool | None:
        lower, upper = _delta_bounds(s, eps)
        if float(upper.max()) <= d_low:
            return False
        if float(lower.max()) > d_high:
            return True
        straddle = np.nonzero(upper > d_low)[0]
        if len(straddle) > AMBIGUOUS:
            return None
        with balls.precision(table.bits):
            e, bound, settled = _arb_exp(eps, table.bits), balls.rational_ball(delta), True
            for k in straddle:
                total, _ = _delta_ball(table, int(s.pairs[k, 0]), int(s.pairs[k, 1]), e)
                if total > bound:
                    return True
                settled = settled and bool(total <= bound)
        return False if settled else None

    found = least_epsilon(above, 0.0, EPSILON_CAP, TARGET / 4)
    return found.low, found.high, found.stopped


def epsilon_delta(problem: Problem, delta: Fraction, table: BallTable, budget: Budget) -> Result:
    """The least ε with δ(ε) ≤ δ on every neighbouring pair, as a certified interval."""
    if delta == 0:  # δ(ε) = 0 exactly where every ratio is ≤ e^ε: the pure ε*
        return replace(epsilon(problem, table, budget), delta=delta)
    started = time.perf_counter()

    def attempt(t: BallTable) -> tuple[_Screen, float | None, float | None, str | None]:
        s = _screen(problem, t)
        return (s, *_limit_or_bisect(s, t, delta))

    table, (s, low, high, stopped) = _refined(
        table,
        attempt,
        lambda found: found[3] is None or "cannot separate" not in found[3],
        budget,
    )
    method = _method(table, s, 0, DELTA_METHOD + ", bisected over ε on its certified bounds")
    fields: dict[str, Any]
    if low == math.inf:
        k = int(np.argmax(_limit(s)))
        i, j = int(s.pairs[k, 0]), int(s.pairs[k, 1])
        event = [o for o in table.values[i] if o not in table.values[j]]
        fields = {
            "epsilon_star": Loss(None),
            "enclosure": Enclosure(math.inf, math.inf),
            "certified_witness": _event_witness(problem, table, i, j, event),
            "reason": "outputs impossible on a neighbour carry more than δ: no finite ε",
        }
        return _result(problem, table, s, started, method, delta=delta, **fields)
    witness = None
    if low is not None:
        lower, upper = _delta_bounds(s, low)
        order = [int(np.argmax(lower)), *np.argsort(-upper)[: AMBIGUOUS + 1]]
        with balls.precision(table.bits):
            e = _arb_exp(low, table.bits)
            for k in order:
                i, j = int(s.pairs[k, 0]), int(s.pairs[k, 1])
                total, event = _delta_ball(table, i, j, e)
                if total > balls.rational_ball(delta):
                    break
            else:
                raise InternalError(f"δ({low!r}) was found above δ but no pair's ball is")
        shown = enclose(total).show()
        note = f" (at ε = {low!r}: δ(ε) ∈ {shown} > δ)"
        witness = _event_witness(problem, table, i, j, event, note)
    enclosure = Enclosure(0.0 if low is None else low, math.inf if high is None else high)
    fields = {
        "enclosure": Enclosure(0.0, 0.0) if high == 0.0 else enclosure,
        "certified_witness": witness,
        "reason": None if stopped is None else f"{stopped}: the interval is what is proved",
    }
    return _result(problem, table, s, started, method, delta=delta, **fields)


def _limit(s: _Screen) -> Any:
    """Certified lower bounds, per pair, of the mass on outputs impossible on the neighbour."""
    left, right = s.pairs[:, 0], s.pairs[:, 1]
    alone = s.present[left] & ~s.present[right]
    slack = 4 * len(s.upper[0] if len(s.upper) else ()) * 2.0**-52
    return np.where(alone, s.lower[left], 0.0).sum(axis=1) - slack


def _limit_or_bisect(
    s: _Screen, table: BallTable, delta: Fraction
) -> tuple[float | None, float | None, str | None]:
    if float(_limit(s).max()) > _float_bounds(delta)[1]:
        return math.inf, None, None
    return _bisect(s, table, delta)
