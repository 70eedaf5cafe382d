"""Testing and verification combined (FAIER journal §7.3): certify candidates, bound ε*.

* :func:`certify`: every candidate (D1, D2, E) the tester used, with both
  probabilities computed exactly (discrete models: rationals from the exact
  engine; programs with continuous noise: closed forms enclosed in arb
  balls, :mod:`.certified_events`); real or spurious at its ε, or unknown
  when no closed form or enclosure decides it.  The largest certified lower
  bound of a loss is a lower bound on ε*, and it decides the claimed ε₀
  when it exceeds it (verdict *violated*, witness recomputed exactly or
  enclosed).
* :func:`bound`: the tester's interval (the largest rejected ε and the next
  grid point), then for a model the deciding engine's ε* (chosen by the
  registry: the exact engine for discrete models, the certified engine's
  interval for continuous noise), or, as in FAIER conference Algorithm 4 /
  journal Algorithm 5, bisection over that interval with that engine's
  verdicts, to a requested precision; for a black
  box, the tester's confidence interval of the selected event's loss, whose
  lower end is a lower bound on ε* with that confidence.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from faier.core import engine as registry
from faier.core.budget import hard_deadline
from faier.core.engine import Engine
from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.statistical.certified_events import CertifiedEvent, EventMeasurer
from faier.engines.statistical.certify import Certifier, ExactEvent
from faier.engines.statistical.events import json_number
from faier.engines.statistical.reports import Candidate, EpsilonPoint, StatReport
from faier.errors import BudgetExceeded, MechanismError, SpecError, Unanswerable
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.results import (
    CertifiedWitness,
    Enclosure,
    ExitCode,
    Loss,
    Result,
    ShownAsHtml,
    Statistics,
    Verdict,
    Witness,
)

MAX_BISECTION_STEPS = 60


Model = Callable[[Candidate], tuple[Program[Any], Hashable, Hashable]]
"""A candidate's program with continuous noise and its two inputs (e.g. a suite name's
built-in example with the candidate's arguments and the noise of the test)."""

Computed = ExactEvent | CertifiedEvent


@dataclass(frozen=True)
class CertifiedPoint:
    """A tested ε, its candidate's probabilities, and whether it is a real counterexample.

    ``exact`` holds the probabilities: exact rationals (:class:`ExactEvent`) or
    certified enclosures (:class:`CertifiedEvent`); None with a ``reason`` when
    neither could be computed.  ``status`` is ``real``, ``spurious`` or
    ``unknown`` (balls that overlap e^ε·q, or no closed form).
    """

    point: EpsilonPoint
    exact: Computed | None
    real: bool
    status: str = ""
    reason: str | None = None

    @property
    def verdict(self) -> str:
        return self.status or ("real" if self.real else "spurious")

    def to_json(self) -> dict[str, Any]:
        computed: dict[str, Any] = (
            self.exact.to_json()
            if self.exact is not None
            else {"p": None, "q": None, "loss": None, "reason": self.reason}
        )
        return {
            "epsilon": self.point.epsilon,
            "p_value": self.point.p_value,
            **computed,
            "counterexample": self.verdict,
            **self.point.candidate.to_json(),
        }


@dataclass(frozen=True)
class CertifyReport(ShownAsHtml):
    """The test, each candidate certified exactly, and the verdict for the claimed ε₀."""

    test: StatReport
    rows: tuple[CertifiedPoint, ...]
    result: Result
    lower: Enclosure | None = None
    """The certified loss of the candidate with the largest lower bound (continuous noise)."""
    notes: tuple[str, ...] = ()

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
        """The verdict's code; 3 when the test ran out of time, 130 when it was interrupted."""
        if self.test.timed_out:
            return ExitCode.UNKNOWN
        return ExitCode.INTERRUPTED if self.test.interrupted else self.result.exit_code

    def to_json(self) -> dict[str, Any]:
        verdict = self.result.to_json()
        lower = verdict.get("bounds", {}).get("lower")
        if lower is None and self.lower is not None:
            lower = {
                "ratio": None,
                "value": json_number(self.lower.lower),
                "lower": json_number(self.lower.lower),
                "upper": json_number(self.lower.upper),
            }
        out = {
            **self.test.to_json(),
            "verdict": verdict.get("verdict"),
            "claim": verdict.get("epsilon"),
            "certified": [r.to_json() for r in self.rows],
            "witness": verdict["witness"],
            "lower_bound": lower,
            "reason": self.result.reason,
            "method": self.result.method,
        }
        if self.notes:
            out["notes"] = [*out.get("notes", []), *self.notes]
        return out


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


def _certified_witness(candidate: Candidate, found: CertifiedEvent) -> CertifiedWitness:
    loss = found.loss_enclosure
    if math.isinf(loss.lower) and loss.lower == loss.upper:
        ratio = Enclosure(loss.lower, loss.upper, "∞" if loss.lower > 0 else "0")
    else:
        ratio = Enclosure(_exp_below(loss.lower), _exp_above(loss.upper))
    return CertifiedWitness(
        candidate.left.json_value,
        candidate.right.json_value,
        candidate.event.describe(),
        found.p,
        found.q,
        ratio,
    )


def _exp_below(x: float) -> float:
    """A float at most e^x (the largest float past the float range, 0 below it)."""
    return math.exp(x) * (1 - 1e-15) if x < 709 else sys.float_info.max


def _exp_above(x: float) -> float:
    """A float at least e^x (∞ past the float range)."""
    return math.exp(x) * (1 + 1e-15) if x < 709 else math.inf


class _Computer:
    """Each candidate's two probabilities: exact tables, or certified enclosures."""

    def __init__(self, problem: Problem | None, model: Model | None) -> None:
        self.problem = problem
        self.model = model
        self.exact = Certifier(problem) if problem is not None else None
        self.measurers: dict[int, EventMeasurer] = {}
        self.continuous = model is not None or (problem is not None and _draws_noise(problem))

    def _sides(self, candidate: Candidate) -> tuple[Program[Any], Hashable, Hashable]:
        if self.model is not None:
            return self.model(candidate)
        assert self.problem is not None
        mechanism = self.problem.mechanism
        if not isinstance(mechanism, Program):
            raise MechanismError(f"{self.problem.name} is not a one-shot program")
        return mechanism, _input(candidate.left), _input(candidate.right)

    def compute(self, candidate: Candidate) -> Computed:
        if not self.continuous:
            assert self.exact is not None
            return self.exact.exact(candidate)
        program, left, right = self._sides(candidate)
        measurer = self.measurers.setdefault(id(program), EventMeasurer(program))
        return CertifiedEvent(
            measurer.measure(left, candidate.event), measurer.measure(right, candidate.event)
        )


def _input(side: Any) -> Hashable:
    prior = side.prior
    if prior is not None and len(prior) == 1:
        return prior.items[0][0]  # type: ignore[no-any-return]
    return side.value  # type: ignore[no-any-return]


def _draws_noise(problem: Problem) -> bool:
    from faier.engines.certified.entry import draws_noise

    return draws_noise(problem)


def _decide(found: Computed, eps: Epsilon) -> bool | None:
    """Whether the candidate violates ε: exactly, or certified (None: undecided)."""
    if isinstance(found, CertifiedEvent):
        return found.exceeds(eps)
    if found.p == 0:
        return False
    return eps.exceeded_by(found.loss.ratio)


def _lower(found: Computed) -> float:
    """The certified lower bound of the candidate's loss (for ordering candidates)."""
    if isinstance(found, CertifiedEvent):
        return found.lower
    if found.p == 0:
        return -math.inf
    return _order(found.loss)


def certify(
    problem: Problem | None,
    report: StatReport,
    claimed: Epsilon,
    model: Model | None = None,
    timeout: float | None = None,
) -> CertifyReport:
    """Every candidate's probabilities (exact or enclosed); violated only when one is proved.

    ``timeout`` bounds the computations together: a candidate not computed in
    time is unknown (with the reason), like one without a closed form.
    """
    started = time.perf_counter()
    computer = _Computer(problem, model)
    rows = []
    cache: dict[Candidate, Computed | str] = {}

    def computed(candidate: Candidate) -> Computed | str:
        found = cache.get(candidate)
        if found is None:
            left = None if timeout is None else timeout - (time.perf_counter() - started)
            try:
                if left is not None and left <= 0:
                    raise BudgetExceeded(f"timeout of {timeout:g} s reached")
                with hard_deadline(left):
                    found = computer.compute(candidate)
            except Unanswerable as exc:  # Unsupported, or an operation the engine cannot follow
                found = f"no closed form or enclosure: {exc}"
            except SpecError as exc:  # e.g. inputs longer than the built-in example allows
                found = f"no model for these inputs: {exc.render()}"
            except BudgetExceeded as exc:
                found = f"not computed: {exc.reason}"
            cache[candidate] = found
        return found

    for point in report.points:
        found = computed(point.candidate)
        if isinstance(found, str):
            rows.append(CertifiedPoint(point, None, False, "unknown", found))
            continue
        answer = _decide(found, Epsilon.parse(repr(point.epsilon)))
        status = "unknown" if answer is None else "real" if answer else "spurious"
        rows.append(CertifiedPoint(point, found, bool(answer), status))
    candidates = [p.candidate for p in report.points]
    if report.interval is not None:
        candidates.append(report.interval.candidate)
    known = [(c, f) for c in dict.fromkeys(candidates) if not isinstance(f := computed(c), str)]
    violators = [(c, f) for c, f in known if _decide(f, claimed)]
    worst = max(violators or known, key=lambda c: _lower(c[1]), default=None)
    violated = bool(violators)
    reasons = [f for f in cache.values() if isinstance(f, str)]
    reason = None
    if not violated:
        reason = (
            "no tested event violates the claim exactly; testing cannot show privacy "
            "(run 'faier verify' for a proof)"
        )
        if reasons:
            reason += f"; {len(reasons)} candidate(s) not computed ({reasons[0]})"
    lower: Enclosure | None = None
    witness: Witness | None = None
    certified_witness: CertifiedWitness | None = None
    lower_bound: Loss | None = None
    if worst is not None and isinstance(worst[1], CertifiedEvent):
        lower = worst[1].loss_enclosure
        certified_witness = _certified_witness(worst[0], worst[1])
    elif worst is not None:
        assert isinstance(worst[1], ExactEvent)
        lower_bound = worst[1].loss
        witness = _witness(worst[0], worst[1])
    method = (
        "statistical selection (StatDP), event probabilities by the certified engine "
        "(closed forms, or rigorous integrals for Gaussian noise, enclosed in arb balls)"
        if computer.continuous
        else "statistical selection (StatDP), event probabilities by the exact engine"
    )
    result = Result(
        target=report.target,
        privacy=report.privacy,
        method=method,
        verdict=Verdict.VIOLATED if violated else Verdict.UNKNOWN,
        epsilon=claimed.text,
        lower_bound=lower_bound,
        witness=witness,
        certified_witness=certified_witness,
        enclosure=None if lower is None else Enclosure(lower.lower, math.inf),
        reason=reason,
        statistics=Statistics(time.perf_counter() - started + report.seconds, len(cache)),
    )
    notes = tuple(_consistency(rows))
    return CertifyReport(report, tuple(rows), result, lower, notes)


CONSISTENCY = 1e-9
"""Two-sided level at which the tester's counts must be compatible with certified values."""


def _consistency(rows: list[CertifiedPoint]) -> list[str]:
    """Counts far outside the certified probabilities mean the sampler and the model differ."""
    from faier.engines.statistical.significance import clopper_pearson

    notes = []
    for row in rows:
        if not isinstance(row.exact, CertifiedEvent):
            continue
        n = row.point.samples
        for count, enclosure, side in (
            (row.point.counts[0], row.exact.p, "D1"),
            (row.point.counts[1], row.exact.q, "D2"),
        ):
            low, high = clopper_pearson(count, n, 1 - CONSISTENCY)
            if high < enclosure.lower or low > enclosure.upper:
                notes.append(
                    f"at ε = {row.point.epsilon:g} the tester counted {count}/{n} on {side} but "
                    f"the certified probability is {enclosure.show()}: the sampled mechanism "
                    "and its model disagree"
                )
    return notes


def _order(loss: Loss) -> float:
    return math.inf if loss.ratio is None else float(loss.ratio)


@dataclass(frozen=True)
class BisectionStep:
    """One exact verdict of the bisection."""

    epsilon: float
    verdict: Verdict


@dataclass(frozen=True)
class BoundReport(ShownAsHtml):
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
        """0 with an exact ε* (or a certified interval), 3 when only bounds are known,
        130 if the test was interrupted."""
        if self.test.timed_out:
            return ExitCode.UNKNOWN
        if self.test.interrupted:
            return ExitCode.INTERRUPTED
        known = self.exact is not None and self.exact.exit_code == ExitCode.HOLDS
        return ExitCode.HOLDS if known else ExitCode.UNKNOWN

    @property
    def bracket(self) -> tuple[float, float] | None:
        """(ε violated, ε holding) after bisection, both decided by the exact engine."""
        violated = [s.epsilon for s in self.bisection if s.verdict is Verdict.VIOLATED]
        holds = [s.epsilon for s in self.bisection if s.verdict is Verdict.HOLDS]
        if not violated or not holds:
            return None
        return max(violated), min(holds)

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


def deciding_engine(problem: Problem, options: Options | None = None) -> Engine:
    """The engine the registry picks for ε* of the problem (``--engine``, else auto)."""
    return registry.choose(problem, options or Options(), "epsilon")


def bisect(
    problem: Problem,
    low: float,
    high: float,
    precision: float,
    options: Options | None = None,
) -> tuple[BisectionStep, ...]:
    """Verdicts of the deciding engine halving [low, high] until narrower than ``precision``."""
    steps: list[BisectionStep] = []
    chosen = options or Options()
    engine = registry.choose(problem, chosen, "verify")

    def decide(eps: float) -> Verdict:
        verdict = engine.verify(problem, Epsilon.parse(f"{eps:.12g}"), chosen, None).verdict
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


def _upper(result: Result) -> float | None:
    """The engine's ε* or its certified upper end (None when unknown)."""
    if result.enclosure is None and result.epsilon_star is not None:
        return result.epsilon_star.value
    if result.enclosure is not None and not math.isinf(result.enclosure.upper):
        return result.enclosure.upper
    if result.enclosure is not None and math.isinf(result.enclosure.lower):
        return math.inf
    if result.lower_bound is not None:
        return result.lower_bound.value
    return None


def bound(
    problem: Problem | None,
    report: StatReport,
    *,
    bisection: bool = False,
    precision: float = 1e-3,
    options: Options | None = None,
    notes: tuple[str, ...] = (),
) -> BoundReport:
    """The tester's interval, then the deciding engine's ε* or bisection to ``precision``."""
    rejected, following = tester_interval(report)
    if problem is None:
        return BoundReport(report, rejected, following, None, notes=notes)
    chosen = options or Options()
    engine = deciding_engine(problem, chosen)
    started = time.perf_counter()
    try:
        with hard_deadline(chosen.timeout):
            result = engine.epsilon(problem, chosen, None)
    except BudgetExceeded as stop:
        result = Result(
            target=problem.name,
            privacy=problem.privacy.describe(),
            method=f"{engine.name}: stopped before a result",
            reason=stop.reason,
            statistics=Statistics(seconds=time.perf_counter() - started),
        )
    found = list(notes)
    star = _upper(result)
    if star is not None and rejected is not None and star < rejected:
        shown = (
            result.epsilon_star.show() if result.epsilon_star is not None else f"at most {star:.6g}"
        )
        found.append(
            f"the test rejected ε = {rejected:g} although ε* is {shown}: "
            f"a false alarm at level α = {report.settings.alpha:g}"
        )
    steps: tuple[BisectionStep, ...] = ()
    if bisection:
        low = rejected if rejected is not None else 0.0
        high = following if following is not None else max(low, 1.0) * 2
        try:
            with hard_deadline(chosen.timeout):
                steps = bisect(problem, low, high, precision, chosen)
        except BudgetExceeded as stop:
            found.append(f"bisection stopped: {stop.reason}")
    return BoundReport(
        report, rejected, following, result, steps, precision if bisection else None, tuple(found)
    )
