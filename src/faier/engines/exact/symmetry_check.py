"""Checking a declared query symmetry exactly before the orbit search relies on it.

The orbit search reads the distribution of an input x as the exact column of
its representative rep = π·x, moved back along π (``Pr[ω | x] = Pr[π·ω | π·x]``).
So the check compares, for inputs x and permutations π sorting x with equal
answers in random order, the mechanism's own exact distribution of x pushed
along π with the column the search uses for π·x: the mechanism's exact
distribution of π·x, or its closed-form ``grid_column`` where it has one (then
a disagreement is traced to the column or to the symmetry by one more run).
Every input is checked on grids of at most ``FULL_CHECK_INPUTS`` inputs, else
``SYMMETRY_SAMPLES`` inputs drawn with a fixed seed.

Separately, and on every representative, permutations that fix an input must
fix its distribution: with equal answers at positions i and i+1, swapping
them changes nothing in x, so the declared action of that swap must map the
column onto itself (for ``"index"``: equal answers get equal chances).  This
catches tie-breaking by position on every orbit, not only on a sample.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import Any, NoReturn

from faier.core.budget import Budget
from faier.errors import InternalError, MechanismError, SpecError
from faier.mechanisms.symmetry import Permutation, PermuteQueries, sorting_permutation

Column = Mapping[Hashable, Fraction]
ColumnOf = Callable[[tuple[int, ...]], Column]

FULL_CHECK_INPUTS = 64
"""Grids with at most this many inputs have every input checked."""

SYMMETRY_SAMPLES = 6
"""Inputs checked on larger grids, each against a random permutation sorting it.

Each costs one exact run of the mechanism (Noisy Max, n = 13: about 0.08 s;
n = 20: 0.3 s; n = 30: 1.4 s).  Noisy Max declared symmetric with ties broken
by the first index fails on every input with two equal answers, and such
inputs are almost all of a large grid; the stabiliser check below catches it
on every orbit regardless."""

CHECK_SEED = 17
"""Seed of the sampled inputs and permutations: the same checks on every run."""

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


def sample_inputs(n: int, top: int) -> list[tuple[tuple[int, ...], random.Random]]:
    """The inputs the declaration is checked on, each with the generator of its permutation."""
    rng = random.Random(CHECK_SEED)
    if (top + 1) ** n <= FULL_CHECK_INPUTS:
        return [(x, rng) for x in itertools.product(range(top + 1), repeat=n)]
    return [(tuple(rng.randrange(top + 1) for _ in range(n)), rng) for _ in range(SYMMETRY_SAMPLES)]


def check_declaration(
    mechanism: Any,
    symmetry: PermuteQueries,
    n: int,
    top: int,
    column: ColumnOf,
    shortcut: bool,
    budget: Budget,
) -> int:
    """Check ``Pr[π·ω | π·x] = Pr[ω | x]`` exactly on the sample; returns how many inputs.

    ``column`` is the exact column the search uses for a representative;
    ``shortcut`` says it is a closed form rather than the mechanism's own run.
    """
    checked = 0
    show = mechanism.output_name
    for x, rng in sample_inputs(n, top):
        budget.check_time()
        perm = sorting_permutation(x, rng)
        rep = symmetry.act_input(perm, x)
        own = nonzero(mechanism.output_distribution(x, max_states=budget.max_states).as_dict())
        budget.spend(len(own))
        moved: dict[Hashable, Fraction] = {}
        for output, p in own.items():
            target = moved_output(mechanism, symmetry, perm, output, x)
            moved[target] = moved.get(target, Fraction(0)) + p
        used = nonzero(column(rep))
        checked += 1
        if moved == used:
            continue
        if shortcut:
            truth = nonzero(mechanism.output_distribution(rep).as_dict())
            if truth != used:
                wrong = next(o for o in {**truth, **used} if truth.get(o) != used.get(o))
                fault(
                    mechanism,
                    f"its grid_column disagrees with its own output distribution on input "
                    f"{rep!r}: {used.get(wrong, 0)} for output {show(wrong)}, exactly "
                    f"{truth.get(wrong, 0)}",
                    "grid_column() must give the mechanism's exact probabilities",
                )
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
    return checked


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
