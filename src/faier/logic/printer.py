"""Writing formulas back as text that :func:`faier.logic.parser.parse` reads to the same tree.

Parentheses appear only where the grammar's precedence needs them, and a
right-nested ``a & (b & c)`` keeps its parentheses so the tree shape survives.
"""

from __future__ import annotations

from fractions import Fraction

from faier.logic.parser import IDENTIFIER, KEYWORDS
from faier.logic.syntax import (
    And,
    Atom,
    Bound,
    Const,
    Diff,
    Expression,
    Finally,
    Formula,
    Globally,
    Implies,
    Interval,
    Next,
    Not,
    Or,
    Prob,
    Query,
    Until,
)

_IMPLIES, _OR, _AND, _UNTIL, _UNARY, _PRIMARY = range(1, 7)


def format_formula(formula: Formula) -> str:
    """The formula in faier's dpCTL* syntax."""
    return _show(formula, 0)


def format_label(name: str) -> str:
    """A label bare when it can be, else quoted: ``out1``, ``"F"``, ``"t 3"``."""
    if IDENTIFIER.fullmatch(name) and name not in KEYWORDS:
        return name
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def format_number(value: Fraction) -> str:
    """``0.16`` when four decimals say it exactly, else ``1/3`` (both read back exactly)."""
    if value.denominator == 1:
        return str(value.numerator)
    scaled = value * 10**4
    if scaled.denominator == 1:
        return f"{value.numerator / value.denominator:.4f}".rstrip("0")
    return str(value)


def _bound(bound: int | None) -> str:
    return "" if bound is None else f"<={bound}"


def _test(test: Bound | Interval | Query) -> str:
    if isinstance(test, Query):
        return f"{test.kind}=?"
    if isinstance(test, Bound):
        return f"P{test.op}{format_number(test.value)}"
    low = "(" if test.low_open else "["
    high = ")" if test.high_open else "]"
    return f"P in {low}{format_number(test.low)}, {format_number(test.high)}{high}"


def _show(node: Formula, needed: int) -> str:
    text, level = _render(node)
    return f"({text})" if level < needed else text


def _render(node: Formula) -> tuple[str, int]:
    if isinstance(node, Atom):
        return format_label(node.name), _PRIMARY
    if isinstance(node, Expression):
        return node.text, _PRIMARY
    if isinstance(node, Const):
        return ("true" if node.value else "false"), _PRIMARY
    if isinstance(node, Implies):
        return f"{_show(node.left, _OR)} -> {_show(node.right, _IMPLIES)}", _IMPLIES
    if isinstance(node, Or):
        return f"{_show(node.left, _OR)} | {_show(node.right, _AND)}", _OR
    if isinstance(node, And):
        return f"{_show(node.left, _AND)} & {_show(node.right, _UNTIL)}", _AND
    if isinstance(node, Until):
        op = f"U{_bound(node.bound)}"
        return f"{_show(node.left, _UNARY)} {op} {_show(node.right, _UNTIL)}", _UNTIL
    if isinstance(node, Not):
        return f"!{_show(node.operand, _UNARY)}", _UNARY
    if isinstance(node, Next):
        return f"X {_show(node.operand, _UNARY)}", _UNARY
    if isinstance(node, Finally):
        return f"F{_bound(node.bound)} {_show(node.operand, _UNARY)}", _UNARY
    if isinstance(node, Globally):
        return f"G{_bound(node.bound)} {_show(node.operand, _UNARY)}", _UNARY
    if isinstance(node, Prob):
        return f"{_test(node.test)} [{_show(node.path, 0)}]", _PRIMARY
    assert isinstance(node, Diff)
    delta = format_number(node.delta)
    return f"D{{{node.epsilon.text}, {delta}}}[{_show(node.path, 0)}]", _PRIMARY
