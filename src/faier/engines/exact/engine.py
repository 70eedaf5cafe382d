"""The exact engine: ε*, (ε, δ) and verdicts in exact rational arithmetic.

One-shot programs go through distribution mode, HMMs and interactive
mechanisms through sequence mode.  A verdict is *holds* only when the whole
question was searched exhaustively, *violated* only with a witness whose two
probabilities were recomputed from scratch, and *unknown* otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import (
    branch_and_bound,
    certificate,
    distribution_mode,
    hooks,
    pruning,
    sequence_mode,
)
from faier.engines.exact.losses import (
    Event,
    Transcript,
    exceeds_delta,
    smallest_exp_epsilon,
    worst_outcome,
)
from faier.engines.exact.orbit_search import OrbitSearch
from faier.errors import BudgetExceeded, InternalError, SpecError
from faier.mechanisms.interactive import Interactive
from faier.model.distribution import Distribution
from faier.model.hmm import HMM, MAX_HORIZON
from faier.privacy.budget import Epsilon
from faier.privacy.specs import Comparison, InteractiveDP
from faier.results import HorizonRow, Loss, Result, Statistics, UnboundedLoss, Verdict, Witness

Outcomes = dict[Transcript, tuple[Fraction, Fraction]]


@dataclass
class Analysis:
    """What one exhaustive (or interrupted) run found."""

    worst: Loss | None = None
    witness: Witness | None = None
    horizons: list[HorizonRow] = field(default_factory=list)
    outcomes: list[tuple[Witness, Outcomes]] = field(default_factory=list)
    complete: bool = True
    bounded: bool = True
    reason: str | None = None
    comparisons: int = 0
    method: str = ""
    recheck: Any = None
    counts: pruning.SearchCounts = field(default_factory=pruning.SearchCounts)
    certificate: certificate.Certificate | None = None
    sequences: Any = None
    assumptions: tuple[str, ...] = ()


def _json_input(x: Hashable) -> Any:
    return list(x) if isinstance(x, tuple) else x


def _side_witness(
    comparison: Comparison[Hashable], output: tuple[str, ...], p: Fraction, q: Fraction
) -> Witness:
    single = (
        comparison.kind == "inputs" and len(comparison.left) == 1 and len(comparison.right) == 1
    )
    return Witness(
        left=comparison.left_name,
        right=comparison.right_name,
        output=output,
        p=p,
        q=q,
        kind="inputs" if single else "initial",
        left_value=_json_input(comparison.left.items[0][0]) if single else None,
        right_value=_json_input(comparison.right.items[0][0]) if single else None,
    )


def _analyse_distribution(
    problem: Problem, budget: Budget, analysis: Analysis, *, collect_outcomes: bool
) -> None:
    mechanism = problem.mechanism
    assert not isinstance(mechanism, HMM | Interactive)
    name = mechanism.output_name
    grid = None if collect_outcomes else distribution_mode.grid_search(mechanism, problem.privacy)
    if grid is not None:
        analysis.method = grid.describe()
        if grid.build(budget):
            analysis.comparisons = grid.comparisons
            for best in grid.run(budget):
                analysis.worst = best.loss
                analysis.witness = _side_witness(
                    best.comparison, (name(best.output),), best.p, best.q
                )
                analysis.recheck = (best.comparison, best.output)
                analysis.method = grid.describe()
            analysis.method = grid.describe()
            if isinstance(grid, OrbitSearch):
                analysis.assumptions = grid.assumptions()
            return
    inputs = mechanism.inputs.values
    comparisons = problem.privacy.comparisons(inputs)  # type: ignore[union-attr]
    analysis.method = "exact: distribution mode (exact output distribution per input)"
    for compared in distribution_mode.compare_outputs(mechanism, comparisons, budget):
        analysis.comparisons += 1
        worst = worst_outcome((o, p, q) for o, (p, q) in compared.outcomes.items())
        if collect_outcomes:
            outcomes: Outcomes = {((None, name(o)),): pq for o, pq in compared.outcomes.items()}
            base = _side_witness(compared.comparison, (), Fraction(0), Fraction(0))
            analysis.outcomes.append((base, outcomes))
        if worst is not None and (analysis.worst is None or worst.loss.exceeds(analysis.worst)):
            analysis.worst = worst.loss
            analysis.witness = _side_witness(
                compared.comparison, (name(worst.outcome),), worst.p, worst.q
            )
            analysis.recheck = (compared.comparison, worst.outcome)


def _sequence_setup(
    problem: Problem, budget: Budget
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison], int, bool]:
    mechanism = problem.mechanism
    if isinstance(mechanism, HMM):
        system = sequence_mode.hmm_system(mechanism)
        comparisons = problem.privacy.comparisons(mechanism.states)  # type: ignore[union-attr]
        seq = sequence_mode.hmm_comparisons(mechanism, comparisons)
        if problem.horizon is None:
            raise SpecError(
                f"{problem.name} needs a horizon (the length of observation sequences)",
                fix="pass --horizon K or write 'horizon: K' in the model file",
            )
        return system, seq, problem.horizon, True
    assert isinstance(mechanism, Interactive) and isinstance(problem.privacy, InteractiveDP)
    system, starts = sequence_mode.interactive_system(
        mechanism, delta=problem.privacy.delta, max_states=budget.max_states
    )
    seq = []
    for label, index in starts.items():
        point: Distribution[Hashable] = Distribution.point(label)
        comparison = Comparison(point, point, label, label, "inputs")
        seq.append(
            sequence_mode.SequenceComparison({index: Fraction(1)}, {index: Fraction(1)}, comparison)
        )
    if problem.horizon is None:
        longest = sequence_mode.halting_depth(system, starts.values())
        if longest is not None and longest <= MAX_HORIZON:  # every run halts by then
            return system, seq, longest, True
        return system, seq, mechanism.default_horizon, False
    return system, seq, problem.horizon, True


def _analyse_sequences(
    problem: Problem,
    budget: Budget,
    analysis: Analysis,
    *,
    collect_leaves: bool,
    arithmetic: str,
) -> None:
    system, comparisons, horizon, bounded = _sequence_setup(problem, budget)
    analysis.bounded = bounded
    halts = " (every run halts by then)" if bounded and problem.horizon is None else ""
    analysis.comparisons = len(comparisons)
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    finished = False
    try:
        if collect_leaves:
            analysis.method = f"exact: exhaustive sequence search up to horizon {horizon}{halts}"
            sequence_mode.search(system, comparisons, horizon, budget, state, collect_leaves=True)
        else:
            counts = analysis.counts
            analysis.method = (
                f"exact: sequence search with merging and pruning up to horizon {horizon}{halts}"
            )
            run = hooks.SEQUENCE_SEARCH.get() or branch_and_bound.merged_search
            run(
                system,
                comparisons,
                horizon,
                budget,
                state,
                counts=counts,
                progress=budget.progress,
                arithmetic=arithmetic,
            )
            analysis.method += _search_details(counts, arithmetic)
        finished = True
        analysis.sequences = (system, comparisons)
        if not bounded and not collect_leaves:
            if not analysis.counts.cut:
                analysis.bounded = True  # every run ended before the horizon: nothing beyond
            elif not any(r is not None and r.loss.infinite for r in state.best):
                analysis.certificate = certificate.find_certificate(system, comparisons)
    finally:
        records = sequence_mode.cumulative(state)
        witnesses = sequence_mode.sequence_witnesses(system, comparisons, records)
        for k, (record, witness) in enumerate(zip(records, witnesses, strict=True), start=1):
            if record is not None:
                analysis.horizons.append(HorizonRow(k, record.loss, witness, exact=finished))
        if analysis.horizons:
            top = analysis.horizons[-1]
            analysis.worst, analysis.witness = top.loss, top.witness
            record = next(r for r in reversed(sequence_mode.cumulative(state)) if r is not None)
            analysis.recheck = (system, comparisons[record.comparison], record.path)
        for index, leaves in state.leaves.items():
            base = sequence_mode.sequence_witness(
                system, comparisons[index], (), Fraction(0), Fraction(0)
            )
            named: Outcomes = {
                tuple((system.symbols[s].answers, system.symbols[s].observation) for s in path): pq
                for path, pq in leaves.items()
            }
            analysis.outcomes.append((base, named))


def _search_details(counts: pruning.SearchCounts, arithmetic: str) -> str:
    """How the incumbents were found and what the floats left to exact arithmetic."""
    source = f"{counts.pattern_runs} StatDP pattern runs" if counts.pattern_runs else "a beam"
    text = f" (incumbents from {source}"
    if arithmetic == "float" and counts.fell_back:
        text += f"; float64 frontier handed back to exact arithmetic: {counts.fell_back}"
    elif arithmetic == "float":
        text += (
            f"; float64 frontier, {counts.ball_steps} certified-ball and "
            f"{counts.rechecked} exact steps at the margin"
        )
    if counts.lookahead:
        text += f"; bounds over the last {counts.lookahead} steps exact (lookahead)"
    return text + ")"


ARITHMETICS = ("float", "exact")


def _analyse(
    problem: Problem, budget: Budget, *, collect_outcomes: bool, arithmetic: str = "float"
) -> Analysis:
    if arithmetic not in ARITHMETICS:
        raise SpecError(
            f"unknown arithmetic {arithmetic!r}",
            where="--arithmetic",
            fix="use 'float' (float64 frontier, exact decisions at the margin) or 'exact'",
        )
    analysis = Analysis()
    try:
        if problem.is_sequential:
            _analyse_sequences(
                problem,
                budget,
                analysis,
                collect_leaves=collect_outcomes,
                arithmetic=arithmetic,
            )
        else:
            _analyse_distribution(problem, budget, analysis, collect_outcomes=collect_outcomes)
    except BudgetExceeded as stop:
        analysis.complete = False
        analysis.reason = stop.reason
    except KeyboardInterrupt:
        analysis.complete = False
        analysis.reason = "interrupted; the bounds found so far are shown"
    return analysis


def _recheck(problem: Problem, analysis: Analysis) -> None:
    """Recompute the witness probabilities from scratch; disagreement is a bug."""
    if analysis.witness is None or analysis.recheck is None:
        return
    if problem.is_sequential:
        system, comparison, path = analysis.recheck
        p, q = sequence_mode.recompute(system, comparison, path)
    else:
        comparison, outcome = analysis.recheck
        mechanism = problem.mechanism
        assert not isinstance(mechanism, HMM | Interactive)
        p = q = Fraction(0)
        for x, w in comparison.left:
            p += w * mechanism.output_distribution(x).prob(outcome)
        for x, w in comparison.right:
            q += w * mechanism.output_distribution(x).prob(outcome)
    if (p, q) != (analysis.witness.p, analysis.witness.q):
        raise InternalError(
            f"witness probabilities {analysis.witness.p}, {analysis.witness.q} "
            f"did not recompute ({p}, {q})"
        )


def _unbounded(analysis: Analysis) -> UnboundedLoss | None:
    """The certificate in the mechanism's terms, for the result."""
    cert = analysis.certificate
    if cert is None:
        return None
    system, comparisons = analysis.sequences

    def show(path: tuple[int, ...]) -> tuple[str, ...]:
        out = []
        for sym in path:
            step = system.symbols[sym]
            answers = (
                "" if step.answers is None else f"answers {step.answers[0]} vs {step.answers[1]} → "
            )
            out.append(answers + step.observation)
        return tuple(out)

    return UnboundedLoss(
        comparison=comparisons[cert.comparison].comparison.left_name,
        prefix=show(cert.prefix),
        block=show(cert.block),
        state=system.state_names[cert.state] if system.state_names else f"state {cert.state}",
        constant=cert.constant,
        pi_rate=cert.pi_rate,
        tau_rate=cert.tau_rate,
    )


def _certified_witness(analysis: Analysis, eps: Epsilon) -> Witness:
    """A transcript from the certificate whose exactly recomputed loss exceeds e^ε."""
    cert = analysis.certificate
    assert cert is not None
    system, comparisons = analysis.sequences
    comparison = comparisons[cert.comparison]
    path = cert.path(cert.repetitions_for(eps))
    p, q = sequence_mode.recompute(system, comparison, path)
    if not eps.exceeded_by(None if q == 0 else p / q):
        raise InternalError("the unbounded-loss certificate did not reproduce")
    return sequence_mode.sequence_witness(system, comparison, path, p, q)


def _statistics(started: float, analysis: Analysis, budget: Budget) -> Statistics:
    return Statistics(
        seconds=time.perf_counter() - started,
        comparisons=analysis.comparisons,
        explored=budget.explored,
        pruned=analysis.counts.pruned,
        merged=analysis.counts.merged,
    )


def _describe(problem: Problem) -> str:
    text = problem.privacy.describe()
    if problem.horizon is not None and problem.is_sequential:
        text += f", horizon {problem.horizon}"
    return text


def epsilon(
    problem: Problem,
    *,
    delta: Fraction | None = None,
    budget: Budget | None = None,
    arithmetic: str = "float",
) -> Result:
    """The exact ε* (or, with δ, the least ε with δ(ε) ≤ δ) and its witness.

    ``arithmetic`` steers the sequence search: ``"float"`` runs it on a
    float64 frontier with every decision near the margin settled exactly,
    ``"exact"`` uses rationals throughout; both give the same exact answer.
    """
    budget = budget or Budget()
    started = time.perf_counter()
    analysis = _analyse(problem, budget, collect_outcomes=delta is not None, arithmetic=arithmetic)
    _recheck(problem, analysis)
    epsilon_star = analysis.worst
    witness = analysis.witness
    if delta and analysis.complete:
        epsilon_star, witness = _epsilon_for_delta(analysis, delta)
    stats = _statistics(started, analysis, budget)
    reason = analysis.reason
    infinite = analysis.worst is not None and analysis.worst.infinite and not delta
    known = analysis.complete and (analysis.bounded or infinite)
    method = analysis.method
    if analysis.certificate is not None and not delta:
        epsilon_star, known = Loss(None), True
        method += "; no finite ε: unbounded-loss certificate"
    elif analysis.complete and not known:
        reason = (
            f"ε*(k) computed exactly for k ≤ {len(analysis.horizons) or 0}; unknown beyond "
            "(give --horizon K to ask about K queries)"
        )
    return Result(
        target=problem.name,
        privacy=_describe(problem),
        method=method,
        delta=delta,
        epsilon_star=epsilon_star if known else None,
        lower_bound=None if known else epsilon_star,
        witness=witness,
        horizons=tuple(analysis.horizons),
        reason=None if known else reason,
        statistics=stats,
        certificate=_unbounded(analysis) if not delta else None,
        assumptions=analysis.assumptions,
    )


def _epsilon_for_delta(analysis: Analysis, delta: Fraction) -> tuple[Loss, Witness | None]:
    best: Loss | None = None
    witness: Witness | None = None
    for base, outcomes in analysis.outcomes:
        loss, event = smallest_exp_epsilon(outcomes, delta)
        if best is None or loss.exceeds(best):
            best, witness = loss, _event_witness(base, event)
    return best or Loss(Fraction(1)), witness


MAX_EVENT_OUTPUTS = 12


def _event_witness(base: Witness, event: Event) -> Witness:
    """A witness for (ε, δ): the event S (its transcripts) with P(S) and Q(S)."""
    shown = [" ".join(obs for _, obs in t) for t in event.outcomes[:MAX_EVENT_OUTPUTS]]
    if len(event.outcomes) > MAX_EVENT_OUTPUTS:
        shown.append(f"… ({len(event.outcomes)} outputs in all)")
    return Witness(
        base.left,
        base.right,
        tuple(shown),
        event.p,
        event.q,
        base.kind,
        base.left_value,
        base.right_value,
    )


def verify(
    problem: Problem,
    eps: Epsilon,
    *,
    delta: Fraction | None = None,
    budget: Budget | None = None,
    arithmetic: str = "float",
) -> Result:
    """Decide ε-privacy (or (ε, δ)-privacy) exactly (``arithmetic`` as for :func:`epsilon`)."""
    budget = budget or Budget()
    started = time.perf_counter()
    analysis = _analyse(problem, budget, collect_outcomes=delta is not None, arithmetic=arithmetic)
    _recheck(problem, analysis)
    witness = analysis.witness
    delta_star: Fraction | None = None
    if delta is None:
        violated = analysis.worst is not None and eps.exceeded_by(analysis.worst.ratio)
    else:
        violated = False
        worst_delta: Fraction | None = None
        for base, outcomes in analysis.outcomes:
            exceeded, event, value = exceeds_delta(outcomes, eps, delta)
            if value is not None and (worst_delta is None or value > worst_delta):
                worst_delta = value
            if exceeded and not violated:
                violated = True
                witness = _event_witness(base, event)
        delta_star = worst_delta if analysis.complete else None
    if violated and delta is None and analysis.horizons:
        first = next(h for h in analysis.horizons if eps.exceeded_by(h.loss.ratio))
        witness = first.witness
    method = analysis.method
    if not violated and delta is None and analysis.certificate is not None:
        violated, witness = True, _certified_witness(analysis, eps)
        method += "; transcript from the unbounded-loss certificate"
    if violated:
        verdict, reason = Verdict.VIOLATED, None
    elif analysis.complete and analysis.bounded:
        verdict, reason = Verdict.HOLDS, None
    elif analysis.complete:
        verdict = Verdict.UNKNOWN
        reason = (
            f"holds for every horizon k ≤ {len(analysis.horizons)}; unknown beyond "
            "(give --horizon K to ask about K queries)"
        )
    else:
        verdict, reason = Verdict.UNKNOWN, analysis.reason
    known = analysis.complete and analysis.bounded
    return Result(
        target=problem.name,
        privacy=_describe(problem),
        method=method,
        verdict=verdict,
        epsilon=str(eps),
        delta=delta,
        epsilon_star=(
            Loss(None)
            if analysis.certificate is not None and delta is None
            else analysis.worst
            if known and delta is None
            else None
        ),
        lower_bound=(
            analysis.worst if not known and delta is None and analysis.certificate is None else None
        ),
        witness=witness if verdict is Verdict.VIOLATED or delta is None else None,
        horizons=tuple(analysis.horizons),
        delta_star=delta_star,
        reason=reason,
        statistics=_statistics(started, analysis, budget),
        certificate=_unbounded(analysis) if delta is None else None,
        assumptions=analysis.assumptions,
    )
