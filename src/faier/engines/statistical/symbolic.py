"""Concolic execution of a scalar mechanism: concrete runs that record symbolic branches.

The argument generator (StatDP §4.4.2) needs, for a pair of inputs, the branch
conditions a run takes as formulas over the mechanism's public arguments,
with every noise draw set to 0, and the noise scales as formulas too.  A
:class:`Sym` carries a concrete value (so ordinary Python control flow runs)
and a z3 expression; each comparison involving one is recorded in the
run's :class:`Trace` as ``d ≥ 0`` (or ``d > 0``) with the outcome taken.
:class:`NoiseFree` stands in for the numpy generator: its draws return 0 and
record their scale.  Code this cannot follow (a Sym turned into an index,
numpy on Syms, draws it does not know) raises :class:`NotSymbolic`, and the
generator falls back to its grid.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import z3


class NotSymbolic(Exception):
    """The mechanism did something concolic execution cannot follow."""


@dataclass(frozen=True)
class Branch:
    """One executed comparison: ``difference ≥ 0`` (``> 0`` if strict) was ``taken``."""

    difference: Any
    strict: bool
    taken: bool

    def formula(self) -> Any:
        """The comparison as a z3 formula."""
        return self.difference > 0 if self.strict else self.difference >= 0


@dataclass
class Trace:
    """What one run did: its symbolic branches and noise scales, in order.

    ``context`` is the z3 context of the run's formulas; a fresh one per
    question keeps the solver's answers independent of what ran before.
    """

    context: Any = None
    branches: list[Branch] = field(default_factory=list)
    scales: list[Any] = field(default_factory=list)


def real(expr: Any) -> Any:
    """An integer z3 term as a real one (other values unchanged)."""
    if isinstance(expr, z3.ArithRef) and expr.is_int():
        return z3.ToReal(expr)
    return expr


def _split(other: Any, context: Any) -> tuple[float, Any]:
    if isinstance(other, Sym):
        return other.value, real(other.expr)
    if isinstance(other, bool) or not isinstance(other, int | float):
        raise NotSymbolic(f"cannot combine a symbolic argument with {type(other).__name__}")
    return float(other), z3.RealVal(float(other), context)


class Sym:
    """A number with a concrete value and a z3 expression over the arguments."""

    __slots__ = ("expr", "trace", "value")

    def __init__(self, value: float, expr: Any, trace: Trace) -> None:
        self.value = value
        self.expr = expr
        self.trace = trace

    def _new(self, value: float, expr: Any) -> Sym:
        return Sym(value, expr, self.trace)

    def __add__(self, other: Any) -> Sym:
        v, e = _split(other, self.trace.context)
        return self._new(self.value + v, real(self.expr) + e)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Sym:
        v, e = _split(other, self.trace.context)
        return self._new(self.value - v, real(self.expr) - e)

    def __rsub__(self, other: Any) -> Sym:
        v, e = _split(other, self.trace.context)
        return self._new(v - self.value, e - real(self.expr))

    def __mul__(self, other: Any) -> Sym:
        v, e = _split(other, self.trace.context)
        return self._new(self.value * v, real(self.expr) * e)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Sym:
        v, e = _split(other, self.trace.context)
        if isinstance(other, Sym):
            raise NotSymbolic("division by a symbolic argument")
        return self._new(self.value / v, real(self.expr) / e)

    def __rtruediv__(self, other: Any) -> Sym:
        raise NotSymbolic("division by a symbolic argument")

    def __neg__(self) -> Sym:
        return self._new(-self.value, -real(self.expr))

    def _compare(self, other: Any, sign: int, strict: bool) -> bool:
        """Record ``sign·(self − other) ≥ 0`` (or ``> 0``) and return its concrete truth."""
        v, e = _split(other, self.trace.context)
        difference = (self.value - v) * sign
        taken = difference > 0 if strict else difference >= 0
        expr = (real(self.expr) - e) * sign
        self.trace.branches.append(Branch(z3.simplify(expr), strict, taken))
        return taken

    def __ge__(self, other: Any) -> bool:
        return self._compare(other, 1, strict=False)

    def __gt__(self, other: Any) -> bool:
        return self._compare(other, 1, strict=True)

    def __le__(self, other: Any) -> bool:
        return self._compare(other, -1, strict=False)

    def __lt__(self, other: Any) -> bool:
        return self._compare(other, -1, strict=True)

    def __bool__(self) -> bool:
        raise NotSymbolic("a symbolic argument used as a truth value")

    def __index__(self) -> int:
        raise NotSymbolic("a symbolic argument used as an index or count")

    def __float__(self) -> float:
        raise NotSymbolic("a symbolic argument converted to float")

    __hash__ = None  # type: ignore[assignment]


class NoiseFree:
    """A stand-in for ``numpy.random.Generator``: every draw is 0 and records its scale."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def _draw(self, scale: Any, size: Any) -> float:
        if size is not None:
            raise NotSymbolic("vectorised draws (size=...) in a scalar definition")
        self.trace.scales.append(scale)
        return 0.0

    def laplace(self, loc: float = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return loc + self._draw(scale, size)

    def normal(self, loc: float = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return loc + self._draw(scale, size)

    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any:
        return self._draw(scale, size)

    def __getattr__(self, name: str) -> Any:
        raise NotSymbolic(f"draw {name!r} has no noise-free value")
