"""The alignment engine's decision: prove ε-DP for every input, or refute it exactly.

1. Run the program symbolically over n symbolic inputs (``execute.py``).
2. For each template family, synthesise an alignment by CEGIS with z3
   (``synthesis.py``); the first that verifies is the proof, re-checked by
   cvc5 (``certificate.py``): "holds" with scope "all inputs".
3. Otherwise decide candidate inputs exactly with the certified engine
   (``refute.py``): first, where the loop's cost grows with n, at the number of
   queries where it passes ε (``horizon.py``); then the counterexamples' inputs
   and the grid; each on the program and, where it releases numbers, on its
   coarsenings.  "violated" only with the certified engine's witness, else
   "unknown" with what was tried.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

import z3

from faier.core.budget import Budget
from faier.core.options import Options
from faier.core.problem import Problem
from faier.engines.alignment import (
    certificate,
    execute,
    horizon,
    induction,
    loops,
    prophecy,
    refute,
    states,
    synthesis,
)
from faier.engines.alignment.execute import both, total
from faier.engines.alignment.synthesis import (
    Counterexample,
    Outcome,
    Setting,
    Undecided,
    obligations,
    synthesise,
)
from faier.engines.alignment.templates import FAMILIES, names_of
from faier.engines.alignment.values import NotAffine
from faier.errors import BudgetExceeded, SpecError
from faier.mechanisms import coarsen
from faier.mechanisms.program import Program
from faier.privacy.budget import Epsilon
from faier.privacy.neighbours import EveryQuery, NeighbourRelation, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Enclosure, Proof, Result, Statistics, Verdict

MAX_PATHS = 4096
LONGER = 3
"""Lengths tried where the loop's cost passes ε: that length and two beyond."""
WIDEN_PATHS = 16
WIDEN_SECONDS = 5.0
"""Under ``auto`` a claim that holds on the grid is tried here with these limits (and no
refutation: the grid already holds), so a proof costs little and a long one is skipped."""


def epsilon_lower(eps: Epsilon) -> Fraction:
    """ε itself when rational, else a rational just below it (costs are rational)."""
    if eps.rational is not None:
        return eps.rational
    value = eps.value
    if not math.isfinite(value) or value <= 0:
        return Fraction(0)
    return Fraction(value) * (1 - Fraction(1, 10**9))


def neighbour_formula(
    relation: EveryQuery | OneQuery,
) -> Callable[[Sequence[z3.ArithRef], Sequence[z3.ArithRef]], z3.BoolRef]:
    """The relation over symbolic vectors (every-query or one-query ±Δ)."""

    def every(x: Sequence[z3.ArithRef], y: Sequence[z3.ArithRef]) -> z3.BoolRef:
        d = z3.RealVal(relation.delta)
        return both([both([b - a <= d, a - b <= d]) for a, b in zip(x, y, strict=True)])

    def one(x: Sequence[z3.ArithRef], y: Sequence[z3.ArithRef]) -> z3.BoolRef:
        moved = total(
            [z3.If(a != b, z3.IntVal(1), z3.IntVal(0)) for a, b in zip(x, y, strict=True)]
        )
        return both([every(x, y), moved <= 1])

    return every if isinstance(relation, EveryQuery) else one


def supported(relation: object) -> bool:
    return isinstance(relation, EveryQuery | OneQuery)


def queries(program: Program[object]) -> int:
    first = next(iter(program.inputs))
    if not isinstance(first, tuple):
        raise SpecError(
            "the alignment engine needs inputs that are vectors of query answers",
            fix="declare inputs=faier.grid(n, m)",
        )
    return len(first)


def _paths(program: Program[object], n: int, limit: int) -> tuple[execute.Path, ...]:
    found = tuple(execute.paths(program.body, n, integer=False, max_paths=limit))
    if any(d.kind == "discrete_laplace" for p in found for d in p.draws):
        return tuple(execute.paths(program.body, n, integer=True, max_paths=limit))
    return found


@dataclass(frozen=True)
class NotEveryN:
    """Why there is no proof for every number of queries, and where the loop's cost passes
    ε when that is why."""

    reason: str
    growth: horizon.Growth | None = None


def _unknown(problem: Problem, eps: Epsilon, reason: str, started: float, method: str) -> Result:
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe() + "; every input (symbolic)",
        method=method,
        verdict=Verdict.UNKNOWN,
        epsilon=eps.text,
        reason=reason,
        statistics=Statistics(seconds=time.perf_counter() - started),
    )


def verify(problem: Problem, eps: Epsilon, options: Options, *, widen: bool = False) -> Result:
    """holds for every input (an alignment, re-checked by cvc5), violated (the certified
    engine's witness on a counterexample's inputs or the grid), or unknown."""
    started = time.perf_counter()
    limit = options.timeout
    if widen:
        limit = WIDEN_SECONDS if limit is None else min(limit, WIDEN_SECONDS)
    budget = Budget(limit, options.max_states)
    program = problem.mechanism
    assert isinstance(program, Program) and isinstance(problem.privacy, DifferentialPrivacy)
    relation = problem.privacy.neighbours
    assert isinstance(relation, EveryQuery | OneQuery)
    n = queries(program)
    method = "randomness alignment synthesised by CEGIS with z3 (CheckDP), re-checked by cvc5"
    try:
        paths = _paths(program, n, WIDEN_PATHS if widen else MAX_PATHS)
    except (execute.Unsupported, NotAffine) as exc:
        return _unknown(problem, eps, f"not modelled: {exc.message}", started, method)
    except BudgetExceeded as exc:
        return _unknown(problem, eps, exc.reason, started, method)
    unit = Fraction(relation.delta)
    integer = any(d.kind == "discrete_laplace" for p in paths for d in p.draws)
    symbols = execute.Symbols(n, integer)
    setting = Setting(paths, symbols, neighbour_formula(relation), epsilon_lower(eps), unit)
    every_n = _every_n(problem, program, eps, setting, relation, budget, started, method)
    if isinstance(every_n, Result):
        return every_n
    cuts = _cuts(paths)
    longer_tried = ""
    if every_n.growth is not None and not widen:
        longer, longer_tried = refute.decide(
            _longer(problem, every_n.growth, relation, n, bool(cuts)),
            eps,
            options,
            cuts,
            budget,
            refute.SECONDS,
        )
        if longer is not None:
            return _violated(problem, eps, longer, n, started, _grew(every_n.growth, eps))
    outcomes: list[Outcome] = []
    try:
        for family in FAMILIES:
            outcome = synthesise(setting, family, budget)
            outcomes.append(outcome)
            if outcome.candidate is not None:
                note = every_n.reason
                if longer_tried:
                    note += f"; {_grew(every_n.growth, eps)}, but no witness was found: "
                    note += longer_tried
                elif every_n.growth is not None and widen:
                    note += f"; {_grew(every_n.growth, eps)}: '--engine alignment' looks there"
                return _proved(problem, eps, setting, outcome, started, method, relation, note)
    except BudgetExceeded as exc:
        return _unknown(problem, eps, exc.reason, started, method)
    except Undecided as exc:
        return _unknown(problem, eps, str(exc), started, method)
    tried = ", ".join(f"{o.family} ({o.rounds} rounds)" for o in outcomes)
    if widen:
        return _unknown(problem, eps, f"no alignment found ({tried})", started, method)
    found: list[Counterexample] = [c for o in outcomes for c in o.counterexamples]
    pairs = refute.candidate_pairs(found, relation)
    attempts = [refute.on_pairs(problem, pairs, n, f"{len(pairs)} counterexample pairs")]
    attempts = attempts if pairs else []
    attempts.append(refute.Attempt("the input grid", problem, n))
    violated, where = refute.decide(attempts, eps, options, cuts, budget)
    if violated is not None:
        return _violated(problem, eps, violated, n, started, f"no alignment ({tried})")
    if longer_tried:
        where += f"; {_grew(every_n.growth, eps)}: {longer_tried}"
    return _unknown(
        problem,
        eps,
        f"no alignment found in the templates ({tried}) and no violation on {where}",
        started,
        method,
    )


def _cuts(paths: Sequence[execute.Path]) -> tuple[Fraction, ...]:
    """Cut points for coarsening the released numbers (none if nothing is released, or if
    the noise is integer: its released numbers are integers, kept by the coarsening): the
    constants of the released numbers and of the conditions, and the noise scales."""
    if not any(p.released for p in paths):
        return ()
    if any(d.kind == "discrete_laplace" for p in paths for d in p.draws):
        return ()
    forms = [f for p in paths for f in p.released]
    forms += [c.form for p in paths for c in p.conditions]
    constants = sorted({abs(f.const) for f in forms if f.const}, key=lambda c: (c, str(c)))
    return coarsen.cut_points(constants, (d.scale for p in paths for d in p.draws))


def _grew(growth: horizon.Growth | None, eps: Epsilon) -> str:
    """Why the refutation looked at another length: no alignment of the loop was found
    keeping the cost within ε there."""
    assert growth is not None
    text = (
        f"no alignment of the query loop was found keeping the cost within ε = {eps.text} "
        f"at n = {growth.length}"
    )
    if growth.length > 1:
        return text + (
            f" (the cost grows with the number of queries: the last alignment found costs at "
            f"most {growth.below} up to n = {growth.length - 1} and {growth.bound} at n = "
            f"{growth.length})"
        )
    return text + f" (the last alignment found costs {growth.bound} there)"


def _longer(
    problem: Problem,
    growth: horizon.Growth,
    relation: EveryQuery | OneQuery,
    declared: int,
    releases: bool,
) -> list[refute.Attempt]:
    """The certified engine's questions at the length where the cost passes ε and a few
    beyond, on inputs shaped like the costliest run there (its changes continued): first
    all answers 0 against the run's changes at each length, then the other shapes.  A
    program that releases numbers is first tried at its declared length, a cheap run that
    tells whether the certified engine refuses what it releases (then it is not asked
    again at the longer lengths, only about coarsenings)."""
    first: list[refute.Attempt] = []
    rest: list[refute.Attempt] = []
    every = isinstance(relation, EveryQuery)
    for extra in range(LONGER):
        n = growth.length + extra
        last = next((c for c in reversed(growth.changes) if c), Fraction(0))
        changes = [*growth.changes, *[last if every else Fraction(0)] * extra]
        pairs = refute.run_pairs(changes, relation)
        if pairs:
            first.append(refute.on_pairs(problem, pairs[:1], n, _shape(pairs[0])))
        rest += [refute.on_pairs(problem, [pair], n, _shape(pair)) for pair in pairs[1:]]
    probe: list[refute.Attempt] = []
    if releases and declared < growth.length and every:
        shifted = refute.run_pairs([Fraction(relation.delta)] * declared, relation)[:1]
        probe = [refute.on_pairs(problem, shifted, declared, _shape(p)) for p in shifted]
    return probe + first + rest


def _shape(pair: refute.Pair) -> str:
    """A pair of inputs as a reader writes it: ``[0,0,0] vs [1,1,1]``."""

    def show(v: Hashable) -> str:
        assert isinstance(v, tuple)
        return "[" + ",".join(str(a) for a in v) + "]"

    return f"{show(pair[0])} vs {show(pair[1])}"


def _violated(
    problem: Problem, eps: Epsilon, found: refute.Found, n: int, started: float, why: str
) -> Result:
    """The certified engine's violation as the alignment engine's verdict: what was decided
    (the length, the pairs, a coarsening) said in the privacy line and the method."""
    result, attempt = found.result, found.attempt
    privacy = f"{problem.privacy.describe()}; at n = {attempt.queries} queries: {attempt.what}"
    if attempt.queries != n:
        privacy += (
            f" (the program's query loop reads any number of queries; its input grid has {n})"
        )
    method = f"{why}; the certified engine decided {attempt.what} exactly: {result.method}"
    witness = result.certified_witness
    enclosure = result.enclosure
    if found.cuts is not None and witness is not None:
        event = coarsen.describe(found.cuts)
        own = found.attained == witness.output
        witness = replace(witness, output=f"{witness.output}, {event}")
        method = (
            f"{why}; the certified engine decided {attempt.what} on the program with {event} "
            "(a function of the output alone, so its witness event is one of the program "
            f"too): {result.method}"
        )
        loss = found.loss
        if loss is not None:
            enclosure = Enclosure(loss.lower, math.inf)
            shown = loss.closed_form or f"{loss.lower:.10g}"
            source = (
                "the witness event's loss, the largest of the coarsened outputs on its pair"
                if own
                else f"the loss of the coarsened output {found.attained} on the witness pair, "
                "the largest there"
            )
            method += f"; ε* ≥ {shown}, {source}: a lower bound (the program's ε* may be larger)"
    return replace(
        result,
        target=problem.name,
        privacy=privacy,
        method=method,
        certified_witness=witness,
        enclosure=enclosure,
        statistics=replace(result.statistics, seconds=time.perf_counter() - started),
    )


def _proved(
    problem: Problem,
    eps: Epsilon,
    setting: Setting,
    outcome: Outcome,
    started: float,
    method: str,
    relation: NeighbourRelation,
    every_n: str,
) -> Result:
    assert outcome.candidate is not None
    duties = obligations(setting, outcome.candidate, outcome.groups, outcome.of_path)
    second = certificate.recheck(duties)
    if second.failure is not None:
        return _unknown(
            problem, eps, f"z3 proved the alignment but {second.failure}", started, method
        )
    proof = certificate.build(
        setting, outcome.candidate, outcome.groups, duties, second, relation.describe(), eps.text
    )
    proof = replace(
        proof,
        lines=(*proof.lines, f"for every number of queries: not proved ({every_n})"),
        data={**proof.data, "every_n": every_n},
    )
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe()
        + f"; every real input of {len(setting.symbols.x)} queries (symbolic), not a grid",
        method=method,
        verdict=Verdict.HOLDS,
        epsilon=eps.text,
        reason=None,
        statistics=Statistics(seconds=time.perf_counter() - started, explored=len(setting.paths)),
        proof=proof,
    )


def _every_n(
    problem: Problem,
    program: Program[object],
    eps: Epsilon,
    setting: Setting,
    relation: EveryQuery | OneQuery,
    budget: Budget,
    started: float,
    method: str,
) -> Result | NotEveryN:
    """A proof for every number of queries (``induction.py``), or why there is none (and
    where the loop's cost passes ε: ``horizon.py``)."""
    costly: list[horizon.Assignment] = []
    try:
        loop = loops.split(program.body)
        graph = states.explore(loop, setting.symbols.integer, budget)
        proof = induction.prove(
            graph,
            setting.unit,
            setting.epsilon,
            setting.symbols.integer,
            isinstance(relation, OneQuery),
            budget,
            costly=costly,
        )
        family = "side"
        if proof is None and isinstance(relation, EveryQuery) and prophecy.applies(graph) is None:
            proof = prophecy.prove(graph, setting.unit, setting.epsilon, budget)
            family = "winner"
        growth = None
        if proof is None:
            growth = horizon.growth(
                graph,
                setting.unit,
                setting.epsilon,
                setting.symbols.integer,
                isinstance(relation, OneQuery),
                budget,
                costly[0] if costly else None,
            )
    except (loops.NotALoop, NotAffine, execute.Unsupported) as exc:
        return NotEveryN(f"not a query loop the engine follows: {exc.message}")
    if proof is None:
        return NotEveryN("no alignment of the loop keeps its cost bounded by ε for every n", growth)
    duties = [synthesis.Obligation("path", 0, None, formula) for formula in proof.obligations]
    if proof.costs:
        duties.append(synthesis.Obligation("cost", 0, None, execute.either(list(proof.costs))))
    second = certificate.recheck(duties)
    if second.failure is not None:
        return NotEveryN(f"z3 proved the loop's alignment but {second.failure}")
    draws = [d for step in graph.steps for d in step.draws] + list(graph.pre_draws)
    draws += [d for _, _, post in graph.post for d in post]
    kinds = {d.site: d for d in draws}
    names = names_of(list(kinds))
    lines = induction.describe(proof, names, kinds, eps.text)
    lines.append(
        f"  z3: {len(proof.obligations)} iteration obligations (the aligned iteration takes "
        "the same path, appends the same items, keeps the distances)"
        + f" and one over the {len(proof.costs)} edge costs" * bool(proof.costs)
        + f" unsat; {second.solver}: "
        + (f"the same {second.confirmed} unsat" if second.confirmed else "not re-checked")
    )
    data: dict[str, object] = {
        "queries": "every n",
        "family": family,
        "shifts": [
            {
                "site": names[site],
                "noise": kinds[site].describe(),
                "selector": selector,
                "constant": str(c),
                "companion": str(d),
            }
            for site, selector, c, d in proof.holes
        ],
        "distances": {name: str(d) for name, d in proof.distances},
        "moved": {name: [str(c), str(e)] for name, c, e in proof.moved},
        "bounds_before_winner": {name: str(b) for name, b in proof.bounds},
        "largest_cost": str(proof.largest_cost),
        "epsilon": eps.text,
        "counter_branches": [induction.guard_text(site) for site in proof.guards],
        "companions": {names[site]: text for site, text in proof.hides},
        "loop_states": proof.states,
        "iteration_paths": proof.steps,
        "obligations": len(duties),
        "solvers": ["z3"] + (["cvc5"] if second.confirmed else []),
    }
    return Result(
        target=problem.name,
        privacy=problem.privacy.describe() + "; every real input, every number of queries",
        method=method + "; the loop's alignment an invariant over every number of queries",
        verdict=Verdict.HOLDS,
        epsilon=eps.text,
        statistics=Statistics(seconds=time.perf_counter() - started, explored=proof.steps),
        proof=Proof("all inputs", tuple(lines), data),
    )
