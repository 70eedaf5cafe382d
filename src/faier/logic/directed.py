"""A question answered by Storm on the model it was built for, reading only what it needs.

When Storm builds a PRISM file for one question (``P=? [F φ]``,
``Pmax=? [ψ U φ]``, ``P>=1 [F φ]``, or an expected reward ``R{"time"}min=? [F φ]``,
``R=? [C<=k]``: :func:`faier.logic._storm.storm_question`), it explores
only what that question needs, reading the question's state formulas as the
PRISM file defines them (constants, formulas and variables nothing assigns
substituted): Storm's reading is the language's.  So the question goes to
Storm whole, for the initial states only, and faier reads no more of the build
than the answer shows: the initial
states' names, the labels' and variables' names (the formula is checked as
:func:`faier.logic.checker.check` checks it, :mod:`faier.logic.validation`),
Storm's counts.  Only a build whose rows Storm's own checks already
compared exactly is answered here (a PRISM build, :data:`faier.logic.prism._RowKind`
``stochastic``); a JANI build's rows are checked on the whole model.  The answer is the one
``load_model(..., question=...)`` and ``check`` give, without naming the other
states, reading their labels and valuations, or evaluating the state formulas
in every state.  A reward question's build holds the one reward structure it
names (or the file's only one); Storm's exact answer is faier's whole-model one
(:func:`faier.logic.rewards.expected_rewards`), ``∞`` included where the target
is missed with positive probability.  A question naming a structure the file
lacks, or none among several, is built whole, where the checker refuses it.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from fractions import Fraction

from faier.logic._storm import stormpy, to_fraction
from faier.logic.expressions import Valuations
from faier.logic.neighbours import NeighbourRelation
from faier.logic.outcome import CheckResult, ModelSize, OperatorReport, OperatorRow
from faier.logic.parser import ParsedFormula
from faier.logic.printer import format_formula
from faier.logic.prism import Build, state_names_of
from faier.logic.syntax import Prob, Query, Reward
from faier.logic.validation import validate
from faier.results import Verdict


def answerable(build: Build, parsed: ParsedFormula) -> bool:
    """True when ``parsed`` is the question a PRISM ``build`` was built for: a probability
    asked (``P=?``) or bounded (``P>=1 [...]``) at the top, or an expected reward (``R=?``)
    (a nested operator, --state, --neighbors or a JANI file go through the whole model, see
    :attr:`~faier.logic.prism.Build.storm_reads_question`)."""
    return (
        build.question is not None
        and build.storm_reads_question
        and build.rows == "stochastic"  # nothing left to check in the rows after the build
        and isinstance(parsed.formula, Prob | Reward)
    )


def answer(build: Build, parsed: ParsedFormula) -> CheckResult:
    """``parsed`` (the question the build was directed at) in the initial states."""
    assert answerable(build, parsed)
    root = parsed.formula
    assert isinstance(root, Prob | Reward)
    started = time.perf_counter()
    built = build.built
    initial = list(built.initial_states)
    names, columns = state_names_of(built, initial)
    shown = [names[i] for i in initial]
    nondeterministic = bool(built.is_nondeterministic_model)
    valuations = (
        None
        if columns is None
        else Valuations(
            tuple(shown),
            {variable: [column[i] for i in initial] for variable, column in columns.items()},
            build.definitions,
        )
    )
    validate(
        parsed,
        build.name,
        sorted(built.labeling.get_labels()),
        valuations,
        nondeterministic=nondeterministic,
        has_pairs=False,
        structures=list(built.reward_models) if isinstance(root, Reward) else None,
    )
    found = CheckResult(
        build.name,
        "MDP" if nondeterministic else "Markov chain",
        format_formula(root),
        NeighbourRelation.identity(()).describe(),
        (),
        None,
        size=ModelSize(
            built.nr_states,
            built.nr_transitions,
            built.nr_choices if nondeterministic else None,
        ),
        name=parsed.name,
    )
    if isinstance(root, Reward):
        rewards = _expected_rewards(build)
        found = replace(
            found, values=tuple(zip(shown, rewards, strict=True)), quantity="expected reward"
        )
    elif isinstance(root.test, Query):
        values = _probabilities(build, None)
        found = replace(found, values=tuple(zip(shown, values, strict=True)))
    else:
        found = _decided(found, root, build, shown, nondeterministic)
    return replace(found, seconds=time.perf_counter() - started)


def _probabilities(build: Build, optimum: str | None) -> list[Fraction]:
    """Storm's answer to the build's question in each initial state: as asked, or with
    its optimum set (``min``/``max``, an MDP asked a bound)."""
    sp = stormpy()
    question = build.question
    assert question is not None
    if optimum is not None:
        question = question.get_raw_formula().clone()
        direction = sp.logic.OptimizationDirection
        question.set_optimality_type(direction.MINIMIZE if optimum == "min" else direction.MAXIMIZE)
    result = sp.model_checking(build.built, question, only_initial_states=True)
    return [to_fraction(result.get_value(i)) for i in build.built.initial_states]


def _expected_rewards(build: Build) -> list[Fraction | float]:
    """Storm's expected reward in each initial state (``math.inf`` for Storm's ``inf``, as
    :func:`faier.logic.rewards.expected_rewards` reads it)."""
    sp = stormpy()
    result = sp.model_checking(build.built, build.question, only_initial_states=True)
    values: list[Fraction | float] = []
    for i in build.built.initial_states:
        value = str(result.get_value(i))
        values.append(math.inf if value == "inf" else Fraction(value))
    return values


def _decided(
    found: CheckResult, root: Prob, build: Build, shown: list[str], nondeterministic: bool
) -> CheckResult:
    """A bounded P (``P>=1 [F elected]``) decided in each initial state, with its one
    operator report, as :func:`faier.logic.checker.check` gives it."""
    test = root.test
    assert not isinstance(test, Query)
    if nondeterministic:
        low, high = _probabilities(build, "min"), _probabilities(build, "max")
    else:
        low = high = _probabilities(build, None)
    rows = tuple(
        OperatorRow(
            state,
            Verdict.HOLDS if test.admits(p) and test.admits(q) else Verdict.VIOLATED,
            probability=None if nondeterministic else p,
            bounds=(p, q) if nondeterministic else None,
            method="Storm, exact min/max over schedulers" if nondeterministic else "Storm, exact",
        )
        for state, p, q in zip(shown, low, high, strict=True)
    )
    by_state = {row.state: row for row in rows}  # each state once, as the checker counts
    holds = sum(row.verdict is Verdict.HOLDS for row in by_state.values())
    verdicts = tuple((row.state, row.verdict) for row in rows)
    report = OperatorReport(found.formula, "P", holds, 0, len(by_state), rows)
    overall = Verdict.VIOLATED if any(v is Verdict.VIOLATED for _, v in verdicts) else Verdict.HOLDS
    return replace(found, states=verdicts, verdict=overall, operators=(report,))
