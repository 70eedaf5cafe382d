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
``("call", name, (t, ...))``; and, in a PRISM model's formulas and constants
(:mod:`faier.logic.definitions`), ``("bool", b)``, ``("not", t)``, ``(op, t, u)``
for the connectives in :data:`CONNECTIVES`, ``("cmp", op, t, u)`` and
``("ite", c, t, u)``."""


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

CONNECTIVES: dict[str, Callable[[bool, bool], bool]] = {
    "and": lambda a, b: a and b,
    "or": lambda a, b: a or b,
    "implies": lambda a, b: (not a) or b,
    "iff": lambda a, b: a == b,
    "xor": lambda a, b: a != b,
}
"""Boolean connectives inside a PRISM formula's definition."""

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
    if kind in ("num", "bool"):
        return frozenset()
    if kind == "call":
        args = term[2]
        assert isinstance(args, tuple)
        return frozenset().union(*(term_variables(a) for a in args))
    parts = [part for part in term[1:] if isinstance(part, tuple)]
    return frozenset().union(*(term_variables(part) for part in parts))


def _sub(term: Term, i: int) -> Term:
    part = term[i]
    assert isinstance(part, tuple)
    return part


def _number(value: Value) -> Fraction:
    return Fraction(int(value)) if isinstance(value, bool) else Fraction(value)


def evaluate(term: Term, valuation: Mapping[str, Value]) -> Fraction:
    """The term's exact value in one state (booleans count as 0 and 1)."""
    return _number(evaluate_value(term, valuation))


def evaluate_value(term: Term, valuation: Mapping[str, Value]) -> Fraction | bool:
    """The term's exact value in one state: a number, or a truth value for a condition."""
    kind = term[0]
    if kind == "var":
        value = valuation[str(term[1])]
        return value if isinstance(value, bool) else Fraction(value)
    if kind in ("num", "bool"):
        literal = term[1]
        assert isinstance(literal, Fraction | bool)
        return literal
    if kind == "not":
        return not evaluate_value(_sub(term, 1), valuation)
    if kind in CONNECTIVES:
        first = bool(evaluate_value(_sub(term, 1), valuation))
        return CONNECTIVES[str(kind)](first, bool(evaluate_value(_sub(term, 2), valuation)))
    if kind == "cmp":
        a, b = evaluate_value(_sub(term, 2), valuation), evaluate_value(_sub(term, 3), valuation)
        if isinstance(a, bool) and isinstance(b, bool) and term[1] in ("=", "!="):
            return (a == b) == (term[1] == "=")
        return COMPARISONS[str(term[1])](_number(a), _number(b))
    if kind == "ite":
        test = evaluate_value(_sub(term, 1), valuation)
        if not isinstance(test, bool):
            condition = show_term(_sub(term, 1))
            raise SpecError(
                f"the condition {condition} of c ? a : b is a number, not a truth value",
                fix="compare it, e.g. x > 0 ? 1 : 2",
            )
        chosen = 2 if test else 3
        return evaluate_value(_sub(term, chosen), valuation)
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


def is_condition(term: Term) -> bool:
    """True for a term whose value is a truth value (a boolean formula or constant)."""
    if term[0] == "ite":
        return is_condition(_sub(term, 2))
    return term[0] in ("bool", "not", "cmp", *CONNECTIVES)


def substitute(term: Term, definitions: Mapping[str, Term]) -> Term:
    """The term with each defined name (a constant or formula) replaced by its definition."""
    kind = term[0]
    if kind == "var":
        return definitions.get(str(term[1]), term)
    if kind == "call":
        args = term[2]
        assert isinstance(args, tuple)
        return ("call", term[1], tuple(substitute(a, definitions) for a in args))
    return tuple(
        substitute(part, definitions) if isinstance(part, tuple) else part for part in term
    )


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
    if kind == "bool":
        return "true" if term[1] else "false"
    if kind == "not":
        return f"!{_wrapped(_sub(term, 1))}"
    if kind == "cmp":
        return f"{_wrapped(_sub(term, 2))} {term[1]} {_wrapped(_sub(term, 3))}"
    if kind == "ite":
        parts = [_wrapped(_sub(term, i)) for i in (1, 2, 3)]
        return f"({parts[0]} ? {parts[1]} : {parts[2]})"
    symbol = _SYMBOLS.get(str(kind), str(kind))
    return f"{_wrapped(_sub(term, 1))} {symbol} {_wrapped(_sub(term, 2))}"


_SYMBOLS = {"and": "&", "or": "|", "implies": "=>", "iff": "<=>", "xor": "!="}
"""PRISM's text for the connectives of a condition."""


def _wrapped(term: Term) -> str:
    text = show_term(term)
    return f"({text})" if term[0] in ("+", "-", "*", "/", "cmp", "not", *CONNECTIVES) else text


@dataclass(frozen=True)
class Valuations:
    """Each variable's value in every state, in the model's state order (PRISM, JANI).

    ``definitions`` are the model's constants and PRISM ``formula`` names as
    terms over the variables, so properties may use them (``z/N < 0.1``,
    ``col = COL``, a boolean formula as a label).
    """

    states: tuple[str, ...]
    columns: Mapping[str, Sequence[int | bool]] = field(compare=False)
    definitions: Mapping[str, Term] = field(default_factory=dict, compare=False)

    def knows(self, name: str) -> bool:
        """True for a variable, a constant or a formula of the model."""
        return name in self.columns or name in self.definitions

    def is_boolean(self, name: str) -> bool:
        column = self.columns.get(name)
        if column is None:
            definition = self.definitions.get(name)
            return definition is not None and is_condition(definition)
        return len(column) > 0 and isinstance(column[0], bool)

    def true_in(self, name: str) -> frozenset[str]:
        """The states where a boolean variable or formula is true (usable as a label)."""
        if name not in self.columns:
            return self.satisfying(("var", name), "=", ("bool", True))
        return frozenset(s for s, v in zip(self.states, self.columns[name], strict=True) if v)

    def satisfying(
        self,
        left: Term,
        op: str,
        right: Term,
    ) -> frozenset[str]:
        """The states where ``left op right`` holds: one evaluation per distinct valuation."""
        left, right = substitute(left, self.definitions), substitute(right, self.definitions)
        names = sorted(term_variables(left) | term_variables(right))
        decided: dict[tuple[int | bool, ...], bool] = {}
        found: list[str] = []
        rows = zip(*(self.columns[n] for n in names), strict=True) if names else None
        for state in self.states:
            key = next(rows) if rows is not None else ()
            answer = decided.get(key)
            if answer is None:
                valuation = dict(zip(names, key, strict=True))
                answer = bool(evaluate_value(("cmp", op, left, right), valuation))
                decided[key] = answer
            if answer:
                found.append(state)
        return frozenset(found)
