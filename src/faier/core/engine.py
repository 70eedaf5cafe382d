"""The engine protocol and the registry the API dispatches through.

An engine answers privacy questions about a :class:`Problem` its own way
(exact search, SMT, sampling, model checking) and returns the same
:class:`~faier.results.Result`.  It says which problems it accepts, giving the
reason when it does not; ``--engine auto`` asks each registered engine in
order and takes the first that accepts.  Adding an engine is one module with
a class that follows :class:`Engine` and one :func:`register` call (or, for
a built-in one, one :func:`declare_builtin` line in ``faier/__init__.py``, declared in
:mod:`faier.core.builtin_engines`): nothing else in faier changes.

Built-in engines are imported on first use, so asking the exact engine never
loads the SMT solvers or sympy.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from faier.core.builtin_engines import DECLARED as _builtin
from faier.core.builtin_engines import builtin as builtin
from faier.core.builtin_engines import declare_builtin as declare_builtin
from faier.errors import SpecError

if TYPE_CHECKING:
    from faier.core.options import Options
    from faier.core.problem import Problem
    from faier.privacy.budget import Epsilon
    from faier.results import Result

Question = Literal["epsilon", "verify"]
Progress = Callable[[Any], None]


@dataclass(frozen=True)
class Backend:
    """A library an engine runs on, and its installed version (None: not installed)."""

    name: str
    version: str | None

    def show(self) -> str:
        return f"{self.name} {self.version}" if self.version else f"{self.name} (not installed)"


@dataclass(frozen=True)
class Refusal:
    """Why an engine does not take a problem, and what the user can do about it."""

    reason: str
    fix: str = "see 'faier engines' for what each engine needs"


@runtime_checkable
class Engine(Protocol):
    """What every engine offers the API."""

    name: str
    summary: str
    """One line: how the engine answers."""
    needs: str
    """What a problem must be like for this engine (shown by ``faier engines``)."""

    def backends(self) -> tuple[Backend, ...]:
        """The libraries it runs on, with their versions."""
        ...

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        """Why this engine cannot answer ``question`` about ``problem``; None if it can."""
        ...

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        """ε* (or a bound on it) for an accepted problem."""
        ...

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        """Decide ε-privacy (with ``options.delta``: (ε, δ)) for an accepted problem."""
        ...


class AnswersAnotherCommand:
    """An engine whose questions have a command of their own (``faier test``, ``faier check``):
    it refuses ε* and verdicts with ``refused``, which says which command to run."""

    refused: Refusal

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        return self.refused

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        raise SpecError(self.refused.reason, fix=self.refused.fix)

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        raise SpecError(self.refused.reason, fix=self.refused.fix)


_loaded: dict[str, Engine] = {}
_added: dict[str, Engine] = {}


def register(engine: Engine) -> None:
    """Add an engine (after the built-in ones in ``auto``'s order); a name is taken once."""
    if not isinstance(engine, Engine):
        raise TypeError(f"{engine!r} does not follow the Engine protocol")
    if engine.name in _builtin or engine.name in _added or engine.name == "auto":
        raise ValueError(f"an engine named {engine.name!r} is already registered")
    _added[engine.name] = engine
    _sent_with_work()


def unregister(name: str) -> None:
    """Remove an engine added with :func:`register`."""
    _added.pop(name, None)


def _registered_there(engines: dict[str, Engine]) -> None:
    """In the process that runs the work: the engines the caller had registered."""
    _added.clear()
    _added.update(engines)
    if engines:
        _sent_with_work()


def _sent_with_work() -> None:
    """Send the engines added here with every piece of work another interpreter runs
    (:func:`faier.mechanisms.travel.carry`): declared on the first :func:`register`, so a
    process that adds none never loads the travel machinery."""
    from faier.mechanisms import travel

    travel.carry("engines", lambda: dict(_added), _registered_there)


def names() -> tuple[str, ...]:
    """Every engine's name, in ``auto``'s order."""
    return (*_builtin, *_added)


def get(name: str) -> Engine:
    """The engine called ``name``; bad input if there is none."""
    if name in _added:
        return _added[name]
    if name not in _builtin:
        raise SpecError(
            f"unknown engine {name!r}",
            where="--engine",
            fix=f"choose auto or one of {', '.join(names())} (see 'faier engines')",
        )
    if name not in _loaded:
        engine = importlib.import_module(_builtin[name]).ENGINE
        assert isinstance(engine, Engine)
        _loaded[name] = engine
    return _loaded[name]


def choose(problem: Problem, options: Options, question: Question) -> Engine:
    """The engine ``options.engine`` names, or under ``auto`` the first that accepts."""
    if options.engine != "auto":
        engine = get(options.engine)
        refusal = engine.refusal(problem, options, question)
        if refusal is not None:
            raise SpecError(refusal.reason, where=f"--engine {engine.name}", fix=refusal.fix)
        return engine
    reasons = []
    for name in names():
        engine = get(name)
        refusal = engine.refusal(problem, options, question)
        if refusal is None:
            return engine
        reasons.append(f"{name}: {refusal.reason}")
    raise SpecError(
        f"no engine can answer this about {problem.name} ({'; '.join(reasons)})",
        fix="see 'faier engines' for what each engine needs",
    )
