"""Testing and verification combined (FAIER journal §7.3): certify candidates, bound ε*.

* :func:`certify`: every candidate (D1, D2, E) the tester used, with both
  probabilities computed exactly; real or spurious at its ε.  The largest
  exact loss is a certified lower bound on ε*, and it decides the claimed ε₀
  when it exceeds it (verdict *violated*, witness recomputed exactly).
* :func:`bound`: the tester's interval (the largest rejected ε and the next
  grid point), then for a discrete model the exact ε* from the exact engine
  (or, as in FAIER conference Algorithm 4 / journal Algorithm 5, bisection
  over that interval with the exact engine's verdicts, to a requested
  precision); for a black
  box, the tester's confidence interval of the selected event's loss, whose
  lower end is a lower bound on ε* with that confidence.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from faier.core.problem import Problem
from faier.engines import exact
from faier.engines.statistical.certify import Certifier, ExactEvent
from faier.engines.statistical.events import json_number
from faier.engines.statistical.reports import Candidate, EpsilonPoint, StatReport
from faier.privacy.budget import Epsilon
from faier.results import ExitCode, Loss, Result, Statistics, Verdict, Witness

MAX_BISECTION_STEPS = 60


@dataclass(frozen=True)
class CertifiedPoint:
    """A tested ε, its candidate's exact probabilities, and whether it is a real counterexample."""

    point: EpsilonPoint
    exact: ExactEvent
    real: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilon": self.point.epsilon,
            "p_value": self.point.p_value,
            **self.exact.to_json(),
            "counterexample": "real" if self.real else "spurious",
            **self.point.candidate.to_json(),
        }


@dataclass(frozen=True)
class CertifyReport:
    """The test, each candidate certified exactly, and the verdict for the claimed ε₀."""

    test: StatReport
    rows: tuple[CertifiedPoint, ...]
    result: Result

    @property
    def verdict(self) -> Verdict | None:
        """violated when a candidate was certified exactly, else unknown."""
        return self.result.verdict

    @property
    def method(self) -> str:
        return f"{self.test.method}; candidates certified by {self.result.method}"

    @property
    def seconds(self) -> float:
        """The test and the exact checks (the certifying result counts both)."""
        return self.result.seconds

    @property
    def exit_code(self) -> int:
        return ExitCode.INTERRUPTED if self.test.interrupted else self.result.exit_code

    def _repr_html_(self) -> str:
        """The HTML report, as Jupyter shows it (``faier.report.html``)."""
        from faier.report.html import fragment

        return fragment(self)

    def to_json(self) -> dict[str, Any]:
        verdict = self.result.to_json()
        return {
            **self.test.to_json(),
            "verdict": verdict.get("verdict"),
            "claim": verdict.get("epsilon"),
            "certified": [r.to_json() for r in self.rows],
            "witness": verdict["witness"],
            "lower_bound": verdict.get("bounds", {}).get("lower"),
            "reason": self.result.reason,
            "method": self.result.method,
        }


def _witness(candidate: Candidate, exact_event: ExactEvent) -> Witness:
    return Witness(
        left=candidate.left.show(),
        right=candidate.right.show(),
        output=(candidate.event.describe(),),
        p=exact_event.p,
        q=exact_event.q,
        kind="inputs",
        left_value=candidate.left.json_value,
        right_value=candidate.right.json_value,
    )


def certify(problem: Problem, report: StatReport, claimed: Epsilon) -> CertifyReport:
    """Exact probabilities of every candidate; a verdict only when one violates ε₀ exactly."""
    started = time.perf_counter()
    certifier = Certifier(problem)
    rows = []
    cache: dict[Candidate, ExactEvent] = {}
    for point in report.points:
        found = cache.get(point.candidate)
        if found is None:
            found = cache[point.candidate] = certifier.exact(point.candidate)
        real = Epsilon.parse(repr(point.epsilon)).exceeded_by(found.loss.ratio)
        rows.append(CertifiedPoint(point, found, real))
    candidates = [(p.candidate, cache[p.candidate]) for p in report.points]
    if report.interval is not None:
        interval = report.interval.candidate
        if interval not in cache:
            cache[interval] = certifier.exact(interval)
        candidates.append((interval, cache[interval]))
    worst = max(candidates, key=lambda c: _order(c[1].loss), default=None)
    violated = worst is not None and claimed.exceeded_by(worst[1].loss.ratio)
    reason = None
    if not violated:
        reason = (
            "no tested event violates the claim exactly; testing cannot show privacy "
            "(run 'faier verify' for a proof)"
        )
    result = Result(
        target=report.target,
        privacy=report.privacy,
        method="statistical selection (StatDP), event probabilities by the exact engine",
        verdict=Verdict.VIOLATED if violated else Verdict.UNKNOWN,
        epsilon=claimed.text,
        lower_bound=worst[1].loss if worst is not None else None,
        witness=_witness(*worst) if worst is not None else None,
        reason=reason,
        statistics=Statistics(time.perf_counter() - started + report.seconds, len(cache)),
    )
    return CertifyReport(report, tuple(rows), result)


def _order(loss: Loss) -> float:
    return math.inf if loss.ratio is None else float(loss.ratio)


@dataclass(frozen=True)
class BisectionStep:
    """One exact verdict of the bisection."""

    epsilon: float
    verdict: Verdict


@dataclass(frozen=True)
class BoundReport:
    """Lower bounds on ε*: the tester's, its confidence interval, and the exact answer."""

    test: StatReport
    rejected: float | None
    next_grid: float | None
    exact: Result | None
    bisection: tuple[BisectionStep, ...] = ()
    precision: float | None = None
    notes: tuple[str, ...] = ()

    @property
    def verdict(self) -> Verdict | None:
        """None: a bound is a figure, not a verdict."""
        return None

    @property
    def method(self) -> str:
        if self.exact is None:
            return f"{self.test.method}; statistical lower bound only"
        return f"{self.test.method}; then {self.exact.method}"

    @property
    def seconds(self) -> float:
        return self.test.seconds + (self.exact.seconds if self.exact is not None else 0.0)

    @property
    def exit_code(self) -> int:
        """0 with an exact ε*, 3 when only bounds are known, 130 if the test was interrupted."""
        if self.test.interrupted:
            return ExitCode.INTERRUPTED
        known = self.exact is not None and self.exact.epsilon_star is not None
        return ExitCode.HOLDS if known else ExitCode.UNKNOWN

    @property
    def bracket(self) -> tuple[float, float] | None:
        """(ε violated, ε holding) after bisection, both decided by the exact engine."""
        violated = [s.epsilon for s in self.bisection if s.verdict is Verdict.VIOLATED]
        holds = [s.epsilon for s in self.bisection if s.verdict is Verdict.HOLDS]
        if not violated or not holds:
            return None
        return max(violated), min(holds)

    def _repr_html_(self) -> str:
        """The HTML report, as Jupyter shows it (``faier.report.html``)."""
        from faier.report.html import fragment

        return fragment(self)

    def to_json(self) -> dict[str, Any]:
        interval = self.test.interval
        out: dict[str, Any] = {
            "target": self.test.target,
            "privacy": self.test.privacy,
            "tester_interval": {
                "rejected": self.rejected,
                "next": self.next_grid,
                "alpha": self.test.settings.alpha,
            },
            "statistical_lower_bound": None
            if interval is None
            else {
                "epsilon": interval.lower_bound,
                "confidence": interval.confidence,
                "interval": [json_number(interval.low), json_number(interval.high)],
                **interval.candidate.to_json(),
            },
            "exact": None if self.exact is None else self.exact.to_json(),
        }
        if self.bisection:
            bracket = self.bracket
            out["bisection"] = {
                "precision": self.precision,
                "steps": [
                    {"epsilon": s.epsilon, "verdict": s.verdict.value} for s in self.bisection
                ],
                "bracket": list(bracket) if bracket else None,
            }
        if self.notes:
            out["notes"] = list(self.notes)
        out["test"] = self.test.to_json()
        return out


def tester_interval(report: StatReport) -> tuple[float | None, float | None]:
    """The largest ε the test rejected (p ≤ α) and the grid point after it (None: off the grid)."""
    alpha = report.settings.alpha
    grid = sorted(p.epsilon for p in report.points)
    rejected = [p.epsilon for p in report.points if p.p_value <= alpha]
    if not rejected:
        return None, grid[0] if grid else None
    low = max(rejected)
    above = [e for e in grid if e > low]
    return low, (above[0] if above else None)


def bisect(
    problem: Problem, low: float, high: float, precision: float
) -> tuple[BisectionStep, ...]:
    """Exact verdicts halving [low, high] until it is narrower than ``precision``."""
    steps: list[BisectionStep] = []

    def decide(eps: float) -> Verdict:
        verdict = exact.verify(problem, Epsilon.parse(f"{eps:.12g}")).verdict
        assert verdict is not None
        steps.append(BisectionStep(eps, verdict))
        return verdict

    if decide(low) is not Verdict.VIOLATED:
        low = 0.0
    while decide(high) is Verdict.VIOLATED and len(steps) < MAX_BISECTION_STEPS:
        low, high = high, 2 * high + precision
    while high - low > precision and len(steps) < MAX_BISECTION_STEPS:
        middle = (low + high) / 2
        verdict = decide(middle)
        if verdict is Verdict.VIOLATED:
            low = middle
        elif verdict is Verdict.HOLDS:
            high = middle
        else:
            break
    return tuple(steps)


def bound(
    problem: Problem | None,
    report: StatReport,
    *,
    bisection: bool = False,
    precision: float = 1e-3,
) -> BoundReport:
    """The tester's interval, then exact ε* (discrete models) or bisection to ``precision``."""
    rejected, following = tester_interval(report)
    if problem is None:
        return BoundReport(report, rejected, following, None)
    result = exact.epsilon(problem)
    notes: list[str] = []
    star = result.epsilon_star or result.lower_bound
    if star is not None and rejected is not None and star.value < rejected:
        notes.append(
            f"the test rejected ε = {rejected:g} although the exact ε* is {star.show()}: "
            f"a false alarm at level α = {report.settings.alpha:g}"
        )
    steps: tuple[BisectionStep, ...] = ()
    if bisection:
        low = rejected if rejected is not None else 0.0
        high = following if following is not None else max(low, 1.0) * 2
        steps = bisect(problem, low, high, precision)
    return BoundReport(
        report, rejected, following, result, steps, precision if bisection else None, tuple(notes)
    )
