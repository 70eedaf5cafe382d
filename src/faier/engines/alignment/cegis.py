"""Counterexample-guided synthesis of a loop's alignment, shared by its two proofs.

``induction.py`` (one shift per line and side, distances) and ``prophecy.py``
(the winner of an argmax guessed) differ in their obligations, not in how
they search: a candidate assigns every hole an integer in [−BOUND, BOUND]
(z3 ``Optimize``, smallest first); each *duty* is a formula over neighbours,
noise and loop-carried values that must be unsatisfiable under the
candidate, and a model of one is a counterexample the duty turns into a
constraint on the holes (its values fixed: linear in the holes).  Once no
duty has a model, ``close`` judges what the duties do not say (the cost over
every walk of the loop's states): a constraint to add, the proof, or None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

import z3

from faier.core.budget import Budget
from faier.engines.alignment.execute import total
from faier.engines.alignment.synthesis import BOUND, MAX_ROUNDS, _val

R = TypeVar("R")

Value = Callable[[Any], Fraction]
"""A candidate: each hole's value."""


@dataclass(frozen=True)
class Duty:
    """A formula that must be unsatisfiable, and how its model constrains the holes."""

    formula: z3.BoolRef
    refine: Callable[[z3.ModelRef], Any]


@dataclass(frozen=True)
class Refine:
    """``close``'s answer when the candidate's cost breaks: a constraint on the holes."""

    constraint: Any


@dataclass(frozen=True)
class Found(Generic[R]):
    """The proof ``close`` built, and the duties' formulas (all unsatisfiable)."""

    proof: R
    formulas: tuple[z3.BoolRef, ...]


def number(term: Any) -> Fraction:
    """A z3 numeral (or a number) as an exact rational."""
    value = z3.simplify(_val(term))
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    if z3.is_rational_value(value):
        return value.as_fraction()  # type: ignore[no-any-return]
    raise ValueError(f"not a number: {value}")


def hole_search(holes: list[z3.ArithRef], fixed: list[Any]) -> z3.Optimize:
    """The synthesiser: holes in [−BOUND, BOUND] under ``fixed``, smallest first."""
    synth = z3.Optimize()
    for h in holes:
        synth.add(h >= -BOUND, h <= BOUND)
    synth.add(fixed)
    if holes:
        synth.minimize(total([z3.If(h >= 0, h, -h) for h in holes]))
    return synth


def search(
    holes: list[z3.ArithRef],
    fixed: list[Any],
    duties: Callable[[Value], list[Duty]],
    close: Callable[[Value], R | Refine | None],
    budget: Budget,
) -> Found[R] | None:
    """CEGIS; None when no candidate survives, a solver answers unknown, ``close`` gives
    up, or after ``MAX_ROUNDS`` candidates."""
    synth = hole_search(holes, fixed)
    for _ in range(MAX_ROUNDS):
        budget.check_time()
        if synth.check() != z3.sat:
            return None
        model = synth.model()

        def value(h: Any, model: z3.ModelRef = model) -> Fraction:
            return number(model.eval(h, model_completion=True))

        refuted = False
        formulas = []
        for duty in duties(value):
            formulas.append(duty.formula)
            solver = z3.Solver()
            solver.add(duty.formula)
            answer = solver.check()
            if answer == z3.unknown:
                return None
            if answer == z3.sat:
                refuted = True
                synth.add(duty.refine(solver.model()))
        if refuted:
            continue
        verdict = close(value)
        if isinstance(verdict, Refine):
            synth.add(verdict.constraint)
            continue
        return None if verdict is None else Found(verdict, tuple(formulas))
    return None
