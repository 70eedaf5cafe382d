"""Exact privacy loss distributions (PLDs) of one comparison, and their composition.

For a comparison (P, Q) = (Pr[· | x], Pr[· | y]) the privacy loss of an
output ω is L(ω) = ln(P(ω)/Q(ω)); the PLD is the distribution of L under P
(PLD classes, docs/REFERENCES.md).  It is kept here as *atoms*: one per
distinct ratio e^L, with the exact P- and Q-mass of the outputs that have
it, so that the other order (y, x) is the same atoms read backwards and the
hockey-stick divergence δ(ε) = Σ_ω max(0, P(ω) − e^ε·Q(ω)) is
Σ over atoms with ratio > e^ε of (P-mass − e^ε·Q-mass), exactly.

The k-fold composition of a mechanism with itself on the same pair has the
product distributions P^k, Q^k; a product output's ratio is the product of
the ratios, so the atoms compose by multiplying ratios and masses.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.errors import BudgetExceeded, SpecError
from faier.privacy.budget import Epsilon, parse_delta
from faier.results import Loss, approximately, natural_log

MAX_ATOMS = 2_000_000
"""Distinct loss values a composition may have before it stops (a budget, not a verdict)."""

MAX_SHOWN_OUTPUTS = 6


@dataclass(frozen=True)
class LossAtom:
    """The outputs sharing one ratio P(ω)/Q(ω): their P- and Q-mass, exactly.

    ``ratio`` None is an infinite loss (Q-mass 0); a ratio of 0 is an output
    only y can produce (P-mass 0): loss −∞ here, +∞ in the other order.
    """

    p: Fraction
    q: Fraction
    outputs: tuple[str, ...] = ()
    count: int = 0
    """How many outputs share the ratio (``outputs`` shows at most a few)."""

    @property
    def ratio(self) -> Fraction | None:
        return None if self.q == 0 else self.p / self.q

    @property
    def loss(self) -> Loss:
        return Loss(self.ratio)

    def to_json(self) -> dict[str, Any]:
        ratio = self.ratio
        if ratio is None:
            value: Any = "inf"
        elif ratio == 0:
            value = "-inf"
        else:
            value = natural_log(ratio)
        out: dict[str, Any] = {
            "ratio": "inf" if ratio is None else str(ratio),
            "loss": value,
            "p": str(self.p),
            "q": str(self.q),
        }
        if self.outputs:
            out["outputs"] = list(self.outputs)
            out["count"] = self.count
        return out


@dataclass(frozen=True)
class HockeyStick:
    """δ(ε) = p − e^ε·q, the masses summed over the atoms whose ratio exceeds e^ε.

    ``exact`` is δ itself when e^ε is rational; otherwise δ is written with
    e^ε and ``value`` is a float for display.
    """

    epsilon: Epsilon
    p: Fraction
    q: Fraction

    @property
    def exact(self) -> Fraction | None:
        if self.epsilon.exp_ratio is not None:
            return self.p - self.epsilon.exp_ratio * self.q
        return self.p if self.q == 0 else None

    @property
    def value(self) -> float:
        exact = self.exact
        if exact is not None:
            return float(exact)
        return float(self.p - Fraction(math.exp(self.epsilon.value)) * self.q)

    def show(self) -> str:
        exact = self.exact
        if exact is not None:
            return str(exact) if exact.denominator == 1 else f"{exact} ≈ {approximately(exact)}"
        return f"{self.p} − e^{self.epsilon}·{self.q} ≈ {self.value:.6g}"

    def to_json(self) -> dict[str, Any]:
        exact = self.exact
        return {
            "epsilon": str(self.epsilon),
            "delta": str(exact) if exact is not None else None,
            "value": self.value,
            "p": str(self.p),
            "q": str(self.q),
        }


def _ln(ratio: Fraction) -> float:
    return natural_log(ratio)


@dataclass(frozen=True)
class PrivacyLossDistribution:
    """The exact PLD of the comparison ``left`` vs ``right`` (k-fold when ``compositions`` = k).

    ``atoms`` are sorted by ratio, 0 first and ∞ last.
    """

    left: str
    right: str
    atoms: tuple[LossAtom, ...]
    compositions: int = 1
    left_value: Any = None
    right_value: Any = None

    @classmethod
    def from_outcomes(
        cls,
        outcomes: Iterable[tuple[str, Fraction, Fraction]],
        left: str,
        right: str,
        *,
        left_value: Any = None,
        right_value: Any = None,
    ) -> PrivacyLossDistribution:
        """From each output's name and its two exact probabilities (P, Q)."""
        grouped: dict[Fraction | None, tuple[Fraction, Fraction, list[str], int]] = {}
        total_p, total_q = Fraction(0), Fraction(0)
        for name, p, q in outcomes:
            if p < 0 or q < 0:
                raise SpecError(f"output {name!r} has a negative probability")
            if p == 0 and q == 0:
                continue
            total_p, total_q = total_p + p, total_q + q
            ratio = None if q == 0 else p / q
            mp, mq, names, count = grouped.get(ratio, (Fraction(0), Fraction(0), [], 0))
            if len(names) < MAX_SHOWN_OUTPUTS:
                names.append(name)
            grouped[ratio] = (mp + p, mq + q, names, count + 1)
        if total_p != 1 or total_q != 1:
            raise SpecError(
                f"the output distributions sum to {total_p} and {total_q}, not 1",
                fix="a privacy loss distribution needs both full output distributions",
            )
        atoms = tuple(
            LossAtom(p, q, tuple(names), count) for p, q, names, count in grouped.values()
        )
        return cls(left, right, _sorted(atoms), 1, left_value, right_value)

    def reversed(self) -> PrivacyLossDistribution:
        """The same pair in the other order: P and Q swap, every ratio inverts."""
        atoms = tuple(LossAtom(a.q, a.p, a.outputs, a.count) for a in self.atoms)
        return PrivacyLossDistribution(
            self.right,
            self.left,
            _sorted(atoms),
            self.compositions,
            self.right_value,
            self.left_value,
        )

    def compose(
        self, k: int, other: PrivacyLossDistribution | None = None
    ) -> PrivacyLossDistribution:
        """The k-fold composition with itself (or, with ``other``, the composition with it)."""
        if other is not None:
            atoms = _product(self.atoms, other.atoms)
            return PrivacyLossDistribution(
                f"{self.left} ⊗ {other.left}",
                f"{self.right} ⊗ {other.right}",
                atoms,
                self.compositions + other.compositions,
            )
        if k < 1:
            raise SpecError(f"cannot compose {k} times", where="--compose", fix="give k ≥ 1")
        result = (
            self.atoms
            if k == 1
            else _multinomial_power(self.atoms, k) or _square_and_multiply(self.atoms, k)
        )
        return PrivacyLossDistribution(
            self.left,
            self.right,
            result,
            self.compositions * k,
            self.left_value,
            self.right_value,
        )

    @property
    def epsilon(self) -> Loss:
        """The pure loss of this order: the largest ratio with P-mass (∞ if Q can be 0)."""
        ratios = [a.ratio for a in self.atoms if a.p > 0]
        if any(r is None for r in ratios):
            return Loss(None)
        return Loss(max(r for r in ratios if r is not None))

    def delta(self, eps: Epsilon | str | float) -> HockeyStick:
        """δ(ε) of this order, exactly (ε as ``ln(2)``, ``0.5``…)."""
        claim = eps if isinstance(eps, Epsilon) else Epsilon.parse(eps)
        p, q = Fraction(0), Fraction(0)
        for atom in reversed(self.atoms):
            if not claim.exceeded_by(atom.ratio):
                break
            p, q = p + atom.p, q + atom.q
        return HockeyStick(claim, p, q)

    def epsilon_for_delta(self, delta: Fraction | str | float) -> Loss:
        """The least e^ε ≥ 1 with δ(ε) ≤ δ, exact: δ is piecewise linear in e^ε.

        ``delta`` is a ``Fraction`` or what ``--delta`` reads (``"1e-3"``, ``"1/1000"``,
        ``0.001``, read exactly)."""
        if not isinstance(delta, Fraction):
            try:
                delta = parse_delta(delta)
            except SpecError as exc:
                raise exc.located("--delta") from None
        if not 0 <= delta <= 1:
            raise SpecError(f"δ = {delta} is not in [0, 1]", where="--delta")
        p = q = Fraction(0)
        finite = [a for a in self.atoms if a.ratio is not None]
        infinite = sum((a.p for a in self.atoms if a.ratio is None), Fraction(0))
        if infinite > delta:
            return Loss(None)
        p = infinite
        for i in range(len(finite) - 1, -1, -1):
            atom = finite[i]
            ratio = atom.ratio
            assert ratio is not None
            if ratio <= 1:
                break
            # on (next ratio, ratio] δ(t) = p + atom.p − t·(q + atom.q), decreasing in t
            p, q = p + atom.p, q + atom.q
            lower = max(finite[i - 1].ratio or Fraction(1), Fraction(1)) if i > 0 else Fraction(1)
            t = (p - delta) / q
            if t > lower:
                return Loss(max(t, Fraction(1)))
        return Loss(Fraction(1))

    def outcomes(self) -> list[tuple[str, Fraction, Fraction]]:
        """One synthetic output per atom (``loss #i``) with its two masses (for exports)."""
        return [(f"loss #{i}", a.p, a.q) for i, a in enumerate(self.atoms)]

    def to_dp_accounting(
        self, *, value_discretization_interval: float = 1e-4, pessimistic_estimate: bool = True
    ) -> Any:
        """This PLD (both orders) for Google's dp_accounting (``faier[accounting]``)."""
        from faier.accounting.export import to_dp_accounting

        return to_dp_accounting(
            self,
            value_discretization_interval=value_discretization_interval,
            pessimistic_estimate=pessimistic_estimate,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "left": self.left,
            "right": self.right,
            "inputs": None if self.left_value is None else [self.left_value, self.right_value],
            "compositions": self.compositions,
            "epsilon": self.epsilon.to_json(),
            "losses": [a.to_json() for a in self.atoms],
        }


def _key(atom: LossAtom) -> tuple[int, Fraction]:
    ratio = atom.ratio
    return (1, Fraction(0)) if ratio is None else (0, ratio)


def _sorted(atoms: Iterable[LossAtom]) -> tuple[LossAtom, ...]:
    return tuple(sorted(atoms, key=_key))


def _over_common_denominator(values: list[Fraction]) -> tuple[int, list[int]]:
    """(D, [v·D]): the values as integers over one denominator (their lcm)."""
    denominator = math.lcm(*(v.denominator for v in values)) if values else 1
    return denominator, [v.numerator * (denominator // v.denominator) for v in values]


MAX_MULTINOMIAL_TERMS = 200_000
"""Above this many exponent vectors the k-fold power is taken by square and multiply."""


def _compositions(k: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every (e_1, …, e_parts) of non-negative integers summing to k."""
    if parts == 1:
        yield (k,)
        return
    for first in range(k, -1, -1):
        for rest in _compositions(k - first, parts - 1):
            yield (first, *rest)


def _multinomial_power(atoms: tuple[LossAtom, ...], k: int) -> tuple[LossAtom, ...] | None:
    """The k-fold product's atoms by the multinomial theorem, or None if there are too many terms.

    A k-fold output picks atom i e_i times: P-mass multinomial(k; e)·Π p_i^e_i,
    Q-mass alike, ratio Π r_i^e_i.  With few base atoms (two for every
    mechanism whose losses are ±ε) this is one term per exponent vector —
    C(k + m − 1, m − 1) of them — instead of products of ever longer atom
    lists; masses are integers over the denominators' k-th powers.
    """
    m = len(atoms)
    if m == 0 or math.comb(k + m - 1, m - 1) > MAX_MULTINOMIAL_TERMS:
        return None
    dp, ps = _over_common_denominator([a.p for a in atoms])
    dq, qs = _over_common_denominator([a.q for a in atoms])
    p_powers = [_powers(v, k) for v in ps]
    q_powers = [_powers(v, k) for v in qs]
    c_powers = [_powers(a.count, k) for a in atoms]
    dpk, dqk = dp**k, dq**k
    merged: dict[Fraction | None, list[int]] = {}
    for exponents in _compositions(k, m):
        p = q = count = math.factorial(k)
        for i, e in enumerate(exponents):
            if e:  # k!/(e_1!…e_i!) stays an integer at every step
                divisor = math.factorial(e)
                p, q = p * p_powers[i][e] // divisor, q * q_powers[i][e] // divisor
                count = count * c_powers[i][e] // divisor
        if not p and not q:
            continue
        ratio = None if not q else (Fraction(p * dqk, q * dpk) if p else Fraction(0))
        slot = merged.get(ratio)
        if slot is None:
            merged[ratio] = [p, q, count]
        else:
            slot[0] += p
            slot[1] += q
            slot[2] += count
    return _sorted(
        LossAtom(Fraction(p, dpk), Fraction(q, dqk), (), count) for p, q, count in merged.values()
    )


def _square_and_multiply(atoms: tuple[LossAtom, ...], k: int) -> tuple[LossAtom, ...]:
    """The k-fold product's atoms in O(log k) products (equal ratios merged after each)."""
    result: tuple[LossAtom, ...] | None = None
    power, base = k, atoms
    while power:
        if power & 1:
            result = base if result is None else _product(result, base)
        power >>= 1
        if power:
            base = _product(base, base)
    assert result is not None
    return result


def _powers(value: int, k: int) -> list[int]:
    out = [1]
    for _ in range(k):
        out.append(out[-1] * value)
    return out


def _product(first: tuple[LossAtom, ...], second: tuple[LossAtom, ...]) -> tuple[LossAtom, ...]:
    """Atoms of the product distributions: ratios and masses multiply, equal ratios merge.

    Masses are multiplied and summed as integers over one denominator per
    side (no gcd per product: k-fold masses have denominators like 3^k) and
    reduced once per resulting atom; a product's ratio is the product of
    the two (small) ratios, ∞ exactly when its Q-mass is 0.
    """
    dp1, p1 = _over_common_denominator([a.p for a in first])
    dq1, q1 = _over_common_denominator([a.q for a in first])
    dp2, p2 = _over_common_denominator([b.p for b in second])
    dq2, q2 = _over_common_denominator([b.q for b in second])
    ratios1 = [a.ratio for a in first]
    ratios2 = [b.ratio for b in second]
    merged: dict[Fraction | None, list[int]] = {}
    for i, a in enumerate(first):
        pa, qa, ra = p1[i], q1[i], ratios1[i]
        for j, b in enumerate(second):
            p, q = pa * p2[j], qa * q2[j]
            if not p and not q:
                continue
            rb = ratios2[j]
            ratio = None if not q else ra * rb  # type: ignore[operator]
            slot = merged.get(ratio)
            if slot is None:
                merged[ratio] = [p, q, a.count * b.count]
            else:
                slot[0] += p
                slot[1] += q
                slot[2] += a.count * b.count
        if len(merged) > MAX_ATOMS:
            raise BudgetExceeded(f"the composition has more than {MAX_ATOMS} distinct losses")
    dp, dq = dp1 * dp2, dq1 * dq2
    return _sorted(
        LossAtom(Fraction(p, dp), Fraction(q, dq), (), count) for p, q, count in merged.values()
    )


def from_distributions(
    left: Mapping[Any, Fraction],
    right: Mapping[Any, Fraction],
    left_name: str,
    right_name: str,
    *,
    show: Any = str,
    left_value: Any = None,
    right_value: Any = None,
) -> PrivacyLossDistribution:
    """The PLD of two exact output distributions (output → probability)."""
    outputs = list(dict.fromkeys([*left, *right]))
    return PrivacyLossDistribution.from_outcomes(
        ((show(o), left.get(o, Fraction(0)), right.get(o, Fraction(0))) for o in outputs),
        left_name,
        right_name,
        left_value=left_value,
        right_value=right_value,
    )


def ln_value(ratio: Fraction | None) -> float:
    """ln(ratio) for display (inf for None, −inf for 0)."""
    if ratio is None:
        return math.inf
    return -math.inf if ratio == 0 else _ln(ratio)
