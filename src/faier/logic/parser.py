"""Reading dpCTL* formulas: PRISM's and Storm's precedence, errors that point at a column.

Inside ``P[…]`` and ``D{…}[…]`` the grammar is Storm's (and PRISM's, where
PRISM accepts the formula): the boolean connectives bind tighter than the
temporal operators.  Loosest first: ``U`` (optionally ``U<=k``; not
associative: ``a U b U c`` is refused), ``->`` (left-assoc, as PRISM's
``=>``), ``|``, ``&``, then ``!`` on the smallest formula to its right.  The
prefix operators ``X``, ``F[<=k]``, ``G[<=k]`` take everything to their right
up to a ``U`` or a closing bracket: ``F s=5 & srep=2`` is ``F (s=5 & srep=2)``
and ``a & F b | c`` is ``a & F (b | c)``, as PRISM and Storm read them (the
grammar's shift/reduce choices are resolved as shifts, which is exactly
that).  PRISM's conditional ``c ? a : b`` sits between ``U`` and ``->``
(right-associative; ``F a ? b : c`` is ``F (a ? b : c)``): with formulas as
branches it is ``(c & a) | (!c & b)``; with numbers (bracketed inside
arithmetic, ``(s=4 ? x : K+1) < K``) it is an ``ite`` term.  ``P~b [φ]``,
``P in [a, b] [φ]``, ``P=? [φ]`` (and ``Pmin=?``, ``Pmax=?``) and
``D{ε, δ}[φ]`` are atomic.  A property may carry a PRISM name
(``"p2": P=? [F done]``) and end with ``;``.  Every message names the line
and column.

Nesting is capped (:data:`MAX_DEPTH` operators inside one another, as many
brackets open at once): the tree is walked recursively downstream (building,
evaluating, printing), so a deeper formula would exhaust Python's stack.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from faier.errors import SpecError
from faier.logic import _dpctl_lalr
from faier.logic._dpctl_lalr import (
    Lark,
    Token,
    Transformer,
    Tree,
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
    v_args,
)
from faier.logic.expressions import FUNCTIONS, Term, is_condition, show_term
from faier.logic.syntax import (
    TEMPORAL,
    And,
    Atom,
    Bound,
    Comparison,
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
    children,
    is_state_formula,
    walk,
)
from faier.model.numbers import parse_number

if TYPE_CHECKING:
    from faier.privacy.budget import Epsilon

_Node = TypeVar("_Node")


@dataclass(frozen=True)
class _Number:
    """A value that is a number, not a formula (``K + 1``, ``c ? 1 : 2``): a ternary's branch."""

    term: Term


def _as_term(node: object, quoted: AbstractSet[int] = frozenset()) -> Term | None:
    """A formula over variables as an expression term, for a ternary; None where it has none.

    ``quoted`` are the ids of the quoted labels (``"a"``), which are no variables.
    """
    if isinstance(node, tuple):
        return node
    if isinstance(node, _Number | _Conditional):
        return node.term
    if isinstance(node, Atom):
        return None if id(node) in quoted else ("var", node.name)
    if isinstance(node, Const):
        return ("bool", node.value)
    if isinstance(node, Expression):
        return ("cmp", node.op, node.left, node.right)
    if isinstance(node, Not):
        inner = _as_term(node.operand, quoted)
        return None if inner is None else ("not", inner)
    if isinstance(node, And | Or | Implies):
        kind = {And: "and", Or: "or", Implies: "implies"}[type(node)]
        left, right = _as_term(node.left, quoted), _as_term(node.right, quoted)
        return None if left is None or right is None else (kind, left, right)
    return None


@dataclass(frozen=True)
class _Conditional:
    """A bracketed ``(c ? a : b)`` without numbers: a formula, or (over variables) a term."""

    term: Term | None
    formula: Formula


@dataclass(frozen=True)
class _Name:
    """A property's PRISM name, as the parse tree hands it to ``start``."""

    text: str


MAX_DEPTH = 200
"""Most operators nested inside one another (``!``, ``X``, ``&``, ``P``, ``D``, and the
arithmetic inside ε), and most brackets open at once, in one formula."""

_NESTING = frozenset(
    {
        "implies",
        "or_",
        "and_",
        "until",
        "not_",
        "next_",
        "finally_",
        "globally",
        "prob_bound",
        "prob_query",
        "prob_interval",
        "diff",
        "eps_sum",
        "eps_prod",
        "eps_unary",
        "eps_power",
        "eps_atom",
        "compare",
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "call",
        "ite",
        "paren_ite",
    }
)
"""Parse-tree nodes that count one level towards :data:`MAX_DEPTH`."""

FRAMES_PER_LEVEL = 8
"""Python frames the deepest recursive pass spends per level (the evaluator: six for a D in a D)."""


def make_room() -> None:
    """Raise Python's recursion limit so that a formula nested MAX_DEPTH deep can be evaluated.

    At six frames per level the evaluator needs more than the default 1000
    at 200 levels.  The limit is raised, never lowered, so that a check
    running in another thread is not cut short.
    """
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    needed = depth + FRAMES_PER_LEVEL * MAX_DEPTH + 100
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


KEYWORDS = frozenset({"U", "X", "F", "G", "true", "false", "P", "Pmin", "Pmax", "D", "in"})
"""Words that cannot be bare labels; quote such a label: ``"F"``."""

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_TERMINAL_TEXT = {
    "RSQB": "']'",
    "LSQB": "'['",
    "RPAR": "')'",
    "LPAR": "'('",
    "RBRACE": "'}'",
    "LBRACE": "'{'",
    "COMMA": "','",
    "NAME": "a label",
    "ESCAPED": "a quoted label",
    "NUMBER": "a number",
    "SIGNED": "a number",
    "IMPLIES": "'->'",
    "OR": "'|'",
    "AND": "'&'",
    "NOT": "'!'",
    "UNTIL": "'U'",
    "NEXT": "'X'",
    "FINALLY": "'F'",
    "GLOBALLY": "'G'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "PROB": "'P'",
    "PMIN": "'Pmin'",
    "PMAX": "'Pmax'",
    "DIFF": "'D'",
    "IN": "'in'",
    "COMPARE": "a comparison (<=, >=, <, >)",
    "EQUAL": "'='",
    "QMARK": "'?'",
    "MINUS": "'-'",
    "$END": "the end of the formula",
}


@dataclass(frozen=True, order=True)
class Position:
    """Where a piece of a formula starts (1-based line and column)."""

    line: int
    column: int

    def show(self, multiline: bool) -> str:
        return f"line {self.line}, column {self.column}" if multiline else f"column {self.column}"


class FormulaError(SpecError):
    """A formula that cannot be read or does not make sense; ``where`` names the column."""


class ConstantNeeded(FormulaError):
    """A step bound names a constant (``F<=B``): readable once the model's constants are known."""


@dataclass(frozen=True)
class ParsedFormula:
    """A formula with its source text and where each subformula starts.

    ``positions`` maps a subformula's place in the tree (child indices from the
    root, see :func:`faier.logic.syntax.walk`) to its position in ``text``;
    ``name`` is the PRISM property name (``"p2": P=? [...]``), if given.
    """

    formula: Formula
    text: str
    positions: Mapping[tuple[int, ...], Position] = field(default_factory=dict, compare=False)
    name: str | None = None

    def error(self, path: tuple[int, ...], message: str, fix: str | None = None) -> FormulaError:
        """An error located at the subformula at ``path``."""
        return _error(self.text, self.positions.get(path), message, fix)


def _error(text: str, position: Position | None, message: str, fix: str | None) -> FormulaError:
    if position is None:
        return FormulaError(message, where="formula", fix=fix)
    multiline = "\n" in text
    return FormulaError(message, where=f"formula, {position.show(multiline)}", fix=fix)


@cache
def _parser() -> Lark:
    """The LALR parser that lark's stand-alone tool generated from the grammar
    (:mod:`faier.logic.grammar`, ``scripts/regenerate_parser.py``): its tables load as
    Python literals, without lark, its grammar compiler or a cache file."""
    return _dpctl_lalr.new_parser()


def parse_formula(
    text: str, *, path: bool = False, constants: Mapping[str, Fraction] | None = None
) -> ParsedFormula:
    """Read a dpCTL* state formula (or a top-level ``P=?`` or ``R=?`` question).

    With ``path=True`` the text is a path formula (``X out1``, ``a U b``), as
    written inside ``P[...]`` or ``D{...}[...]``.  ``constants`` are the
    model's numeric constants, which step bounds may name (``F<=B``); without
    them such a bound raises :class:`ConstantNeeded`.
    """
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("the formula is empty", where="formula", fix="write e.g. 'P>=0.5 [F a]'")
    _check_brackets(text)
    if not path:
        reward = _reward_question(text, constants)
        if reward is not None:
            return reward
    _check_unsupported(text)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from None
    _check_depth(text, tree)
    make_room()
    builder = _Builder(text, constants)
    try:
        name, formula = cast(tuple[str | None, Formula], builder.transform(tree))
    except VisitError as exc:
        if isinstance(exc.orig_exc, FormulaError):
            raise exc.orig_exc from None
        raise
    positions = {
        path: builder.positions[id(node)]
        for path, node in walk(formula)
        if id(node) in builder.positions
    }
    parsed = ParsedFormula(formula, text, positions, name)
    _check_structure(parsed, state=not path)
    return parsed


_REWARD_QUESTION = re.compile(
    r'\A(?P<head>\s*(?:"(?P<name>(?:\\.|[^"\\\n])*)"\s*:\s*)?)R'
    r'(?:\{\s*"(?P<structure>[^"]*)"\s*\})?\s*(?P<optimum>min|max)?\s*=\s*\?\s*\[',
    re.DOTALL,
)
"""The head of a top-level reward question: ``"name": R{"time"}min=? [``."""
_REWARD_TAIL = re.compile(r"\]\s*;?\s*\Z")
_CUMULATIVE = re.compile(r"\A\s*C\s*<=\s*(\d+)\s*\Z")
_EVENTUALLY = re.compile(r"\A\s*F(?![A-Za-z0-9_])")


def _reward_question(text: str, constants: Mapping[str, Fraction] | None) -> ParsedFormula | None:
    """``R=? [F φ]`` or ``R=? [C<=k]`` as the whole formula, else None.

    φ is read as a state formula in place (the text around it blanked, so
    its columns stay the columns of ``text``).
    """
    head = _REWARD_QUESTION.match(text)
    tail = _REWARD_TAIL.search(text)
    if head is None or tail is None or tail.start() < head.end():
        return None
    inner = text[head.end() : tail.start()]
    start = _position(text, head.end("head"))
    optimum = cast(Literal["min", "max"] | None, head.group("optimum"))
    structure, name = head.group("structure"), head.group("name")
    cumulative = _CUMULATIVE.match(inner)
    if cumulative:
        reward = Reward(None, int(cumulative.group(1)), structure, optimum)
        return ParsedFormula(reward, text, {(): start}, name)
    named = re.match(r"\A\s*C\s*<=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\Z", inner)
    if named:
        where = _position(text, head.end() + named.start(1))
        steps = _constant_steps(text, where, named.group(1), constants)
        return ParsedFormula(Reward(None, steps, structure, optimum), text, {(): start}, name)
    eventually = _EVENTUALLY.match(inner)
    if eventually is None:
        raise _error(
            text,
            _position(text, head.end()),
            "faier computes the expected reward until a target (F φ) or within k steps (C<=k)",
            "write R=? [F done] or R=? [C<=10]; compute other rewards with Storm or PRISM",
        )
    begin = head.end() + eventually.end()
    blanked = "".join(c if c == "\n" else " " for c in text[:begin])
    blanked += text[begin : tail.start()]
    blanked += "".join(c if c == "\n" else " " for c in text[tail.start() :])
    target = parse_formula(blanked, constants=constants)
    reward = Reward(target.formula, None, structure, optimum)
    positions = {(0, *place): where for place, where in target.positions.items()}
    parsed = ParsedFormula(reward, text, {(): start, **positions}, name)
    _check_structure(parsed, state=True)
    return parsed


def _constant_steps(
    text: str, where: Position, name: str, constants: Mapping[str, Fraction] | None
) -> int:
    """The value of a step bound written as a constant, from the model's constants."""
    if constants is None:
        raise ConstantNeeded(
            f"step bound {name} is a constant, not a number",
            where=_error(text, where, "", None).where,
            fix=f"check it on a PRISM model that defines {name}, or write its value (F<=10)",
        )
    value = constants.get(name)
    if value is None or value.denominator != 1 or value < 0:
        known = ", ".join(sorted(n for n, v in constants.items() if v.denominator == 1)) or "(none)"
        raise _error(
            text,
            where,
            f"step bound {name} is not a whole-number constant of the model",
            f"its whole-number constants are {known}",
        )
    return int(value)


def _position(text: str, offset: int) -> Position:
    line = text.count("\n", 0, offset) + 1
    return Position(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def parse(text: str, *, path: bool = False) -> Formula:
    """The formula alone (see :func:`parse_formula` for positions)."""
    return parse_formula(text, path=path).formula


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_INTERVAL_START = re.compile(r"(^|[^A-Za-z0-9_])in\s*$")
"""After ``in``, ``(`` may close with ``]`` and ``[`` with ``)``: half-open intervals."""


def _offset(text: str, position: Position) -> int:
    """The 0-based offset of a position in ``text``."""
    lines = text.split("\n")
    return sum(len(line) + 1 for line in lines[: position.line - 1]) + position.column - 1


def _check_depth(text: str, tree: Tree[Token]) -> None:
    """Refuse operators nested deeper than MAX_DEPTH, naming the first one past it.

    Walks the parse tree with an explicit stack (left to right), before any
    recursive pass over it can overflow.
    """
    stack: list[tuple[Tree[Token], int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data in _NESTING:
            depth += 1
            if depth > MAX_DEPTH:
                raise _error(
                    text,
                    _tree_position(node),
                    f"more than {MAX_DEPTH} operators are nested here",
                    f"split the formula: at most {MAX_DEPTH} levels, "
                    "and a chain a & b & c counts one per operator",
                )
        stack.extend((child, depth) for child in reversed(node.children) if isinstance(child, Tree))


def _tree_position(node: Tree[Token]) -> Position | None:
    """Where the operator of a parse-tree node is written (its first token, else its start)."""
    for child in node.children:
        if isinstance(child, Token) and child.line is not None and child.column is not None:
            return Position(child.line, child.column)
    meta = node.meta
    return None if meta.empty else Position(meta.line, meta.column)


def _check_brackets(text: str) -> None:
    """Unbalanced brackets get a message naming both ends, before the grammar sees them.

    More than MAX_DEPTH brackets open at once are refused here too, at the first one past it.
    """
    stack: list[tuple[str, Position]] = []
    multiline = "\n" in text
    line, column = 1, 0
    quoted = escaped = False
    for char in text:
        column += 1
        here = Position(line, column)
        if char == "\n":
            line, column = line + 1, 0
            continue
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in _OPEN:
            interval = char in "([" and _INTERVAL_START.search(text[: _offset(text, here)])
            stack.append(("|" if interval else char, here))
            if len(stack) > MAX_DEPTH:
                raise _error(
                    text,
                    here,
                    f"more than {MAX_DEPTH} brackets are open here",
                    f"open at most {MAX_DEPTH} at once: drop redundant ones or split the formula",
                )
        elif char in _CLOSE:
            if not stack:
                raise _error(
                    text,
                    here,
                    f"unbalanced '{char}': nothing is open here",
                    f"remove it or add the matching '{_CLOSE[char]}' before it",
                )
            opener, where = stack.pop()
            if opener == "|":
                opener = "(" if char == ")" else "["
            if _OPEN[opener] != char:
                raise _error(
                    text,
                    here,
                    f"'{char}' closes the '{opener}' opened at {where.show(multiline)}",
                    f"close it with '{_OPEN[opener]}' first",
                )
    if stack:
        opener, where = stack[-1]
        opener = "[" if opener == "|" else opener
        raise _error(
            text,
            where,
            f"unbalanced '{opener}': it is never closed",
            f"add the matching '{_OPEN[opener]}'",
        )


def _syntax_error(text: str, exc: UnexpectedInput) -> FormulaError:
    position = Position(exc.line, exc.column) if exc.line and exc.line > 0 else None
    if isinstance(exc, UnexpectedCharacters):
        return _error(
            text,
            position,
            f"unexpected character {exc.char!r}",
            'labels are letters, digits and _; quote other labels: "my label"',
        )
    expected: set[str] = set()
    if isinstance(exc, UnexpectedToken):
        expected = set(exc.expected)
        token = exc.token
        if token.type == "$END":
            position = _end(text)
            message = "the formula ends too early"
        elif token.type == "UNTIL":
            return _error(
                text,
                position,
                "U is not associative: a U b U c has two readings",
                "bracket one of them: (a U b) U c or a U (b U c)",
            )
        elif token.type == "NAME" and token.value in KEYWORDS:
            message = f"unexpected keyword {token.value!r}"
        else:
            message = f"unexpected {token.value!r}"
    elif isinstance(exc, UnexpectedEOF):
        expected = set(exc.expected)
        position = _end(text)
        message = "the formula ends too early"
    else:
        message = "cannot read the formula"
    names = sorted({_TERMINAL_TEXT.get(t, t.lower()) for t in expected})
    fix = f"expected {', '.join(names)}" if names else None
    return _error(text, position, message, fix)


_OPERATORS_OUTSIDE = re.compile(
    r"(?<![\w\"])(R|S|LRA|T)(\{[^}]*\})?\s*(min|max)?\s*(=\s*\?|[<>]=?\s*[\d./]+)\s*\["
)
"""PRISM's reward (R), steady-state (S), long-run average (LRA) and Storm's expected time (T)
operators, e.g. ``R=? [F done]``: the name, a question or bound, then ``[`` (so a variable
``T`` in ``T>=3`` stays a variable)."""
_OPERATOR_NAMES = {
    "R": "rewards (R)",
    "S": "steady-state probabilities (S)",
    "LRA": "long-run averages (LRA)",
    "T": "expected times (T)",
}
_UNSUPPORTED: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(r"(?<![\w\"])filter\s*\("),
        "filter(…) is not part of dpCTL*",
        "check the formula inside it: faier reports it in every asked state (--state)",
    ),
    (
        re.compile(r"(?<![\w\"])[FGU]\s*\^?\s*\{?\s*rew\b"),
        "bounds on rewards (F^{rew…}) are not part of dpCTL*",
        "bound the steps instead (F<=k), or compute it with Storm or PRISM directly",
    ),
)
"""Other PRISM and Storm constructs faier does not check, each with its message and fix."""


def _check_unsupported(text: str) -> None:
    """PRISM operators outside dpCTL*: one message that names them, not a bare parse error."""
    found: list[tuple[int, str, str]] = []
    operator = _OPERATORS_OUTSIDE.search(text)
    if operator and operator.group(1) == "R":
        found.append(
            (
                operator.start(),
                "rewards (R) are read only as the whole question",
                "ask R=? [F φ] or R=? [C<=k] alone (Rmin=?, Rmax=? on an MDP); "
                "compare the value yourself, or use Storm or PRISM",
            )
        )
    elif operator:
        found.append(
            (
                operator.start(),
                f"{_OPERATOR_NAMES[operator.group(1)]} are not part of dpCTL*",
                "faier checks P and D operators; compute these with Storm or PRISM directly",
            )
        )
    for pattern, message, fix in _UNSUPPORTED:
        match = pattern.search(text)
        if match:
            found.append((match.start(), message, fix))
    if found:
        start, message, fix = min(found)
        line = text.count("\n", 0, start) + 1
        column = start - (text.rfind("\n", 0, start) + 1) + 1
        raise _error(text, Position(line, column), message, fix)


def _end(text: str) -> Position:
    lines = text.rstrip().split("\n")
    return Position(len(lines), len(lines[-1]) + 1)


def _number(token: Token | str) -> Fraction:
    """A number token exactly (``1/4``, ``0.25``, ``1e-5``), absurd exponents refused."""
    return parse_number(str(token))[0]


@v_args(meta=True, inline=True)
class _Builder(Transformer[Token, Formula]):
    """Turns the parse tree into formula nodes, remembering where each starts."""

    def __init__(self, text: str, constants: Mapping[str, Fraction] | None = None) -> None:
        super().__init__()
        self.text = text
        self.constants = constants
        self.positions: dict[int, Position] = {}
        self.quoted: set[int] = set()

    def _at(self, node: _Node, where: Any) -> _Node:
        if not isinstance(node, _Number | tuple):
            for child in children(cast(Formula, node)):
                self._formula(child)
        self.positions[id(node)] = Position(where.line, where.column)
        return node

    def _formula(self, node: object) -> None:
        """Refuse a number where a formula belongs (``F K + 1``), at the number."""
        if isinstance(node, _Number):
            where = self.positions.get(id(node))
            raise _error(
                self.text,
                where,
                f"{show_term(node.term)} is a number, not a formula",
                "compare it: e.g. x + 1 > 2",
            )

    def _arith(self, where: Any, operand: object) -> Term:
        """An operand of arithmetic: a term, or a condition over variables (true is 1)."""
        term = _as_term(operand, self.quoted)
        if term is None:
            raise self._fail(where, "this formula is not an expression over variables")
        return term

    def _fail(self, where: Any, message: str, fix: str | None = None) -> FormulaError:
        return _error(self.text, Position(where.line, where.column), message, fix)

    def _checked(self, where: Any, build: Callable[[], _Node]) -> _Node:
        try:
            return self._at(build(), where)
        except SpecError as exc:
            raise self._fail(where, exc.message, exc.fix) from None

    # the property ---------------------------------------------------------------------

    def start(self, meta: Any, *parts: Any) -> tuple[str | None, Formula]:
        name = parts[0] if isinstance(parts[0], _Name) else None
        formula = parts[1] if name is not None else parts[0]
        self._formula(formula)
        return (None if name is None else name.text), formula

    def property_name(self, meta: Any, token: Token) -> _Name:
        return _Name(re.sub(r"\\(.)", r"\1", str(token)[1:-1]))

    # numbers ------------------------------------------------------------------------

    def delta(self, meta: Any, *parts: Token) -> tuple[Fraction, Any]:
        from faier.privacy.budget import parse_delta  # ε and δ: only a D's

        text = "".join(str(p) for p in parts)
        try:
            return parse_delta(text), meta
        except SpecError as exc:
            raise self._fail(meta, exc.message, exc.fix) from None

    def signed(self, meta: Any, *parts: Token) -> tuple[Fraction, Any]:
        try:
            value = _number(parts[-1])
        except (ValueError, ZeroDivisionError):
            raise self._fail(
                meta, f"{parts[-1]} is not a number", "write e.g. 1/4 or 0.25"
            ) from None
        return (-value if len(parts) == 2 else value), meta

    def step_bound(self, meta: Any, op: Token, signed: tuple[Fraction, Any]) -> tuple[int, Any]:
        if op.value != "<=":
            raise self._fail(op, f"step bounds are written <=k, not {op.value}k", "write e.g. F<=3")
        value, where = signed
        if value.denominator != 1 or value < 0:
            raise self._fail(
                where, f"step bound {value} is not a whole number ≥ 0", "write e.g. F<=3"
            )
        return int(value), where

    def named_step_bound(self, meta: Any, op: Token, name: Token) -> tuple[int, Any]:
        if op.value != "<=":
            raise self._fail(op, f"step bounds are written <=k, not {op.value}k", "write e.g. F<=3")
        where = Position(name.line or 0, name.column or 0)
        return _constant_steps(self.text, where, name.value, self.constants), name

    def eps(self, meta: Any, *_: Any) -> tuple[Epsilon, Any]:
        from faier.privacy.budget import Epsilon

        source = self.text[meta.start_pos : meta.end_pos]
        try:
            return Epsilon.parse(source), meta
        except SpecError as exc:
            raise self._fail(meta, exc.message, exc.fix) from None

    # comparisons over variables ---------------------------------------------------

    def comparison(self, meta: Any, token: Token) -> Token:
        return token

    def compare(self, meta: Any, left: Term, op: Token, right: Term) -> Formula:
        left, right = self._arith(meta, left), self._arith(meta, right)
        return self._checked(meta, lambda: Expression(left, op.value, right))

    def var(self, meta: Any, name: Token) -> Term:
        if name.value in KEYWORDS:
            raise self._fail(name, f"{name.value!r} is a keyword, not a variable")
        return ("var", str(name))

    def num(self, meta: Any, token: Token) -> Term:
        try:
            return ("num", _number(token))
        except (ValueError, ZeroDivisionError):
            raise self._fail(token, f"{token} is not a number", "write e.g. 3 or 1/2") from None

    def _numeric(self, where: Any, operand: object) -> Term:
        term = operand if isinstance(operand, tuple) else None
        if isinstance(operand, _Conditional):
            term = operand.term
        if term is None or is_condition(term):
            raise self._fail(where, "a condition is not a number", "compare it, or write c ? 1 : 0")
        return term

    def neg(self, meta: Any, _minus: Token, term: Term) -> Term:
        return ("neg", self._numeric(meta, term))

    def add(self, meta: Any, left: Term, right: Term) -> Term:
        return ("+", self._numeric(meta, left), self._numeric(meta, right))

    def sub(self, meta: Any, left: Term, _minus: Token, right: Term) -> Term:
        return ("-", self._numeric(meta, left), self._numeric(meta, right))

    def mul(self, meta: Any, left: Term, right: Term) -> Term:
        return ("*", self._numeric(meta, left), self._numeric(meta, right))

    def div(self, meta: Any, left: Term, right: Term) -> Term:
        return ("/", self._numeric(meta, left), self._numeric(meta, right))

    def call(self, meta: Any, name: Token, *operands: Term) -> Term:
        args = tuple(self._numeric(meta, a) for a in operands)
        known = FUNCTIONS.get(name.value)
        if known is None:
            raise self._fail(
                name, f"unknown function {name.value!r}", f"functions: {', '.join(FUNCTIONS)}"
            )
        arity = known[0]
        if (arity == -1 and not args) or (arity != -1 and len(args) != arity):
            wanted = "at least 1" if arity == -1 else str(arity)
            raise self._fail(name, f"{name.value} takes {wanted} arguments, got {len(args)}")
        return ("call", name.value, tuple(args))

    # atoms and connectives ----------------------------------------------------------

    def value(self, meta: Any, value: Term | _Conditional) -> Formula | _Number:
        """A bare value: a name is a label or boolean variable; anything else is a number."""
        if isinstance(value, _Conditional):
            return value.formula
        if value[0] == "var":
            name = str(value[1])
            if name in KEYWORDS:
                raise self._fail(
                    meta, f"{name!r} is a keyword, not a label", f'quote the label: "{name}"'
                )
            return self._at(Atom(name), meta)
        return self._at(_Number(value), meta)

    def ite(
        self, meta: Any, condition: Any, _q: Token, then: Any, _c: Token, other: Any
    ) -> Formula | _Number:
        """PRISM's ``c ? a : b``: a number when a branch is one, else a formula."""
        built = self._conditional(meta, condition, then, other)
        return built if isinstance(built, Formula) else self._at(_Number(built), meta)

    def paren_ite(
        self, meta: Any, condition: Any, _q: Token, then: Any, _c: Token, other: Any
    ) -> Term | _Conditional:
        """``(c ? a : b)``: a number, or a formula that is also a term where it has one."""
        built = self._conditional(meta, condition, then, other)
        if isinstance(built, tuple):
            return built
        parts = (
            _as_term(condition, self.quoted),
            _as_term(then, self.quoted),
            _as_term(other, self.quoted),
        )
        if any(p is None for p in parts):
            return _Conditional(None, built)
        return _Conditional(("ite", *parts), built)

    def _conditional(self, meta: Any, condition: Any, then: Any, other: Any) -> Term | Formula:
        if not any(isinstance(b, _Number | tuple) for b in (then, other)):
            for part in (condition, then, other):
                if not is_state_formula(part):
                    raise self._fail(
                        meta,
                        "the condition and branches of c ? a : b are state formulas",
                        "put the path operators inside P: c ? P>=0.5 [F a] : b",
                    )
            return self._at(Or(And(condition, then), And(Not(condition), other)), meta)
        test = _as_term(condition, self.quoted)
        if test is None or not (is_condition(test) or test[0] == "var"):
            raise self._fail(meta, "the condition of c ? a : b is not a condition over variables")
        branches = (_as_term(then, self.quoted), _as_term(other, self.quoted))
        if any(b is None or is_condition(b) for b in branches):
            raise self._fail(
                meta,
                "c ? a : b has a number in one branch and a formula in the other",
                "make both branches numbers, or both formulas",
            )
        return ("ite", test, branches[0], branches[1])

    def quoted_atom(self, meta: Any, token: Token) -> Formula:
        name = re.sub(r"\\(.)", r"\1", str(token)[1:-1])
        atom = self._checked(token, lambda: Atom(name))
        self.quoted.add(id(atom))
        return atom

    def true(self, meta: Any, token: Token) -> Formula:
        return self._at(Const(True), token)

    def false(self, meta: Any, token: Token) -> Formula:
        return self._at(Const(False), token)

    def implies(self, meta: Any, left: Formula, op: Token, right: Formula) -> Formula:
        return self._at(Implies(left, right), op)

    def or_(self, meta: Any, left: Formula, op: Token, right: Formula) -> Formula:
        return self._at(Or(left, right), op)

    def and_(self, meta: Any, left: Formula, op: Token, right: Formula) -> Formula:
        return self._at(And(left, right), op)

    def until(self, meta: Any, left: Formula, op: Token, *rest: Any) -> Formula:
        bound = rest[0][0] if len(rest) == 2 else None
        return self._checked(op, lambda: Until(left, rest[-1], bound))

    def not_(self, meta: Any, op: Token, operand: Formula) -> Formula:
        return self._at(Not(operand), op)

    def next_(self, meta: Any, op: Token, operand: Formula) -> Formula:
        return self._at(Next(operand), op)

    def finally_(self, meta: Any, op: Token, *rest: Any) -> Formula:
        bound = rest[0][0] if len(rest) == 2 else None
        return self._checked(op, lambda: Finally(rest[-1], bound))

    def globally(self, meta: Any, op: Token, *rest: Any) -> Formula:
        bound = rest[0][0] if len(rest) == 2 else None
        return self._checked(op, lambda: Globally(rest[-1], bound))

    # P and D ------------------------------------------------------------------------

    def prob_kind(self, meta: Any, token: Token, optimum: Token | None = None) -> Token:
        """``P``, ``Pmin``, ``Pmax``, or PRISM's spaced ``P min`` / ``P max``."""
        if optimum is None:
            return token
        return token.update("PMIN" if optimum == "min" else "PMAX", f"P{optimum}")

    def prob_bound(
        self, meta: Any, kind: Token, op: Token, value: tuple[Fraction, Any], path: Formula
    ) -> Formula:
        if kind.value != "P":
            raise self._fail(
                kind, f"{kind.value} only asks a question", f"write {kind.value}=? [...] or P{op}"
            )
        if not 0 <= value[0] <= 1:
            raise self._fail(
                value[1],
                f"probability bound {value[0]} is not in [0, 1]",
                "a bound is a probability",
            )
        comparison: Comparison = op.value
        return self._checked(kind, lambda: Prob(path, Bound(comparison, value[0])))

    def prob_query(self, meta: Any, kind: Token, _equals: Token, path: Formula) -> Formula:
        return self._checked(kind, lambda: Prob(path, Query(kind.value)))

    def prob_interval(
        self, meta: Any, kind: Token, _in: Token, interval: Interval, path: Formula
    ) -> Formula:
        if kind.value != "P":
            raise self._fail(kind, f"{kind.value} only asks a question", "write P in [a, b] [...]")
        return self._checked(kind, lambda: Prob(path, interval))

    def _interval(
        self, lo: tuple[Fraction, Any], hi: tuple[Fraction, Any], lo_open: bool, hi_open: bool
    ) -> Interval:
        for value, where in (lo, hi):
            if not 0 <= value <= 1:
                raise self._fail(
                    where, f"interval end {value} is not in [0, 1]", "use probabilities"
                )
        try:
            return Interval(lo[0], hi[0], lo_open, hi_open)
        except SpecError as exc:
            raise self._fail(lo[1], exc.message, exc.fix) from None

    def closed_closed(self, meta: Any, lo: Any, hi: Any) -> Interval:
        return self._interval(lo, hi, False, False)

    def open_closed(self, meta: Any, lo: Any, hi: Any) -> Interval:
        return self._interval(lo, hi, True, False)

    def closed_open(self, meta: Any, lo: Any, hi: Any) -> Interval:
        return self._interval(lo, hi, False, True)

    def open_open(self, meta: Any, lo: Any, hi: Any) -> Interval:
        return self._interval(lo, hi, True, True)

    def diff(self, meta: Any, op: Token, *parts: Any) -> Formula:
        eps, _ = parts[0]
        delta = parts[1][0] if len(parts) == 3 else Fraction(0)
        return self._checked(op, lambda: Diff(parts[-1], eps, delta))


_TEMPORAL_NAMES = {Next: "X", Until: "U", Finally: "F", Globally: "G"}


def _check_structure(parsed: ParsedFormula, *, state: bool) -> None:
    """A formula must be a state formula; a query ``P=?`` may only be the whole formula."""
    root = parsed.formula

    def visit(node: Formula, path: tuple[int, ...], state_level: bool) -> None:
        if isinstance(node, Reward) and path:
            raise parsed.error(
                path,
                "R=? asks for an expected reward and has no truth value",
                "use it only as the whole formula",
            )
        if isinstance(node, Prob) and isinstance(node.test, Query) and path:
            raise parsed.error(
                path,
                f"{node.test.kind}=? asks for a probability and has no truth value",
                "use it only as the whole formula, or compare: P>=0.5 [...]",
            )
        if state_level and isinstance(node, TEMPORAL):
            name = _TEMPORAL_NAMES[type(node)]
            raise parsed.error(
                path,
                f"{name} is a path operator outside P or D",
                "put it inside P>=b [...], P=? [...] or D{ε, δ}[...]",
            )
        inner = state_level and not isinstance(node, Prob | Diff)
        for i, child in enumerate(children(node)):
            visit(child, (*path, i), inner)

    visit(root, (), state)
