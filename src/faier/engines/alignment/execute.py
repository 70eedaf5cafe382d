"""Symbolic execution of a program over symbolic inputs and noise, forking on branches.

The body runs with ``x`` a tuple of :class:`~faier.engines.alignment.values.Sym`
inputs and every ``ctx.draw`` of Laplace, exponential or discrete Laplace
noise a fresh noise variable.  A comparison that involves a symbolic number
is a branch: z3 decides which outcomes are feasible under the path so far
(inputs unconstrained, noise in its support), and a run takes the prefix's
choice where both are, as ``handlers.enumerate_paths`` does for finite draws.
Each :class:`Path` keeps its branch conditions exactly as the program wrote
them (``>`` and ``≥`` apart, so integer noise with ties is modelled
faithfully), its draws, its output with the released numbers as affine
forms, and per draw its companion and the side it took in its first
comparison (the templates' selectors).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from faier.engines.alignment.values import STATE, Coefficients, NotAffine, Sym, show
from faier.errors import BudgetExceeded, InternalError, MechanismError
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.decisions import Choices, advance
from faier.mechanisms.outputs import hashable_output

KINDS = ("laplace", "exponential", "discrete_laplace")

Pairs = tuple[tuple[int, Fraction], ...]


class Unsupported(MechanismError):
    """A draw or an operation the alignment engine does not model."""


@dataclass(frozen=True)
class Form:
    """An affine form over inputs and noise, frozen (a released number, a condition's side)."""

    inputs: Pairs
    noise: Pairs
    const: Fraction

    def show(self) -> str:
        return show(dict(self.inputs), dict(self.noise), self.const)


def freeze(value: Sym) -> Form:
    return Form(
        tuple(sorted(value.inputs.items())), tuple(sorted(value.noise.items())), value.const
    )


@dataclass(frozen=True)
class Condition:
    """``form op 0`` holds on the path; op is one of >, >=, ==, !=."""

    form: Form
    op: str

    def show(self) -> str:
        symbol = {">": ">", ">=": "≥", "==": "=", "!=": "≠"}[self.op]
        return f"{self.form.show()} {symbol} 0"


@dataclass(frozen=True)
class Draw:
    """One noise draw: its family, scale and location, and the program line that drew it."""

    kind: str
    scale: Fraction
    loc: Fraction
    site: str

    def describe(self) -> str:
        name = {"laplace": "Lap", "exponential": "Exp", "discrete_laplace": "DLap"}[self.kind]
        return f"{name}({self.scale})"


@dataclass(frozen=True)
class Released:
    """The place of a released noisy number in an output's skeleton."""

    index: int

    def __str__(self) -> str:
        return f"r{self.index + 1}"


@dataclass(frozen=True)
class Path:
    """One execution: draws, branch conditions, output skeleton and released forms."""

    draws: tuple[Draw, ...]
    conditions: tuple[Condition, ...]
    skeleton: Hashable
    released: tuple[Form, ...]
    companions: tuple[Pairs, ...]
    """Per draw: D as a linear form over the inputs; the shift D(x′) − D(x) hides its change."""
    sides: tuple[int, ...]
    """Per draw: +1 if it was on the larger side of its first comparison, −1 smaller, 0 none."""


class Symbols:
    """The z3 variables: inputs x, their neighbour x′, and noise η (Int for integer noise)."""

    def __init__(self, n: int, integer: bool) -> None:
        self.integer = integer
        sort = z3.IntSort() if integer else z3.RealSort()
        self.x = [z3.Const(f"x{i + 1}", sort) for i in range(n)]
        self.x2 = [z3.Const(f"y{i + 1}", sort) for i in range(n)]
        self.noise: dict[int, z3.ArithRef] = {}

    def eta(self, k: int) -> z3.ArithRef:
        """Noise variable k (indices from ``STATE`` on: a loop-carried value, always real)."""
        if k not in self.noise:
            if k >= STATE:
                self.noise[k] = z3.Real(f"w{k - STATE + 1}")
            else:
                sort = z3.IntSort() if self.integer else z3.RealSort()
                self.noise[k] = z3.Const(f"e{k + 1}", sort)
        return self.noise[k]


def linear(pairs: Pairs | Coefficients, variables: Callable[[int], z3.ArithRef]) -> z3.ArithRef:
    items = pairs.items() if isinstance(pairs, dict) else pairs
    return total([_times(c, variables(v)) for v, c in items])


def total(terms: list[z3.ArithRef]) -> z3.ArithRef:
    """A sum without one-term ``(+ t)`` nodes, which cvc5 rejects."""
    if not terms:
        return z3.RealVal(0)
    return terms[0] if len(terms) == 1 else z3.Sum(terms)


def both(parts: list[z3.BoolRef]) -> z3.BoolRef:
    """A conjunction without one-argument ``(and p)`` nodes."""
    if not parts:
        return z3.BoolVal(True)
    return parts[0] if len(parts) == 1 else z3.And(parts)


def either(parts: list[z3.BoolRef]) -> z3.BoolRef:
    """A disjunction without one-argument ``(or p)`` nodes."""
    if not parts:
        return z3.BoolVal(False)
    return parts[0] if len(parts) == 1 else z3.Or(parts)


def _times(c: Fraction, v: z3.ArithRef) -> z3.ArithRef:
    if c == 1:
        return v
    return z3.RealVal(c) * v if c.denominator != 1 else z3.IntVal(int(c)) * v


def form_term(
    form: Form,
    x: Callable[[int], z3.ArithRef],
    eta: Callable[[int], z3.ArithRef],
) -> z3.ArithRef:
    parts = (
        [linear(form.inputs, x), linear(form.noise, eta)]
        if form.inputs and form.noise
        else (
            [linear(form.inputs, x)]
            if form.inputs
            else [linear(form.noise, eta)]
            if form.noise
            else []
        )
    )
    if form.const or not parts:
        parts.append(z3.RealVal(form.const))
    return total(parts)


def holds(op: str, term: z3.ArithRef) -> z3.BoolRef:
    return {">": term > 0, ">=": term >= 0, "==": term == 0, "!=": term != 0}[op]


def support(draws: tuple[Draw, ...], symbols: Symbols) -> list[z3.BoolRef]:
    """Exponential noise is non-negative."""
    return [symbols.eta(k) >= 0 for k, d in enumerate(draws) if d.kind == "exponential"]


@dataclass
class Run(Choices):
    """One replay of the body over symbolic inputs."""

    symbols: Symbols = field(default=None)  # type: ignore[assignment]
    solver: z3.Solver = field(default=None)
    feasible: dict[tuple[bool, ...], tuple[bool, bool]] = field(default_factory=dict)
    draws: list[Draw] = field(default_factory=list)
    conditions: list[Condition] = field(default_factory=list)
    outcomes: list[bool] = field(default_factory=list)
    """Every choice so far (branch outcomes and counter branches): the path's key."""
    companions: dict[int, Coefficients] = field(default_factory=dict)
    sides: dict[int, int] = field(default_factory=dict)
    guards: list[tuple[str, bool]] = field(default_factory=list)
    """Counter branches taken (``loops.Counter``): the program line, the outcome."""

    def guard(self, site: str) -> bool:
        """A branch on the loop counter and constants only: both outcomes, as a choice."""
        taken = self.choose(2) == 0
        self.guards.append((site, taken))
        self.outcomes.append(taken)  # the feasibility cache is keyed by every choice so far
        return taken

    def accompany(self, k: int, companion: Coefficients) -> None:
        self.companions[k] = companion

    def _term(self, value: Sym) -> z3.ArithRef:
        return form_term(freeze(value), lambda i: self.symbols.x[i], self.symbols.eta)

    def decide(self, difference: Sym, op: str) -> bool:
        if not difference.inputs and not difference.noise:
            return bool(
                {
                    ">": difference.const > 0,
                    ">=": difference.const >= 0,
                    "==": difference.const == 0,
                    "!=": difference.const != 0,
                }[op]
            )
        term = self._term(difference)
        condition = holds(op, term)
        key = tuple(self.outcomes)
        known = self.feasible.get(key)
        if known is None:
            yes = self.solver.check(condition) != z3.unsat
            no = self.solver.check(z3.Not(condition)) != z3.unsat
            known = (yes, no)
            self.feasible[key] = known
        yes, no = known
        if yes and no:
            taken = self.choose(2) == 0
        elif yes or no:
            taken = yes
        else:
            raise InternalError("a symbolic run reached a branch with no feasible outcome")
        self.outcomes.append(taken)
        negated = {">": ">=", ">=": ">", "==": "!=", "!=": "=="}[op]
        if taken:
            kept = Condition(freeze(difference), op)
        elif op in (">", ">="):
            kept = Condition(freeze(difference * -1), negated)
        else:
            kept = Condition(freeze(difference), negated)
        self.conditions.append(kept)
        self.solver.add(condition if taken else z3.Not(condition))
        for k, c in kept.form.noise:
            if k not in self.sides:
                self.sides[k] = (1 if c > 0 else -1) if kept.op in (">", ">=") else 0
        return taken

    def draw(self, dist: Any) -> Any:
        if not isinstance(dist, Continuous) or dist.kind not in KINDS:
            what = dist.describe() if isinstance(dist, Continuous) else type(dist).__name__
            raise Unsupported(
                f"the program draws {what}",
                fix="the alignment engine proves programs drawing faier.laplace, "
                "faier.exponential or faier.discrete_laplace noise; use the certified engine",
            )
        caller = sys._getframe(1)
        site = f"{caller.f_code.co_filename}:{caller.f_lineno}"
        k = len(self.draws)
        self.draws.append(Draw(dist.kind, dist.scale, dist.loc, site))
        eta = self.symbols.eta(k)
        if dist.kind == "exponential":
            self.solver.add(eta >= 0)
        return Sym({}, {k: Fraction(1)}, dist.loc, {}, self)


def _freeze_output(value: Any, released: list[Form]) -> Hashable:
    def release(number: Sym) -> Hashable:
        if not number.inputs and not number.noise:
            return number.const
        released.append(freeze(number))
        return Released(len(released) - 1)

    return hashable_output(value, Sym, release)


def inputs_of(run: Run, n: int) -> tuple[Sym, ...]:
    return tuple(Sym({i: Fraction(1)}, {}, Fraction(0), {i: Fraction(1)}, run) for i in range(n))


def paths(
    body: Callable[[Any, Any], Any], n: int, *, integer: bool, max_paths: int
) -> Iterator[Path]:
    """Every feasible path of ``body(x, ctx)`` over n symbolic inputs (depth first)."""
    symbols = Symbols(n, integer)
    solver = z3.Solver()
    feasible: dict[tuple[bool, ...], tuple[bool, bool]] = {}
    prefix: list[int] = []
    count = 0
    while True:
        run = Run(prefix=prefix, symbols=symbols, solver=solver, feasible=feasible)
        solver.push()
        try:
            value = body(inputs_of(run, n), run)
        except (NotAffine, Unsupported):
            raise
        finally:
            solver.pop()
        released: list[Form] = []
        skeleton = _freeze_output(value, released)
        yield Path(
            tuple(run.draws),
            tuple(run.conditions),
            skeleton,
            tuple(released),
            tuple(tuple(sorted(run.companions.get(k, {}).items())) for k in range(len(run.draws))),
            tuple(run.sides.get(k, 0) for k in range(len(run.draws))),
        )
        count += 1
        if not advance(prefix, run):
            return
        if count >= max_paths:
            raise BudgetExceeded(f"more than {max_paths} paths over symbolic inputs")
