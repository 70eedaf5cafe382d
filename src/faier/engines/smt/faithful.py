"""The FAIER papers' Algorithm 1 (PufferfishCheck), encoded as they describe it.

For an HMM, a comparison (π, τ), c = e^ε and a length k, observation
variables w_0 … w_{k-1} (Int, w_t ∈ Ω) select each step's emission by
nested ite (SELECT); the forward vectors are built with PRODUCT, DOT and
SUM exactly as in the pseudocode, and the query asserts
SUM(α_{k-1}) > c·SUM(β_{k-1}) (GT).  sat gives the violating observation
sequence (and parameter values), unsat proves the comparison private at
length k.  Looping models are checked for k = 1, 2, … up to the horizon.
A one-shot program is seen as the HMM whose states are its inputs and whose
emissions are their exact output distributions (FAIER papers Fig. 1c).  Forward
terms that are constant zeros are left out (the solver would simplify them
away); everything else is as in the pseudocode.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.engines.smt import smtlib
from faier.engines.smt.encode import space_assertions
from faier.engines.smt.fast import BRACKET_DIGITS, ratio_bounds
from faier.engines.smt.polynomial import Polynomial
from faier.engines.smt.question import Question
from faier.engines.smt.session import Session
from faier.engines.smt.smtlib import Query
from faier.engines.smt.solvers import ModelValue
from faier.engines.smt.tables import Outcome
from faier.engines.smt.witness import Checked, candidates, describe, recompute
from faier.errors import InternalError
from faier.model.hmm import HMM
from faier.model.probability import Probability, is_symbolic
from faier.model.values import show_input
from faier.privacy.budget import Epsilon
from faier.privacy.symbolic import SymbolicComparison
from faier.results import ParameterValue

if TYPE_CHECKING:
    import sympy


@dataclass(frozen=True)
class View:
    """The HMM Algorithm 1 runs on, and how its states and observations map back."""

    hmm: HMM
    state_of: dict[Hashable, str]
    output_of: dict[str, Hashable]


def view(question: Question) -> View:
    """The question's HMM, or a one-shot program as an HMM over its inputs (Fig. 1c)."""
    if question.hmm is not None:
        hmm = question.hmm
        return View(hmm, {s: s for s in hmm.states}, {})
    program = question.program
    assert program is not None
    inputs: dict[Hashable, None] = {}
    for comparison in question.comparisons:
        inputs.update(dict.fromkeys(comparison.left.support()))
        inputs.update(dict.fromkeys(comparison.right.support()))
    tables = {x: program.output_distribution(x).as_dict() for x in inputs}
    outputs: dict[str, Hashable] = {}
    for table in tables.values():
        for output in table:
            outputs.setdefault(program.output_name(output), output)
    names = {x: show_input(x) for x in inputs}
    states = tuple(names.values())
    observations = tuple(outputs)
    emission = tuple(
        tuple(tables[x].get(outputs[o], Fraction(0)) for o in observations) for x in inputs
    )
    transition = tuple(
        tuple(Fraction(int(i == j)) for j in range(len(states))) for i in range(len(states))
    )
    return View(HMM(states, observations, transition, emission), names, outputs)


def _term(p: Probability) -> str:
    if isinstance(p, Fraction):
        return smtlib.real(p, decimal=True)
    return smtlib.expression(p, decimal=True)


def _select(w: str, row: Sequence[Probability]) -> str:
    """SELECT(w, Ω, o(s, ·)): nested ite over the observations."""
    text = smtlib.real(Fraction(0), decimal=True)
    for index in reversed(range(len(row))):
        text = f"(ite (= {w} {index}) {_term(row[index])} {text})"
    return text


def _denominators(question: Question, hmm: HMM, comparison: SymbolicComparison) -> list[str]:
    """Every symbolic denominator must be non-zero: division by 0 is unspecified in SMT-LIB."""
    import sympy

    found: dict[sympy.Expr, None] = {}
    weights = [w for _, w in comparison.left.items] + [w for _, w in comparison.right.items]
    entries = [p for row in (*hmm.transition, *hmm.emission) for p in row if is_symbolic(p)]
    for expr in [*weights, *entries]:
        denominator = sympy.fraction(sympy.together(expr))[1]
        if denominator.free_symbols:
            found[denominator] = None
    for mass in (comparison.left_mass, comparison.right_mass):
        numerator, denominator = sympy.fraction(sympy.together(mass))
        for part in (numerator, denominator):
            if part.free_symbols:
                found[part] = None
    return [f"(not (= {smtlib.expression(d, decimal=True)} 0.0))" for d in found]


def _forward(
    side: str, k: int, hmm: HMM, initial: dict[str, Probability]
) -> tuple[list[str], list[str]]:
    """define-funs for α_t(s) (or β_t(s)) and the names of α_{k-1}."""
    n = len(hmm.states)
    index = {name: i for i, name in enumerate(hmm.states)}
    definitions: list[str] = []
    current: dict[int, str] = {}
    for name, weight in initial.items():
        s = index[name]
        label = f"{side}_0_{s}"
        definitions.append(
            f"(define-fun {label} () Real (* {_term(weight)} {_select('w0', hmm.emission[s])}))"
        )
        current[s] = label
    for t in range(1, k):
        following: dict[int, str] = {}
        for s2 in range(n):
            terms = [
                f"(* {current[s]} {_term(hmm.transition[s][s2])})"
                for s in current
                if hmm.transition[s][s2] != 0
            ]
            if not terms:
                continue
            dot = terms[0] if len(terms) == 1 else f"(+ {' '.join(terms)})"
            label = f"{side}_{t}_{s2}"
            definitions.append(
                f"(define-fun {label} () Real (* {dot} {_select(f'w{t}', hmm.emission[s2])}))"
            )
            following[s2] = label
        current = following
    return definitions, list(current.values())


def _sum(names: list[str]) -> str:
    if not names:
        return "0.0"
    return names[0] if len(names) == 1 else f"(+ {' '.join(names)})"


def pufferfish_check(
    question: Question, hmm_view: View, comparison: SymbolicComparison, ratio: Fraction, k: int
) -> Query:
    """Algorithm 1's query: unsat iff Pr(ω|π) ≤ c·Pr(ω|τ) for every ω of length k."""
    hmm = hmm_view.hmm
    m = len(hmm.observations)
    observations = tuple(f"w{t}" for t in range(k))
    left = {hmm_view.state_of[x]: w for x, w in comparison.left.items}
    right = {hmm_view.state_of[x]: w for x, w in comparison.right.items}
    alpha_defs, alpha = _forward("a", k, hmm, left)
    beta_defs, beta = _forward("b", k, hmm, right)
    assertions = [f"(and (<= 0 {w}) (< {w} {m}))" for w in observations]
    assertions.extend(space_assertions(question.space, decimal=True))
    assertions.extend(_denominators(question, hmm, comparison))
    c = smtlib.real(ratio, decimal=True)
    assertions.append(f"(> {_sum(alpha)} (* {c} {_sum(beta)}))")
    return Query(
        f"algorithm1-k{k}",
        "QF_NIRA",
        question.variables,
        tuple(assertions),
        (
            "the FAIER papers' Algorithm 1 (PufferfishCheck)",
            f"pi: {comparison.left_name}; tau: {comparison.right_name}; c = {ratio}; k = {k}",
            "observations: " + ", ".join(f"{i} = {o}" for i, o in enumerate(hmm.observations)),
        ),
        observations,
        tuple(alpha_defs + beta_defs),
    )


@dataclass(frozen=True)
class FaithfulFinding:
    """A violating sequence found by Algorithm 1 and recomputed exactly."""

    comparison: SymbolicComparison
    outcome: Outcome
    checked: Checked
    values: tuple[ParameterValue, ...]
    k: int


def _lower_bounds(eps: Epsilon, ratio: Fraction) -> Iterator[Fraction]:
    """c = ``ratio``, then rationals closer below e^ε (for a witness that fell in (c, e^ε]).

    An unsat proves privacy only for c ≤ e^ε, so that is checked exactly first.
    """
    if eps.compare_ratio(ratio) > 0:
        raise InternalError(f"c = {ratio} is above e^{eps}: an unsat would prove nothing")
    yield ratio
    tighter = (
        [eps.exp_ratio]
        if eps.exp_ratio is not None
        else [ratio_bounds(eps, digits)[0] for digits in BRACKET_DIGITS]
    )
    for bound in tighter:
        if bound > ratio:
            ratio = bound
            yield bound


def _witness(
    question: Question,
    hmm_view: View,
    comparison: SymbolicComparison,
    eps: Epsilon,
    model: Mapping[str, ModelValue],
    k: int,
) -> FaithfulFinding | None:
    """The solver's sequence and parameter values, kept only if they violate ε exactly."""
    hmm = hmm_view.hmm
    zero = Polynomial.constant(question.variables, 0)
    sequence = tuple(hmm.observations[int(model[f"w{t}"].exact or 0)] for t in range(k))
    key = hmm_view.output_of.get(sequence[0]) if question.program is not None else sequence
    outcome = Outcome(sequence, key, zero, zero)
    for point in candidates(model, question.space):
        if (
            not question.space.contains(point)
            or comparison.instantiate({**question.fixed, **point}) is None
        ):
            continue
        p, q = recompute(question.problem, comparison, outcome, point)
        if eps.exceeded_by(None if q == 0 else p / q):
            values = describe(point, model, question.space)
            return FaithfulFinding(comparison, outcome, Checked(point, p, q), values, k)
    return None


def _check(
    question: Question,
    hmm_view: View,
    comparison: SymbolicComparison,
    eps: Epsilon,
    ratio: Fraction,
    k: int,
    session: Session,
) -> tuple[str, FaithfulFinding | None, str]:
    """Algorithm 1 for one comparison at length k, with c moving up towards e^ε
    while the solver's witnesses lie in (c, e^ε] and so violate nothing."""
    for c in _lower_bounds(eps, ratio):
        answer = session.ask(pufferfish_check(question, hmm_view, comparison, c, k))
        if answer.status == "unsat":
            return "holds", None, ""
        if answer.status != "sat":
            where = f"{comparison.left_name} vs {comparison.right_name}, k = {k}"
            return "unknown", None, f"{where}: {answer.explain()}"
        finding = _witness(question, hmm_view, comparison, eps, answer.model, k)
        if finding is not None:
            return "violated", finding, ""
    return "unknown", None, "the solver's witness did not survive the exact recheck"


def run(
    question: Question, eps: Epsilon, ratio: Fraction, session: Session
) -> tuple[str, FaithfulFinding | None, str]:
    """('holds' | 'violated' | 'unknown', finding, reason): each comparison, k = 1..horizon.

    ``ratio`` is c, a rational lower bound of e^ε (e^ε itself when rational).
    """
    hmm_view = view(question)
    reason = ""
    for comparison in question.comparisons:
        for k in range(1, question.horizon + 1):
            if session.out_of_time():
                return (
                    "unknown",
                    None,
                    reason or f"timeout of {session.options.timeout:g} s reached",
                )
            status, finding, why = _check(question, hmm_view, comparison, eps, ratio, k, session)
            if status == "violated":
                return "violated", finding, ""
            if status == "unknown":
                reason = reason or why
    if reason:
        return "unknown", None, reason
    return "holds", None, ""
