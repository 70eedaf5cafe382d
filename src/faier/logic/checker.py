"""``check``: a dpCTL* formula on a model, in the asked states, with the numbers behind it.

Labels are checked against the model before anything is computed, so a
misspelt label is a located input error, never a silently false formula.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

from faier.errors import BudgetExceeded, SpecError
from faier.logic._closeness import Closeness
from faier.logic._evaluate import Evaluator, recheck
from faier.logic._storm import Optimum
from faier.logic.models import LogicModel, model_size
from faier.logic.neighbours import NeighbourRelation, NeighbourSpec, matching_valuation
from faier.logic.outcome import CheckResult, OperatorReport
from faier.logic.parser import ParsedFormula, parse_formula
from faier.logic.printer import format_formula
from faier.logic.rewards import expected_rewards
from faier.logic.syntax import (
    And,
    Diff,
    Formula,
    Implies,
    Or,
    Prob,
    Query,
    Reward,
    walk,
)
from faier.logic.validation import validate
from faier.mechanisms.isolation import call_isolated
from faier.model.chains import MDP
from faier.results import Verdict

_OPTIMUM: dict[str, Optimum] = {"P": None, "Pmin": "min", "Pmax": "max"}
WORD_LIMIT = 200_000
"""Search nodes the exact action-word enumeration may visit per D before falling back."""


def check(
    model: LogicModel,
    formula: str | ParsedFormula | Formula,
    *,
    neighbours: NeighbourSpec | NeighbourRelation | None = None,
    state: str | Sequence[str] | None = None,
    word_limit: int = WORD_LIMIT,
    timeout: float | None = None,
) -> CheckResult:
    """Decide ``formula`` in ``state`` (default: every initial state) of ``model``.

    With ``timeout`` (seconds) the check runs in a forked child that is
    killed when the time is up (Storm cannot be interrupted): the answer is
    then unknown.
    """
    if timeout is not None:
        return within(
            timeout,
            lambda: check(
                model, formula, neighbours=neighbours, state=state, word_limit=word_limit
            ),
            model.name,
            formula,
        )
    started = time.perf_counter()
    parsed = _parsed(formula, constants_of(model))
    if neighbours is not None:
        model = model.with_neighbours(neighbours)
    result = _check(model, parsed, state, word_limit, started)
    return result if parsed.name is None else replace(result, name=parsed.name)


def _check(
    model: LogicModel,
    parsed: ParsedFormula,
    state: str | Sequence[str] | None,
    word_limit: int,
    started: float,
) -> CheckResult:
    focus = _focus(model, state)
    _validate(model, parsed)
    root = parsed.formula
    if isinstance(root, Reward):  # the target is needed in every state, not only the asked ones
        return _rewards(model, Evaluator(model, word_limit, focus), root, focus, started)
    evaluator = Evaluator(model, word_limit, focus, root)
    if isinstance(root, Prob) and isinstance(root.test, Query):
        optimum: Optimum = _OPTIMUM[root.test.kind]
        values = evaluator.values(root.path, optimum, wanted=focus)
        return CheckResult(
            model.name,
            model.kind,
            format_formula(root),
            model.neighbours.describe(),
            (),
            None,
            _reports(evaluator, parsed, focus),
            tuple((s, values[s]) for s in focus),
            seconds=time.perf_counter() - started,
            size=model_size(model.system),
        )
    truth = evaluator.truth(root)
    verdicts = tuple((s, truth.verdict(s)) for s in focus)
    overall = _overall([v for _, v in verdicts])
    witness = None
    if overall is Verdict.VIOLATED:
        failing = next(s for s, v in verdicts if v is Verdict.VIOLATED)
        witness = _explain(evaluator, root, failing)
    reports = _reports(evaluator, parsed, focus)
    reason = None
    if overall is Verdict.UNKNOWN:
        reason = next(
            (row.reason for report in reports for row in report.rows if row.reason),
            "a subformula is undecided",
        )
    return CheckResult(
        model.name,
        model.kind,
        format_formula(root),
        model.neighbours.describe(),
        verdicts,
        overall,
        reports,
        witness=witness,
        reason=reason,
        seconds=time.perf_counter() - started,
        size=model_size(model.system),
    )


def within(
    timeout: float,
    work: Callable[[], CheckResult],
    name: str,
    formula: str | ParsedFormula | Formula,
) -> CheckResult:
    """``work()`` in a forked child given ``timeout`` seconds; past them, an unknown answer."""
    started = time.perf_counter()
    try:
        return call_isolated(work, timeout=timeout)
    except BudgetExceeded as exc:
        if isinstance(formula, ParsedFormula):
            shown = format_formula(formula.formula)
        else:
            shown = formula if isinstance(formula, str) else format_formula(formula)
        return CheckResult(
            name,
            "",
            shown,
            "",
            (),
            Verdict.UNKNOWN,
            reason=exc.reason,
            seconds=time.perf_counter() - started,
        )


def _rewards(
    model: LogicModel,
    evaluator: Evaluator,
    root: Reward,
    focus: tuple[str, ...],
    started: float,
) -> CheckResult:
    """``R=? [F φ]`` or ``R=? [C<=k]``: each asked state's exact expected reward."""
    target = None
    reason = None
    if root.target is not None:
        truth = evaluator.truth(root.target)
        target = truth.sat
        if len(truth.sat) + len(truth.unsat) < len(model.system.states):
            reason = f"the target {format_formula(root.target)} is undecided in some states"
    values = () if reason else tuple(expected_rewards(model, root, target, focus).items())
    return CheckResult(
        model.name,
        model.kind,
        format_formula(root),
        model.neighbours.describe(),
        (),
        Verdict.UNKNOWN if reason else None,
        _reports(evaluator, ParsedFormula(root, ""), focus),
        values,
        reason=reason,
        seconds=time.perf_counter() - started,
        size=model_size(model.system),
        quantity="expected reward",
    )


def probabilities(
    model: LogicModel, path: str | Formula, *, optimum: Optimum = None
) -> dict[str, Fraction]:
    """Exact Pr(s, path) for every state (``optimum`` 'min'/'max' on an MDP; default max)."""
    parsed = parse_formula(path, path=True) if isinstance(path, str) else ParsedFormula(path, "")
    _validate(model, parsed)
    return Evaluator(model, WORD_LIMIT).values(parsed.formula, optimum)


def constants_of(model: LogicModel) -> dict[str, Fraction]:
    """The model's numeric constants (PRISM), which step bounds in a formula may name."""
    valuations = model.valuations
    if valuations is None:
        return {}
    return {
        name: term[1]
        for name, term in valuations.definitions.items()
        if term[0] == "num" and isinstance(term[1], Fraction)
    }


def _parsed(
    formula: str | ParsedFormula | Formula, constants: dict[str, Fraction]
) -> ParsedFormula:
    if isinstance(formula, ParsedFormula):
        return formula
    if isinstance(formula, str):
        return parse_formula(formula, constants=constants)
    return parse_formula(format_formula(formula))


def _focus(model: LogicModel, state: str | Sequence[str] | None) -> tuple[str, ...]:
    if state is None:
        return model.initial
    asked = (state,) if isinstance(state, str) else tuple(state)
    known = model.system.states
    members = set(known)
    wanted: list[str] = []
    for name in asked:
        if name in members:
            wanted.append(name)
            continue
        labelled = model.label_sets().get(name.removeprefix("@"))
        matching = sorted(labelled, key=known.index) if labelled else None
        matching = matching or matching_valuation(name, known)
        if matching:
            wanted.extend(s for s in matching if s not in wanted)
            continue
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SpecError(
                f"{name!r} is not a state of {model.name}",
                where="--state",
                fix=f"{hint}states are {', '.join(known[:12])}"
                + (f", ... ({len(known)} in all)" if len(known) > 12 else ""),
            )
    return tuple(wanted)


def _validate(model: LogicModel, parsed: ParsedFormula) -> None:
    validate(
        parsed,
        model.name,
        model.label_sets(),
        model.valuations,
        nondeterministic=isinstance(model.system, MDP),
        has_pairs=bool(model.neighbours.pairs),
        model=model,
    )


def _overall(verdicts: list[Verdict]) -> Verdict:
    if Verdict.VIOLATED in verdicts:
        return Verdict.VIOLATED
    if all(v is Verdict.HOLDS for v in verdicts):
        return Verdict.HOLDS
    return Verdict.UNKNOWN


def _explain(evaluator: Evaluator, node: Formula, state: str) -> Closeness | None:
    """The failing D comparison that makes ``node`` false in ``state``, when there is one.

    Only conjunctions, disjunctions and implications are looked through: a
    negated D that fails holds for every neighbour, so no single pair explains it.
    """
    if state not in evaluator.truth(node).unsat:
        return None
    if isinstance(node, And | Or):
        return _explain(evaluator, node.left, state) or _explain(evaluator, node.right, state)
    if isinstance(node, Implies):
        return _explain(evaluator, node.right, state)
    if isinstance(node, Diff):
        witness = evaluator.operators[node].rows[state].closest
        if witness is not None and not witness.holds:
            recheck(evaluator, node, witness)
        return witness
    return None


def _reports(
    evaluator: Evaluator, parsed: ParsedFormula, focus: tuple[str, ...]
) -> tuple[OperatorReport, ...]:
    out: list[OperatorReport] = []
    seen: set[Formula] = set()
    for _, node in walk(parsed.formula):
        if not isinstance(node, Prob | Diff) or node in seen or node not in evaluator.operators:
            continue
        seen.add(node)
        operator = evaluator.operators[node]
        total = len(operator.rows)
        out.append(
            OperatorReport(
                format_formula(node),
                "D" if isinstance(node, Diff) else "P",
                len(operator.truth.sat),
                total - len(operator.truth.sat) - len(operator.truth.unsat),
                total,
                tuple(operator.rows[s] for s in focus),
            )
        )
    return tuple(out)
