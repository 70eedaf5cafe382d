"""Symbolic numbers of an alignment run: affine forms over the inputs and the noise.

The body runs once per path with every input answer a :class:`Sym` (``x[i]``
is the form ``1·x_i``) and every noise draw a fresh noise variable ``η_k``.
Sums, differences and rational multiples stay symbolic; a comparison is a
branch the run decides (:class:`~faier.engines.alignment.execute.Run`).

Each form also keeps its *fresh* input part: the input answers added since the
last noise draw joined it.  When a draw is first added to a form with a fresh
part (``q + ctx.draw(…)``, ``next + q[i] + ctx.draw(…)``), that part is the
draw's *companion*: the value the draw hides.  The alignment templates offer
the shift that cancels the companion's change between neighbours (LightDP's
distance of ``q + η``), so the Laplace mechanism's shift ``−(q′ − q)`` is one
template coefficient.  The companion guides the templates only; every
candidate alignment is checked against the program's own paths.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from faier.errors import MechanismError

if TYPE_CHECKING:
    from faier.engines.alignment.execute import Run

Coefficients = dict[int, Fraction]

STATE = 1_000_000
"""Noise indices from here on name loop-carried values (``induction.py``), not draws."""

UNSUPPORTED_FIX = (
    "the alignment engine follows sums, differences, rational multiples and comparisons of "
    "inputs and noise; keep products of noisy values, rounding and floats out of the program"
)


class NotAffine(MechanismError):
    """The program did something with a symbolic number that is not affine or a comparison."""


def exact(value: Any) -> Fraction:
    """A plain number next to a symbolic one, exactly (a float is read by its decimal text)."""
    if isinstance(value, bool):
        raise NotAffine("a truth value used as a number", fix=UNSUPPORTED_FIX)
    if isinstance(value, Fraction | int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(repr(value))
    raise NotAffine(f"a symbolic number combined with {type(value).__name__}", fix=UNSUPPORTED_FIX)


def _add(a: Coefficients, b: Coefficients, sign: int) -> Coefficients:
    out = dict(a)
    for var, c in b.items():
        value = out.get(var, Fraction(0)) + sign * c
        if value:
            out[var] = value
        else:
            out.pop(var, None)
    return out


def _scale(a: Coefficients, k: Fraction) -> Coefficients:
    return {var: c * k for var, c in a.items()} if k else {}


class Sym:
    """c + Σ aᵢ·xᵢ + Σ bₖ·ηₖ with exact rational coefficients (inputs x, noise η)."""

    __slots__ = ("const", "fresh", "inputs", "noise", "run")

    def __init__(
        self,
        inputs: Coefficients,
        noise: Coefficients,
        const: Fraction,
        fresh: Coefficients,
        run: Run,
    ) -> None:
        self.inputs = inputs
        self.noise = noise
        self.const = const
        self.fresh = fresh
        self.run = run

    def bare_draw(self) -> int | None:
        """The draw k when this form is b·ηₖ + c for a draw that has no companion yet."""
        if self.inputs or len(self.noise) != 1:
            return None
        (k,) = self.noise
        return k if k < STATE and k not in self.run.companions else None

    def _combine(self, other: Any, sign: int) -> Sym:
        if not isinstance(other, Sym):
            return Sym(
                self.inputs, self.noise, self.const + sign * exact(other), self.fresh, self.run
            )
        inputs = _add(self.inputs, other.inputs, sign)
        noise = _add(self.noise, other.noise, sign)
        const = self.const + sign * other.const
        mine, theirs = self.bare_draw(), other.bare_draw()
        if mine is not None and other.fresh:
            self.run.accompany(mine, _scale(other.fresh, -sign / self.noise[mine]))
            return Sym(inputs, noise, const, {}, self.run)
        if theirs is not None and self.fresh:
            self.run.accompany(theirs, _scale(self.fresh, -1 / (sign * other.noise[theirs])))
            return Sym(inputs, noise, const, {}, self.run)
        return Sym(inputs, noise, const, _add(self.fresh, other.fresh, sign), self.run)

    def minus(self, other: Any) -> Sym:
        """self − other without touching companions (for comparisons)."""
        if not isinstance(other, Sym):
            return Sym(self.inputs, self.noise, self.const - exact(other), {}, self.run)
        return Sym(
            _add(self.inputs, other.inputs, -1),
            _add(self.noise, other.noise, -1),
            self.const - other.const,
            {},
            self.run,
        )

    def __add__(self, other: Any) -> Sym:
        return self._combine(other, 1)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Sym:
        return self._combine(other, -1)

    def __rsub__(self, other: Any) -> Sym:
        return (self * -1)._combine(other, 1)

    def __neg__(self) -> Sym:
        return self * -1

    def __pos__(self) -> Sym:
        return self

    def __mul__(self, other: Any) -> Sym:
        if isinstance(other, Sym):
            if other.inputs or other.noise:
                raise NotAffine("a product of two symbolic numbers", fix=UNSUPPORTED_FIX)
            other = other.const
        k = exact(other)
        return Sym(
            _scale(self.inputs, k),
            _scale(self.noise, k),
            self.const * k,
            _scale(self.fresh, k),
            self.run,
        )

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Sym:
        if isinstance(other, Sym):
            raise NotAffine("a division by a symbolic number", fix=UNSUPPORTED_FIX)
        k = exact(other)
        if k == 0:
            raise MechanismError("division by zero")
        return self * (1 / k)

    def __gt__(self, other: Any) -> bool:
        return self.run.decide(self.minus(other), ">")

    def __ge__(self, other: Any) -> bool:
        return self.run.decide(self.minus(other), ">=")

    def __lt__(self, other: Any) -> bool:
        return self.run.decide(self.minus(other) * -1, ">")

    def __le__(self, other: Any) -> bool:
        return self.run.decide(self.minus(other) * -1, ">=")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sym | int | float | Fraction) or isinstance(other, bool):
            return False
        return self.run.decide(self.minus(other), "==")

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __abs__(self) -> Sym:
        return self if self >= 0 else -self

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        raise NotAffine("a symbolic number used as a truth value", fix=UNSUPPORTED_FIX)

    def __float__(self) -> float:
        raise NotAffine("a symbolic number converted to float", fix=UNSUPPORTED_FIX)

    def __int__(self) -> int:
        raise NotAffine("a symbolic number converted to int", fix=UNSUPPORTED_FIX)

    def __index__(self) -> int:
        raise NotAffine("a symbolic number used as an index", fix=UNSUPPORTED_FIX)

    def __round__(self, ndigits: int | None = None) -> Any:
        raise NotAffine("a symbolic number rounded", fix=UNSUPPORTED_FIX)

    def __repr__(self) -> str:
        return show(self.inputs, self.noise, self.const)


def show(inputs: Coefficients, noise: Coefficients, const: Fraction) -> str:
    """``x1 + η2 − 1`` (1-based names, as the certificate prints them)."""
    terms = [(c, f"x{i + 1}") for i, c in sorted(inputs.items())]
    terms += [(c, f"η{k + 1}") for k, c in sorted(noise.items())]
    text = ""
    for c, name in terms:
        sign = "−" if c < 0 else "+"
        size = abs(c)
        body = name if size == 1 else f"{size}·{name}"
        text += f" {sign} {body}" if text else ("−" if c < 0 else "") + body
    if const or not text:
        sign = "−" if const < 0 else "+"
        text += f" {sign} {abs(const)}" if text else str(const)
    return text
