"""Discrete sparse vector variants: StatDP's SVT and iSVT 1–4 (StatDP §5.3, Algs. 11–15).

The StatDP suite tests Lyu, Su and Li's correct SVT against four published
variants that Lyu et al. ("Understanding the sparse vector technique", 2017)
showed to be broken.  Each is discretised exactly as discrete Above Threshold
is: query answers and the public threshold T lie in {0..m}, and every
Laplace draw becomes a truncated α-geometric draw over {0..m} centred on the
value it perturbs.  Comparisons use ``≥`` as in the paper's pseudo-code.  No
variant re-noises the threshold after a ⊤ (Lyu et al.'s Algorithm 1 does not;
only Dwork and Roth's version does, and it is not in the suite).

=========  ==================  ====================================================
variant    StatDP (Lyu et al.) what it does
=========  ==================  ====================================================
svt        Alg. 11 (Lyu 1)     noisy T, noisy queries, ⊤/⊥, halts after N ⊤
isvt1      Alg. 12 (Lyu 5)     noisy T, *no* query noise, ⊤/⊥, never halts
isvt2      Alg. 14 (Lyu 6)     noisy T, noisy queries, ⊤/⊥, never halts
isvt3      Alg. 13 (Lyu 4)     as svt, but query noise does not scale with N
isvt4      Alg. 15 (Lyu 3)     as svt, but outputs the noisy answer ("2~") for ⊤
=========  ==================  ====================================================

Noise scales.  With Δ = 1, Lap(b) corresponds to the α-geometric with
α = e^(−1/b): a unit shift of the centre costs ln(1/α) in both.  Writing
β = e^(−ε₀/4), the paper's scales become powers of β:

=========  =====================  ======================  =======================
variant    threshold noise        query noise             (threshold α, query α)
=========  =====================  ======================  =======================
svt        Lap(2Δ/ε₀)             Lap(4NΔ/ε₀)             (β², β^(1/N))
isvt1      Lap(Δ/ε₀)              none                    (β⁴, unused)
isvt2      Lap(2Δ/ε₀)             Lap(2Δ/ε₀)              (β², β²)
isvt3      Lap(4Δ/ε₀)             Lap(4Δ/(3ε₀))           (β, β³)
isvt4      Lap(2Δ/ε₀)             Lap(2NΔ/ε₀)             (β², β^(2/N))
=========  =====================  ======================  =======================

For svt the paper's text prints Lap(2NΔ/ε₀), but its own prose ("half of
the budget to the threshold, half to the queries"), Lyu et al.'s Algorithm 1
(ν = Lap(2cΔ/ε₂), ε₂ = ε₀/2) and the StatDP code all use Lap(4NΔ/ε₀); we
follow the latter.  ``sparse_vector`` takes the two α literally, the same
defaults for every variant (1/4 and 1/2: the svt row at β = 1/2, N = 1, i.e.
ε₀ = 4·ln 2, which is also discrete Above Threshold's noise), so that at the
defaults the variants differ only in structure; :func:`paper_alphas` gives
each variant's own calibration for a β and N.  The paper runs SVT with
N = 1 (its argument generator's least-noise choice, §4.4.2), which is the
default cutoff.

Because both noises are truncated to {0..m}, the threshold-shift argument
behind SVT's proof fails at the ends (a noisy threshold at m cannot move
up), and even the correct svt loses ln(1/α_q) per query: ε*(k) = k·ln(1/α_q)
for svt and iSVT 2–4, like discrete Above Threshold; iSVT 1 is infinite
already at k = 1 (answer m always reaches a threshold drawn from {0..m}).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.interactive import HALTED, Halted, Interactive
from faier.mechanisms.library.above_threshold import BOTTOM, TOP, Fresh
from faier.model.distribution import Distribution, truncated_geometric


@dataclass(frozen=True)
class Variant:
    """What distinguishes one sparse vector variant from another.

    ``threshold_power`` and ``query_power(N)`` are the exponents of β = e^(−ε₀/4)
    that give the paper's two noise scales as α (module table).
    """

    label: str
    source: str
    query_noise: bool
    halts: bool
    reveals_value: bool
    threshold_power: Fraction
    query_power: Callable[[int], Fraction]


VARIANTS: dict[str, Variant] = {
    "svt": Variant(
        "SVT",
        "StatDP Alg. 11, Lyu et al. Alg. 1",
        query_noise=True,
        halts=True,
        reveals_value=False,
        threshold_power=Fraction(2),
        query_power=lambda n: Fraction(1, n),
    ),
    "isvt1": Variant(
        "iSVT 1",
        "StatDP Alg. 12, Lyu et al. Alg. 5 (Stoddard et al.)",
        query_noise=False,
        halts=False,
        reveals_value=False,
        threshold_power=Fraction(4),
        query_power=lambda n: Fraction(1),
    ),
    "isvt2": Variant(
        "iSVT 2",
        "StatDP Alg. 14, Lyu et al. Alg. 6 (Chen et al.)",
        query_noise=True,
        halts=False,
        reveals_value=False,
        threshold_power=Fraction(2),
        query_power=lambda n: Fraction(2),
    ),
    "isvt3": Variant(
        "iSVT 3",
        "StatDP Alg. 13, Lyu et al. Alg. 4 (Lee and Clifton)",
        query_noise=True,
        halts=True,
        reveals_value=False,
        threshold_power=Fraction(1),
        query_power=lambda n: Fraction(3),
    ),
    "isvt4": Variant(
        "iSVT 4",
        "StatDP Alg. 15, Lyu et al. Alg. 3 (Roth's notes)",
        query_noise=True,
        halts=True,
        reveals_value=True,
        threshold_power=Fraction(2),
        query_power=lambda n: Fraction(2, n),
    ),
}


@dataclass(frozen=True)
class Running:
    """The noisy threshold (drawn once) and how many ⊤ have been reported so far."""

    noisy_threshold: int
    tops: int


def _variant(name: str) -> Variant:
    if name not in VARIANTS:
        raise SpecError(
            f"unknown sparse vector variant {name!r}", fix=f"choose one of {', '.join(VARIANTS)}"
        )
    return VARIANTS[name]


def _exact_root(value: int, degree: int) -> int | None:
    """The integer ``degree``-th root of a positive integer, if it has one (bisection)."""
    low, high = 1, 1 << -(-value.bit_length() // degree)
    while low < high:
        middle = (low + high) // 2
        if middle**degree < value:
            low = middle + 1
        else:
            high = middle
    return low if low**degree == value else None


def _power(base: Fraction, exponent: Fraction) -> Fraction:
    """base**exponent exactly, or a SpecError when the result is irrational."""
    raised = base**exponent.numerator
    num = _exact_root(raised.numerator, exponent.denominator)
    den = _exact_root(raised.denominator, exponent.denominator)
    if num is None or den is None:
        raise SpecError(
            f"{base}^({exponent}) is irrational",
            fix=f"choose β as a perfect {exponent.denominator}-th power, e.g. "
            f"{Fraction(1, 2**exponent.denominator)}",
        )
    return Fraction(num, den)


def paper_alphas(variant: str, beta: Fraction, cutoff: int = 1) -> tuple[Fraction, Fraction]:
    """(threshold α, query α) reproducing the paper's Laplace scales at ε₀ = 4·ln(1/β).

    The ratios between the two scales are what make a variant right or
    wrong (iSVT 3's query noise ignores N), so they are kept exactly.  iSVT 1
    adds no query noise; its query α is β, returned only to fill the pair.
    """
    spec = _variant(variant)
    if not 0 < beta < 1:
        raise SpecError(f"β = {beta} must lie strictly between 0 and 1")
    if cutoff < 1:
        raise SpecError(f"the cutoff N must be at least 1, got {cutoff}")
    return _power(beta, spec.threshold_power), _power(beta, spec.query_power(cutoff))


def sparse_vector(
    variant: str = "svt",
    *,
    threshold_alpha: Fraction = Fraction(1, 4),
    query_alpha: Fraction = Fraction(1, 2),
    m: int = 2,
    cutoff: int = 1,
    threshold: int | None = None,
) -> Interactive:
    """One discrete sparse vector variant as an interactive mechanism.

    ``svt``: T̃ ~ G(α_t, T) once; per answer q: ⊤ if G(α_q, q) ≥ T̃ else ⊥;
    halt after ``cutoff`` ⊤.  ``isvt1``: ⊤ if q ≥ T̃ (no query noise), never
    halts.  ``isvt2``: as svt but never halts.  ``isvt3``: as svt; its wrong
    scale is a choice of α (see :func:`paper_alphas`).  ``isvt4``: as svt but
    reports the noisy answer "v~" instead of ⊤.  ``cutoff`` is ignored by the
    two variants that never halt; ``threshold`` fixes the public threshold
    (default: one start per threshold in 0..m).
    """
    spec = _variant(variant)
    for label, alpha in (("threshold α", threshold_alpha), ("query α", query_alpha)):
        if not 0 < alpha < 1:
            raise SpecError(f"{label} = {alpha} must lie strictly between 0 and 1")
    if m < 1:
        raise SpecError(f"the answer range top m must be at least 1, got {m}")
    if cutoff < 1:
        raise SpecError(f"the cutoff N must be at least 1, got {cutoff}")
    if threshold is not None and not 0 <= threshold <= m:
        raise SpecError(f"threshold {threshold} is outside 0..{m}")
    thresholds = range(m + 1) if threshold is None else (threshold,)
    noise_t = {t: truncated_geometric(threshold_alpha, m, t) for t in range(m + 1)}
    noise_q: dict[int, Distribution[int]] = {
        r: truncated_geometric(query_alpha, m, r) if spec.query_noise else Distribution.point(r)
        for r in range(m + 1)
    }

    def step(state: Fresh | Running, answer: int, ctx: Context) -> tuple[Running | Halted, str]:
        if isinstance(state, Fresh):
            state = Running(ctx.draw(noise_t[state.threshold]), 0)
        noisy = ctx.draw(noise_q[answer])
        if noisy < state.noisy_threshold:
            return state, BOTTOM
        shown = f"{noisy}~" if spec.reveals_value else TOP
        if not spec.halts:
            return state, shown
        if state.tops + 1 >= cutoff:
            return HALTED, shown
        return Running(state.noisy_threshold, state.tops + 1), shown

    noise = f"threshold α={threshold_alpha}"
    if spec.query_noise:
        noise += f", query α={query_alpha}"
    else:
        noise += ", no query noise"
    stop = f"halts after {cutoff} ⊤" if spec.halts else "never halts"
    return Interactive(
        name=f"discrete {spec.label} ({noise}, answers in 0..{m}, {stop})",
        letters=tuple(range(m + 1)),
        starts={f"threshold {t}": Fresh(t) for t in thresholds},
        step=step,
        doc=f"{spec.source}. " + (sparse_vector.__doc__ or ""),
    )
