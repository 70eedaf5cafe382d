"""A small, safe reader for arithmetic written by users.

Probabilities (``2*p*(1-p)``) and budgets (``4*ln(2)``) are parsed with
Python's ``ast`` and only numbers, declared names, ``+ - * / ^ **``,
parentheses and a few named functions are accepted; nothing is evaluated as
Python.  Decimals are read exactly from their text (0.1 is 1/10).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}

MAX_EXPONENT = 10_000


class ExpressionError(ValueError):
    """The text is not an expression this reader accepts; the message says why."""


def parse_expression(
    text: str,
    *,
    names: Mapping[str, sympy.Expr] | None = None,
    functions: Mapping[str, Callable[[sympy.Expr], sympy.Expr]] | None = None,
) -> sympy.Expr:
    """An exact sympy expression for ``text`` (``^`` is a power, as in ``p^2``)."""
    import sympy

    source = text.strip().replace("^", "**")
    if not source:
        raise ExpressionError("empty expression")
    if "//" in source:
        raise ExpressionError("'//' is not division; write '/'")
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {text!r}") from exc
    known = dict(names or {})
    calls = dict(functions or {})

    def walk(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            segment = ast.get_source_segment(source, node) or repr(node.value)
            return sympy.Rational(Fraction(Decimal(segment)))
        if isinstance(node, ast.Name):
            if node.id not in known:
                raise ExpressionError(f"unknown name {node.id!r}")
            return known[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = walk(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = walk(node.left), walk(node.right)
            if isinstance(node.op, ast.Div) and right == 0:
                raise ExpressionError("division by zero")
            if isinstance(node.op, ast.Pow) and right.is_number and abs(right) > MAX_EXPONENT:
                raise ExpressionError(f"exponent {right} is too large")
            return _BINARY[type(node.op)](left, right)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in calls
            and len(node.args) == 1
            and not node.keywords
        ):
            return calls[node.func.id](walk(node.args[0]))
        raise ExpressionError(f"{ast.unparse(node)!r} is not allowed here")

    result = walk(tree)
    expr = sympy.sympify(result)
    if expr.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ExpressionError(f"{text!r} is not a finite number")
    return expr
