"""A PRISM model's constants and ``formula`` names as terms, so properties may use them.

PRISM property files compare variables with the model's constants and
formulas (``P=? [ F s=4 & z/N<0.1 ]`` in nand, ``Pmax=? [ F col=COL ]`` in
wlan) and use boolean formulas like labels.  Storm reads each name against
the program whose constants are set, which substitutes every constant and
nested formula, and the resulting expression becomes a
:data:`~faier.logic.expressions.Term` over the state variables, evaluated
exactly by :class:`~faier.logic.expressions.Valuations`.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from faier.logic.expressions import Term

FORMULA = re.compile(r"^\s*formula\s+([A-Za-z_][A-Za-z0-9_]*)\s*=", re.MULTILINE)

_OPERATORS = {
    "PLUS": "+",
    "MINUS": "-",
    "TIMES": "*",
    "DIVIDE": "/",
    "AND": "and",
    "OR": "or",
    "IMPLIES": "implies",
    "IFF": "iff",
    "XOR": "xor",
}
_COMPARISONS = {
    "EQUAL": "=",
    "NOT_EQUAL": "!=",
    "LESS": "<",
    "LESS_OR_EQUAL": "<=",
    "GREATER": ">",
    "GREATER_OR_EQUAL": ">=",
}
_FUNCTIONS = {"MIN": "min", "MAX": "max", "FLOOR": "floor", "CEIL": "ceil", "POWER": "pow"}


class Untranslatable(ValueError):
    """A Storm expression with an operator faier's terms do not have."""


def storm_term(expression: Any) -> Term:
    """A stormpy expression (constants already substituted) as a faier term."""
    if expression.is_function_application:
        try:
            name = str(expression.operator).rsplit(".", 1)[-1]
        except ValueError as error:  # an operator stormpy's enum lacks (log is number 13)
            raise Untranslatable(f"a Storm operator stormpy cannot name ({error})") from error
        parts = [storm_term(expression.get_operand(i)) for i in range(expression.arity)]
        if name == "NOT":
            return ("not", parts[0])
        if name == "MINUS" and len(parts) == 1:
            return ("neg", parts[0])
        if name in _OPERATORS:
            return (_OPERATORS[name], parts[0], parts[1])
        if name in _COMPARISONS:
            return ("cmp", _COMPARISONS[name], parts[0], parts[1])
        if name == "ITE":
            return ("ite", parts[0], parts[1], parts[2])
        if name in _FUNCTIONS:
            return ("call", _FUNCTIONS[name], tuple(parts))
        if name == "MODULO":
            return _remainder(parts[0], parts[1])
        raise Untranslatable(f"Storm's operator {name}")
    if expression.is_variable():
        return ("var", expression.get_identifier())
    if expression.has_boolean_type():
        return ("bool", expression.evaluate_as_bool())
    return ("num", Fraction(str(expression.evaluate_as_rational())))


def _remainder(a: Term, b: Term) -> Term:
    """Storm's ``a % b``, C's remainder (its sign is the dividend's; Storm wraps it to give
    PRISM's mod): sign(a) · (|a| mod |b|), through faier's floor ``mod``."""
    size = ("call", "max", (b, ("neg", b)))
    positive = ("call", "mod", (a, size))
    negative = ("neg", ("call", "mod", (("neg", a), size)))
    return ("ite", ("cmp", ">=", a, ("num", Fraction(0))), positive, negative)


def prism_definitions(program: Any, text: str, stormpy: Any) -> dict[str, Term]:
    """Each defined constant and each formula of a PRISM program (constants set) as a term.

    A formula Storm cannot put in terms (an operator faier lacks) is left
    out: a property naming it is then refused as naming an unknown variable.
    """
    found: dict[str, Term] = {}
    for constant in program.constants:
        if constant.defined:
            try:
                found[constant.name] = storm_term(constant.definition)
            except (Untranslatable, RuntimeError):
                continue
    for name in FORMULA.findall(text):
        expression = _formula(program, name, stormpy)
        if expression is not None:
            try:
                found[name] = storm_term(expression)
            except Untranslatable:
                continue
    return found


def _formula(program: Any, name: str, stormpy: Any) -> Any:
    """Storm's expression for a formula name: read as a condition, else as a number."""
    for text, numeric in ((f"P=? [F {name}]", False), (f"P=? [F {name} = {name}]", True)):
        try:
            (prop,) = stormpy.parse_properties(text, program)
            expression = prop.get_raw_formula().subformula.subformula.get_expression()
        except (RuntimeError, AttributeError):  # not this type, or a literal (no expression)
            continue
        return expression.get_operand(0) if numeric else expression
    return None
