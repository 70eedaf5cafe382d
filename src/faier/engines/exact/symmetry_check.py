"""Checking a declared query symmetry exactly before the orbit search relies on it.

The orbit search reads the distribution of an input x as the exact column of
its representative rep = π·x, moved back along π (``Pr[ω | x] = Pr[π·ω | π·x]``).
So the check compares, for inputs x and permutations π sorting x with equal
answers in random order, the mechanism's own exact distribution of x pushed
along π with the column the search uses for π·x: the mechanism's exact
distribution of π·x, or its closed-form ``grid_column`` where it has one (then
a disagreement is traced to a column or to the symmetry by runs on both inputs).
Every input is checked where that costs no more than the sample (grids of at
most ``SYMMETRY_SAMPLES`` inputs, or of at most as many as there are orbits);
larger grids get a seeded sample of at least ``SYMMETRY_SAMPLES`` inputs that
holds every orbit's representative in a random order, so no orbit goes
unchecked.  A mechanism with a closed form runs its own semantics on the first
``RUN_CHECKS`` of them and its closed form on the rest (one exact run of Noisy
Max at n = 30 takes a second, its closed form a millisecond).  What a sample
leaves unchecked is said in the result (:meth:`DeclarationCheck.assumption`); the
sample and that record live with the declaration (:mod:`faier.mechanisms.symmetry`),
shared with the certified engine.

Separately, and on every representative, permutations that fix an input must
fix its distribution: with equal answers at positions i and i+1, swapping
them changes nothing in x, so the declared action of that swap must map the
column onto itself (for ``"index"``: equal answers get equal chances).  This
catches tie-breaking by position on every orbit, not only on a sample.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any, NoReturn

from faier.core.budget import Budget
from faier.errors import InternalError, MechanismError, SpecError
from faier.mechanisms.symmetry import (
    DeclarationCheck,
    Permutation,
    PermuteQueries,
    declaration_sample,
    sorting_permutation,
)

Column = Mapping[Hashable, Fraction]
ColumnOf = Callable[[tuple[int, ...]], Column]

RUN_CHECKS = 6
"""Sampled inputs checked on the mechanism's own exact run where it has a closed form
(the rest on the closed form): each run costs Noisy Max 0.06 s at n = 13, 0.26 s at
n = 20, 1.2 s at n = 30.  Noisy Max declared symmetric with ties broken by the first
index fails on every input with two equal answers; the stabiliser check below catches
it on every orbit regardless."""

FIX = (
    "declare symmetry= only if permuting the answers permutes the outputs as declared "
    "on every input (ties broken by position, e.g. the first maximal index, are not "
    "symmetric), or remove the declaration"
)


def is_faiers(mechanism: Any) -> bool:
    """Whether faier wrote the mechanism: its class, and its body or step, come from faier.

    A user's ``@faier.program`` is an instance of faier's ``Program`` with the
    user's body, so the class alone does not say.
    """
    code = getattr(mechanism, "body", None) or getattr(mechanism, "step", None)
    modules = [type(mechanism).__module__, getattr(code, "__module__", None) or ""]
    return all(module.partition(".")[0] == "faier" for module in modules)


def fault(mechanism: Any, message: str, fix: str = FIX) -> NoReturn:
    """faier's own mechanism is wrong (an internal error); a user's is bad input naming it."""
    name = mechanism.name
    if is_faiers(mechanism):
        raise InternalError(f"mechanism {name!r}: {message}")
    raise MechanismError(message, where=f"mechanism {name!r}", fix=fix)


def moved_output(
    mechanism: Any, symmetry: PermuteQueries, perm: Permutation, output: Hashable, x: Any
) -> Hashable:
    """π·ω, where an output the declared action cannot move is a wrong declaration at x."""
    try:
        return symmetry.act_output(perm, output)
    except SpecError as exc:
        fault(
            mechanism,
            f"its declared symmetry ({symmetry.describe()}) fails on input {x!r}: {exc.message}",
        )
    except Exception as exc:  # a user's action may raise anything
        fault(
            mechanism,
            f"its symmetry's output action raised {type(exc).__name__}: {exc} "
            f"on output {output!r} of input {x!r}",
            "fix the action act(perm, output)",
        )


def nonzero(column: Column) -> dict[Hashable, Fraction]:
    return {o: p for o, p in column.items() if p}


def check_declaration(
    mechanism: Any,
    symmetry: PermuteQueries,
    n: int,
    top: int,
    reps: Sequence[tuple[int, ...]],
    column: ColumnOf,
    shortcut: bool,
    budget: Budget,
) -> DeclarationCheck:
    """Check ``Pr[π·ω | π·x] = Pr[ω | x]`` exactly on :func:`declaration_sample`.

    ``reps`` are the input orbits' representatives; ``column`` is the exact
    column the search uses for one; ``shortcut`` says it is a closed form
    rather than the mechanism's own run.
    """
    checked = by_runs = 0
    show = mechanism.output_name
    inputs, rng = declaration_sample(n, top, reps)
    full = len(inputs) == (top + 1) ** n
    for x in inputs:
        budget.check_time()
        perm = sorting_permutation(x, rng)
        rep = symmetry.act_input(perm, x)
        closed_form = shortcut and not full and checked >= RUN_CHECKS
        own = nonzero(
            mechanism.grid_column(x)
            if closed_form
            else mechanism.output_distribution(x, max_states=budget.max_states).as_dict()
        )
        by_runs += not closed_form
        budget.spend(len(own))
        used = nonzero(column(rep))
        checked += 1
        moved = _moved(mechanism, symmetry, perm, own, x)
        if moved == used:
            continue
        if shortcut:  # is a closed form wrong, rather than the symmetry?
            for z, claimed in ((rep, used), (x, own)):
                truth = nonzero(mechanism.output_distribution(z).as_dict())
                if truth != claimed:
                    _wrong_closed_form(mechanism, z, claimed, truth)
        wrong = next(o for o in {**moved, **used} if moved.get(o) != used.get(o))
        source = next(
            (o for o in own if moved_output(mechanism, symmetry, perm, o, x) == wrong), None
        )
        before = (
            f"Pr[{show(source)} | {x!r}] = {own[source]}"
            if source is not None
            else f"no output of {x!r} moves to {show(wrong)}"
        )
        fault(
            mechanism,
            f"its declared symmetry ({symmetry.describe()}) fails on input {x!r}: {before}, "
            f"but its permutation {rep!r} gives Pr[{show(wrong)} | {rep!r}] = "
            f"{used.get(wrong, 0)}",
        )
    return DeclarationCheck(symmetry, (top + 1) ** n, checked, by_runs)


def _moved(
    mechanism: Any, symmetry: PermuteQueries, perm: Permutation, own: Column, x: Any
) -> dict[Hashable, Fraction]:
    """x's column pushed along π: Pr[π·ω | π·x] as the declaration predicts it."""
    moved: dict[Hashable, Fraction] = {}
    for output, p in own.items():
        target = moved_output(mechanism, symmetry, perm, output, x)
        moved[target] = moved.get(target, Fraction(0)) + p
    return moved


def _wrong_closed_form(mechanism: Any, x: Any, claimed: Column, truth: Column) -> NoReturn:
    wrong = next(o for o in {**truth, **claimed} if truth.get(o) != claimed.get(o))
    fault(
        mechanism,
        f"its grid_column disagrees with its own output distribution on input {x!r}: "
        f"{claimed.get(wrong, 0)} for output {mechanism.output_name(wrong)}, exactly "
        f"{truth.get(wrong, 0)}",
        "grid_column() must give the mechanism's exact probabilities",
    )


def check_stabilisers(
    mechanism: Any, symmetry: PermuteQueries, rep: tuple[int, ...], used: Column
) -> None:
    """Swapping two equal answers of ``rep`` must leave its column as it is, under the action."""
    column = nonzero(used)
    n = len(rep)
    for i in range(n - 1):
        if rep[i] != rep[i + 1]:
            continue
        swap = tuple(i + 1 if k == i else i if k == i + 1 else k for k in range(n))
        if symmetry.kind == "index":  # the swap exchanges outputs i + 1 and i + 2 only
            if column.get(i + 1, Fraction(0)) == column.get(i + 2, Fraction(0)):
                continue
            wrong: Hashable = i + 1
        else:
            moved = {moved_output(mechanism, symmetry, swap, o, rep): p for o, p in column.items()}
            if moved == column:
                continue
            wrong = next(o for o in {**moved, **column} if moved.get(o) != column.get(o))
        image = moved_output(mechanism, symmetry, swap, wrong, rep)
        show = mechanism.output_name
        fault(
            mechanism,
            f"its declared symmetry ({symmetry.describe()}) fails on input {rep!r}: swapping "
            f"its equal answers at positions {i + 1} and {i + 2} leaves the input as it is, so "
            f"Pr[{show(wrong)} | {rep!r}] = {column.get(wrong, 0)} should equal "
            f"Pr[{show(image)} | {rep!r}] = {column.get(image, 0)}",
        )
