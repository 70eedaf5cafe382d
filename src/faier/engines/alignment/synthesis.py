"""Counterexample-guided synthesis of an alignment (CheckDP: CEGIS over template holes).

A candidate fixes every hole's coefficients (c, d).  Verification asks z3,
for each path p, whether some neighbouring inputs x, y and noise η on p have
an aligned run (noise η + shift, inputs y) that reaches no path of p's group
with the same output; and for each group whether some neighbours make the
cost Σ|shiftₖ|/bₖ exceed ε (exponential noise: shifts must be ≥ 0 and cost
shiftₖ/bₖ; integer noise: shifts must be integers).  Every model found is a
counterexample, added to the synthesis query as a constraint on the holes
with its values fixed (linear in the holes); a synthesis query without a
model means no alignment of this family exists, and the counterexamples'
inputs are the candidates the refutation decides exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from faier.core.budget import Budget
from faier.engines.alignment.execute import (
    Form,
    Path,
    Symbols,
    both,
    either,
    form_term,
    holds,
    support,
    total,
)
from faier.engines.alignment.templates import Group, Hole, Pattern, groups

MAX_ROUNDS = 60
BOUND = 4
"""Holes are integers in [−BOUND, BOUND] (c in units of the neighbours' Δ): a finite
search, simplest candidates first, that holds every benchmark's alignment."""

Term = Any  # a z3 arithmetic term or a Fraction


@dataclass(frozen=True)
class Setting:
    """What synthesis works on: the paths, the neighbour relation and the claimed ε."""

    paths: tuple[Path, ...]
    symbols: Symbols
    neighbours: Callable[[Sequence[Term], Sequence[Term]], z3.BoolRef]
    epsilon: Fraction
    """ε or a rational lower bound of it (the cost is rational)."""
    unit: Fraction = Fraction(1)
    """The neighbours' Δ: constant shifts are integer multiples of it."""


@dataclass(frozen=True)
class Candidate:
    """A family and its holes' coefficients."""

    family: str
    values: tuple[tuple[Hole, Fraction, Fraction], ...]

    def of(self, hole: Hole) -> tuple[Fraction, Fraction]:
        for h, c, d in self.values:
            if h == hole:
                return c, d
        return Fraction(0), Fraction(0)


@dataclass(frozen=True)
class Counterexample:
    """Neighbours (and noise, on a path) where a candidate fails, with what failed."""

    kind: str
    """``path``, ``cost`` or ``sign``."""
    group: int
    path: int | None
    x: tuple[Fraction, ...]
    y: tuple[Fraction, ...]
    noise: tuple[Fraction, ...]


@dataclass(frozen=True)
class Outcome:
    """A verified candidate, or None with the last counterexamples."""

    candidate: Candidate | None
    family: str
    rounds: int
    counterexamples: tuple[Counterexample, ...]
    groups: tuple[Group, ...]
    of_path: tuple[int, ...]


def _val(v: Term) -> Term:
    return z3.RealVal(v) if isinstance(v, Fraction | int) else v


def companion_change(
    pairs: tuple[tuple[int, Fraction], ...], x: Sequence[Term], y: Sequence[Term]
) -> Term:
    total: Term = Fraction(0)
    for i, c in pairs:
        total = total + (
            _val(c) * (y[i] - x[i]) if not isinstance(x[i], Fraction) else c * (y[i] - x[i])
        )
    return total


def shifts(
    pattern: Pattern,
    coefficient: Callable[[Hole], tuple[Term, Term]],
    x: Sequence[Term],
    y: Sequence[Term],
    integer: bool,
) -> list[Term]:
    out = []
    for hole, (_, _, _, _, _, comp) in zip(pattern.holes(integer), pattern.draws, strict=True):
        c, d = coefficient(hole)
        change = companion_change(comp, x, y)
        out.append(_val(c) + _val(d) * _val(change))
    return out


def _abs(t: Term) -> Term:
    return z3.If(t >= 0, t, -t)


def cost_terms(pattern: Pattern, s: Sequence[Term]) -> Term:
    """Σ |sₖ|/bₖ (exponential noise: sₖ/bₖ)."""
    parts = []
    for (kind, scale, *_), shift in zip(pattern.draws, s, strict=True):
        size = shift if kind == "exponential" else _abs(shift)
        parts.append(size / _val(scale))
    return total(parts)


def _conditions(
    path: Path, x: Callable[[int], Term], eta: Callable[[int], Term]
) -> list[z3.BoolRef]:
    return [holds(c.op, form_term(c.form, x, eta)) for c in path.conditions]


def _released_equal(
    mine: tuple[Form, ...],
    theirs: tuple[Form, ...],
    left: tuple[Callable[[int], Term], Callable[[int], Term]],
    right: tuple[Callable[[int], Term], Callable[[int], Term]],
) -> list[z3.BoolRef]:
    return [form_term(a, *left) == form_term(b, *right) for a, b in zip(mine, theirs, strict=True)]


def aligned_goal(
    setting: Setting,
    group: Group,
    path: Path,
    s: Sequence[Term],
    x: Sequence[Term],
    y: Sequence[Term],
    eta: Callable[[int], Term],
) -> z3.BoolRef:
    """Some path of the group is taken by y with noise η + s and releases the same numbers."""

    def shifted(k: int) -> Term:
        return _val(eta(k)) + s[k] if k < len(s) else _val(eta(k))

    def xs(i: int) -> Term:
        return _val(x[i])

    def base(k: int) -> Term:
        return _val(eta(k))

    def ys(i: int) -> Term:
        return _val(y[i])

    options = []
    for m in group.members:
        other = setting.paths[m]
        parts: list[z3.BoolRef] = _conditions(other, ys, shifted)
        parts += _released_equal(other.released, path.released, (ys, shifted), (xs, base))
        parts += [shifted(k) >= 0 for k, d in enumerate(other.draws) if d.kind == "exponential"]
        options.append(both(parts))
    return either(options)


def _integer_shifts(pattern: Pattern, s: Sequence[Term]) -> list[z3.BoolRef]:
    return [
        z3.IsInt(z3.ToReal(t) if z3.is_int(t) else t)
        for (kind, *_), t in zip(pattern.draws, s, strict=True)
        if kind == "discrete_laplace"
    ]


def _fraction(model: z3.ModelRef, term: z3.ArithRef) -> Fraction:
    value = model.eval(term, model_completion=True)
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    if z3.is_rational_value(value):
        return value.as_fraction()  # type: ignore[no-any-return]
    raise ValueError(f"z3 gave the non-rational value {value}")


@dataclass(frozen=True)
class Obligation:
    """One formula that must be unsatisfiable for the candidate to be a proof."""

    kind: str
    """``cost`` (per group: cost above ε, or a negative exponential shift) or ``path``."""
    group: int
    path: int | None
    formula: z3.BoolRef


def obligations(
    setting: Setting,
    candidate: Candidate,
    all_groups: Sequence[Group],
    of_path: Sequence[int],
) -> list[Obligation]:
    """Every proof obligation of the candidate, cost bounds first."""
    sym = setting.symbols
    integer = sym.integer
    coefficient = candidate.of
    nbr = setting.neighbours(sym.x, sym.x2)
    out = []
    for g, group in enumerate(all_groups):
        s = shifts(group.pattern, coefficient, sym.x, sym.x2, integer)
        bad = [cost_terms(group.pattern, s) > _val(setting.epsilon)]
        bad += [
            t < 0
            for (kind, *_), t in zip(group.pattern.draws, s, strict=True)
            if kind == "exponential"
        ]
        out.append(Obligation("cost", g, None, both([nbr, either(bad)])))
    for i, path in enumerate(setting.paths):
        group = all_groups[of_path[i]]
        s = shifts(group.pattern, coefficient, sym.x, sym.x2, integer)
        goal = aligned_goal(setting, group, path, s, sym.x, sym.x2, sym.eta)
        ints = _integer_shifts(group.pattern, s)
        if ints:
            goal = both([goal, *ints])
        hypothesis = [
            nbr,
            *support(path.draws, sym),
            *_conditions(path, lambda j: sym.x[j], sym.eta),
        ]
        out.append(Obligation("path", of_path[i], i, both([*hypothesis, z3.Not(goal)])))
    return out


def verify_candidate(
    setting: Setting,
    candidate: Candidate,
    all_groups: Sequence[Group],
    of_path: Sequence[int],
    budget: Budget,
) -> list[Counterexample]:
    """Every failing obligation of the candidate, one counterexample each (empty: proved)."""
    sym = setting.symbols
    found: list[Counterexample] = []
    for duty in obligations(setting, candidate, all_groups, of_path):
        budget.check_time()
        solver = z3.Solver()
        solver.add(duty.formula)
        answer = solver.check()
        if answer == z3.unsat:
            continue
        if answer != z3.sat:
            raise Undecided(f"z3 answered {answer} on a {duty.kind} obligation")
        model = solver.model()
        draws = 0 if duty.path is None else len(setting.paths[duty.path].draws)
        found.append(
            Counterexample(
                duty.kind,
                duty.group,
                duty.path,
                tuple(_fraction(model, v) for v in sym.x),
                tuple(_fraction(model, v) for v in sym.x2),
                tuple(_fraction(model, sym.eta(k)) for k in range(draws)),
            )
        )
    return found


class Undecided(Exception):
    """A solver answered neither sat nor unsat."""


def _constraint(
    setting: Setting,
    cex: Counterexample,
    all_groups: Sequence[Group],
    coefficient: Callable[[Hole], tuple[Term, Term]],
) -> z3.BoolRef:
    """The counterexample, values fixed, as a constraint on the holes."""
    group = all_groups[cex.group]
    integer = setting.symbols.integer
    s = shifts(group.pattern, coefficient, cex.x, cex.y, integer)
    if cex.kind == "cost":
        parts = [cost_terms(group.pattern, s) <= _val(setting.epsilon)]
        parts += [
            t >= 0
            for (kind, *_), t in zip(group.pattern.draws, s, strict=True)
            if kind == "exponential"
        ]
        return both(parts)
    assert cex.path is not None
    path = setting.paths[cex.path]
    noise = cex.noise

    def eta(k: int) -> Term:
        return noise[k] if k < len(noise) else Fraction(0)

    return aligned_goal(setting, group, path, s, cex.x, cex.y, eta)


def synthesise(setting: Setting, family: str, budget: Budget) -> Outcome:
    """CEGIS for one template family."""
    all_groups, of_path = groups(setting.paths, family)
    integer = setting.symbols.integer
    holes: list[Hole] = []
    for group in all_groups:
        for hole in group.pattern.holes(integer):
            if hole not in holes:
                holes.append(hole)
    steps = {h: (z3.Int(f"c{j}"), z3.Int(f"d{j}")) for j, h in enumerate(holes)}
    unknowns = {h: (c * _val(setting.unit), d) for h, (c, d) in steps.items()}
    synth = z3.Optimize()
    for c, d in steps.values():
        synth.add(c >= -BOUND, c <= BOUND, d >= -BOUND, d <= BOUND)
    synth.minimize(
        z3.Sum([_abs(c) + _abs(d) for c, d in steps.values()]) if steps else z3.IntVal(0)
    )
    last: list[Counterexample] = []
    for rounds in range(1, MAX_ROUNDS + 1):
        budget.check_time()
        if synth.check() != z3.sat:
            return Outcome(None, family, rounds, tuple(last), tuple(all_groups), tuple(of_path))
        model = synth.model()
        candidate = Candidate(
            family,
            tuple((h, _fraction(model, c), _fraction(model, d)) for h, (c, d) in unknowns.items()),
        )
        found = verify_candidate(setting, candidate, all_groups, of_path, budget)
        if not found:
            return Outcome(candidate, family, rounds, (), tuple(all_groups), tuple(of_path))
        last = found
        for cex in found:
            synth.add(_constraint(setting, cex, all_groups, lambda h: unknowns[h]))
    return Outcome(None, family, MAX_ROUNDS, tuple(last), tuple(all_groups), tuple(of_path))
