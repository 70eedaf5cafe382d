"""Checks on a JANI document before Storm builds it: a divisor that is 0 kills the process.

Storm evaluates constant expressions natively, and ``p / z`` with ``z = 0``
ends in SIGFPE, not in an exception faier could report.  So every division
whose divisor depends on constants alone (the file's values and ``--set``)
is evaluated here first, exactly; divisors over variables are left to Storm.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction

from faier.errors import ModelError
from faier.model.numbers import parse_number

_ARITHMETIC = {"+", "-", "*", "/", "min", "max"}


class _NotConstant(Exception):
    """The expression reads a variable, or uses an operator this check does not evaluate."""


def _value(expression: object, constants: Mapping[str, Fraction]) -> Fraction:
    if isinstance(expression, bool):
        raise _NotConstant
    if isinstance(expression, int | float):
        return Fraction(str(expression)) if isinstance(expression, float) else Fraction(expression)
    if isinstance(expression, str):
        if expression not in constants:
            raise _NotConstant
        return constants[expression]
    if not isinstance(expression, dict) or expression.get("op") not in _ARITHMETIC:
        raise _NotConstant
    left = _value(expression.get("left"), constants)
    right = _value(expression.get("right"), constants)
    op = expression["op"]
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "min":
        return min(left, right)
    if op == "max":
        return max(left, right)
    if right == 0:
        raise ZeroDivisionError
    return left / right


def _nodes(document: object) -> Iterator[dict[str, object]]:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def check_divisions(document: Mapping[str, object], given: Mapping[str, str], source: str) -> None:
    """Refuse a division by a constant expression that is 0 (Storm would crash on it)."""
    constants: dict[str, Fraction] = {}
    for name, text in given.items():
        try:
            constants[name] = parse_number(text)[0]
        except ValueError:
            continue
    declared = document.get("constants", [])
    for constant in declared if isinstance(declared, list) else []:
        if isinstance(constant, dict) and "value" in constant:
            try:
                constants[str(constant.get("name"))] = _value(constant["value"], constants)
            except (_NotConstant, ZeroDivisionError):
                continue
    for node in _nodes(document):
        if node.get("op") != "/":
            continue
        try:
            divisor = _value(node.get("right"), constants)
        except (_NotConstant, ZeroDivisionError):
            continue
        if divisor == 0:
            raise ModelError(
                f"a division by {_show(node.get('right'))} divides by zero once the constants "
                "are put in",
                where=source,
                fix="change the divisor or the constants it uses",
            )


def _show(expression: object) -> str:
    if isinstance(expression, dict):
        left, right = _show(expression.get("left")), _show(expression.get("right"))
        return f"({left} {expression.get('op')} {right})"
    return str(expression)
