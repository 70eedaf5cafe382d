"""A question answered by Storm on the model it was built for, reading only what it needs.

When Storm builds a PRISM or JANI file for one question (``P=? [F φ]``,
``Pmax=? [ψ U φ]``: :func:`faier.logic._storm.storm_question`), it explores
only what that question needs, and its exploration already reads the
question's state formulas its own way: the answer rests on Storm's reading of
them either way.  So the question goes to Storm whole, for the initial states
only, and faier reads no more of the build than the answer shows: the initial
states' names, the labels' and variables' names (the formula is checked as
:func:`faier.logic.checker.check` checks it, :mod:`faier.logic.validation`),
Storm's counts.  The rows are checked as for every build
(:func:`faier.logic.prism.check_rows`).  The answer is the one
``load_model(..., question=...)`` and ``check`` give, without naming the other
states, reading their labels and valuations, or evaluating the state formulas
in every state.
"""

from __future__ import annotations

import time

from faier.logic._storm import stormpy, to_fraction
from faier.logic.expressions import Valuations
from faier.logic.neighbours import NeighbourRelation
from faier.logic.outcome import CheckResult, ModelSize
from faier.logic.parser import ParsedFormula
from faier.logic.printer import format_formula
from faier.logic.prism import Build, check_rows, state_names_of
from faier.logic.syntax import Prob, Query
from faier.logic.validation import validate


def answerable(build: Build, parsed: ParsedFormula) -> bool:
    """True when ``parsed`` asks for the probabilities of the question ``build`` was built
    for (a verdict, a nested operator, --state or --neighbors go through the whole model)."""
    root = parsed.formula
    return build.question is not None and isinstance(root, Prob) and isinstance(root.test, Query)


def answer(build: Build, parsed: ParsedFormula) -> CheckResult:
    """``parsed`` (the question the build was directed at) in the initial states."""
    assert answerable(build, parsed)
    started = time.perf_counter()
    built = build.built
    check_rows(built, build.rows, build.given)
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
    )
    result = stormpy().model_checking(built, build.question, only_initial_states=True)
    values = tuple((names[i], to_fraction(result.get_value(i))) for i in initial)
    return CheckResult(
        build.name,
        "MDP" if nondeterministic else "Markov chain",
        format_formula(parsed.formula),
        NeighbourRelation.identity(()).describe(),
        (),
        None,
        (),
        values,
        seconds=time.perf_counter() - started,
        size=ModelSize(
            built.nr_states,
            built.nr_transitions,
            built.nr_choices if nondeterministic else None,
        ),
        name=parsed.name,
    )
