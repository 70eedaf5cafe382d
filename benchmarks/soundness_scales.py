"""Fuzzer kind ``scales``: continuous noise with scales from 10⁻³ to 10³ against mpmath.

One random program over x ∈ {0..m} (or {0..m}² for the argmax) draws Laplace,
Gaussian, exponential or discrete Laplace noise of scale s = r·10^e (r a small
rational, e ∈ −3..3), in one of these shapes:

- ``threshold``: ``x + X ≥ T`` (probabilities down to e^(−10⁶) at s = 10⁻³);
- ``noisy-threshold``: ``x + X ≥ T + R`` with R a second copy of the noise;
- ``interval``: ``x + X`` below T₁, between T₁ and T₂, or above T₂;
- ``abs``: ``|x + X| ≥ T`` (``abs()`` of a noisy value is a branch on its sign);
- ``argmax``: the index of the larger of ``x₀ + X₀`` and ``x₁ + X₁``;
- ``released``: ``a·x + c·X`` itself (its density; ε* = |a|/(|c|·s) for Laplace
  noise, ∞ for the others);
- ``scaled``: ``x + laplace(0, s·(1 + x))`` released (the scale depends on the
  input: ε* = ∞).

Noise is written either ``x + X`` or located at the value (``laplace(x, s)``,
``exponential(s, loc=x)``, ``discrete_laplace(x, t)``), which must not change
the answer.  Every reference is a closed form evaluated by mpmath at 60
digits, written apart from faier: the noise's CDF and survival function each
computed on its small side (no 1 − (1 − tiny)), the difference of two
Laplace variables (density (1 + |z|/b)·e^(−|z|/b)/(4b)), of two exponential
ones (a Laplace variable), of two Gaussian ones (N(0, 2σ²)).

Checked: the certified ε* interval contains the reference (relative 10⁻¹²);
``verify`` just below it (ε*·(1 − 10⁻⁶)) is not "holds" and just above it is
not "violated"; a violation's witness has both probabilities (or densities)
enclosing the reference's.  "unknown" answers are counted, not disagreements.
Used by ``benchmarks/soundness.py`` (kind ``scales``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import mpmath

DIGITS = 60
TOLERANCE = 1e-12
"""Relative slack between a certified float bound and the mpmath reference."""
NEAR = Fraction(1, 10**6)
"""Claims at ε*·(1 ∓ NEAR): the verdicts must not cross."""
SHAPES = ("threshold", "noisy-threshold", "interval", "abs", "argmax", "released", "scaled")
NOISES = ("laplace", "gaussian", "exponential", "discrete_laplace")


class Check(Protocol):
    """What the fuzzer's Checker offers a case."""

    report: Any
    """The case's report: ``report.notes`` counts the unknown answers."""

    def used(self, engine: str) -> None: ...
    def expect(self, ok: bool, message: str) -> None: ...
    def crash(self, where: str, exc: BaseException) -> None: ...


@dataclass(frozen=True)
class ScaleCase:
    """One generated program and its parameters (everything exact)."""

    shape: str
    noise: str
    scale: Fraction
    m: int
    located: bool
    thresholds: tuple[Fraction, ...] = ()
    a: int = 1
    c: int = 1

    @property
    def n(self) -> int:
        return 2 if self.shape == "argmax" else 1


def _scale(rng: random.Random) -> Fraction:
    mantissa = rng.choice([Fraction(1), Fraction(2), Fraction(5), Fraction(3, 2), Fraction(7, 4)])
    return mantissa * Fraction(10) ** rng.randint(-3, 3)


def generate(seed: int) -> ScaleCase:
    rng = random.Random(seed)
    shape = rng.choice(SHAPES)
    noises = {
        "threshold": NOISES,
        "noisy-threshold": ("laplace", "gaussian", "exponential"),
        "interval": NOISES,
        "abs": ("laplace", "gaussian"),
        "argmax": ("laplace", "gaussian", "exponential"),
        "released": ("laplace", "gaussian", "exponential", "discrete_laplace"),
        "scaled": ("laplace",),
    }[shape]
    noise = rng.choice(noises)
    m = rng.randint(1, 2)
    integer = noise == "discrete_laplace"

    def threshold() -> Fraction:
        if integer:
            return Fraction(rng.randint(-1, m + 1))
        return Fraction(rng.randint(-4, 4 * m + 4), 4)

    thresholds: tuple[Fraction, ...] = ()
    if shape in ("threshold", "noisy-threshold"):
        thresholds = (threshold(),)
    elif shape == "interval":
        low, high = sorted((threshold(), threshold()))
        thresholds = (low, high if high > low else low + 1)
    elif shape == "abs":
        thresholds = (Fraction(rng.randint(1, 4 * m + 4), 4),)
    a = rng.choice([1, 1, -1, 2]) if shape == "released" else 1
    c = rng.choice([1, 1, -1, 2]) if shape == "released" and not integer else 1
    located = shape in ("threshold", "interval", "released") and a == 1 and c == 1
    located = located and rng.random() < 0.5
    scale = _scale(rng)
    if integer:
        scale = max(scale, Fraction(1, 100))  # e^(−1/t) below 2^(−100000) is no finer a test
    return ScaleCase(shape, noise, scale, m, located, thresholds, a, c)


# ---------------------------------------------------------------- references (mpmath)


def _mp(q: Fraction) -> Any:
    return mpmath.mpf(q.numerator) / q.denominator


def _cdf(noise: str, s: Fraction, t: Fraction) -> Any:
    """P(X ≤ t) (for the discrete Laplace t is an integer), exact 0 where it is 0."""
    b = _mp(s)
    if noise == "laplace":
        return mpmath.exp(_mp(t) / b) / 2 if t < 0 else 1 - mpmath.exp(-_mp(t) / b) / 2
    if noise == "gaussian":
        return mpmath.ncdf(_mp(t) / b)
    if noise == "exponential":
        return mpmath.mpf(0) if t <= 0 else -mpmath.expm1(-_mp(t) / b)
    alpha = mpmath.exp(-1 / b)
    k = math.floor(t)
    if k < 0:
        return alpha ** (-k) / (1 + alpha)
    return 1 - alpha ** (k + 1) / (1 + alpha)


def _sf(noise: str, s: Fraction, t: Fraction) -> Any:
    """P(X > t) on its small side where it is small."""
    b = _mp(s)
    if noise == "laplace":
        return mpmath.exp(-_mp(t) / b) / 2 if t >= 0 else 1 - mpmath.exp(_mp(t) / b) / 2
    if noise == "gaussian":
        return mpmath.ncdf(-_mp(t) / b)
    if noise == "exponential":
        return mpmath.mpf(1) if t <= 0 else mpmath.exp(-_mp(t) / b)
    alpha = mpmath.exp(-1 / b)
    k = math.floor(t)
    if k >= 0:
        return alpha ** (k + 1) / (1 + alpha)
    return 1 - alpha ** (-k) / (1 + alpha)


def _at_least(noise: str, s: Fraction, t: Fraction) -> Any:
    """P(X ≥ t): boundaries have probability 0 for continuous noise."""
    if noise == "discrete_laplace":
        return _sf(noise, s, Fraction(math.ceil(t)) - 1)
    return _sf(noise, s, t)


def _between(noise: str, s: Fraction, low: Fraction, high: Fraction) -> Any:
    """P(low ≤ X < high), from the side where both terms are small."""
    if noise == "discrete_laplace":
        low, high = Fraction(math.ceil(low)) - 1, Fraction(math.ceil(high)) - 1
    if low >= 0:
        return _sf(noise, s, low) - _sf(noise, s, high)
    return _cdf(noise, s, high) - _cdf(noise, s, low)


def _difference(noise: str, s: Fraction, d: Fraction) -> tuple[Any, Any]:
    """(P(X₁ − X₀ ≤ d), P(X₁ − X₀ > d)) for X₀, X₁ independent copies of the noise, each
    on its small side (the difference of two Laplace variables has density
    (1 + |z|/b)·e^(−|z|/b)/(4b); of two exponential ones, Laplace; of two Gaussian
    ones, N(0, 2σ²))."""
    b, z = _mp(s), _mp(d)
    if noise == "gaussian":
        spread = b * mpmath.sqrt(2)
        return mpmath.ncdf(z / spread), mpmath.ncdf(-z / spread)
    if noise == "exponential":
        return _cdf("laplace", s, d), _sf("laplace", s, d)
    if d >= 0:
        tail = mpmath.exp(-z / b) * (2 + z / b) / 4
        return 1 - tail, tail
    head = mpmath.exp(z / b) * (2 - z / b) / 4
    return head, 1 - head


def distribution(case: ScaleCase, x: tuple[int, ...]) -> dict[str, Any]:
    """Output name → probability, for the shapes with finitely many outputs."""
    s = case.scale
    if case.shape == "threshold":
        (t,) = case.thresholds
        above = _at_least(case.noise, s, t - x[0])
        below = _cdf(case.noise, s, t - x[0]) if case.noise != "discrete_laplace" else None
        if below is None:
            below = _cdf(case.noise, s, Fraction(math.ceil(t - x[0])) - 1)
        return {"True": above, "False": below}
    if case.shape == "interval":
        low, high = case.thresholds
        if case.noise == "discrete_laplace":
            below = _cdf(case.noise, s, Fraction(math.ceil(low - x[0])) - 1)
        else:
            below = _cdf(case.noise, s, low - x[0])
        return {
            "low": below,
            "mid": _between(case.noise, s, low - x[0], high - x[0]),
            "high": _at_least(case.noise, s, high - x[0]),
        }
    if case.shape == "abs":
        (t,) = case.thresholds
        far = _at_least(case.noise, s, t - x[0]) + _cdf(case.noise, s, -t - x[0])
        near = _between(case.noise, s, -t - x[0], t - x[0])
        return {"True": far, "False": near}
    if case.shape == "noisy-threshold":  # x + X ≥ T + R: R − X ≤ x − T
        above, below = _difference(case.noise, s, x[0] - case.thresholds[0])
        return {"True": above, "False": below}
    assert case.shape == "argmax"  # x₀ + X₀ ≥ x₁ + X₁: X₁ − X₀ ≤ x₀ − x₁
    first, second = _difference(case.noise, s, Fraction(x[0] - x[1]))
    return {"0": first, "1": second}


def _density(case: ScaleCase, x: int, v: Fraction) -> Any:
    """The density of a·x + c·X at v (released Laplace)."""
    z = (v - case.a * x) / case.c
    b = _mp(case.scale)
    return mpmath.exp(-abs(_mp(z)) / b) / (2 * b) / abs(case.c)


def inputs(case: ScaleCase) -> list[tuple[int, ...]]:
    values = range(case.m + 1)
    if case.n == 1:
        return [(v,) for v in values]
    return [(u, v) for u in values for v in values]


def neighbours(case: ScaleCase) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every-query ±1 on the grid, both orders."""
    grid = inputs(case)
    return [
        (x, y)
        for x in grid
        for y in grid
        if x != y and all(abs(a - b) <= 1 for a, b in zip(x, y, strict=True))
    ]


def reference_epsilon(case: ScaleCase) -> Any:
    """ε* by mpmath (mpmath.inf for no finite ε)."""
    if case.shape == "scaled":
        return mpmath.inf
    if case.shape == "released":
        if case.noise in ("gaussian", "exponential"):
            return mpmath.inf
        return _mp(Fraction(abs(case.a), abs(case.c)) / case.scale)
    best = mpmath.mpf(0)
    tables = {x: distribution(case, x) for x in inputs(case)}
    for x, y in neighbours(case):
        for output, p in tables[x].items():
            q = tables[y][output]
            if p == 0:
                continue
            if q == 0:
                return mpmath.inf
            best = max(best, mpmath.log(p / q))
    return best


# ---------------------------------------------------------------- the program


def _draw(case: ScaleCase, ctx: Any, loc: int, scale: Fraction) -> Any:
    import faier

    at = loc if case.located else 0
    if case.noise == "laplace":
        value = ctx.draw(faier.laplace(at, scale))
    elif case.noise == "gaussian":
        value = ctx.draw(faier.gaussian(at, scale))
    elif case.noise == "exponential":
        value = ctx.draw(faier.exponential(scale, loc=at))
    else:
        value = ctx.draw(faier.discrete_laplace(at, scale))
    return value if case.located else loc + value


def program(case: ScaleCase) -> Any:
    import faier

    def body(x: Any, ctx: Any) -> Any:
        point: Any = (x,) if case.n == 1 else x
        if case.shape == "threshold":
            return _draw(case, ctx, point[0], case.scale) >= case.thresholds[0]
        if case.shape == "noisy-threshold":
            noisy = _draw(case, ctx, point[0], case.scale)
            return noisy >= case.thresholds[0] + _draw(case, ctx, 0, case.scale)
        if case.shape == "interval":
            v = _draw(case, ctx, point[0], case.scale)
            low, high = case.thresholds
            return "low" if v < low else ("mid" if v < high else "high")
        if case.shape == "abs":
            return abs(_draw(case, ctx, point[0], case.scale)) >= case.thresholds[0]
        if case.shape == "argmax":
            first = _draw(case, ctx, point[0], case.scale)
            second = _draw(case, ctx, point[1], case.scale)
            return 0 if first >= second else 1
        if case.shape == "released":
            if case.located:
                return _draw(case, ctx, point[0], case.scale)
            return case.a * point[0] + case.c * (_draw(case, ctx, 0, case.scale))
        return point[0] + ctx.draw(faier.laplace(0, case.scale * (1 + point[0])))

    inputs_of = faier.scalars(case.m) if case.n == 1 else faier.grid(2, case.m)
    return faier.Program(name=f"scales_{case.shape}", body=body, inputs=inputs_of)


def problem(case: ScaleCase) -> Any:
    from faier.core.problem import Problem
    from faier.privacy.neighbours import EveryQuery
    from faier.privacy.specs import DifferentialPrivacy

    mechanism = program(case)
    return Problem(mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)))


# ---------------------------------------------------------------- the judges


def _inside(enclosure: Any, value: Any) -> bool:
    """A certified float interval contains an mpmath value (relative TOLERANCE of slack)."""
    low, high = mpmath.mpf(enclosure.lower), mpmath.mpf(enclosure.upper)
    slack = TOLERANCE * max(abs(value), mpmath.mpf(0))
    return bool(low - slack <= value <= high + slack)


def _key(value: Any) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, list) else (value,)


def _judge_witness(case: ScaleCase, witness: Any, check: Check, what: str) -> None:
    if witness is None:
        check.expect(False, f"{what}: violated without a witness")
        return
    x, y = _key(witness.left_value), _key(witness.right_value)
    check.expect((x, y) in neighbours(case), f"{what}: witness {x} vs {y} are not neighbours")
    if case.shape in ("released", "scaled"):
        if case.shape == "scaled" or case.noise != "laplace":
            return  # ∞ by a slower tail: the ratio's witness is a point, checked by its bound
        v = Fraction(witness.output)
        p, q = _density(case, x[0], v), _density(case, y[0], v)
    else:
        table_x, table_y = distribution(case, x), distribution(case, y)
        if witness.output not in table_x:
            check.expect(False, f"{what}: witness output {witness.output!r} is not an output")
            return
        p, q = table_x[witness.output], table_y[witness.output]
    check.expect(_inside(witness.p, p), f"{what}: witness p {witness.p} ∌ {mpmath.nstr(p, 17)}")
    check.expect(_inside(witness.q, q), f"{what}: witness q {witness.q} ∌ {mpmath.nstr(q, 17)}")


def _claim(value: Any, factor: Fraction) -> str:
    """A decimal claim ε*·factor, rounded away from ε* (so 'below' stays below)."""
    scaled = value * _mp(factor)
    text: str = mpmath.nstr(scaled, 20, min_fixed=-math.inf, max_fixed=math.inf)
    return text


def case_scales(seed: int, check: Check) -> str:
    """One random program at an extreme scale: faier's certified answers against mpmath."""
    import faier
    from faier.results import Verdict

    case = generate(seed)
    with mpmath.workdps(DIGITS):
        reference = reference_epsilon(case)
    description = f"{case!r}; mpmath ε* = {mpmath.nstr(reference, 17)}"
    check.used("mpmath-closed-forms")
    check.used("certified")
    target = problem(case)
    try:
        star = faier.epsilon(target)
    except Exception as exc:
        check.crash("faier.epsilon", exc)
        return description
    enclosure = star.enclosure
    finite = bool(mpmath.isfinite(reference))
    if enclosure is None:
        check.expect(star.exit_code == 3, f"epsilon: no interval and exit {star.exit_code}")
        check.report.notes.append(f"unknown ε* ({star.reason})")
    elif not finite:
        lower_bound = not math.isinf(enclosure.lower) and math.isinf(enclosure.upper)
        check.expect(
            math.isinf(enclosure.lower) or lower_bound,
            f"ε* = {enclosure.show()}, mpmath ∞",
        )
    elif math.isinf(enclosure.upper):
        check.report.notes.append(f"unknown ε* (a lower bound only: {star.reason})")
        check.expect(
            mpmath.mpf(enclosure.lower) <= reference * (1 + TOLERANCE),
            f"ε* ≥ {enclosure.lower} above mpmath {mpmath.nstr(reference, 17)}",
        )
    else:
        check.expect(
            _inside(enclosure, reference),
            f"ε* ∈ [{enclosure.lower!r}, {enclosure.upper!r}] ∌ "
            f"mpmath {mpmath.nstr(reference, 20)}",
        )
    claims = (
        [("below", _claim(reference, 1 - NEAR)), ("above", _claim(reference, 1 + NEAR))]
        if finite and reference > 0
        else [("below", "1000")]
        if not finite
        else []
    )
    for side, claim in claims:
        try:
            verdict = faier.verify(target, claim)
        except Exception as exc:
            check.crash(f"faier.verify at {claim}", exc)
            continue
        what = f"verify at {claim} ({side} ε*)"
        if verdict.verdict is Verdict.UNKNOWN:
            check.report.notes.append(f"unknown at ε={claim} ({verdict.reason})")
            continue
        wrong = Verdict.HOLDS if side == "below" else Verdict.VIOLATED
        check.expect(verdict.verdict is not wrong, f"{what}: {verdict.verdict}")
        if verdict.verdict is Verdict.VIOLATED:
            with mpmath.workdps(DIGITS):
                _judge_witness(case, verdict.certified_witness, check, what)
    return description
