"""Formula trees as Storm's parser builds them, and faier's in the same shape, for comparison.

stormpy does not expose the children of Storm's boolean path formulas, but
Storm prints every formula with each non-atomic operand of a binary operator
bracketed (``P=? [F (("a" & (G "b")) | "c")]``, ``((x + 1) = (2 * y))``), so
its text has one reading without any precedence: :func:`storm_tree` reads it
that way, independently of faier's grammar, into the canonical form that
:func:`faier_tree` gives faier's formulas.

The canonical form is a nested tuple.  Chains of one associative operator
are flattened (Storm groups ``a & x=1 & y=2`` as ``a & (x=1 & y=2)`` when the
comparisons form one expression), arithmetic without variables is folded to
its exact value (``1/4`` is one number to faier, a division to Storm), and
labels, boolean variables and other identifiers are all ``("name", n)``.
A ternary ``c ? a : b`` whose branches are not numbers is faier's
``(c & a) | (!c & b)``, so Storm's is read as that.
No faier module is imported here except the syntax nodes.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

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
    Next,
    Not,
    Or,
    Prob,
    Query,
    Reward,
    Until,
)

Canon = tuple[Any, ...]

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<label>"[^"]*")
  | (?P<prob>P(?:min|max)?(?:=\?|<=|>=|<|>))
  | (?P<reward>R(?:\{"[^"]*"\})?(?:min|max)?=\?)
  | (?P<bound>U(?:<=|<|>=|>)|U\[)
  | (?P<number>\d+(?:\.\d+)?(?:/\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=>|=>|<=|>=|!=|[-+*/<>=&|!()\[\],?:])
    )""",
    re.VERBOSE,
)
_BINARY = {"&": "and", "|": "or", "=>": "implies", "<=>": "iff"}
_COMPARE = {"=", "!=", "<", "<=", ">", ">="}
_ARITHMETIC = {"+", "-", "*", "/"}


def _tokens(text: str) -> list[str]:
    found, at = [], 0
    text = text.rstrip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            raise ValueError(f"cannot read Storm's text at {text[at:]!r}")
        found.append(match.group().strip())
        at = match.end()
    return found


class _Reader:
    """Storm's printed formula: at most one binary operator per bracket level."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.tokens[self.at]
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected!r}, got {token!r} in {self.tokens}")
        self.at += 1
        return token

    def whole(self) -> Canon:
        node = self.level()
        if self.peek() is not None:
            raise ValueError(f"text left over: {self.tokens[self.at :]}")
        return node

    def level(self) -> Canon:
        left = self.unary()
        token = self.peek()
        if token == "?":
            self.take()
            then = self.unary()
            self.take(":")
            return ("ite", left, then, self.unary())
        if token in _BINARY:
            self.take()
            return (_BINARY[token], left, self.unary())
        if token in _COMPARE or token in _ARITHMETIC:
            self.take()
            return (token, left, self.unary())
        if token == "U" or (token is not None and token.startswith("U")):
            self.take()
            bound = None
            if token != "U":
                bound = token[1:] + self.number_text()
            return ("U", left, self.unary(), bound)
        return left

    def number_text(self) -> str:
        sign = self.take() if self.peek() == "-" else ""
        return sign + self.take()

    def unary(self) -> Canon:
        token = self.take()
        if token == "!":
            return ("not", self.unary())
        if token == "-":
            return ("neg", self.unary())
        if token in ("F", "G", "X"):
            return (token, self.unary())
        if token == "(":
            node = self.level()
            self.take(")")
            return node
        if token.startswith("P"):
            return self.probability(token)
        if token.startswith("R") and token.endswith("=?"):
            return self.reward(token)
        if token.startswith('"'):
            return ("name", token[1:-1])
        if token in ("true", "false"):
            return ("bool", token == "true")
        if re.fullmatch(r"\d.*", token):
            return ("num", Fraction(token))
        if self.peek() == "(" and token in ("min", "max", "floor", "ceil", "pow", "mod"):
            self.take("(")
            args = [self.level()]
            while self.peek() == ",":
                self.take()
                args.append(self.level())
            self.take(")")
            return ("call", token, tuple(args))
        return ("name", token)

    def probability(self, token: str) -> Canon:
        kind = token[1:4] if token[1:4] in ("min", "max") else None
        comparison = token[4:] if kind else token[1:]
        bound = None
        if comparison != "=?":
            value = normal(self.unary())  # a number, or (1 / 2) in a nested operator
            if value[0] != "num":
                raise ValueError(f"a bound that is not a number: {value}")
            bound = (comparison, value[1])
        self.take("[")
        path = self.level()
        self.take("]")
        return ("P", kind, bound, path)

    def reward(self, token: str) -> Canon:
        found = re.fullmatch(r'R(?:\{"([^"]*)"\})?(min|max)?=\?', token)
        assert found is not None
        self.take("[")
        if self.peek() == "C":
            self.take()
            self.take("<=")
            path: Canon = ("C", ("num", Fraction(self.take())))
        else:
            self.take("F")
            path = ("F", self.level())
        self.take("]")
        return ("R", found.group(1), found.group(2), path)


def storm_tree(text: str) -> Canon:
    """Storm's printed formula (``str(property.raw_formula)``) in canonical form."""
    return normal(_Reader(text).whole())


def faier_tree(formula: Formula) -> Canon:
    """A faier formula in the canonical form of :func:`storm_tree`."""
    return normal(_faier(formula))


def _faier(node: Formula) -> Canon:
    if isinstance(node, Atom):
        return ("name", node.name)
    if isinstance(node, Const):
        return ("bool", node.value)
    if isinstance(node, Expression):
        return (node.op, _term(node.left), _term(node.right))
    if isinstance(node, Not):
        return ("not", _faier(node.operand))
    if isinstance(node, And):
        return ("and", _faier(node.left), _faier(node.right))
    if isinstance(node, Or):
        return ("or", _faier(node.left), _faier(node.right))
    if isinstance(node, Implies):
        return ("implies", _faier(node.left), _faier(node.right))
    if isinstance(node, Next):
        return ("X", _faier(node.operand))
    if isinstance(node, Finally):
        if node.bound is None:
            return ("F", _faier(node.operand))
        return ("U", ("bool", True), _faier(node.operand), f"<={node.bound}")
    if isinstance(node, Globally):
        steps = () if node.bound is None else (node.bound,)
        return ("G", _faier(node.operand), *steps)
    if isinstance(node, Until):
        bound = None if node.bound is None else f"<={node.bound}"
        return ("U", _faier(node.left), _faier(node.right), bound)
    if isinstance(node, Prob):
        test = node.test
        if isinstance(test, Query):
            kind = {"P": None, "Pmin": "min", "Pmax": "max"}[test.kind]
            return ("P", kind, None, _faier(node.path))
        if isinstance(test, Bound):
            return ("P", None, (test.op, test.value), _faier(node.path))
        return ("P-interval", test, _faier(node.path))
    if isinstance(node, Reward):
        if node.target is None:
            return ("R", node.structure, node.optimum, ("C", ("num", Fraction(node.steps or 0))))
        return ("R", node.structure, node.optimum, ("F", _faier(node.target)))
    assert isinstance(node, Diff)
    return ("D", node.epsilon.text, node.delta, _faier(node.path))


def _term(term: tuple[Any, ...]) -> Canon:
    kind = term[0]
    if kind == "var":
        return ("name", term[1])
    if kind == "num":
        return ("num", term[1])
    if kind == "neg":
        return ("neg", _term(term[1]))
    if kind == "call":
        return ("call", term[1], tuple(_term(a) for a in term[2]))
    if kind == "bool":
        return ("bool", term[1])
    if kind == "cmp":
        return (term[1], _term(term[2]), _term(term[3]))
    if kind in ("not", "ite", "and", "or", "implies"):
        return (kind, *(_term(t) for t in term[1:]))
    return (kind, _term(term[1]), _term(term[2]))


_NUMERIC = {"num", "neg", "call", "ite", *_ARITHMETIC}


def normal(node: Canon) -> Canon:
    """Flatten chains of & and of |, fold arithmetic without variables, Storm's bound text."""
    kind = node[0]
    if kind == "ite":
        test, then, other = (normal(part) for part in node[1:])
        if then[0] in _NUMERIC or other[0] in _NUMERIC:
            return ("ite", test, then, other)
        test, then, other = node[1:]
        return normal(("or", ("and", test, then), ("and", ("not", test), other)))
    if kind in ("and", "or"):
        parts: list[Canon] = []
        for child in node[1:]:
            child = normal(child)
            parts.extend(child[1] if child[0] == kind else (child,))
        return (kind, tuple(parts))
    if kind in ("name", "bool", "num"):
        return node
    if kind == "U":
        bound = node[3]
        if bound is not None:
            op, value = re.fullmatch(r"(<=|<|>=|>)(.*)", bound).groups()  # type: ignore[union-attr]
            bound = (op, Fraction(value))
        return ("U", normal(node[1]), normal(node[2]), bound)
    if kind == "P":
        return ("P", node[1], node[2], normal(node[3]))
    if kind == "R":
        return ("R", node[1], node[2], normal(node[3]))
    if kind == "call":
        args = tuple(normal(a) for a in node[2])
        if all(a[0] == "num" for a in args) and node[1] in ("min", "max"):
            pick = min if node[1] == "min" else max
            return ("num", pick(a[1] for a in args))
        return ("call", node[1], args)
    if kind == "neg":
        inner = normal(node[1])
        return ("num", -inner[1]) if inner[0] == "num" else ("neg", inner)
    if kind in _ARITHMETIC:
        left, right = normal(node[1]), normal(node[2])
        if left[0] == "num" and right[0] == "num" and not (kind == "/" and right[1] == 0):
            a, b = left[1], right[1]
            value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[kind]
            return ("num", value)
        return (kind, left, right)
    return (kind, *(normal(c) if isinstance(c, tuple) else c for c in node[1:]))
