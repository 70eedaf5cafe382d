"""Comparisons over a model's variables inside formulas: ``observe0 > 1``, ``x + y = 2``.

PRISM properties name states by expressions over the model's variables as
often as by labels.  faier reads such a comparison into an exact term tree
(:class:`~faier.logic.syntax.Expression`) and decides it on the states'
valuations: once per distinct combination of the variables it uses, with
Fractions for ``/`` as PRISM's real division, so a model of hundreds of
thousands of states costs a few thousand evaluations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from faier.errors import SpecError

Value = int | bool | Fraction
Term = tuple[object, ...]
"""``("var", name)``, ``("num", Fraction)``, ``("neg", t)``, ``(op, t, u)`` for + - * /,
``("call", name, (t, ...))``."""


def _pow(base: Fraction, exponent: Fraction) -> Fraction:
    if exponent.denominator != 1:
        raise SpecError(f"pow({base}, {exponent}): faier computes whole powers only")
    return base ** int(exponent)


def _mod(a: Fraction, b: Fraction) -> Fraction:
    if b == 0:
        raise SpecError(f"mod({a}, 0) divides by zero")
    return a % b


FUNCTIONS: dict[str, tuple[int, Callable[..., Fraction]]] = {
    "min": (-1, lambda *xs: min(xs)),
    "max": (-1, lambda *xs: max(xs)),
    "floor": (1, lambda x: Fraction(math.floor(x))),
    "ceil": (1, lambda x: Fraction(math.ceil(x))),
    "mod": (2, _mod),
    "pow": (2, _pow),
}
"""PRISM's functions on numbers: name → (arity, -1 for any ≥ 1; the function)."""

COMPARISONS: dict[str, Callable[[Fraction, Fraction], bool]] = {
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def term_variables(term: Term) -> frozenset[str]:
    """The variables a term reads."""
    kind = term[0]
    if kind == "var":
        return frozenset({str(term[1])})
    if kind == "num":
        return frozenset()
    if kind == "neg":
        return term_variables(_sub(term, 1))
    if kind == "call":
        args = term[2]
        assert isinstance(args, tuple)
        return frozenset().union(*(term_variables(a) for a in args))
    return term_variables(_sub(term, 1)) | term_variables(_sub(term, 2))


def _sub(term: Term, i: int) -> Term:
    part = term[i]
    assert isinstance(part, tuple)
    return part


def evaluate(term: Term, valuation: Mapping[str, Value]) -> Fraction:
    """The term's exact value in one state (booleans count as 0 and 1)."""
    kind = term[0]
    if kind == "var":
        return Fraction(int(valuation[str(term[1])]))
    if kind == "num":
        value = term[1]
        assert isinstance(value, Fraction)
        return value
    if kind == "neg":
        return -evaluate(_sub(term, 1), valuation)
    if kind == "call":
        _, function = FUNCTIONS[str(term[1])]
        args = term[2]
        assert isinstance(args, tuple)
        return function(*(evaluate(a, valuation) for a in args))
    left, right = evaluate(_sub(term, 1), valuation), evaluate(_sub(term, 2), valuation)
    if kind == "+":
        return left + right
    if kind == "-":
        return left - right
    if kind == "*":
        return left * right
    if right == 0:
        raise SpecError("the expression divides by zero in some state", fix="guard the division")
    return left / right


def show_term(term: Term) -> str:
    """PRISM's text for a term (fully bracketed where operators meet)."""
    kind = term[0]
    if kind == "var":
        return str(term[1])
    if kind == "num":
        value = term[1]
        return str(value)
    if kind == "neg":
        return f"-{_wrapped(_sub(term, 1))}"
    if kind == "call":
        args = term[2]
        assert isinstance(args, tuple)
        return f"{term[1]}({', '.join(show_term(a) for a in args)})"
    return f"{_wrapped(_sub(term, 1))} {kind} {_wrapped(_sub(term, 2))}"


def _wrapped(term: Term) -> str:
    text = show_term(term)
    return f"({text})" if term[0] in ("+", "-", "*", "/") else text


@dataclass(frozen=True)
class Valuations:
    """Each variable's value in every state, in the model's state order (PRISM, JANI)."""

    states: tuple[str, ...]
    columns: Mapping[str, Sequence[int | bool]] = field(compare=False)

    def is_boolean(self, name: str) -> bool:
        column = self.columns.get(name)
        return column is not None and len(column) > 0 and isinstance(column[0], bool)

    def true_in(self, name: str) -> frozenset[str]:
        """The states where a boolean variable is true (it is then usable as a label)."""
        return frozenset(s for s, v in zip(self.states, self.columns[name], strict=True) if v)

    def satisfying(
        self,
        left: Term,
        op: str,
        right: Term,
    ) -> frozenset[str]:
        """The states where ``left op right`` holds: one evaluation per distinct valuation."""
        names = sorted(term_variables(left) | term_variables(right))
        test = COMPARISONS[op]
        decided: dict[tuple[int | bool, ...], bool] = {}
        found: list[str] = []
        rows = zip(*(self.columns[n] for n in names), strict=True) if names else None
        for state in self.states:
            key = next(rows) if rows is not None else ()
            answer = decided.get(key)
            if answer is None:
                valuation = dict(zip(names, key, strict=True))
                answer = test(evaluate(left, valuation), evaluate(right, valuation))
                decided[key] = answer
            if answer:
                found.append(state)
        return frozenset(found)
