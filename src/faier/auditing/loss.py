"""A pair's privacy loss composed exactly from its primitives, and the claim decided on it.

Per released draw with shift Δ and scale b: Laplace and discrete Laplace add
|Δ|/b to a pure ε (a rational number: the floats the code used are rationals);
Gaussian draws add (Δ/σ)² to μ², whose δ(ε) is the Gaussian mechanism's
exact hockey stick (Balle and Wang 2018, Thm 8), enclosed by the certified
engine's balls; a shifted exponential, uniform or Gumbel draw, a released
non-finite value, or a scale that differs between the two datasets is an
infinite loss.  ``exact`` is False where a term is only a bound (a draw that
is not released as it is, a library's stated ε).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from faier.privacy.budget import Epsilon

ROUNDING = Fraction(1, 2**40)
"""ε* above ε (or δ(ε) above δ) by less than this relative amount is the rounding of a float
scale, not a violation (docs/AUDIT.md, "What a verdict means")."""


@dataclass(frozen=True)
class Term:
    """One primitive's share of the pair's loss."""

    family: str
    site: str
    line: int
    shift: Fraction | None
    """|Δ| in the primitive's units (None: not a number, e.g. NaN)."""
    scale: Fraction | None
    infinite: str | None = None
    """Why this term alone makes the loss infinite."""
    bound: str | None = None
    """Why this term is only an upper bound (None: exact)."""

    @property
    def ratio(self) -> float:
        """|Δ|/b as a float, for display and for the search's climbing."""
        if self.infinite is not None:
            return math.inf
        if self.shift is None or self.scale is None:
            return math.nan
        if self.scale == 0:
            return math.inf if self.shift else 0.0
        return float(self.shift / self.scale)

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "site": self.site,
            "line": self.line,
            "shift": None if self.shift is None else str(self.shift),
            "scale": None if self.scale is None else str(self.scale),
            "ratio": _json_float(self.ratio),
            "infinite": self.infinite,
            "bound": self.bound,
        }


def _json_float(value: float) -> Any:
    if math.isinf(value):
        return "inf"
    if math.isnan(value):
        return None
    return value


@dataclass(frozen=True)
class PairLoss:
    """The composed loss of one ordered pair (D, D′)."""

    terms: tuple[Term, ...] = ()
    pure: Fraction = Fraction(0)
    mu2: Fraction = Fraction(0)
    infinite: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    unknown: str | None = None
    """A part whose loss is not known (then the pair is undecided unless convicted)."""

    @property
    def exact(self) -> bool:
        return all(t.bound is None for t in self.terms)

    @property
    def epsilon_star(self) -> float:
        """ε* of the pair for pure DP, as a float (inf with a Gaussian term or an infinite one)."""
        if self.infinite is not None or self.mu2 > 0:
            return math.inf
        return float(self.pure)

    @property
    def ratio(self) -> float:
        """The largest shift-to-scale ratio among the terms."""
        ratios = [t.ratio for t in self.terms if not math.isnan(t.ratio)]
        return max(ratios, default=0.0)

    def worst(self) -> Term | None:
        """The term that contributes most (the line a witness names)."""
        if not self.terms:
            return None
        infinite = [t for t in self.terms if t.infinite is not None]
        if infinite:
            return infinite[0]
        return max(self.terms, key=lambda t: t.ratio if not math.isnan(t.ratio) else -1.0)

    def show(self) -> str:
        if self.infinite is not None:
            return f"ε* = ∞ ({self.infinite})"
        parts = []
        if self.pure or not self.mu2:
            parts.append(f"ε* = {_rational(self.pure)}")
        if self.mu2:
            parts.append(f"Gaussian μ² = {_rational(self.mu2)} (no finite pure ε)")
        kind = "exact" if self.exact else "upper bound"
        return " and ".join(parts) + f" ({kind})"

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon_star": _json_float(self.epsilon_star),
            "pure": str(self.pure),
            "mu2": str(self.mu2),
            "infinite": self.infinite,
            "exact": self.exact,
            "terms": [t.to_json() for t in self.terms],
            "notes": list(self.notes),
        }


def _rational(value: Fraction) -> str:
    """A rational as itself when short, else as the float it equals (or is near)."""
    if value.denominator == 1 or len(str(value)) <= 24:
        return f"{value} ≈ {float(value):.6g}"
    if Fraction(float(value)) == value:
        return repr(float(value))  # the double itself, which its shortest repr names exactly
    bits = value.denominator.bit_length()
    return f"{float(value):.12g}… (exactly a rational with a {bits}-bit denominator)"


def compose(terms: list[Term], notes: tuple[str, ...] = ()) -> PairLoss:
    """Add the terms up: pure ε for Laplace kinds, μ² for Gaussians, ∞ for the rest that moved."""
    pure = Fraction(0)
    mu2 = Fraction(0)
    infinite: str | None = None
    exact_infinite = [t for t in terms if t.infinite is not None and t.bound is None]
    if exact_infinite:
        # one released coordinate's marginal is already infinitely apart: the other terms,
        # bounds or not, cannot lower that
        term = exact_infinite[0]
        where = f" at line {term.line}" if term.line else ""
        return PairLoss((term,), Fraction(0), Fraction(0), f"{term.infinite}{where}", notes)

    unknown: str | None = None
    for term in terms:
        if term.infinite is not None:
            infinite = infinite or f"{term.infinite} at line {term.line}"
            continue
        if term.shift is None or term.scale is None:
            # a part of the output whose loss is not known: nothing can clear the pair
            unknown = unknown or (term.bound or f"a {term.family} term without a shift")
            continue
        if term.shift == 0:
            continue
        if term.scale == 0:
            infinite = infinite or (
                f"a zero scale with a shift of {float(term.shift):.6g} at line {term.line}: "
                "the release is the value itself"
            )
            continue
        if term.family in ("laplace", "discrete-laplace", "library"):
            pure += term.shift / term.scale
        elif term.family == "gaussian":
            mu2 += (term.shift / term.scale) ** 2
        else:
            infinite = infinite or (
                f"a {term.family} draw shifted by {float(term.shift):.6g} at line {term.line}: "
                "outputs near its edge are possible on one side only"
            )
    return PairLoss(tuple(terms), pure, mu2, infinite, notes, unknown)


@dataclass(frozen=True)
class Decision:
    """The claim decided on one pair: violated (exactly), within, or undecided (why)."""

    violated: bool
    undecided: str | None = None
    detail: str = ""


def decide(loss: PairLoss, eps: Epsilon, delta: Fraction) -> Decision:
    """Is (ε, δ) broken on this pair?  Only an exact loss can say yes: the whole loss, or the
    exact terms alone, whose released draws are a marginal of the output (a lower bound)."""
    decision = _decide(loss, eps, delta)
    if loss.unknown is not None and not decision.violated:
        decision = Decision(False, f"the loss is not known: {loss.unknown}")
    if decision.violated or loss.exact:
        return decision
    released = [t for t in loss.terms if t.bound is None]
    if not released:
        return decision
    lower = _decide(compose(released, loss.notes), eps, delta)
    if lower.violated:
        detail = f"{lower.detail} (from the draws released as they are: a lower bound)"
        return Decision(True, detail=detail)
    return decision


def _decide(loss: PairLoss, eps: Epsilon, delta: Fraction) -> Decision:
    if loss.infinite is not None:
        if loss.exact:
            return Decision(True, detail=loss.infinite)
        return Decision(False, f"infinite loss from a bound only ({loss.infinite})")
    if delta == 0:
        if loss.mu2 > 0:
            if loss.exact:
                return Decision(
                    True,
                    detail="Gaussian noise has no finite pure ε: the log density "
                    "ratio grows without bound in the shift's direction",
                )
            return Decision(False, "a Gaussian term from a bound only")
        return _pure(loss, eps)
    if loss.mu2 == 0:
        if not exceeds(loss.pure, eps):
            return Decision(False)
        return _laplace_delta(loss, eps, delta)
    if loss.pure == 0:
        return _gaussian_delta(loss, eps, delta)
    return Decision(False, "Laplace and Gaussian terms together under δ > 0 are not composed yet")


def exceeds(value: Fraction, eps: Epsilon) -> bool:
    """value > ε(1 + 2⁻⁴⁰), decided exactly (rational ε) or on balls (log forms)."""
    bound = value / (1 + ROUNDING)
    if eps.rational is not None:
        return bound > eps.rational
    from faier.engines.certified import balls

    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            difference = balls.rational_ball(bound) - balls.exp_epsilon_ball(eps, bits).log()
            if difference > 0:
                return True
            if difference < 0:
                return False
    return False


def _pure(loss: PairLoss, eps: Epsilon) -> Decision:
    if not exceeds(loss.pure, eps):
        return Decision(False)
    if loss.exact:
        return Decision(True, detail=f"ε* = {float(loss.pure):.6g} > ε = {eps}")
    return Decision(False, f"an upper bound {float(loss.pure):.6g} exceeds ε; not exact")


def _laplace_delta(loss: PairLoss, eps: Epsilon, delta: Fraction) -> Decision:
    moved = [t for t in loss.terms if t.shift]
    if len(moved) != 1 or moved[0].family != "laplace" or not loss.exact:
        return Decision(False, "δ(ε) of several Laplace terms is not computed yet")
    from faier.engines.certified import balls

    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            a = balls.rational_ball(loss.pure)
            e = balls.exp_epsilon_ball(eps, bits).log()
            value = 1 - ((e - a) / 2).exp()  # Laplace shift a: δ(ε) = 1 − e^{(ε−a)/2}
            bound = balls.rational_ball(delta * (1 + ROUNDING))
            if value > bound:
                return Decision(True, detail=f"δ(ε) = 1 − e^((ε − {float(loss.pure):.6g})/2) > δ")
            if value <= bound:
                return Decision(False)
    return Decision(False, "δ(ε) could not be separated from δ")


def _gaussian_delta(loss: PairLoss, eps: Epsilon, delta: Fraction) -> Decision:
    from faier.engines.certified import balls
    from faier.engines.certified.gaussian_numbers import analytic_delta

    for bits in balls.PRECISIONS:
        with balls.precision(bits):
            e = balls.exp_epsilon_ball(eps, bits).log()
            value = analytic_delta(loss.mu2, e)
            bound = balls.rational_ball(delta * (1 + ROUNDING))
            if value > bound:
                if not loss.exact:
                    return Decision(False, "δ(ε) from a bound exceeds δ; not exact")
                low, high = balls.floats(value)
                return Decision(True, detail=f"δ(ε) ∈ [{low:.6g}, {high:.6g}] > δ = {delta}")
            if value <= bound:
                return Decision(False)
    return Decision(False, "δ(ε) could not be separated from δ")
