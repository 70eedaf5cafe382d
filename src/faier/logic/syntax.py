"""dpCTL* formulas as small immutable values.

State and path formulas share one set of node types, as in CTL*: every state
formula is also a path formula, and a formula is a *state* formula when its
temporal operators (X, U, F, G) all sit under a ``P`` or ``D`` operator.
Nodes validate their own numbers (bounds in [0, 1], δ in [0, 1], step bounds
≥ 0) so a formula built in Python is as safe as one that was parsed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal, TypeAlias

from faier.errors import SpecError
from faier.logic.expressions import COMPARISONS, Term, show_term, term_variables

if TYPE_CHECKING:
    from faier.privacy.budget import Epsilon


def _check_probability(value: Fraction, what: str) -> None:
    if not isinstance(value, Fraction):
        raise SpecError(f"{what} must be an exact rational, got {value!r}", fix="use Fraction")
    if not 0 <= value <= 1:
        raise SpecError(f"{what} = {value} is not in [0, 1]", fix=f"{what} is a probability")


def _check_steps(bound: int | None) -> None:
    if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int) or bound < 0):
        raise SpecError(
            f"step bound {bound!r} is not a whole number ≥ 0", fix="write e.g. F<=3 or U<=0"
        )


@dataclass(frozen=True)
class Atom:
    """An atomic proposition: true in the states that carry this label."""

    name: str

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"label {self.name!r} is not a non-empty name", fix="e.g. out1")


@dataclass(frozen=True)
class Expression:
    """``observe0 > 1``: a comparison over the model's variables, true where it holds.

    The terms are :data:`faier.logic.expressions.Term` trees; only models
    whose states are variable valuations (PRISM, JANI) can decide it.
    """

    left: Term
    op: str
    right: Term

    def __post_init__(self) -> None:
        if self.op not in COMPARISONS:
            raise SpecError(f"unknown comparison {self.op!r}", fix="use = != < <= > >=")

    def variables(self) -> frozenset[str]:
        return term_variables(self.left) | term_variables(self.right)

    @property
    def text(self) -> str:
        return f"{show_term(self.left)} {self.op} {show_term(self.right)}"


@dataclass(frozen=True)
class Const:
    """``true`` or ``false``."""

    value: bool


@dataclass(frozen=True)
class Not:
    operand: Formula


@dataclass(frozen=True)
class And:
    left: Formula
    right: Formula


@dataclass(frozen=True)
class Or:
    left: Formula
    right: Formula


@dataclass(frozen=True)
class Implies:
    left: Formula
    right: Formula


@dataclass(frozen=True)
class Next:
    """``X φ``: φ holds from the second state of the path on."""

    operand: Formula


@dataclass(frozen=True)
class Until:
    """``φ U ψ`` or, with a bound k, ``φ U<=k ψ`` (ψ within k steps)."""

    left: Formula
    right: Formula
    bound: int | None = None

    def __post_init__(self) -> None:
        _check_steps(self.bound)


@dataclass(frozen=True)
class Finally:
    """``F φ`` (``true U φ``), optionally bounded."""

    operand: Formula
    bound: int | None = None

    def __post_init__(self) -> None:
        _check_steps(self.bound)


@dataclass(frozen=True)
class Globally:
    """``G φ`` (``¬F¬φ``), optionally bounded."""

    operand: Formula
    bound: int | None = None

    def __post_init__(self) -> None:
        _check_steps(self.bound)


Comparison: TypeAlias = Literal["<", "<=", ">", ">="]


@dataclass(frozen=True)
class Bound:
    """``P~b``: the probability compared with b."""

    op: Comparison
    value: Fraction

    def __post_init__(self) -> None:
        if self.op not in ("<", "<=", ">", ">="):
            raise SpecError(f"unknown comparison {self.op!r}", fix="use <, <=, > or >=")
        _check_probability(self.value, "a probability bound")

    def admits(self, p: Fraction) -> bool:
        return {
            "<": p < self.value,
            "<=": p <= self.value,
            ">": p > self.value,
            ">=": p >= self.value,
        }[self.op]


@dataclass(frozen=True)
class Interval:
    """``P in [a, b]`` (either end may be open)."""

    low: Fraction
    high: Fraction
    low_open: bool = False
    high_open: bool = False

    def __post_init__(self) -> None:
        _check_probability(self.low, "an interval's lower end")
        _check_probability(self.high, "an interval's upper end")
        if self.low > self.high:
            raise SpecError(
                f"the interval's lower end {self.low} exceeds its upper end {self.high}",
                fix="write the smaller number first",
            )

    def admits(self, p: Fraction) -> bool:
        above = p > self.low if self.low_open else p >= self.low
        below = p < self.high if self.high_open else p <= self.high
        return above and below


@dataclass(frozen=True)
class Query:
    """``P=?``, ``Pmin=?`` or ``Pmax=?``: ask for the probability instead of a truth value."""

    kind: Literal["P", "Pmin", "Pmax"] = "P"

    def __post_init__(self) -> None:
        if self.kind not in ("P", "Pmin", "Pmax"):
            raise SpecError(f"unknown query {self.kind!r}", fix="use P=?, Pmin=? or Pmax=?")


@dataclass(frozen=True)
class Prob:
    """``P~b [φ]``, ``P in [a, b] [φ]`` or a query ``P=? [φ]``."""

    path: Formula
    test: Bound | Interval | Query


@dataclass(frozen=True)
class Diff:
    """``D{ε, δ}[φ]``: φ's probability is (ε, δ)-close to every neighbour's."""

    path: Formula
    epsilon: Epsilon
    delta: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        from faier.privacy.budget import Epsilon  # only a D needs it: loaded with the first

        if not isinstance(self.epsilon, Epsilon):
            raise SpecError(f"ε must be an Epsilon, got {self.epsilon!r}", fix="Epsilon.parse")
        _check_probability(self.delta, "δ")


@dataclass(frozen=True)
class Reward:
    """PRISM's ``R=? [F φ]`` (the expected reward until φ) or ``R=? [C<=k]`` (in k steps).

    A question like ``P=?``, only as the whole formula; ``structure`` names
    one of the model's reward structures (``R{"time"}``), ``optimum`` is
    ``min``/``max`` on an MDP.
    """

    target: Formula | None
    steps: int | None = None
    structure: str | None = None
    optimum: Literal["min", "max"] | None = None

    def __post_init__(self) -> None:
        if (self.target is None) == (self.steps is None):
            raise SpecError(
                "a reward question has a target (F φ) or a step bound (C<=k)",
                fix="write R=? [F done] or R=? [C<=10]",
            )
        _check_steps(self.steps)


Formula: TypeAlias = (
    Atom
    | Expression
    | Const
    | Not
    | And
    | Or
    | Implies
    | Next
    | Until
    | Finally
    | Globally
    | Prob
    | Diff
    | Reward
)
TEMPORAL = (Next, Until, Finally, Globally)
OPERATORS = (Prob, Diff, Reward)


def children(formula: Formula) -> tuple[Formula, ...]:
    """Direct subformulas, left to right (the order positions are recorded in)."""
    if isinstance(formula, Atom | Expression | Const):
        return ()
    if isinstance(formula, Not | Next | Finally | Globally):
        return (formula.operand,)
    if isinstance(formula, And | Or | Implies | Until):
        return (formula.left, formula.right)
    if isinstance(formula, Reward):
        return () if formula.target is None else (formula.target,)
    return (formula.path,)


def walk(formula: Formula, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], Formula]]:
    """Every subformula with its position in the tree (child indices from the root)."""
    yield path, formula
    for i, child in enumerate(children(formula)):
        yield from walk(child, (*path, i))


def is_state_formula(formula: Formula) -> bool:
    """True when every temporal operator sits under a P or D."""
    if isinstance(formula, TEMPORAL):
        return False
    if isinstance(formula, OPERATORS):
        return True
    return all(is_state_formula(child) for child in children(formula))


def horizon(path: Formula) -> int | None:
    """How many steps decide a path formula (None: unboundedly many).

    A state formula is decided in the first state (0 steps); ``X φ`` needs one
    more step than φ; ``φ U<=k ψ`` needs k more than its operands.
    """
    if is_state_formula(path):
        return 0
    if isinstance(path, Next):
        inner = horizon(path.operand)
        return None if inner is None else inner + 1
    if isinstance(path, Until | Finally | Globally):
        if path.bound is None:
            return None
        parts = [horizon(child) for child in children(path)]
        if any(p is None for p in parts):
            return None
        return path.bound + max(p for p in parts if p is not None)
    parts = [horizon(child) for child in children(path)]
    if any(p is None for p in parts):
        return None
    return max((p for p in parts if p is not None), default=0)


def maximal_state_subformulas(path: Formula) -> tuple[Formula, ...]:
    """The largest state subformulas of a path formula, in order, without repeats.

    These are what a path formula talks about in each state; they are
    evaluated first and handed to the path engine as labels.
    """
    found: list[Formula] = []

    def visit(node: Formula) -> None:
        if is_state_formula(node):
            if node not in found:
                found.append(node)
            return
        for child in children(node):
            visit(child)

    visit(path)
    return tuple(found)
