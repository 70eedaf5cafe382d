"""The SMT engine's entry points: decide ε-privacy, compute sup ε*, for all parameters.

Both return the same :class:`Result` as the exact engine.  "holds" comes
only from unsat answers covering every comparison, outcome and parameter
value (or from exact arithmetic when nothing is unknown); "violated" only
with a witness recomputed exactly at rational parameter values; a timeout
or a solver's unknown is "unknown", with the time spent.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from faier.core import parametric
from faier.core.problem import Problem
from faier.engines import exact
from faier.engines.smt import faithful
from faier.engines.smt.fast import FastSearch, Found, ratio_bounds, region_query, search
from faier.engines.smt.portfolio import SolverPool
from faier.engines.smt.question import Question, build
from faier.engines.smt.session import Session, SolverSettings
from faier.engines.smt.supremum import SupremumSearch
from faier.engines.smt.tables import Table, build_tables
from faier.engines.smt.validation import validate
from faier.engines.smt.witness import candidates, describe
from faier.errors import BudgetExceeded, SpecError
from faier.privacy.budget import Epsilon
from faier.privacy.symbolic import SymbolicComparison
from faier.results import (
    Loss,
    ParameterValue,
    ParametricReport,
    Result,
    Statistics,
    Verdict,
    Witness,
)


def _witness(
    comparison: SymbolicComparison, label: tuple[str, ...], p: Fraction, q: Fraction
) -> Witness:
    return Witness(comparison.left_name, comparison.right_name, label, p, q, comparison.kind)


def _privacy(problem: Problem) -> str:
    text = problem.privacy.describe()
    if problem.horizon is not None and problem.is_sequential:
        text += f", horizon {problem.horizon}"
    return text


def _tables(question: Question, session: Session) -> list[Table]:
    return build_tables(question, session.budget())


def _region(
    question: Question, fast: FastSearch, eps: Epsilon
) -> tuple[str | None, tuple[ParameterValue, ...]]:
    """After a violation: does ε hold anywhere in the domain?  (Points are checked exactly.)"""
    if eps.exp_ratio is None or not question.variables:
        return None, ()
    answer = fast.session.ask(region_query(fast, eps.exp_ratio))
    if answer.status == "unsat":
        return "violated for every parameter value in the domain", ()
    if answer.status != "sat":
        return f"unknown where ε holds ({answer.explain()})", ()
    for point in candidates(answer.model, question.space):
        if not question.space.contains(point):
            continue
        try:
            checked = exact.verify(parametric.at_point(question.problem, point), eps)
        except SpecError:
            continue
        if checked.verdict is Verdict.HOLDS:
            return "holds at some parameter values, violated at others", describe(
                point, answer.model, question.space
            )
    return "unknown where ε holds (the solver's point did not survive the exact check)", ()


def verify(
    problem: Problem,
    eps: Epsilon,
    options: SolverSettings | None = None,
    pool: SolverPool | None = None,
) -> Result:
    """Decide ε-privacy for every parameter value in the domain (or find where it fails).

    ``pool``: an entered :class:`SolverPool` to reuse (workers stay warm across calls).
    """
    options = options or SolverSettings()
    started = time.perf_counter()
    question = build(problem)
    space = question.space.describe()
    with Session(options, problem.name, pool) as session:
        validate(question, session.ask)
        region: str | None = None
        holds_at: tuple[ParameterValue, ...] = ()
        witness: Witness | None = None
        point: tuple[ParameterValue, ...] = ()
        if options.encoding == "faithful":
            low, _ = ratio_bounds(eps, 15)
            status, finding, reason = faithful.run(question, eps, low, session)
            method = (
                f"smt, the FAIER papers' Algorithm 1 (k = 1..{question.horizon}, "
                "observation variables selected by ite)"
            )
            if finding is not None:
                witness = _witness(
                    finding.comparison, finding.outcome.label, finding.checked.p, finding.checked.q
                )
                point = finding.values
        else:
            method = "smt, fast encoding (one polynomial query per comparison and outcome)"
            try:
                tables = _tables(question, session)
            except BudgetExceeded as stop:
                tables, status, reason = [], "unknown", stop.reason
            else:
                fast = FastSearch(question, tables, session)
                verdict = search(fast, eps)
                status, reason = verdict.status, verdict.reason
                if verdict.found is not None:
                    found = verdict.found
                    witness = _witness(
                        found.table.comparison,
                        found.outcome.label,
                        found.checked.p,
                        found.checked.q,
                    )
                    point = found.values
                    if options.region:
                        region, holds_at = _region(question, fast, eps)
        summary = session.summary()
    if status == "holds" and question.variables:
        region = "holds for every parameter value in the domain"
    verdicts = {"holds": Verdict.HOLDS, "violated": Verdict.VIOLATED, "unknown": Verdict.UNKNOWN}
    seconds = time.perf_counter() - started
    return Result(
        target=problem.name,
        privacy=_privacy(problem),
        method=method,
        verdict=verdicts[status],
        epsilon=str(eps),
        witness=witness,
        reason=f"{reason} (after {seconds:.2f} s)" if status == "unknown" else None,
        statistics=Statistics(seconds, len(question.comparisons), session.queries),
        parametric=ParametricReport(space, point, summary, region, holds_at),
    )


def _found_witness(found: Found) -> Witness:
    return _witness(found.table.comparison, found.outcome.label, found.checked.p, found.checked.q)


def epsilon(
    problem: Problem, options: SolverSettings | None = None, pool: SolverPool | None = None
) -> Result:
    """sup over the parameter domain of ε*, to ``options.precision``, and whether attained."""
    options = options or SolverSettings()
    if options.encoding == "faithful":
        raise SpecError(
            "ε* over a parameter domain is computed with the fast encoding",
            where="--encoding faithful",
            fix="leave --encoding out (Algorithm 1 decides a given ε: use faier verify)",
        )
    started = time.perf_counter()
    question = build(problem)
    with Session(options, problem.name, pool) as session:
        validate(question, session.ask)
        try:
            tables = _tables(question, session)
        except BudgetExceeded as stop:
            return Result(
                problem.name,
                _privacy(problem),
                "smt, fast encoding",
                reason=stop.reason,
                statistics=Statistics(time.perf_counter() - started),
            )
        fast = FastSearch(question, tables, session)
        sup = SupremumSearch(fast, options.precision).run()
        summary = session.summary()
    seconds = time.perf_counter() - started
    method = (
        "smt, fast encoding: bisection on e^ε (lower bounds exact at a point, upper bounds unsat)"
    )
    if sup.bernstein:
        method += f"; {sup.bernstein} upper bounds by Bernstein bounds on the domain box"
    witness = _found_witness(sup.found) if sup.found is not None else None
    point = sup.found.values if sup.found is not None else ()
    upper = Loss(sup.upper) if sup.upper is not None and sup.exact is None else None
    within = (
        sup.exact is None
        and sup.upper is not None
        and sup.lower is not None
        and not sup.infinite
        and math.log(sup.upper / sup.lower) <= float(options.precision)
    )
    report = ParametricReport(
        question.space.describe(),
        point,
        summary,
        upper=upper,
        attained=sup.attained,
        limit=sup.limit,
        within_precision=within,
    )
    statistics = Statistics(seconds, len(question.comparisons), session.queries)
    if sup.infinite:
        star: Loss | None = Loss(None)
    elif sup.exact is not None:
        star = Loss(sup.exact)
    else:
        star = None
    lower = Loss(sup.lower) if star is None and sup.lower is not None else None
    reason = None
    if star is None:
        reason = sup.reason or (
            f"ε* lies between the bounds (precision {float(options.precision):g})"
            if sup.upper is not None
            else "no bound found"
        )
        reason += f" (after {seconds:.2f} s)"
    return Result(
        target=problem.name,
        privacy=_privacy(problem),
        method=method,
        epsilon_star=star,
        lower_bound=lower,
        witness=witness,
        reason=reason,
        statistics=statistics,
        parametric=report,
    )
