"""What a statistical test reports: evidence, never a verdict.

A :class:`StatReport` holds one :class:`EpsilonPoint` per tested ε (p-value of
the fixed-direction test, the candidate counterexample (D1, D2, E) and the
raw counts) and a :class:`LossInterval` for one selected event.  A small
p-value is statistical evidence that the mechanism is not ε-private; a
large one proves nothing.  Only ``faier certify`` turns a candidate into a
*violated* verdict, by computing its two probabilities exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from faier.engines.statistical.events import Event, json_number
from faier.engines.statistical.subjects import Side
from faier.results import ExitCode, ShownAsHtml, Verdict


@dataclass(frozen=True)
class Candidate:
    """A candidate counterexample: inputs D1 and D2 (with arguments) and an event E."""

    left: Side
    right: Side
    pattern: str
    event: Event

    def to_json(self) -> dict[str, Any]:
        return {
            "inputs": [self.left.json_value, self.right.json_value],
            "arguments": [dict(self.left.args), dict(self.right.args)],
            "pattern": self.pattern,
            "event": self.event.to_json(),
        }


@dataclass(frozen=True)
class EpsilonPoint:
    """The test at one ε: H0 is P(M(D1) ∈ E) ≤ e^ε·P(M(D2) ∈ E), direction fixed beforehand."""

    epsilon: float
    candidate: Candidate
    p_value: float
    p_reverse: float
    counts: tuple[int, int]
    samples: int

    def rejected(self, alpha: float) -> bool:
        return self.p_value <= alpha

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon": self.epsilon,
            "p_value": self.p_value,
            "p_reverse": self.p_reverse,
            "counts": list(self.counts),
            "samples": self.samples,
            **self.candidate.to_json(),
        }


@dataclass(frozen=True)
class LossInterval:
    """A confidence interval for ln(P(M(D1) ∈ E)/P(M(D2) ∈ E)) from fresh samples."""

    candidate: Candidate
    counts: tuple[int, int]
    samples: int
    low: float
    high: float
    confidence: float

    @property
    def lower_bound(self) -> float:
        """ε* ≥ this, with the interval's confidence (never below 0)."""
        return max(0.0, self.low)

    def to_json(self) -> dict[str, Any]:
        return {
            "low": json_number(self.low),
            "high": json_number(self.high),
            "confidence": self.confidence,
            "counts": list(self.counts),
            "samples": self.samples,
            **self.candidate.to_json(),
        }


@dataclass(frozen=True)
class RunSettings:
    """How the test ran, for the report and for reproducing it."""

    samples: int
    selection_samples: int
    thinnings: int
    alpha: float
    seed: int
    workers: int
    cluster: str | None = None
    """The Dask cluster the units ran on (``--cluster``), None for the local pool."""


@dataclass(frozen=True)
class StatReport(ShownAsHtml):
    """p-values over a grid of ε, the candidates behind them, and a loss interval."""

    target: str
    title: str
    privacy: str
    claimed: float | None
    epsilons: tuple[float, ...]
    points: tuple[EpsilonPoint, ...]
    interval: LossInterval | None
    settings: RunSettings
    space: str
    events: int
    pairs: int
    sampling: str
    arguments: str
    seconds: float
    cpu_seconds: float
    interrupted: str | None = None
    timed_out: bool = False
    """The run stopped at ``--timeout`` (then ``interrupted`` says where): unknown, not 130."""
    notes: tuple[str, ...] = field(default=())
    claim: str = ""

    method = "statistical: StatDP hypothesis test (binomial thinning + Fisher's exact test)"

    @property
    def verdict(self) -> Verdict | None:
        """None: p-values are evidence, never a verdict."""
        return None

    @property
    def exit_code(self) -> int:
        """0 when every ε was tested (p-values are evidence, not a verdict); 130 if interrupted."""
        if self.timed_out:
            return ExitCode.UNKNOWN
        return ExitCode.INTERRUPTED if self.interrupted else ExitCode.HOLDS

    def point_at(self, epsilon: float | None) -> EpsilonPoint | None:
        if epsilon is None:
            return None
        return next((p for p in self.points if math.isclose(p.epsilon, epsilon)), None)

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        out: dict[str, Any] = {
            "target": self.target,
            "privacy": self.privacy,
            "claimed_epsilon": self.claimed,
            "claim": self.claim or None,
            "verdict": None,
            "method": self.method,
            "points": [p.to_json() for p in self.points],
            "loss_interval": self.interval.to_json() if self.interval else None,
            "settings": {
                "samples": s.samples,
                "selection_samples": s.selection_samples,
                "thinnings": s.thinnings,
                "alpha": s.alpha,
                "seed": s.seed,
                "workers": s.workers,
                **({"cluster": s.cluster} if s.cluster else {}),
                "epsilons": list(self.epsilons),
            },
            "search": {
                "output_type": self.space,
                "events": self.events,
                "pairs": self.pairs,
                "sampling": self.sampling,
                "arguments": self.arguments,
            },
            "seconds": round(self.seconds, 6),
            "cpu_seconds": round(self.cpu_seconds, 6),
        }
        if self.interrupted:
            out["interrupted"] = self.interrupted
        if self.notes:
            out["notes"] = list(self.notes)
        return out
