"""What keeps the sequence search small and sound, shared by both arithmetics.

* **Dominance keys.**  If two prefixes have forward vectors with the same
  shapes, a' = λ·a and b' = μ·b, every continuation's loss scales by λ/μ;
  only the one with the larger |a|/|b| can matter.
* **Growth bounds.**  Any continuation of a prefix has loss at most
  max_s a(s)/b(s)·B_j(s) (∞ when b(s) = 0 < a(s)), where B_j bounds the loss
  j more steps can add from state s on both sides.  For HMMs every B is 1
  and this is the classic bound, which never grows along a path.
* **Gain bounds.**  One step multiplies |a| by at most max_s |L_σ[s]| and
  |b| by at least min_t |R_σ[t]| (the rows' sums), so j steps multiply the
  loss |a|/|b| by at most κ^j with κ = max_σ max_s |L_σ[s]| / min_t |R_σ[t]|.
  Where the classic bound is infinite because the two sides' supports have
  not met yet (a location-privacy grid, homes in far-apart cells: every
  state's ratio a(s)/b(s) is 0 or ∞ for the first 2(k−1) steps), this one
  is finite and prunes every prefix that fell behind.  Both bounds hold, so
  the search uses their minimum.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from faier.engines.exact.integer_vectors import IntegerVector
from faier.engines.exact.sequence_mode import (
    Rows,
    SearchState,
    SequenceSystem,
    SparseVector,
    _integer_rows,
    cumulative,
)
from faier.results import Loss

Key = tuple[tuple[tuple[int, Fraction], ...], tuple[tuple[int, Fraction], ...]]


@dataclass
class SearchCounts:
    """What the search did: prefixes extended, pruned by the bound, merged away."""

    explored: int = 0
    pruned: int = 0
    merged: int = 0
    frontier: int = 0
    depth: int = 0
    horizon: int = 0
    phase: str = "length"
    """What ``depth`` counts: the prefix length of the main pass, or of an incumbent run."""
    cut: bool = False
    """Some run was still going at the horizon (or was pruned): longer runs exist."""
    pattern_runs: int = 0
    """StatDP input patterns tried for incumbents before the exact pass."""
    rechecked: int = 0
    """Float frontier only: exact forward steps taken to settle decisions at the margin."""
    ball_steps: int = 0
    """Float frontier only: forward steps in certified balls (python-flint arb) at the margin."""
    fell_back: str = ""
    """Float frontier only: why the exact search took over (empty if it did not)."""
    lookahead: int = 0
    """Steps before the horizon from which the bound is the exact best continuation."""


def _normalised(vector: SparseVector, total: Fraction) -> tuple[tuple[int, Fraction], ...]:
    return tuple(sorted((s, x / total) for s, x in vector.items() if x))


def normalised_key(a: SparseVector, b: SparseVector, pa: Fraction, pb: Fraction) -> Key:
    """Prefixes with equal keys have forward vectors equal up to one factor per side."""
    return (_normalised(a, pa), _normalised(b, pb))


def is_symmetric(system: SequenceSystem) -> bool:
    """True when both sides step with the same matrices (HMMs): the bound applies."""
    return all(left is right for left, right in zip(system.left, system.right, strict=True))


def growth_bounds(system: SequenceSystem, horizon: int) -> list[list[Loss]]:
    """B[j][s]: no continuation of length ≤ j from state s on both sides gains more.

    With the identity coupling of the two copies (both sides run the same
    automaton), F_s(σw)/G_s(σw) ≤ max_t L_σ[s][t]/R_σ[s][t] · B[j−1][t]; for
    HMMs (L = R) every B is 1 and the bound is the classic max_s a(s)/b(s).
    """
    if is_symmetric(system):
        return [[Loss(Fraction(1))] * system.size for _ in range(horizon + 1)]
    steps = _step_factors(system)
    bounds = [[Loss(Fraction(1))] * system.size]
    for _ in range(horizon):
        previous = bounds[-1]
        row = []
        for factors in steps:
            best = Loss(Fraction(1))
            for t, factor in factors.items():
                candidate = _product(factor, previous[t])
                if candidate.exceeds(best):
                    best = candidate
            row.append(best)
        bounds.append(row)
    return bounds


def gain_bounds(system: SequenceSystem, horizon: int) -> list[Loss]:
    """K[j]: j more steps multiply the loss |a|/|b| by at most K[j] = κ^j (∞ when κ is).

    κ = max over symbols σ of max_s |L_σ[s]| / min_t |R_σ[t]| over every
    state (mediant inequality, one step at a time); a zero row sum on the τ
    side makes it infinite, and the bound unused.
    """
    kappa: Fraction | None = Fraction(0)
    for left, right in zip(system.left, system.right, strict=True):
        top = max(_row_sums(left))
        bottom = min(_row_sums(right))
        if bottom == 0:
            kappa = None
            break
        assert kappa is not None
        kappa = max(kappa, top / bottom)
    if kappa is None:
        return [Loss(Fraction(1))] + [Loss(None)] * horizon
    return [Loss(kappa**j) for j in range(horizon + 1)]


def _row_sums(rows: Rows) -> list[Fraction]:
    matrix = _integer_rows(rows)
    return [
        Fraction(total * scale, matrix.den)
        for total, scale in zip(matrix.row_sums, matrix.scale, strict=True)
    ]


def _step_factors(system: SequenceSystem) -> list[dict[int, Loss]]:
    """Per state s and successor t: max over symbols of L_σ[s][t]/R_σ[s][t] (∞ if R is 0).

    It does not depend on the remaining length, so it is computed once.
    """
    steps: list[dict[int, Loss]] = []
    for s in range(system.size):
        factors: dict[int, Loss] = {}
        for left, right in zip(system.left, system.right, strict=True):
            right_row = dict(right[s])
            for t, p in left[s]:
                q = right_row.get(t, Fraction(0))
                factor = Loss(None) if q == 0 else Loss(p / q)
                if t not in factors or factor.exceeds(factors[t]):
                    factors[t] = factor
        steps.append(factors)
    return steps


def _product(x: Loss, y: Loss) -> Loss:
    if x.ratio is None or y.ratio is None:
        return Loss(None)
    return Loss(x.ratio * y.ratio)


def ratio_bound(
    a: SparseVector, b: SparseVector, growth: list[Loss], gain: Loss | None = None
) -> Loss:
    """max_s a(s)/b(s)·growth[s] bounds every continuation's loss (mediant inequality).

    With ``gain`` (a :func:`gain_bounds` entry), the smaller of that and
    |a|/|b|·gain.
    """
    best = Loss(Fraction(0))
    for s, x in a.items():
        if not x:
            continue
        y = b.get(s, Fraction(0))
        if y == 0:
            best = Loss(None)
            break
        candidate = _product(Loss(x / y), growth[s])
        if candidate.exceeds(best):
            best = candidate
    if gain is None or gain.infinite:
        return best
    pa, pb = sum(a.values(), Fraction(0)), sum(b.values(), Fraction(0))
    if pb == 0:
        return best
    scaled = _product(Loss(pa / pb), gain)
    return best if scaled.exceeds(best) else scaled


def integer_ratio_bound(
    a: IntegerVector, b: IntegerVector, growth: list[Loss], gain: Loss | None = None
) -> Loss:
    """:func:`ratio_bound` on integer vectors: the maximising state found by
    cross-multiplying, one Fraction made at the end (no gcd per state)."""
    denominators = dict(b.entries())
    top, bottom = 0, 1
    infinite = False
    for s, x in a.entries():
        y = denominators.get(s, 0)
        factor = growth[s].ratio
        if y == 0 or factor is None:
            infinite = True
            break
        num, den = x * factor.numerator, y * factor.denominator
        if num * bottom > top * den:
            top, bottom = num, den
    best = Loss(None) if infinite else Loss(Fraction(top * b.den, bottom * a.den))
    if gain is None or gain.ratio is None:
        return best
    total_b = b.total()
    if total_b == 0:
        return best
    scaled = Loss(Fraction(a.total() * b.den, total_b * a.den) * gain.ratio)
    return best if scaled.exceeds(best) else scaled


def incumbents(state: SearchState) -> list[Loss | None]:
    """Index k: the best loss found over lengths ≤ k (ε*(k) so far; None if none)."""
    out: list[Loss | None] = [None]
    for record in cumulative(state):
        out.append(None if record is None else record.loss)
    return out
