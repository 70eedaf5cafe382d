"""Symbolic execution of a program over its continuous noise variables.

``ctx.draw(faier.laplace(...))`` returns a :class:`Linear`: an exact affine
expression in the noise variables drawn so far (noise located at ``loc`` is
``loc`` plus the same noise at 0).  Sums, differences and
rational multiples stay symbolic; each comparison of a Linear with a number
or another Linear is a branch, recorded on the path as ``d ≥ 0`` for its
outcome (boundaries have probability zero for continuous noise, so ``>``
and ``≥`` coincide).  Finite draws (``ctx.draw(Distribution)``) branch over
their outcomes with exact weights.  Every path is found by re-running the
body with a prefix of decisions, depth first, as ``handlers.enumerate_paths``
does for finite draws.  Equality of Linears is structural: two different
expressions are equal with probability zero.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from faier.engines.certified.exppoly import ONE, Q
from faier.errors import BudgetExceeded, MechanismError, Unanswerable
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.decisions import Choices, advance
from faier.mechanisms.outputs import hashable_output
from faier.model.distribution import Distribution

UNSUPPORTED_FIX = (
    "the certified engine follows sums, differences, rational multiples and comparisons "
    "of noise; keep other operations (products of noise, rounding, floats) out of the program"
)


class NotLinear(Unanswerable):
    """The program did something with noise that is not affine or a comparison: the
    engine cannot follow it (its answer is "unknown" naming the operation), though the
    program itself is fine."""

    def __init__(self, operation: str, *, fix: str = UNSUPPORTED_FIX) -> None:
        self.operation = operation
        self.fix = fix
        super().__init__(f"{operation}: {fix}")


def _exact(value: Any) -> Fraction:
    if isinstance(value, bool):
        raise NotLinear("a truth value used as a number next to noise", fix=UNSUPPORTED_FIX)
    if isinstance(value, Fraction | int):
        return Q(value)  # type: ignore[no-any-return]
    if isinstance(value, float):
        return Q(Fraction(repr(value)))  # type: ignore[no-any-return]
    if isinstance(value, Q):
        return value  # type: ignore[no-any-return]
    raise NotLinear(f"noise combined with {type(value).__name__} {value!r}", fix=UNSUPPORTED_FIX)


class Linear:
    """c + Σ aᵢ·Xᵢ over noise variables Xᵢ, with exact rational coefficients."""

    __slots__ = ("coefficients", "constant", "run")

    def __init__(
        self, coefficients: tuple[tuple[int, Fraction], ...], constant: Fraction, run: _Run
    ) -> None:
        self.coefficients = coefficients
        self.constant = constant
        self.run = run

    def _combine(self, other: Any, sign: int) -> Linear:
        if isinstance(other, Linear):
            mine, theirs = self.coefficients, other.coefficients
            if len(mine) == 1 and len(theirs) == 1 and mine[0][0] != theirs[0][0]:
                # two single noisy values (a noisy query against another): no dict needed
                (u, a), (v, b) = mine[0], theirs[0]
                b = b if sign == 1 else -b
                pair = ((u, a), (v, b)) if u < v else ((v, b), (u, a))
                return Linear(pair, self.constant + sign * other.constant, self.run)
            acc = dict(self.coefficients)
            for var, a in other.coefficients:
                acc[var] = acc[var] + sign * a if var in acc else sign * a
            coeffs = tuple(sorted((v, a) for v, a in acc.items() if a))
            return Linear(coeffs, self.constant + sign * other.constant, self.run)
        return Linear(self.coefficients, self.constant + sign * _exact(other), self.run)

    def __add__(self, other: Any) -> Linear:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Linear:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Linear:
        return (-self)._combine(other, 1)

    def __neg__(self) -> Linear:
        return self * -1

    def __pos__(self) -> Linear:
        return self

    def __mul__(self, other: Any) -> Linear:
        if isinstance(other, Linear):
            raise NotLinear("a product of two noisy values", fix=UNSUPPORTED_FIX)
        if other == 1:
            return self
        if other == -1:
            return Linear(tuple((v, -a) for v, a in self.coefficients), -self.constant, self.run)
        k = _exact(other)
        coeffs = tuple((v, a * k) for v, a in self.coefficients if a * k)
        return Linear(coeffs, self.constant * k, self.run)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Linear:
        if isinstance(other, Linear):
            raise NotLinear("a division by a noisy value", fix=UNSUPPORTED_FIX)
        k = _exact(other)
        if k == 0:
            raise MechanismError("division by zero")
        return self * (1 / k)

    def _decide(self, other: Any, sign: int) -> bool:
        difference = self - other if sign == 1 else other - self
        return self.run.decide(difference)

    def __ge__(self, other: Any) -> bool:
        return self._decide(other, 1)

    def __gt__(self, other: Any) -> bool:
        return self._decide(other, 1)

    def __le__(self, other: Any) -> bool:
        return self._decide(other, -1)

    def __lt__(self, other: Any) -> bool:
        return self._decide(other, -1)

    def key(self) -> tuple[tuple[tuple[int, Fraction], ...], Fraction]:
        return self.coefficients, self.constant

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Linear):
            return self.key() == other.key()
        return not self.coefficients and other == self.constant

    def __hash__(self) -> int:
        return hash(self.key())

    def __bool__(self) -> bool:
        raise NotLinear("a noisy value used as a truth value", fix=UNSUPPORTED_FIX)

    def __float__(self) -> float:
        raise NotLinear("a noisy value converted to float", fix=UNSUPPORTED_FIX)

    def __int__(self) -> int:
        raise NotLinear("a noisy value converted to int", fix=UNSUPPORTED_FIX)

    def __index__(self) -> int:
        raise NotLinear("a noisy value used as an index", fix=UNSUPPORTED_FIX)

    def __round__(self, ndigits: int | None = None) -> Any:
        raise NotLinear("round() of a noisy value", fix=UNSUPPORTED_FIX)

    def __abs__(self) -> Linear:
        # |v| is v or −v by the sign of v: one branch, as if written v if v >= 0 else -v
        return self if self >= 0 else -self

    def __floor__(self) -> Any:
        raise NotLinear("math.floor() of a noisy value", fix=UNSUPPORTED_FIX)

    def __ceil__(self) -> Any:
        raise NotLinear("math.ceil() of a noisy value", fix=UNSUPPORTED_FIX)

    def __trunc__(self) -> Any:
        raise NotLinear("math.trunc() of a noisy value", fix=UNSUPPORTED_FIX)

    def __pow__(self, other: Any) -> Any:
        raise NotLinear("a power of a noisy value (**)", fix=UNSUPPORTED_FIX)

    def __rpow__(self, other: Any) -> Any:
        raise NotLinear("a number raised to a noisy power (**)", fix=UNSUPPORTED_FIX)

    def __mod__(self, other: Any) -> Any:
        raise NotLinear("a noisy value modulo a number (%)", fix=UNSUPPORTED_FIX)

    def __rmod__(self, other: Any) -> Any:
        raise NotLinear("a number modulo a noisy value (%)", fix=UNSUPPORTED_FIX)

    def __floordiv__(self, other: Any) -> Any:
        raise NotLinear("floor division of a noisy value (//)", fix=UNSUPPORTED_FIX)

    def __rfloordiv__(self, other: Any) -> Any:
        raise NotLinear("floor division by a noisy value (//)", fix=UNSUPPORTED_FIX)

    def __rtruediv__(self, other: Any) -> Any:
        raise NotLinear("a division by a noisy value", fix=UNSUPPORTED_FIX)

    def __complex__(self) -> complex:
        raise NotLinear("a noisy value converted to complex", fix=UNSUPPORTED_FIX)

    def __repr__(self) -> str:
        parts = [f"{a}·X{v}" for v, a in self.coefficients]
        return " + ".join([*parts, str(self.constant)])


@dataclass(frozen=True)
class Constraint:
    """Σ aᵢ·Xᵢ + c ≥ 0 over noise variables (a path's branch decision)."""

    coefficients: tuple[tuple[int, Fraction], ...]
    constant: Fraction


@dataclass(frozen=True)
class Output:
    """A noisy number in an output, as its affine expression (for densities)."""

    coefficients: tuple[tuple[int, Fraction], ...]
    constant: Fraction


def has_number(output: Hashable) -> bool:
    """Whether an output releases a noisy number (an :class:`Output`), nested tuples included."""
    if isinstance(output, Output):
        return True
    return isinstance(output, tuple) and any(has_number(o) for o in output)


@dataclass(frozen=True)
class Path:
    """One execution: its noise variables, branch constraints, exact weight and output."""

    noise: tuple[Continuous, ...]
    constraints: tuple[Constraint, ...]
    weight: Fraction
    output: Hashable


@dataclass
class _Run(Choices):
    """One replay of the body: decisions and finite choices taken from ``prefix``."""

    noise: list[Continuous] = field(default_factory=list)
    constraints: list[Constraint] = field(default_factory=list)
    tightest: dict[tuple[tuple[int, Fraction], ...], Fraction] = field(default_factory=dict)
    """coefficients → the least constant c of a constraint Σ aᵢXᵢ + c ≥ 0 on the path."""
    compared: set[tuple[int, ...]] = field(default_factory=set)
    """The variables of each constraint (a cheap first test: most comparisons are new)."""
    weight: Fraction = Fraction(1)

    def decide(self, difference: Linear) -> bool:
        if not difference.coefficients:
            return difference.constant >= 0
        variables = _variables(difference.coefficients)
        if variables in self.compared:
            known = _implied(self.tightest, difference)
            if known is not None:
                return known
        taken = self.choose(2) == 0
        signed = difference if taken else difference * -1
        self.constraints.append(Constraint(signed.coefficients, signed.constant))
        self.compared.add(variables)
        before = self.tightest.get(signed.coefficients)
        if before is None or signed.constant < before:
            self.tightest[signed.coefficients] = signed.constant
        return taken

    def draw(self, dist: Any) -> Any:
        if isinstance(dist, Continuous):
            # noise located at a value is that value plus noise at 0: the same mechanism
            # as x + laplace(0, b), so its paths (and densities) are the same shapes
            self.noise.append(replace(dist, loc=Fraction(0)) if dist.loc else dist)
            return Linear(((len(self.noise) - 1, ONE),), Q(dist.loc), self)
        if not isinstance(dist, Distribution):
            raise MechanismError(
                f"ctx.draw() needs a faier distribution, got {type(dist).__name__}",
                fix="draw faier.laplace(...), faier.exponential(...) or a faier Distribution",
            )
        index = self.choose(len(dist.items))
        outcome, p = dist.items[index]
        self.weight *= p
        return outcome


def _variables(coefficients: tuple[tuple[int, Fraction], ...]) -> tuple[int, ...]:
    if len(coefficients) == 2:
        return (coefficients[0][0], coefficients[1][0])
    return tuple(v for v, _ in coefficients)


def _implied(
    tightest: dict[tuple[tuple[int, Fraction], ...], Fraction], difference: Linear
) -> bool | None:
    """The outcome of a comparison already fixed by the same (or opposite) one on the path:
    Σ aᵢXᵢ + c ≥ 0 gives Σ aᵢXᵢ + k ≥ 0 when c ≤ k, and rules it out when the opposite
    −Σ aᵢXᵢ + c ≥ 0 has c ≤ −k (the least constant of each decides)."""
    same = tightest.get(difference.coefficients)
    if same is not None and same <= difference.constant:
        return True
    opposite = tightest.get(tuple((v, -a) for v, a in difference.coefficients))
    if opposite is not None and -opposite >= difference.constant:
        return False
    return None


def _released(value: Linear) -> Hashable:
    """A noisy number as an :class:`Output` (a constant as itself)."""
    if not value.coefficients:
        return value.constant
    return Output(value.coefficients, value.constant)


def frozen_output(value: Any) -> Hashable:
    """An output with its noisy numbers as :class:`Output` (lists become tuples)."""
    return hashable_output(value, Linear, _released)


def paths(body: Callable[[Any], Any], *, max_paths: int | None = None) -> Iterator[Path]:
    """Every execution path of ``body(ctx)`` (depth first over its decisions)."""
    prefix: list[int] = []
    count = 0
    while True:
        run = _Run(prefix=prefix)
        output = frozen_output(body(run))
        yield Path(tuple(run.noise), tuple(run.constraints), run.weight, output)
        count += 1
        if max_paths is not None and count >= max_paths:
            raise BudgetExceeded(f"more than {max_paths} execution paths")
        if not advance(prefix, run):
            return
