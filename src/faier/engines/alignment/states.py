"""The abstract states of a query loop and the iteration paths between them.

A loop (``loops.py``) is run one iteration at a time from *abstract loop
states*: the loop-carried Python values kept exactly (counters, flags, a
stored loop index as one token), every loop-carried number a free real wᵥ,
output lists as append-only accumulators.  From the state after ``pre``,
iterations are explored until no new abstract state appears (at most
``MAX_STATES``): a finite graph whose edges are iteration paths.  Every run
of the program on any number of queries is a walk in this graph from the
first state, then ``post``.  ``induction.py`` and ``prophecy.py`` prove
alignments over it.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from faier.core.budget import Budget
from faier.engines.alignment import loops
from faier.engines.alignment.execute import Condition, Draw, Form, Pairs, Run, Symbols, freeze
from faier.engines.alignment.values import STATE, Sym
from faier.mechanisms.decisions import advance

MAX_STATES = 64
MAX_STEPS = 512


@dataclass(frozen=True)
class State:
    """An abstract loop state."""

    first: bool
    concrete: tuple[tuple[str, Hashable], ...]
    numbers: tuple[str, ...]
    lists: tuple[str, ...]
    stopped: bool = False
    """The loop broke off here: only the code after the loop runs from it."""
    pure: tuple[str, ...] = ()
    """Numbers that hold no noise (a running sum of queries, SmartSum's block sum): as at a
    fixed n, such a number is a *fresh* part of a form, so a draw first added to it has it
    in its companion, and the draw's shift can cancel its distance."""

    def materialise(self, run: Run, after: bool = False) -> dict[str, Any]:
        env: dict[str, Any] = {
            name: loops.Stored(run) if value == loops.STORED_INDEX else value
            for name, value in self.concrete
        }
        for j, name in enumerate(self.numbers):
            mine = {STATE + j: Fraction(1)}
            env[name] = Sym({}, mine, Fraction(0), mine if name in self.pure else {}, run)
        for name in self.lists:
            env[name] = loops.Accumulator(after)
        return env


@dataclass(frozen=True)
class Step:
    """One iteration path from ``source``: its draws, conditions, items, carried numbers."""

    source: int
    target: int | None
    draws: tuple[Draw, ...]
    conditions: tuple[Condition, ...]
    sides: tuple[int, ...]
    companions: tuple[Pairs, ...]
    emitted: tuple[Form, ...]
    carried: tuple[tuple[str, Form], ...]
    stored: frozenset[str] = frozenset()
    """Names this iteration set to its loop counter (``best = i``)."""
    guards: tuple[tuple[str, bool], ...] = ()
    """The counter branches this path took (program line, outcome): choices, not
    conditions, since they read no data and no noise."""


@dataclass
class Graph:
    """The abstract states, the iteration paths between them, pre and post."""

    states: list[State] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    pre_draws: tuple[Draw, ...] = ()
    pre_numbers: tuple[tuple[str, Form], ...] = ()
    post: list[tuple[int, tuple[Form, ...], tuple[Draw, ...]]] = field(default_factory=list)
    """Per state: the numbers the code after the loop releases, and the noise it draws."""


def _abstract(
    env: dict[str, Any], first: bool, stopped: bool = False
) -> tuple[State, tuple[tuple[str, Form], ...]]:
    concrete: list[tuple[str, Hashable]] = []
    numbers: list[tuple[str, Form]] = []
    lists: list[str] = []
    pure: list[str] = []
    for name in sorted(env):
        value = env[name]
        if isinstance(value, Sym):
            if value.inputs or value.noise:
                numbers.append((name, freeze(value)))
                if value.fresh == {**value.inputs, **value.noise}:
                    pure.append(name)
            else:
                concrete.append((name, value.const))
        elif isinstance(value, loops.Accumulator):
            lists.append(name)
        elif isinstance(value, list):
            if value:
                raise loops.NotALoop(f"the list {name} is filled before the loop")
            lists.append(name)
        elif isinstance(value, loops.Index | loops.Stored):
            concrete.append((name, loops.STORED_INDEX))
        elif isinstance(value, bool | int | str | Fraction | float) or value is None:
            concrete.append((name, value))
        elif callable(value) or isinstance(value, type(loops)):
            continue
        else:
            raise loops.NotALoop(f"the loop carries {name} = {type(value).__name__}")
    names = tuple(n for n, _ in numbers)
    state = State(first, tuple(concrete), names, tuple(lists), stopped, tuple(pure))
    return state, tuple(numbers)


def _single(
    loop: loops.Loop, code: Any, env: dict[str, Any], symbols: Symbols
) -> tuple[Run, str, Any]:
    """Run a piece that must not branch (pre, post)."""
    run = Run(prefix=[], symbols=symbols, solver=z3.Solver(), feasible={})
    outcome, value = loop.run(code, env, run, None, True)
    if run.branching:
        raise loops.NotALoop("the code before or after the loop branches on a number")
    return run, outcome, value


def explore(loop: loops.Loop, integer: bool, budget: Budget) -> Graph:
    """The finite graph of abstract loop states, or NotALoop."""
    graph = Graph()
    symbols = Symbols(1, integer)
    env: dict[str, Any] = {}
    run, outcome, _ = _single(loop, loop.pre, env, symbols)
    if outcome != "next":
        raise loops.NotALoop("the code before the loop returns")
    start, numbers = _abstract(env, True)
    graph.pre_draws = tuple(run.draws)
    graph.pre_numbers = numbers
    index = {start: 0}
    graph.states.append(start)
    todo = [0]
    while todo:
        budget.check_time()
        s = todo.pop()
        if graph.states[s].stopped:
            continue
        for step, target in _iterations(loop, graph.states[s], s, symbols):
            t = None
            if target is not None:
                if target not in index:
                    if len(graph.states) >= MAX_STATES:
                        raise loops.NotALoop(f"more than {MAX_STATES} loop states")
                    index[target] = len(graph.states)
                    graph.states.append(target)
                    todo.append(index[target])
                t = index[target]
            graph.steps.append(
                Step(
                    s,
                    t,
                    step.draws,
                    step.conditions,
                    step.sides,
                    step.companions,
                    step.emitted,
                    step.carried,
                    step.stored,
                    step.guards,
                )
            )
            if len(graph.steps) > MAX_STEPS:
                raise loops.NotALoop(f"more than {MAX_STEPS} iteration paths")
    for s, state in enumerate(graph.states):
        run = Run(prefix=[], symbols=symbols, solver=z3.Solver(), feasible={})
        env = state.materialise(run, after=True)
        outcome, value = loop.run(loop.post, env, run, None, False)
        if run.branching:
            raise loops.NotALoop("the code after the loop branches on a number")
        graph.post.append((s, _released(value), tuple(run.draws)))
    return graph


def _released(value: Any) -> tuple[Form, ...]:
    if isinstance(value, Sym):
        return (freeze(value),) if value.inputs or value.noise else ()
    if isinstance(value, list | tuple):
        return tuple(f for v in value for f in _released(v))
    return ()


def _iterations(
    loop: loops.Loop, state: State, s: int, symbols: Symbols
) -> list[tuple[Step, State | None]]:
    """Every feasible path of one iteration from ``state``."""
    solver = z3.Solver()
    feasible: dict[tuple[bool, ...], tuple[bool, bool]] = {}
    prefix: list[int] = []
    out: list[tuple[Step, State | None]] = []
    while True:
        run = Run(prefix=prefix, symbols=symbols, solver=solver, feasible=feasible)
        solver.push()
        try:
            env = state.materialise(run)
            current = Sym({0: Fraction(1)}, {}, Fraction(0), {0: Fraction(1)}, run)
            outcome, _ = loop.run(loop.step, env, run, current, state.first)
        finally:
            solver.pop()
        if outcome == "return":
            raise loops.NotALoop("the loop returns from inside")
        if any(not isinstance(env[name], loops.Accumulator) for name in state.lists):
            raise loops.NotALoop("an output list is replaced inside the loop")
        emitted = tuple(f for name in state.lists for item in env[name].items for f in _items(item))
        for name in state.lists:
            env[name] = loops.Accumulator()
        stored = frozenset(n for n, v in env.items() if isinstance(v, loops.Index))
        target, carried = _abstract(env, False, outcome == "break")
        draws = tuple(run.draws)
        step = Step(
            s,
            None,
            draws,
            tuple(run.conditions),
            tuple(run.sides.get(k, 0) for k in range(len(draws))),
            tuple(tuple(sorted(run.companions.get(k, {}).items())) for k in range(len(draws))),
            emitted,
            carried,
            stored,
            tuple(run.guards),
        )
        out.append((step, target))
        if not advance(prefix, run):
            return out


def _items(item: Any) -> tuple[Form, ...]:
    if isinstance(item, Sym):
        if item.inputs or item.noise:
            return (freeze(item),)
        return ()
    if isinstance(item, list | tuple):
        return tuple(f for v in item for f in _items(v))
    if isinstance(item, bool | int | str | Fraction | float) or item is None:
        return ()
    raise loops.NotALoop(f"the loop appends {type(item).__name__}")


# ---------------------------------------------------------------- the proof


def live_names(graph: Graph) -> set[str]:
    """Loop-carried numbers whose incoming value some iteration or post reads."""

    def read(form: Form, state: State) -> set[str]:
        return {state.numbers[k - STATE] for k, _ in form.noise if k >= STATE}

    live: set[str] = set()
    for step in graph.steps:
        state = graph.states[step.source]
        for cond in step.conditions:
            live |= read(cond.form, state)
        for form in step.emitted:
            live |= read(form, state)
    for s, forms, _ in graph.post:
        for form in forms:
            live |= read(form, graph.states[s])
    changed = True
    while changed:
        changed = False
        for step in graph.steps:
            state = graph.states[step.source]
            for name, form in step.carried:
                extra = read(form, state) - live if name in live else set()
                if extra:
                    live |= extra
                    changed = True
    return live
