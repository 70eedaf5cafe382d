"""The result every engine returns for ``epsilon`` and ``verify``, and its parts: the
exact loss e^ε (``Loss``, also a D's tightest ε in dpCTL*), witnesses, enclosures.

A verdict is ``holds`` only with a proof, ``violated`` only with a witness
whose two probabilities were computed exactly, and ``unknown`` otherwise,
with the reason and the bounds found so far.  Kept apart from what every
report shares (:mod:`faier.results`), so that a report that needs none of these
classes (``faier check`` on a question Storm answers) does not create them;
``from faier.results import Result`` still works (loaded on first use).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction
from typing import Any

from faier.results import ExitCode, ShownAsHtml, Verdict, approximately, natural_log


@dataclass(frozen=True, order=True)
class Loss:
    """A privacy loss e^ε as an exact ratio; ``ratio=None`` is infinite."""

    ratio: Fraction | None

    @property
    def infinite(self) -> bool:
        return self.ratio is None

    @property
    def value(self) -> float:
        """ε = ln(ratio) as a float (inf for an infinite loss), however large or small."""
        if self.ratio is None:
            return math.inf
        return natural_log(self.ratio)

    def exceeds(self, other: Loss) -> bool:
        """Strictly larger loss."""
        if self.ratio is None:
            return other.ratio is not None
        return other.ratio is not None and self.ratio > other.ratio

    def show(self) -> str:
        """``ln(288/73) ≈ 1.3725``, ``ln(…) ≈ 1.25e-17`` or ``∞``."""
        if self.ratio is None:
            return "∞"
        return f"ln({self.ratio}) ≈ {self.decimal()}"

    def decimal(self) -> str:
        """ε as a short decimal: four places, or four significant digits below 0.001 (a
        loss of 1e-20 is not shown as 0)."""
        assert self.ratio is not None
        value = self.value
        if value == 0 and self.ratio != 1:
            return _tiny_logarithm(self.ratio)
        if value != 0 and abs(value) < 1e-3:
            return f"{value:.4g}"
        return f"{value:.4f}"

    def to_json(self) -> dict[str, Any]:
        if self.ratio is None:
            return {"ratio": "inf", "value": "inf"}
        value = self.value
        if value == 0 and self.ratio != 1:  # below the float range: the digits, as text
            return {"ratio": str(self.ratio), "value": _tiny_logarithm(self.ratio)}
        return {"ratio": str(self.ratio), "value": value}


def _tiny_logarithm(ratio: Fraction) -> str:
    """ln(ratio) for a ratio within 1e-300 of 1, as text (ln(1 + g) = g to within g²)."""
    gap = ratio - 1
    digits = Decimal(gap.numerator) / Decimal(gap.denominator)
    return f"{digits:.4g}"


def loss_of(p: Fraction, q: Fraction) -> Loss:
    """The loss of one outcome: p/q, infinite when q = 0 < p."""
    return Loss(None) if q == 0 else Loss(p / q)


def _compact(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ",".join(_compact(v) for v in value) + "]"
    return str(value)


@dataclass(frozen=True)
class Witness:
    """Which comparison and which output attain (or exceed) the loss, exactly."""

    left: str
    right: str
    output: tuple[str, ...]
    p: Fraction
    q: Fraction
    kind: str = "inputs"
    left_value: Any = None
    right_value: Any = None

    @property
    def loss(self) -> Loss:
        return loss_of(self.p, self.q)

    def show_output(self) -> str:
        return " ".join(self.output)

    def short(self) -> str:
        """One line: ``[1,1,1] vs [2,2,0] → index 3``."""
        left, right = (
            (_compact(self.left_value), _compact(self.right_value))
            if self.left_value is not None
            else (self.left, self.right)
        )
        return f"{left} vs {right} → {self.show_output()}"

    def to_json(self) -> dict[str, Any]:
        side = {
            "inputs" if self.kind == "inputs" else "initial": [
                self.left_value if self.left_value is not None else self.left,
                self.right_value if self.right_value is not None else self.right,
            ]
        }
        output: Any = self.output[0] if len(self.output) == 1 else list(self.output)
        return {
            **side,
            "output": output,
            "p": str(self.p),
            "q": str(self.q),
            "left": self.left,
            "right": self.right,
        }


@dataclass(frozen=True)
class HorizonRow:
    """ε*(k) for one horizon k of a looping or interactive mechanism."""

    k: int
    loss: Loss
    witness: Witness | None = None
    exact: bool = True

    def to_json(self) -> dict[str, Any]:
        row = {"k": self.k, **self.loss.to_json()}
        if not self.exact:
            row["bound"] = "lower"
        return row


@dataclass(frozen=True)
class UnboundedLoss:
    """Why no finite ε exists: a transcript whose loss grows without bound, exactly."""

    comparison: str
    prefix: tuple[str, ...]
    block: tuple[str, ...]
    state: str
    constant: Fraction
    pi_rate: Fraction
    tau_rate: Fraction

    def lines(self) -> list[str]:
        growth = "∞" if self.tau_rate == 0 else str(self.pi_rate / self.tau_rate)
        return [
            f"{self.comparison}: after the prefix [{' · '.join(self.prefix) or 'nothing'}]",
            f"repeat the block [{' · '.join(self.block)}] k times",
            f"π side: returns to {self.state} with probability {self.pi_rate} per block",
            f"τ side: keeps at most {self.tau_rate} of its mass per block",
            f"so the ratio is ≥ {self.constant}·({growth})^k → ∞",
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "comparison": self.comparison,
            "prefix": list(self.prefix),
            "block": list(self.block),
            "state": self.state,
            "constant": str(self.constant),
            "pi_rate": str(self.pi_rate),
            "tau_rate": str(self.tau_rate),
        }


@dataclass(frozen=True)
class ParameterValue:
    """A parameter's value at a witness: the exact rational used, and the solver's
    algebraic number when that rational refines an irrational model value."""

    name: str
    value: Fraction
    algebraic: str | None = None

    def show(self) -> str:
        decimal = approximately(self.value)
        if self.algebraic is not None:
            return f"{self.name} = {self.algebraic} (checked at ≈ {decimal})"
        if self.value.denominator == 1 or len(str(self.value)) <= 12:
            return f"{self.name} = {self.value}"
        return f"{self.name} = {self.value} ≈ {decimal}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "value": str(self.value)}
        if self.algebraic is not None:
            out["algebraic"] = self.algebraic
        return out


def show_point(point: tuple[ParameterValue, ...]) -> str:
    return ", ".join(v.show() for v in point)


@dataclass(frozen=True)
class ParametricReport:
    """What the SMT engine found about the unknown parameters.

    ``point`` is where the witness holds (verify) or the best point found
    (epsilon); ``region`` says whether some parameter value satisfies ε (with
    one such point) or none does; for ε* the supremum's proven upper bound,
    whether it is attained, and the boundary point it is approached at.
    """

    domain: str
    point: tuple[ParameterValue, ...] = ()
    solver: str = ""
    region: str | None = None
    holds_at: tuple[ParameterValue, ...] = ()
    upper: Loss | None = None
    attained: bool | None = None
    limit: tuple[ParameterValue, ...] = ()
    within_precision: bool = False
    """ε* is only bounded, but ln(upper/lower) ≤ the asked --precision: a computed figure."""

    def lines(self) -> list[tuple[str, str]]:
        rows = [("parameters", self.domain)]
        if self.point:
            rows.append(("at", show_point(self.point)))
        if self.region:
            rows.append(("region", self.region))
        if self.holds_at:
            rows.append(("holds at", show_point(self.holds_at)))
        if self.upper is not None:
            rows.append(("upper bound", self.upper.show()))
        if self.attained is not None:
            rows.append(("attained", "yes" if self.attained else "no (a limit, not a value)"))
        if self.limit:
            rows.append(("approached at", show_point(self.limit)))
        if self.solver:
            rows.append(("solver", self.solver))
        return rows

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"domain": self.domain}
        if self.point:
            out["point"] = [v.to_json() for v in self.point]
        if self.region:
            out["region"] = self.region
        if self.holds_at:
            out["holds_at"] = [v.to_json() for v in self.holds_at]
        if self.upper is not None:
            out["upper"] = self.upper.to_json()
        if self.attained is not None:
            out["attained"] = self.attained
        if self.limit:
            out["limit"] = [v.to_json() for v in self.limit]
        if self.within_precision:
            out["within_precision"] = True
        if self.solver:
            out["solver"] = self.solver
        return out


@dataclass(frozen=True)
class Enclosure:
    """A real number proved to lie in [lower, upper] (certified ball arithmetic).

    The bounds are floats rounded outward; ``closed_form`` is the exact value
    where one is known (``1/2 − 1/4·e^(−7/20)``), shown beside the interval.
    """

    lower: float
    upper: float
    closed_form: str | None = None

    @property
    def middle(self) -> float:
        return self.lower if self.lower == self.upper else (self.lower + self.upper) / 2

    @property
    def value(self) -> float:
        """The middle of the enclosure (inf when it is infinite), as ``Loss.value``."""
        return math.inf if math.isinf(self.lower) else self.middle

    @property
    def infinite(self) -> bool:
        return math.isinf(self.lower)

    @property
    def settled(self) -> bool:
        """Infinite, or both ends finite: a value, not only a lower bound."""
        return math.isinf(self.lower) or not math.isinf(self.upper)

    def show(self) -> str:
        if math.isinf(self.lower):
            return "∞"
        if math.isinf(self.upper):
            return f"≥ {self.lower:.16g} (lower bound)"
        if self.lower == self.upper:
            text = f"{self.lower:.16g}"
        else:
            text = f"[{self.lower:.16g}, {self.upper:.16g}]"
        return text if self.closed_form is None else f"{self.closed_form} ∈ {text}"

    def brief(self, digits: int = 10) -> str:
        """A table cell: the closed form, else the digits both bounds share (≈ 1.0799676731),
        else the interval at that many digits."""
        if math.isinf(self.lower) or math.isinf(self.upper) or self.closed_form is not None:
            return self.show() if self.closed_form is None else self.closed_form
        low, high = f"{self.lower:.{digits}g}", f"{self.upper:.{digits}g}"
        if low == high:
            return f"≈ {low}"
        return f"[{_rounded(self.lower, digits, True)}, {_rounded(self.upper, digits, False)}]"

    def to_json(self) -> dict[str, Any]:
        if math.isinf(self.lower):
            return {"value": "inf", "lower": "inf", "upper": "inf"}
        if math.isinf(self.upper):
            return {"value": None, "lower": self.lower, "upper": "inf"}
        out: dict[str, Any] = {"value": self.middle, "lower": self.lower, "upper": self.upper}
        if self.closed_form is not None:
            out["closed_form"] = self.closed_form
        return out


def _rounded(x: float, digits: int, down: bool) -> str:
    """``x`` to ``digits`` significant digits, rounded outward (a shown interval still
    contains the certified one)."""
    value = Decimal(x)
    if value == 0:
        return "0"
    quantum = Decimal(1).scaleb(value.adjusted() - digits + 1)
    rounding = ROUND_FLOOR if down else ROUND_CEILING
    return format(value.quantize(quantum, rounding=rounding).normalize(), "g")


@dataclass(frozen=True)
class CertifiedWitness:
    """A comparison whose two probabilities (or densities) are certified enclosures."""

    left_value: Any
    right_value: Any
    output: str
    p: Enclosure
    q: Enclosure
    ratio: Enclosure
    measure: str = "Pr"
    """``Pr`` for a discrete output, ``density`` for a noisy number."""

    def lines(self) -> list[str]:
        left, right = _compact(self.left_value), _compact(self.right_value)
        return [
            f"inputs: {left}  vs  {right}",
            f"output: {self.output}",
            f"{self.measure}[output | {left}] = {self.p.show()}",
            f"{self.measure}[output | {right}] = {self.q.show()}",
            self._ratio_line(),
        ]

    def _ratio_line(self) -> str:
        if self.ratio.infinite:
            return "ratio = ∞"
        if math.isinf(self.ratio.upper):  # past the float range: a bound, not an interval
            return f"ratio {self.ratio.show()}"
        return f"ratio ∈ {self.ratio.show()}"

    def short(self) -> str:
        """One line: ``[1,1,1] vs [0,2,2] → 1``."""
        return f"{_compact(self.left_value)} vs {_compact(self.right_value)} → {self.output}"

    def to_json(self) -> dict[str, Any]:
        return {
            "inputs": [self.left_value, self.right_value],
            "output": self.output,
            "measure": self.measure,
            "p": self.p.to_json(),
            "q": self.q.to_json(),
            "ratio": self.ratio.to_json(),
        }


@dataclass(frozen=True)
class Proof:
    """A proof whose scope is wider than the input grid (the alignment engine: every input).

    ``scope`` is what it covers (``all inputs``); ``lines`` spell the certificate out
    for a reader; ``data`` is the same certificate as JSON-ready values.
    """

    scope: str
    lines: tuple[str, ...]
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"scope": self.scope, **self.data}


@dataclass(frozen=True)
class Statistics:
    """What the engine did: time, comparisons, explored states or sequences."""

    seconds: float = 0.0
    comparisons: int = 0
    explored: int = 0
    pruned: int = 0
    merged: int = 0


@dataclass(frozen=True)
class Result(ShownAsHtml):
    """Verdict and/or exact ε*, the witness, per-horizon figures, method, statistics."""

    target: str
    privacy: str
    method: str
    verdict: Verdict | None = None
    epsilon: str | None = None
    delta: Fraction | None = None
    epsilon_star: Loss | Enclosure | None = None
    """ε*: an exact :class:`Loss`, or for continuous noise the certified :class:`Enclosure`
    (filled from ``enclosure`` when that is bounded: ``.value``, ``.show()`` on either)."""
    lower_bound: Loss | None = None
    witness: Witness | None = None
    horizons: tuple[HorizonRow, ...] = ()
    delta_star: Fraction | None = None
    reason: str | None = None
    statistics: Statistics = field(default_factory=Statistics)
    certificate: UnboundedLoss | None = None
    parametric: ParametricReport | None = None
    enclosure: Enclosure | None = None
    """ε* as a certified interval (continuous noise: e^ε* is transcendental)."""
    certified_witness: CertifiedWitness | None = None
    assumptions: tuple[str, ...] = ()
    """What the answer rests on besides its proof, one sentence each: what was checked
    only partly or taken on trust (a declared symmetry checked on a sample of inputs), the
    check that a library object runs the library's own code (``checked: …``) and what is
    still assumed of that code (``assumed: …``); empty when nothing."""
    proof: Proof | None = None
    """The certificate of a proof for every input (``scope`` in the JSON)."""

    def __post_init__(self) -> None:
        if self.epsilon_star is None and self.enclosure is not None and self.enclosure.settled:
            object.__setattr__(self, "epsilon_star", self.enclosure)

    @property
    def exact_loss(self) -> Loss | None:
        """ε* as an exact ratio (or ∞), None where it is only enclosed or unknown."""
        return self.epsilon_star if isinstance(self.epsilon_star, Loss) else None

    @property
    def exit_code(self) -> int:
        """CI-friendly: 0 holds, 1 violated, 3 unknown; 0 for a computed ε*, 3 if unknown."""
        if self.verdict is not None:
            return self.verdict.exit_code
        bounded = self.enclosure is not None and (
            math.isinf(self.enclosure.lower) or not math.isinf(self.enclosure.upper)
        )
        settled = self.parametric is not None and self.parametric.within_precision
        known = self.epsilon_star is not None or bounded or settled
        return ExitCode.HOLDS if known else ExitCode.UNKNOWN

    @property
    def seconds(self) -> float:
        return self.statistics.seconds

    def to_json(self) -> dict[str, Any]:
        """The documented JSON contract (README, 'JSON output')."""
        out: dict[str, Any] = {"target": self.target, "privacy": self.privacy}
        if self.verdict is not None:
            out["verdict"] = self.verdict.value
            out["epsilon"] = self.epsilon
        if self.delta is not None:
            out["delta"] = str(self.delta)
        star = self.epsilon_star
        out["epsilon_star"] = star.to_json() if isinstance(star, Loss) else None
        if self.enclosure is not None:
            out["epsilon_star"] = {
                **(out["epsilon_star"] or {"ratio": None}),
                **self.enclosure.to_json(),
            }
        if self.lower_bound is not None and not isinstance(star, Loss):
            upper = self.parametric.upper if self.parametric is not None else None
            out["bounds"] = {
                "lower": self.lower_bound.to_json(),
                "upper": upper.to_json() if upper is not None else None,
            }
        if self.delta_star is not None:
            out["delta_star"] = str(self.delta_star)
        out["witness"] = self.witness.to_json() if self.witness else None
        if self.certified_witness is not None:
            out["witness"] = self.certified_witness.to_json()
        if self.horizons:
            out["horizons"] = [h.to_json() for h in self.horizons]
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        if self.parametric is not None:
            out["parameters"] = self.parametric.to_json()
        out["assumptions"] = list(self.assumptions)
        if self.proof is not None:
            out["scope"] = self.proof.scope
            out["proof"] = self.proof.to_json()
        out["method"] = self.method
        if self.reason:
            out["reason"] = self.reason
        out["seconds"] = round(self.statistics.seconds, 6)
        out["statistics"] = {
            "comparisons": self.statistics.comparisons,
            "explored": self.statistics.explored,
            "pruned": self.statistics.pruned,
            "merged": self.statistics.merged,
        }
        return out
