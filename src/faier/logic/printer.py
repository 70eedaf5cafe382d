"""Writing formulas back as text that :func:`faier.logic.parser.parse` reads to the same tree.

Parentheses appear where the grammar's precedence needs them, so the text
shows the grouping PRISM and Storm read: ``F (s = 5 & srep = 2)``,
``(F a) & b``, ``a U<=3 (b & c)``.  A left-nested ``(a & b) & c`` prints as
``a & b & c`` and a right-nested ``a & (b & c)`` keeps its parentheses, so
the tree shape survives.  A prefix operator (``X``, ``F``, ``G``) takes
everything to its right, so it is bracketed wherever something follows it,
and as an operand of ``!`` or ``U``.
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
    Reward,
    Until,
)

_UNTIL, _IMPLIES, _OR, _AND, _UNARY, _PRIMARY = range(1, 7)
_PREFIX = 0
"""A prefix operator's level: below every binary operator, so any operand place brackets it."""


def format_formula(formula: Formula) -> str:
    """The formula in faier's dpCTL* syntax (PRISM's, where PRISM has the operator)."""
    return _show(formula, 0, open_right=True)


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


def format_reward(node: Reward) -> str:
    """``R{"time"}min=? [F done]`` or ``R=? [C<=10]``, as PRISM writes it."""
    name = "" if node.structure is None else '{"' + node.structure + '"}'
    question = f"R{name}{node.optimum or ''}=?"
    if node.target is None:
        return f"{question} [C<={node.steps}]"
    return f"{question} [F {_argument(node.target)}]"


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


def _show(node: Formula, needed: int, *, open_right: bool = False) -> str:
    """``node`` bracketed when its level is below ``needed``.

    ``open_right`` says nothing follows the text up to a closing bracket, so
    a prefix operator may stand bare there (it takes everything to its right).
    """
    text, level = _render(node, open_right)
    if level == _PREFIX and open_right:
        return text
    return f"({text})" if level < needed else text


def _render(node: Formula, open_right: bool) -> tuple[str, int]:
    if isinstance(node, Atom):
        return format_label(node.name), _PRIMARY
    if isinstance(node, Expression):
        return node.text, _PRIMARY
    if isinstance(node, Const):
        return ("true" if node.value else "false"), _PRIMARY
    if isinstance(node, Until):
        op = f"U{_bound(node.bound)}"
        left = _show(node.left, _UNARY)
        return f"{left} {op} {_show(node.right, _UNARY, open_right=open_right)}", _UNTIL
    if isinstance(node, Implies):
        right = _show(node.right, _OR, open_right=open_right)
        return f"{_show(node.left, _IMPLIES)} -> {right}", _IMPLIES
    if isinstance(node, Or):
        return f"{_show(node.left, _OR)} | {_show(node.right, _AND, open_right=open_right)}", _OR
    if isinstance(node, And):
        right = _show(node.right, _UNARY, open_right=open_right)
        return f"{_show(node.left, _AND)} & {right}", _AND
    if isinstance(node, Not):
        if isinstance(node.operand, Expression):
            return f"!({node.operand.text})", _UNARY
        return f"!{_show(node.operand, _UNARY)}", _UNARY
    if isinstance(node, Next):
        return f"X {_argument(node.operand)}", _PREFIX
    if isinstance(node, Finally):
        return f"F{_bound(node.bound)} {_argument(node.operand)}", _PREFIX
    if isinstance(node, Globally):
        return f"G{_bound(node.bound)} {_argument(node.operand)}", _PREFIX
    if isinstance(node, Prob):
        return f"{_test(node.test)} [{_show(node.path, 0, open_right=True)}]", _PRIMARY
    if isinstance(node, Reward):
        return format_reward(node), _PRIMARY
    assert isinstance(node, Diff)
    delta = format_number(node.delta)
    path = _show(node.path, 0, open_right=True)
    return f"D{{{node.epsilon.text}, {delta}}}[{path}]", _PRIMARY


def _argument(operand: Formula) -> str:
    """A prefix operator's operand: bare when it is one piece, else bracketed (``F (a & b)``).

    Whatever follows the operator's text is outside a bracket around the
    operator itself, so its operand is open to the right.
    """
    text, level = _render(operand, True)
    if level == _PREFIX or level >= _UNARY:
        return text
    return f"({text})"
