"""The query loop of a program body, split out so that one iteration can be run alone.

A body of the shape ``pre; for i in range(len(q)): step; post`` (or ``for a in
q:``) is parsed from its source (``inspect``/``ast``) into three pieces run on
an explicit environment of local variables: ``pre`` once, ``step`` from any
loop state, ``post`` from any state the loop may stop in.  ``break`` in the
step becomes an exception the runner catches.  Inside the step the queries
are reachable only as ``q[i]`` (or the loop variable ``a``), and ``i`` only as
``q[i]``, ``i == 0``, a value stored for the output, or in arithmetic with
constants whose comparisons are counter branches (:class:`Counter`):
everything else is "not modelled" (the symbolic-n proof then does not apply;
the fixed-n one still does).
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from types import CodeType
from typing import Any

from faier.engines.alignment.values import Sym
from faier.errors import BudgetExceeded, MechanismError


class NotALoop(MechanismError):
    """The body is not one query loop between straight-line code."""


class _Break(Exception):
    """``break`` in the loop step."""


class _Continue(Exception):
    """``continue`` in the loop step."""


class _Escape(ast.NodeTransformer):
    """``break``/``continue`` of the query loop (not of loops nested in it) as raises."""

    def visit_For(self, node: ast.For) -> ast.For:
        return node

    visit_While = visit_For  # type: ignore[assignment]

    def visit_Break(self, node: ast.Break) -> ast.Raise:
        return ast.copy_location(ast.Raise(exc=ast.Name("_Break", ast.Load()), cause=None), node)

    def visit_Continue(self, node: ast.Continue) -> ast.Raise:
        return ast.copy_location(ast.Raise(exc=ast.Name("_Continue", ast.Load()), cause=None), node)


class Index:
    """The loop counter of an iteration: the first or a later one, nothing more.

    ``i == 0`` is decided exactly (the first iteration).  Arithmetic on the counter
    gives a :class:`Counter`, whose comparisons with constants are *counter
    branches*: both outcomes are taken, as a nondeterministic choice of the run
    (``Run.guard``), so a proof covers every value of the counter and of the
    constants (SmartSum's ``(i + 1) % M == 0`` and ``i > T``)."""

    __slots__ = ("first", "run")

    def __init__(self, first: bool, run: Any = None) -> None:
        self.first = first
        self.run = run

    def __eq__(self, other: object) -> bool:
        if isinstance(other, int) and not isinstance(other, bool) and other == 0:
            return self.first
        return self._compare(other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash("index")

    def __bool__(self) -> bool:
        return not self.first

    def __repr__(self) -> str:
        return "i"

    def _arithmetic(self, other: Any) -> Counter:
        return Counter(self.run)._operand(other)

    def _compare(self, other: Any) -> bool:
        return Counter(self.run)._branch(other)

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arithmetic
    __mod__ = __rmod__ = __floordiv__ = __rfloordiv__ = _arithmetic
    __truediv__ = __rtruediv__ = _arithmetic
    __lt__ = __le__ = __gt__ = __ge__ = _compare


class Counter:
    """An integer computed from the loop counter and constants only (``(i + 1) % M``):
    never stored, never mixed with data or noise; its comparisons are counter branches."""

    __slots__ = ("run",)

    def __init__(self, run: Any) -> None:
        self.run = run

    def _operand(self, other: Any) -> Counter:
        if isinstance(other, Counter | Index) or (
            isinstance(other, int | Fraction | float) and not isinstance(other, bool)
        ):
            return self
        raise NotALoop(
            f"the loop counter combined with {type(other).__name__} (only with constant "
            "numbers and the counter itself)"
        )

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _operand
    __mod__ = __rmod__ = __floordiv__ = __rfloordiv__ = _operand
    __truediv__ = __rtruediv__ = _operand

    def _branch(self, other: Any) -> bool:
        self._operand(other)
        if self.run is None or not hasattr(self.run, "guard"):
            raise NotALoop("the loop counter compared outside an iteration")
        frame = sys._getframe(1)
        while frame.f_back is not None and frame.f_code.co_filename == __file__:
            frame = frame.f_back
        return bool(self.run.guard(f"{frame.f_code.co_filename}:{frame.f_lineno}"))

    __lt__ = __le__ = __gt__ = __ge__ = _branch

    def __eq__(self, other: object) -> bool:
        return self._branch(other)

    def __ne__(self, other: object) -> bool:
        return self._branch(other)

    def __bool__(self) -> bool:
        return self._branch(0)

    def __hash__(self) -> int:
        raise NotALoop("the loop counter used as a key")

    def __index__(self) -> int:
        raise NotALoop("an expression of the loop counter used as an index")

    def __repr__(self) -> str:
        return "counter"


STORED_INDEX = "«i»"
"""How a stored loop counter appears in an abstract loop state."""


class Stored(Counter):
    """A loop counter stored by an earlier iteration (``best = i``), read back: its value
    is not in the abstract state, so its comparisons are counter branches too."""

    __slots__ = ()

    def __repr__(self) -> str:
        return STORED_INDEX


class Current:
    """The queries as the step sees them: ``q[i]`` of this iteration only."""

    def __init__(self, value: Sym | None) -> None:
        self.value = value

    def __getitem__(self, index: Any) -> Sym:
        if isinstance(index, Index) and self.value is not None:
            return self.value
        raise NotALoop("a query read other than q[i] of the current iteration")

    def __len__(self) -> int:
        raise NotALoop("the number of queries used outside the loop header")

    def __iter__(self) -> Any:
        raise NotALoop("the queries iterated outside the loop header")


ITEMS = "«items»"
"""What iterating an output list gives after the loop: one opaque marker.  Whatever the
code after the loop computes from the items is equal in two runs with equal items; a
number computed from them would need arithmetic on the marker, which fails."""


class Accumulator:
    """A list the loop only appends to: the items of this iteration are recorded.

    Inside the loop it can only be appended to (its contents are not part of the
    abstract state, so reading them would be unsound); after the loop it iterates as
    one :data:`ITEMS` marker."""

    def __init__(self, after: bool = False) -> None:
        self.items: list[Any] = []
        self.after = after

    def append(self, item: Any) -> None:
        if self.after:
            raise NotALoop("an output list appended to after the loop")
        self.items.append(item)

    def __iter__(self) -> Any:
        if not self.after:
            raise NotALoop("an output list read inside the loop")
        return iter((ITEMS,))

    def _refuse(self, *_: Any) -> Any:
        raise NotALoop("an output list read back")

    __getitem__ = __bool__ = __eq__ = __contains__ = _refuse
    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Loop:
    """The three pieces, compiled, and what they run in."""

    pre: CodeType
    step: CodeType
    post: CodeType
    queries: str
    context: str
    target: str
    by_index: bool
    scope: dict[str, Any]

    def run(
        self, code: CodeType, env: dict[str, Any], ctx: Any, current: Sym | None, first: bool
    ) -> tuple[str, Any]:
        """Run one piece on ``env`` (updated in place): ("next" | "break" | "return", value)."""
        space = dict(self.scope)
        space.update(env)
        space[self.queries] = Current(current)
        space[self.context] = ctx
        space["_Break"], space["_Continue"], space["_Return"] = _Break, _Continue, _Return
        if current is not None:
            space[self.target] = Index(first, ctx) if self.by_index else current
        try:
            exec(code, space)
        except _Break:
            _collect(space, env, self)
            return "break", None
        except _Continue:
            _collect(space, env, self)
            return "next", None
        except _Return as done:
            _collect(space, env, self)
            return "return", done.value
        except (MechanismError, BudgetExceeded):
            raise
        except Exception as exc:  # one piece run alone may fail where the whole body does not
            raise NotALoop(
                f"one iteration alone does not run ({type(exc).__name__}: {exc})"
            ) from exc
        _collect(space, env, self)
        return "next", None


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _collect(space: dict[str, Any], env: dict[str, Any], loop: Loop) -> None:
    """The piece's local variables back into ``env``: every name it bound, also one that
    shadows a module-level name (its value is then not the module's object)."""
    skip = (loop.queries, loop.context, loop.target, "_Break", "_Continue", "_Return")
    for name, value in space.items():
        if name in skip or name.startswith("__"):
            continue
        if name in env or name not in loop.scope or loop.scope[name] is not value:
            env[name] = value


def _returns(statements: list[ast.stmt]) -> list[ast.stmt]:
    """``return e`` as ``raise _Return(e)`` so a piece can be ``exec``-uted."""

    class Swap(ast.NodeTransformer):
        def visit_Return(self, node: ast.Return) -> ast.Raise:
            value = node.value or ast.Constant(None)
            call = ast.Call(ast.Name("_Return", ast.Load()), [value], [])
            return ast.copy_location(ast.Raise(exc=call, cause=None), node)

        def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
            return node

    return [Swap().visit(s) for s in statements]


def split(body: Callable[..., Any]) -> Loop:
    """The body's query loop, or NotALoop saying why it has none this engine can use."""
    try:
        source = textwrap.dedent(inspect.getsource(body))
    except (OSError, TypeError) as exc:
        raise NotALoop("the body's source is not available") from exc
    tree = ast.parse(source)
    ast.increment_lineno(tree, inspect.getsourcelines(body)[1] - 1)
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef) or len(function.args.args) != 2:
        raise NotALoop("the body is not a function of (q, ctx)")
    queries, context = (a.arg for a in function.args.args)
    statements = [
        s
        for s in function.body
        if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
    ]
    loops = [k for k, s in enumerate(statements) if isinstance(s, ast.For)]
    if len(loops) != 1:
        raise NotALoop("the body has no single top-level loop over the queries")
    k = loops[0]
    loop = statements[k]
    assert isinstance(loop, ast.For)
    if loop.orelse or not isinstance(loop.target, ast.Name):
        raise NotALoop("the loop has an else branch or unpacks its target")
    by_index = _is_range_len(loop.iter, queries)
    if not by_index and not (isinstance(loop.iter, ast.Name) and loop.iter.id == queries):
        raise NotALoop(f"the loop runs over neither range(len({queries})) nor {queries}")
    step = [_Escape().visit(s) for s in loop.body]
    pieces = [_returns(statements[:k]), _returns(step), _returns(statements[k + 1 :])]
    codes = [
        compile(
            ast.fix_missing_locations(ast.Module(p or [ast.Pass()], [])),
            body.__code__.co_filename,
            "exec",
        )
        for p in pieces
    ]
    scope = dict(body.__globals__)
    for name, cell in zip(body.__code__.co_freevars, body.__closure__ or (), strict=True):
        scope[name] = cell.cell_contents
    pre, step_code, post = codes
    return Loop(pre, step_code, post, queries, context, loop.target.id, by_index, scope)


def _is_range_len(node: ast.expr, queries: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Call)
        and isinstance(node.args[0].func, ast.Name)
        and node.args[0].func.id == "len"
        and len(node.args[0].args) == 1
        and isinstance(node.args[0].args[0], ast.Name)
        and node.args[0].args[0].id == queries
    )
