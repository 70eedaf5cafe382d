"""``faier.assert_private``: one assertion for a DP library's tests, exact where it can be.

>>> import faier
>>> sure = faier.assert_private("noisy-max", "ln(288/73)", settings={"n": "5", "ties": "uniform"})
>>> sure.verdict, sure.method
('holds', 'exact')

How it decides (``method``):

* ``"exact"``: the exact engine, or the SMT engine for unknown parameters,
  through the engine registry and :func:`faier.verify`.  Passes only with a
  proof; fails with an exactly recomputed witness.
* ``"certified"``: the continuous-noise engine (registry name
  ``certified``), for faier programs with Laplace or Gaussian noise, and
  for OpenDP measurements that draw integer noise (``faier.adapters.decidable``:
  ``make_laplace``/``make_geometric``/``make_gaussian`` on integers),
  decided against OpenDP's own privacy map unless ``epsilon`` is given;
  bad input naming the fix when this faier has no such engine.
* ``"statistical"``: StatDP's test at the claimed ε (``faier test``).  It
  fails when p ≤ α/2: the reported p-value is a mean over binomial
  thinnings, valid at level 2α (docs/TESTING.md), so a mechanism that *is*
  ε-DP fails with probability at most α (:data:`DEFAULT_ALPHA` = 0.01).  A
  pass means "no evidence against the claim", never a proof.
* ``"auto"``: the first engine of the registry (in ``--engine auto``'s
  order, leaving out the tester and the dpCTL* checker) that accepts the
  mechanism, else statistical; the message and the returned
  :class:`Assurance` say which.

A failure is an ``AssertionError`` whose message shows the verdict, ε*, and
the witness in the mechanism's own terms (both inputs, the output or event,
both probabilities, exact or counted), and for a statistical check the
p-value and the random seed that replays it.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from faier.core.spellings import given_once
from faier.errors import BudgetExceeded, SpecError
from faier.mechanisms import isolation

METHODS = ("auto", "exact", "certified", "statistical")
DEFAULT_ALPHA = 0.01
"""Largest chance that a statistical assertion fails for a mechanism that keeps its claim."""
DEFAULT_SAMPLES = 50_000
"""Test runs per input of a statistical assertion (event selection takes a fifth of that)."""
EXACT_ENGINES = ("exact", "smt")
CERTIFIED = "certified"
NOT_DECIDING = ("statistical", "dpctl")
"""Registry engines that give no verdict on a mechanism (p-values; dpCTL* formulas)."""


@dataclass(frozen=True)
class Assurance:
    """What a passing assertion established: a proof (``holds``) or no evidence against it."""

    verdict: str
    method: str
    epsilon: str
    p_value: float | None = None
    seed: int | None = None
    target: str = ""
    assumptions: tuple[str, ...] = ()
    """What a proof rests on besides itself (``Result.assumptions``): e.g. the check that a
    library object runs the library's own code."""

    def __str__(self) -> str:
        shown = f"{self.target}: {self.verdict} ({self.method}) at ε = {self.epsilon}"
        if self.p_value is not None:
            shown += f", p = {self.p_value:.3g}, seed {self.seed}"
        return "\n".join([shown, *(f"  {line}" for line in self.assumptions)])


@dataclass(frozen=True)
class Failure:
    """A failed statistical assertion, kept so that the pytest plugin can print its seed."""

    target: str
    seed: int
    p_value: float
    reproducible: bool


failures: list[Failure] = []
"""Failed statistical assertions of this process, in order (read by the pytest plugin)."""
passes: list[Assurance] = []
"""Passed statistical assertions (evidence, not proofs), listed by the pytest plugin."""


@dataclass(frozen=True)
class Session:
    """Defaults of statistical checks for a whole run (pytest's --faier-samples,
    --faier-seed, --faier-timeout), and where their progress goes (pytest's terminal)."""

    samples: int | None = None
    seed: int | None = None
    timeout: float | None = None
    """Seconds a statistical check may run when the call gives no ``timeout``."""
    progress: Callable[[str], None] | None = None
    """Writes one progress line of a long statistical check (None: silent)."""


PROGRESS_AFTER = 5.0
"""Seconds a statistical check runs silently before it reports its progress."""


class LineProgress:
    """The tester's progress as a few lines (each stage, every quarter of it, the p-value),
    once a check has run :data:`PROGRESS_AFTER` seconds: quick checks stay silent."""

    def __init__(
        self, write: Callable[[str], None], target: str, after: float = PROGRESS_AFTER
    ) -> None:
        self.write, self.target, self.after = write, target, after
        self.started = time.monotonic()
        self.description, self.total, self.done, self.quarter = "", 0, 0, 0

    def stage(self, description: str, total: int) -> None:
        self.description, self.total, self.done, self.quarter = description, total, 0, 0
        self._say(f"{description} (0/{total})")

    def advance(self) -> None:
        self.done += 1
        if self.total and 4 * self.done >= (self.quarter + 1) * self.total:
            self.quarter = 4 * self.done // self.total
            self._say(f"{self.description} ({self.done}/{self.total})")

    def point(self, point: Any) -> None:
        self._say(f"p = {point.p_value:.3g} at ε = {point.epsilon:g}")

    def _say(self, text: str) -> None:
        if time.monotonic() - self.started >= self.after:
            self.write(f"faier: {self.target}: {text}")


session = Session()
"""The defaults in force; a call's own ``samples``/``seed`` come first."""


def assert_private(
    mechanism: Any,
    epsilon: str | float | None = None,
    *,
    delta: str | float | None = None,
    neighbours: Any = None,
    inputs: Sequence[Any] | None = None,
    method: str = "auto",
    seed: int | None = None,
    samples: int | None = None,
    alpha: float = DEFAULT_ALPHA,
    mechanism_epsilon: str | float | None = None,
    settings: Mapping[str, object] | None = None,
    name: str | None = None,
    horizon: int | None = None,
    timeout: float | None = None,
    workers: int = 1,
    neighbors: Any = None,
    pairs: Sequence[Any] | None = None,
    claimed: str | float | None = None,
    data: Any = None,
    args: Mapping[str, Any] | None = None,
) -> Assurance:
    """Assert that ``mechanism`` is ε-DP ((ε, δ)-DP with ``delta``); see the module.

    ``mechanism``: a faier program or ``Problem``, a built-in example name, a
    ``.py``/model file, a sampled mechanism (``faier.mechanisms.sampled``) or
    a library object (``faier.adapters``).  ``epsilon`` defaults to the ε a
    wrapped library object states.  ``inputs``: the pairs (D1, D2) to
    compare, as numbers, lists or numpy arrays (default: every neighbour pair
    for exact checks, StatDP's patterns for statistical ones).
    ``mechanism_epsilon``: the ε₀ a sampled mechanism runs with when it is
    not the claim (refused where the mechanism's noise is its own: a faier
    program, a library object).  ``samples`` and ``seed`` are for statistical
    checks; ``timeout`` bounds any check (under pytest, statistical ones default
    to ``--faier-timeout``).  The same option has the same keyword in
    :func:`faier.verify` and :func:`faier.testing.statistical_test`:
    ``neighbors`` is ``neighbours``, ``pairs`` is ``inputs``, ``claimed`` is
    ``epsilon``.
    ``data``: ``mechanism`` is a plain function ``mechanism(data, **args)``, audited on
    neighbours of ``data`` (``faier.audit``, docs/AUDIT.md).

    The check runs in a child process (:func:`faier.mechanisms.isolation.api_call`):
    a mechanism that ends its process fails the assertion's caller with
    :class:`~faier.errors.MechanismError`, never a silent exit.
    """
    arguments = dict(locals())  # first: only the parameters
    __tracebackhide__ = True
    from faier import testing  # noqa: F401  (as before: ``faier.testing`` loaded here too)

    known = len(failures), len(passes)
    work = partial(_recording, known, arguments)
    outcome, failed, passed = isolation.api_call(isolation.named(mechanism), work)
    if (len(failures), len(passes)) == known:  # run in a child: its records come back here
        failures.extend(failed)
        passes.extend(passed)
    if isinstance(outcome, BaseException):
        raise outcome
    return outcome


def _recording(
    known: tuple[int, int], arguments: dict[str, Any], progress: None
) -> tuple[Assurance | BaseException, list[Failure], list[Assurance]]:
    """:func:`_asserted`'s outcome with the records it added to ``failures`` and ``passes``."""
    outcome: Assurance | BaseException
    try:
        outcome = _asserted(**arguments)
    except Exception as failure:  # AssertionError, bad input: raised again by the caller
        outcome = failure
    return outcome, failures[known[0] :], passes[known[1] :]


def _asserted(
    mechanism: Any,
    epsilon: str | float | None,
    *,
    delta: str | float | None,
    neighbours: Any,
    inputs: Sequence[Any] | None,
    method: str,
    seed: int | None,
    samples: int | None,
    alpha: float,
    mechanism_epsilon: str | float | None,
    settings: Mapping[str, object] | None,
    name: str | None,
    horizon: int | None,
    timeout: float | None,
    workers: int,
    neighbors: Any,
    pairs: Sequence[Any] | None,
    claimed: str | float | None,
    data: Any,
    args: Mapping[str, Any] | None,
) -> Assurance:
    """:func:`assert_private`'s work (in the isolated child)."""
    __tracebackhide__ = True
    from faier import api, testing

    epsilon = given_once("epsilon", {"epsilon": epsilon, "claimed": claimed})
    neighbours = given_once("neighbours", {"neighbours": neighbours, "neighbors": neighbors})
    inputs = given_once("inputs", {"inputs": inputs, "pairs": pairs})
    if data is not None:
        return _audited(mechanism, data, epsilon, delta, neighbours, seed, args)
    if method not in METHODS:
        raise SpecError(f"unknown method {method!r}", where="method", fix=f"one of {METHODS}")
    if not 0 < alpha < 1:
        raise SpecError(f"α must lie in (0, 1), got {alpha}", where="alpha", fix="e.g. 0.01")
    library = _library_decision(mechanism, epsilon, delta, method, timeout, mechanism_epsilon)
    if library is not None:
        return library
    sampled = testing.as_sampled(mechanism, name)
    testing.refuse_noise_epsilon(
        mechanism_epsilon, testing.noise_refusal(sampled), "mechanism_epsilon"
    )
    claim = _claim(epsilon, sampled)
    pairs = [testing.as_pair(p, "inputs") for p in inputs] if inputs is not None else None
    common: dict[str, Any] = {"settings": settings, "neighbours": neighbours, "name": name}
    check = _Check(claim, delta, pairs, seed, samples, alpha, mechanism_epsilon, workers, timeout)
    if sampled is not None:
        if method in ("exact", "certified"):
            from faier import adapters

            why = (
                adapters.why_not_decided(mechanism)
                if adapters.is_library_object(mechanism)
                else "it has no discrete model"
            )
            raise SpecError(
                f"{sampled.name} can only be run, not computed: {why}",
                where=f"method={method!r}",
                fix="use method='statistical' (or 'auto'), or write it as a faier program",
            )
        return _statistical(sampled, check, common)
    problem = api.load_problem(testing.as_target(mechanism), horizon=horizon, **common)
    if pairs is not None:
        problem = _restricted(problem, pairs)
    engine, reasons = _engine(problem, method, delta, timeout)
    if engine is None:
        if method != "auto" and method != "statistical":
            raise SpecError(
                f"faier cannot decide {problem.name} with method {method!r}: {'; '.join(reasons)}",
                where=f"method={method!r}",
                fix="use method='auto' or 'statistical'",
            )
        return _statistical(
            problem, check, {**common, "settings": None, "neighbours": None, "name": None}
        )
    result = api.verify(problem, claim, engine=engine, delta=delta, timeout=timeout)
    return _decided(result, engine, str(claim))


def _audited(
    function: Any,
    data: Any,
    epsilon: str | float | None,
    delta: str | float | None,
    neighbours: Any,
    seed: int | None,
    args: Mapping[str, Any] | None,
) -> Assurance:
    """A plain function on data: passes only when the audit found no violation and decided
    every pair (a search, or "holds" where the structural proof covers every pair)."""
    from faier.api import audit
    from faier.results import Verdict

    if epsilon is None:
        raise SpecError("an audit needs the claimed ε", where="epsilon", fix="e.g. epsilon=1.0")
    relation = neighbours if isinstance(neighbours, str) else "add-remove"
    report = audit(
        function, data, epsilon=epsilon, delta=delta, neighbours=relation, seed=seed, args=args
    )
    if report.proof is not None and report.verdict is Verdict.HOLDS:
        return Assurance(
            "holds",
            f"{report.method}; proved for every {relation} neighbouring pair "
            f"(loss ≤ {report.proof.loss}, docs/AUDIT.md)",
            str(epsilon),
            seed=report.seed,
            target=report.target,
        )
    if report.verdict is not None:
        lines: list[tuple[str, str]] = [("outcome", report.outcome)]
        shown = report.witness or (report.undecided[0] if report.undecided else None)
        if shown is not None:
            lines += [("pair", shown.change), ("D", shown.left.show()), ("D′", shown.right.show())]
            if shown.loss is not None:
                lines.append(("ε* of the pair", shown.loss.show()))
        lines += [("unrecognised", u) for u in report.unrecognised]
        lines += [("unknown", r) for r in report.reasons]
        raise AssertionError(_table(f"{report.target} is not shown ε = {epsilon} private", lines))
    return Assurance(
        "no violation found", report.method, str(epsilon), seed=report.seed, target=report.target
    )


def _library_decision(
    mechanism: Any,
    epsilon: str | float | None,
    delta: str | float | None,
    method: str,
    timeout: float | None,
    mechanism_epsilon: Any,
) -> Assurance | None:
    """A library object faier decides (its own claim by default), provided it runs the
    library's own code on its sampling path (``faier.adapters.own_code``)."""
    __tracebackhide__ = True
    if method == "statistical":
        return None
    from faier import adapters, testing

    found = adapters.decidable(mechanism)
    if found is None:
        return None
    testing.refuse_noise_epsilon(mechanism_epsilon, testing.LIBRARY_NOISE, "mechanism_epsilon")
    from fractions import Fraction

    from faier import api
    from faier.privacy.budget import Epsilon

    if epsilon is not None:
        claim = _claim(epsilon, None)
    elif found.epsilon is None:
        raise SpecError(
            f"OpenDP states ρ = {found.rho} (zero-concentrated DP), not an ε",
            where="epsilon",
            fix="pass epsilon= and delta=, or assert make_fix_delta(make_zCDP_to_approxDP(…), δ)",
        )
    else:  # the float OpenDP's privacy map returned, read exactly
        claim = Epsilon.parse(str(Fraction(found.epsilon)))
        if delta is None and found.delta is not None:
            delta = str(Fraction(found.delta))
    result = api.verify(found.problem, claim, engine=CERTIFIED, delta=delta, timeout=timeout)
    return _decided(result, CERTIFIED, str(claim))


def _claim(epsilon: str | float | None, sampled: Any) -> Any:
    from faier.privacy.budget import Epsilon

    if epsilon is None:
        stated = getattr(sampled, "stated_epsilon", None)
        if stated is None:
            raise SpecError(
                "no ε to assert",
                where="epsilon",
                fix="pass epsilon=… (a wrapped library object states its own)",
            )
        from faier.testing import stated_claim

        return stated_claim(stated)
    try:
        return Epsilon.parse(epsilon)
    except SpecError as exc:
        raise exc.located("epsilon") from None


def _restricted(problem: Any, pairs: list[tuple[Any, Any]]) -> Any:
    """The problem with DP over the given pairs only (both orders)."""
    from faier.mechanisms.interactive import Interactive
    from faier.model.values import show_input
    from faier.privacy.neighbours import ExplicitPairs
    from faier.privacy.specs import DifferentialPrivacy

    mechanism = problem.mechanism
    if isinstance(mechanism, Interactive) or not isinstance(problem.privacy, DifferentialPrivacy):
        raise SpecError(
            f"inputs= picks neighbour pairs of a one-shot DP mechanism; {problem.name} is not",
            where="inputs",
            fix="leave inputs out",
        )
    known: set[Hashable] = set(mechanism.inputs.values)

    def fit(vector: tuple[Any, ...]) -> Hashable:
        if vector in known:
            return vector
        if len(vector) == 1 and vector[0] in known:
            single: Hashable = vector[0]
            return single
        raise SpecError(
            f"{show_input(vector)} is not an input of {problem.name}",
            where="inputs",
            fix=f"inputs are {mechanism.inputs.description}",
        )

    explicit = ExplicitPairs(tuple((fit(a), fit(b)) for a, b in pairs))
    return replace(problem, privacy=DifferentialPrivacy(explicit))


def certified_engine() -> Any:
    """The continuous-noise engine from the registry; bad input if this faier has none."""
    from faier.core import engine as registry

    missing = SpecError(
        "the certified engine (continuous noise, exact to certified bounds) is not available "
        "in this faier",
        where="method='certified'",
        fix="use method='exact' for discrete mechanisms or 'statistical' for sampled ones",
    )
    if CERTIFIED not in registry.names():
        raise missing
    try:
        return registry.get(CERTIFIED)
    except (ImportError, AttributeError):
        raise missing from None


def _engine(
    problem: Any, method: str, delta: str | float | None, timeout: float | None
) -> tuple[str | None, list[str]]:
    """The engine that decides the problem under ``method``, or None and the refusals."""
    from faier.core import engine as registry
    from faier.core.options import Options

    if method == "statistical":
        return None, []
    options = Options.parse(delta=delta, timeout=timeout)
    if method == "certified":
        refusal = certified_engine().refusal(problem, options, "verify")
        return (CERTIFIED, []) if refusal is None else (None, [f"{CERTIFIED}: {refusal.reason}"])
    names = [
        n
        for n in registry.names()
        if (n in EXACT_ENGINES if method == "exact" else n not in NOT_DECIDING)
    ]
    reasons: list[str] = []
    for engine_name in names:
        try:
            engine = registry.get(engine_name)
        except ImportError as exc:  # an engine whose back end is missing decides nothing here
            reasons.append(f"{engine_name}: not available ({exc})")
            continue
        refusal = engine.refusal(problem, options, "verify")
        if refusal is None:
            return engine_name, []
        reasons.append(f"{engine_name}: {refusal.reason}")
    return None, reasons


def _decided(result: Any, engine: str, claim: str) -> Assurance:
    __tracebackhide__ = True
    from faier.results import Verdict

    if result.verdict is Verdict.HOLDS:
        return Assurance(
            "holds", engine, claim, target=result.target, assumptions=result.assumptions
        )
    raise AssertionError(exact_message(result, engine))


def exact_message(result: Any, engine: str) -> str:
    """The failure message of an exact (or certified) check: verdict, ε*, witness, method."""
    from faier.results import Verdict, show_point

    claim = f"ε = {result.epsilon}" + (f", δ = {result.delta}" if result.delta else "")
    violated = result.verdict is Verdict.VIOLATED
    head = (
        f"{result.target} is not {claim} private: violated ({engine})"
        if violated
        else f"{result.target}: could not establish {claim} ({engine}): unknown"
    )
    rows: list[tuple[str, str]] = [("privacy", result.privacy), ("claim", claim)]
    enclosure = getattr(result, "enclosure", None)
    if result.epsilon_star is not None:
        rows.append(("ε*", result.epsilon_star.show()))
    elif enclosure is not None:
        rows.append(("ε*", enclosure.show()))
    elif result.lower_bound is not None:
        rows.append(("ε*", f"≥ {result.lower_bound.show()} (lower bound)"))
    elif result.witness is not None:
        rows.append(("ε*", f"≥ {result.witness.loss.show()} (the witness's loss)"))
    elif getattr(result, "certified_witness", None) is not None:
        ratio = result.certified_witness.ratio
        low = "∞" if math.isinf(ratio.lower) else f"{math.log(ratio.lower):.10g}"
        rows.append(("ε*", f"≥ {low} (the witness's loss, certified)"))
    if result.delta_star is not None:
        rows.append(("δ(ε)", f"{result.delta_star} ≈ {float(result.delta_star):.4g}"))
    witness = result.witness
    certified = getattr(result, "certified_witness", None)
    if witness is not None:
        left, right = (
            (_shown(witness.left_value), _shown(witness.right_value))
            if witness.left_value is not None
            else (witness.left, witness.right)
        )
        lines = [
            f"inputs: {left}  vs  {right}",
            f"output: {witness.show_output()}",
            f"Pr[output | {left}] = {witness.p}",
            f"Pr[output | {right}] = {witness.q}",
            f"ratio = {witness.loss.ratio}" if witness.q else "ratio = ∞",
        ]
        rows.extend(("witness" if i == 0 else "", line) for i, line in enumerate(lines))
    elif certified is not None:
        rows.extend(("witness" if i == 0 else "", line) for i, line in enumerate(certified.lines()))
    if result.parametric is not None and result.parametric.point:
        rows.append(("at", show_point(result.parametric.point)))
    if result.reason:
        rows.append(("reason", result.reason))
    rows.append(("method", result.method))
    rows.extend(("assumes" if i == 0 else "", a) for i, a in enumerate(result.assumptions))
    return _table(head, rows)


def _shown(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def _table(head: str, rows: Sequence[tuple[str, str]]) -> str:
    width = max(len(key) for key, _ in rows)
    return "\n".join([head, *(f"  {key:<{width}}  {value}" for key, value in rows)])


@dataclass(frozen=True)
class _Check:
    """What a statistical assertion runs with."""

    claim: Any
    delta: str | float | None
    pairs: list[tuple[Any, Any]] | None
    seed: int | None
    samples: int | None
    alpha: float
    mechanism_epsilon: str | float | None
    workers: int
    timeout: float | None


def _statistical(target: Any, check: _Check, common: dict[str, Any]) -> Assurance:
    """StatDP's test at the claimed ε; fails when p ≤ α/2 (the thinned mean is valid at 2α)."""
    __tracebackhide__ = True
    from faier import testing
    from faier.engines.statistical.subjects import NOT_REPRODUCIBLE
    from faier.privacy.budget import parse_delta

    if check.delta is not None and parse_delta(check.delta) != 0:
        raise SpecError(
            "the statistical tester checks pure ε-DP, not (ε, δ)",
            where="delta",
            fix="leave delta out, or use an exact method on a discrete mechanism",
        )
    seed = check.seed if check.seed is not None else session.seed
    chosen_seed = seed if seed is not None else secrets.randbelow(2**32)
    runs = next(s for s in (check.samples, session.samples, DEFAULT_SAMPLES) if s is not None)
    claim, alpha = check.claim, check.alpha
    timeout = check.timeout if check.timeout is not None else session.timeout
    shown = getattr(target, "name", None) or str(target)
    progress = None if session.progress is None else LineProgress(session.progress, shown)
    try:
        report = testing.statistical_test(
            target,
            claimed=claim,
            pairs=check.pairs or (),
            epsilons=[claim.value],
            samples=runs,
            selection_samples=max(2, runs // 5),
            seed=chosen_seed,
            workers=check.workers,
            alpha=alpha,
            timeout=timeout,
            progress=progress,
            mechanism_epsilon=check.mechanism_epsilon,
            **{k: v for k, v in common.items() if v is not None},
        )
    except BudgetExceeded as stop:
        raise AssertionError(_unfinished(shown, timeout, stop.reason)) from None
    reproducible = NOT_REPRODUCIBLE not in report.notes
    point = report.points[0] if report.points else None
    if point is None:
        limited = timeout if report.timed_out else None
        raise AssertionError(_unfinished(report.target, limited, str(report.interrupted)))
    if point.p_value > alpha / 2:
        passed = Assurance(
            "no evidence against",
            "statistical",
            claim.text,
            point.p_value,
            chosen_seed,
            report.target,
        )
        passes.append(passed)
        return passed
    failures.append(Failure(report.target, chosen_seed, point.p_value, reproducible))
    raise AssertionError(statistical_message(report, claim.text, alpha, chosen_seed, reproducible))


def _unfinished(target: str, timeout: float | None, why: str) -> str:
    """The failure of a statistical check that ended before its p-value: no evidence either
    way, and how to give it more time."""
    limit = (
        f" within its time limit of {timeout:g} s (raise it with timeout=…, or pytest "
        "--faier-timeout SECONDS; 0 for none)"
        if timeout is not None
        else ""
    )
    return f"{target}: the statistical test did not finish{limit} ({why}): no evidence either way"


def statistical_message(
    report: Any, claim: str, alpha: float, seed: int, reproducible: bool
) -> str:
    """The failure message of a statistical check: p-value, candidate, counts, seed."""
    point = report.points[0]
    candidate = point.candidate
    n = point.samples
    c1, c2 = point.counts
    left, right = candidate.left.show(), candidate.right.show()
    head = (
        f"{report.target} is not ε = {claim} private: statistical evidence, "
        f"p = {point.p_value:.3g} ≤ α/2 = {alpha / 2:g}"
    )
    rows: list[tuple[str, str]] = [
        ("privacy", report.privacy),
        ("claim", f"ε = {claim}"),
    ]
    interval = report.interval
    if interval is not None and math.isfinite(interval.low):
        where = interval.candidate
        rows.append(
            (
                "ε*",
                f"≥ {interval.lower_bound:.4g} ({interval.confidence:.0%} interval "
                f"[{interval.low:.4g}, {interval.high:.4g}] for {where.event.describe()} "
                f"on {where.left.show()} vs {where.right.show()})",
            )
        )
    rows += [
        ("witness", f"inputs: {left}  vs  {right}"),
        ("", f"output: {candidate.event.describe()}"),
        ("", f"Pr[output | {left}] ≈ {c1}/{n} = {c1 / n:.4g}"),
        ("", f"Pr[output | {right}] ≈ {c2}/{n} = {c2 / n:.4g}"),
        ("", f"ratio ≈ {c1 / c2:.4g} > e^ε = {math.exp(point.epsilon):.4g}" if c2 else "ratio ≈ ∞"),
        ("method", f"{report.method}; {n} runs per input, α = {alpha:g}"),
        ("seed", f"{seed} (replay: seed={seed}, or pytest --faier-seed {seed})"),
    ]
    if not reproducible:
        rows.append(
            ("note", "the mechanism has its own random source: the random seed cannot replay it")
        )
    return _table(head, rows)
