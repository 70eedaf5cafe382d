"""Loops whose alignment shifts only the last iteration of a kind: Report Noisy Max.

Noisy Max's alignment moves the noise of the *final* maximum, which an
iteration cannot know (ShadowDP's shadow execution).  Here the iteration
that matters is guessed: the *winner* is the last iteration whose path
stores the loop counter (``best = i``).  A run is *pending* before it (no
switch yet: ``pending0``; a storing path already passed: ``pending1``) and
*done* after it.  Before the winner every draw gets one shift per line (not
depending on the path), the aligned run may take other paths than the
original, and each loop-carried number is only bounded: aligned − original
≤ hᵥ; at the winner the aligned run takes the original's path with the
winner's shift, and afterwards it follows the original's paths with fixed
distances, as in ``induction.py``.  The alignment can be inverted: the
winner is the last iteration where the *aligned* run stores the counter
(after it, both runs take paths that do not), and every shift is then
known.  Preconditions, each checked: every path from a state reaches the
same state and draws the same noise, no path appends output, every stored
counter of a state after a storing path is stored by that path, and a run
is never still without a stored counter after an iteration (else an aligned
run could store one where the original did not, and the winner would not be
readable off it).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import z3

from faier.core.budget import Budget
from faier.engines.alignment import cegis, loops
from faier.engines.alignment.cegis import Duty, Refine, Value, number
from faier.engines.alignment.execute import Form, Symbols, both, either, form_term, holds, total
from faier.engines.alignment.induction import Loopproof, _sel
from faier.engines.alignment.states import Graph, Step, live_names
from faier.engines.alignment.synthesis import _val
from faier.engines.alignment.values import STATE
from faier.engines.alignment.walks import Edge, walks

Key = tuple[str, str]


def applies(graph: Graph) -> str | None:
    """Why the winner guess does not apply to this loop (None: it does)."""
    if not any(step.stored for step in graph.steps):
        return "no iteration stores the loop counter"
    draws = [*graph.pre_draws, *(d for step in graph.steps for d in step.draws)]
    if any(d.kind == "discrete_laplace" for d in draws):
        return "integer noise (its shifts would have to be integers)"
    for s in range(len(graph.states)):
        out = [step for step in graph.steps if step.source == s]
        if not out:
            continue
        if len({step.target for step in out}) != 1 or out[0].target is None:
            return "the loop's paths lead to different states"
        if len({tuple((d.site, d.kind, d.scale) for d in step.draws) for step in out}) != 1:
            return "the loop's paths draw different noise"
    for step in graph.steps:
        if step.emitted:
            return "the loop appends output"
        if step.stored and step.target is not None:
            target = graph.states[step.target]
            tokens = {n for n, v in target.concrete if v == loops.STORED_INDEX}
            if not tokens <= step.stored:
                return "a storing path keeps an older counter"
    return None


class Prophecy:
    """Obligations, costs and CEGIS for the winner guess (every-query neighbours)."""

    def __init__(self, graph: Graph, unit: Fraction, epsilon: Fraction) -> None:
        self.graph = graph
        self.unit = unit
        self.epsilon = epsilon
        self.live = live_names(graph)
        self.names = sorted(self.live)
        keys: list[Key] = [(d.site, "pre") for d in graph.pre_draws]
        for step in graph.steps:
            for d, side in zip(step.draws, step.sides, strict=True):
                keys += [(d.site, "pending"), (d.site, "winner"), (d.site, _sel(side))]
        keys += [(d.site, "post") for _, _, draws in graph.post for d in draws]
        self.keys = list(dict.fromkeys(keys))
        self.c = {k: z3.Int(f"c{j}") for j, k in enumerate(self.keys)}
        self.d = {k: z3.Int(f"d{j}") for j, k in enumerate(self.keys)}
        self.dist = {n: z3.Int(f"v{j}") for j, n in enumerate(self.names)}
        self.high = {n: z3.Int(f"h{j}") for j, n in enumerate(self.names)}
        self.reachable = self._reach()

    def holes(self) -> list[z3.ArithRef]:
        return [*self.c.values(), *self.d.values(), *self.dist.values(), *self.high.values()]

    def moves(self, step: Step, mode: str) -> list[str]:
        """The modes one iteration path leads to from ``mode``."""
        if mode == "done":
            return [] if step.stored else ["done"]
        if step.stored:
            return ["pending1", "done"]
        return [mode]

    def _reach(self) -> set[tuple[int, str]]:
        seen = {(0, "pending0")}
        todo = [(0, "pending0")]
        while todo:
            s, mode = todo.pop()
            for step in self.graph.steps:
                if step.source != s or step.target is None:
                    continue
                for after in self.moves(step, mode):
                    if (step.target, after) not in seen:
                        seen.add((step.target, after))
                        todo.append((step.target, after))
        return seen

    def shift(self, key: Key, comp: Any, dx: Any, value: Any) -> Any:
        c, d = value(self.c[key]), value(self.d[key])
        change = sum((coef for i, coef in comp if i == 0), Fraction(0))
        return _val(c) * _val(self.unit) + _val(d) * _val(change) * _val(dx)

    def _side(
        self, step: Step, kind: str, x: Any, y: Any, eta: Any, offsets: dict[str, Any], value: Any
    ) -> tuple[Any, Any]:
        """(original, aligned) valuations of the step's variables for the given shift kind."""
        state = self.graph.states[step.source]
        shifts = [
            self.shift(
                (d.site, kind if kind != "done" else _sel(side)), comp, _val(y) - _val(x), value
            )
            for d, side, comp in zip(step.draws, step.sides, step.companions, strict=True)
        ]

        def original(k: int) -> Any:
            return _val(eta(k))

        def aligned(k: int) -> Any:
            if k >= STATE:
                return _val(eta(k)) + offsets[state.numbers[k - STATE]]
            return _val(eta(k)) + shifts[k]

        return original, aligned

    def _carried(self, step: Step) -> dict[str, Form]:
        return {name: form for name, form in step.carried if name in self.live}

    def obligation(
        self,
        kind: str,
        step: Step,
        other: Step,
        x: Any,
        y: Any,
        eta: Any,
        slack: dict[str, Any],
        value: Any,
    ) -> tuple[list[Any], Any]:
        """(hypothesis, goal): ``pending`` (original path ``step``, aligned path ``other``),
        ``winner`` or ``done`` (aligned path = original path)."""
        state = self.graph.states[step.source]
        if kind == "done":
            offsets = {n: self.distance(n, value) for n in state.numbers if n in self.live}
        else:
            offsets = {n: slack[n] for n in state.numbers if n in self.live}
        for n in state.numbers:
            offsets.setdefault(n, z3.RealVal(0))
        hyp: list[Any] = []
        if kind != "done":
            hyp += [slack[n] <= self.bound(n, value) for n in state.numbers if n in self.live]
        xs, ys = (lambda i: _val(x)), (lambda i: _val(y))
        orig_eta, _ = self._side(step, kind, x, y, eta, offsets, value)
        _, al_eta = self._side(other, kind, x, y, eta, offsets, value)
        for cond in step.conditions:
            hyp.append(holds(cond.op, form_term(cond.form, xs, orig_eta)))
        goal: list[Any] = []
        for cond in other.conditions:
            goal.append(holds(cond.op, form_term(cond.form, ys, al_eta)))
        if kind == "pending":  # the aligned path is any feasible one: it is a hypothesis
            hyp += goal
            goal = []
        for k, d in enumerate(step.draws):
            if d.kind == "exponential":  # the shifted noise stays in the support: a goal
                hyp.append(_val(eta(k)) >= 0)
                goal.append(al_eta(k) >= 0)
        mine, theirs = self._carried(step), self._carried(other)
        target = step.target
        assert target is not None
        for name in self.graph.states[target].numbers:
            if name not in self.live:
                continue
            change = form_term(theirs[name], ys, al_eta) - form_term(mine[name], xs, orig_eta)
            if kind == "pending":
                goal.append(change <= self.bound(name, value))
            else:
                goal.append(change == self.distance(name, value))
        return hyp, both(goal)

    def distance(self, name: str, value: Any) -> Any:
        return _val(value(self.dist[name])) * _val(self.unit)

    def bound(self, name: str, value: Any) -> Any:
        return _val(value(self.high[name])) * _val(self.unit)

    def fixed(self, value: Any) -> list[Any]:
        out = []
        shifts = [self.shift((d.site, "pre"), (), Fraction(0), value) for d in self.graph.pre_draws]
        for name, form in self.graph.pre_numbers:
            if name in self.live:
                change = total([_val(c) * shifts[k] for k, c in form.noise if k < STATE])
                out.append(change <= self.bound(name, value))
        for s, forms, draws in self.graph.post:
            state = self.graph.states[s]
            for mode in ("pending0", "done"):
                if (s, mode) not in self.reachable:
                    continue
                tokens = any(v == loops.STORED_INDEX for _, v in state.concrete)
                if mode == "pending0" and (forms or tokens):
                    out.append(z3.BoolVal(False))
                    continue
                for form in forms:
                    parts = []
                    for k, c in form.noise:
                        if k >= STATE:
                            parts.append(_val(c) * self.distance(state.numbers[k - STATE], value))
                        else:
                            key = (draws[k].site, "post")
                            parts.append(_val(c) * self.shift(key, (), Fraction(0), value))
                    out.append(z3.BoolVal(False) if form.inputs else total(parts) == 0)
        return out

    def _size(self, kind: str, shift: Any, scale: Fraction) -> Any:
        size = shift if kind == "exponential" else z3.If(shift >= 0, shift, -shift)
        return size / _val(scale)

    def step_cost(self, step: Step, kind: str, dx: Any, value: Any) -> Any:
        return total(
            [
                self._size(
                    d.kind,
                    self.shift((d.site, kind if kind != "done" else _sel(side)), comp, dx, value),
                    d.scale,
                )
                for d, side, comp in zip(step.draws, step.sides, step.companions, strict=True)
            ]
        )

    def pre_cost(self, value: Any) -> Any:
        return total(
            [
                self._size(d.kind, self.shift((d.site, "pre"), (), Fraction(0), value), d.scale)
                for d in self.graph.pre_draws
            ]
        )

    def post_cost(self, s: int, value: Any) -> Any:
        return total(
            [
                self._size(d.kind, self.shift((d.site, "post"), (), Fraction(0), value), d.scale)
                for d in self.graph.post[s][2]
            ]
        )

    def edges(self, value: Any) -> tuple[list[Edge], list[Fraction], list[tuple[str, int, str]]]:
        """The cost graph over (state, mode); each edge at its worst Δ."""
        edges: list[Edge] = []
        weights: list[Fraction] = []
        what: list[tuple[str, int, str]] = []
        for j, step in enumerate(self.graph.steps):
            for before in ("pending0", "pending1", "done"):
                if (step.source, before) not in self.reachable:
                    continue
                for after in self.moves(step, before):
                    kind = (
                        "winner"
                        if after == "done" and before != "done"
                        else ("done" if before == "done" else "pending")
                    )
                    costs = {
                        sign: number(self.step_cost(step, kind, _val(sign * self.unit), value))
                        for sign in (-1, 1)
                    }
                    sign = max(costs, key=lambda k: costs[k])
                    to: Hashable | None = None if step.target is None else (step.target, after)
                    edges.append(((step.source, before), to, j, sign * self.unit))
                    weights.append(costs[sign])
                    what.append(("step", j, kind))
        for s, _, _ in self.graph.post:
            for mode in ("pending0", "done"):
                if (s, mode) in self.reachable:
                    edges.append(((s, mode), None, -1 - s, Fraction(0)))
                    weights.append(number(self.post_cost(s, value)))
                    what.append(("post", s, mode))
        return edges, weights, what

    def symbolic_cost(self, edge: Edge, what: tuple[str, int, str]) -> Any:
        kind, index, label = what
        if kind == "post":
            return self.post_cost(index, lambda h: h)
        return self.step_cost(self.graph.steps[index], label, _val(edge[3]), lambda h: h)

    def duties(self) -> list[tuple[str, Step, Step]]:
        out = []
        for step in self.graph.steps:
            modes = {m for (s, m) in self.reachable if s == step.source}
            if modes & {"pending0", "pending1"}:
                for other in self.graph.steps:  # the counter branches are the same in both
                    if other.source == step.source and other.guards == step.guards:
                        out.append(("pending", step, other))
                if step.stored:
                    out.append(("winner", step, step))
            if "done" in modes and not step.stored:
                out.append(("done", step, step))
        return out


def prove(graph: Graph, unit: Fraction, epsilon: Fraction, budget: Budget) -> Loopproof | None:
    """CEGIS for the winner guess; None when no alignment of this shape exists."""
    prophecy = Prophecy(graph, unit, epsilon)
    if any(
        not step.stored for step in graph.steps if (step.source, "pending0") in prophecy.reachable
    ):
        # a run that never stores the counter could meet an aligned run that does: the
        # winner would not be readable off the aligned run, so the alignment not invertible
        return None
    sym = Symbols(1, False)
    x, y = sym.x[0], sym.x2[0]
    slack = {n: z3.Real(f"slack_{j}") for j, n in enumerate(prophecy.names)}
    near = [y - x <= _val(unit), x - y <= _val(unit)]

    def duty(kind: str, step: Step, other: Step, value: Value) -> Duty:
        hyp, goal = prophecy.obligation(kind, step, other, x, y, sym.eta, slack, value)

        def refine(m: z3.ModelRef) -> Any:
            xv, yv = number(m.eval(x, True)), number(m.eval(y, True))
            noise = {k: number(m.eval(v, True)) for k, v in sym.noise.items()}
            slacks = {n: _val(number(m.eval(v, True))) for n, v in slack.items()}
            hyp_c, goal_c = prophecy.obligation(
                kind, step, other, xv, yv, lambda k: noise.get(k, 0), slacks, lambda h: h
            )
            return z3.Implies(both(hyp_c), goal_c)

        return Duty(both([*near, *hyp, z3.Not(goal)]), refine)

    def close(value: Value) -> Loopproof | Refine | None:
        edges, weights, what = prophecy.edges(value)
        top, walk = walks(edges, weights, (0, "pending0"))
        if top is None:
            return Refine(both([prophecy.symbolic_cost(edges[e], what[e]) <= 0 for e in walk]))
        pre = number(prophecy.pre_cost(value))
        if pre + top > epsilon:
            parts = [prophecy.symbolic_cost(edges[e], what[e]) for e in walk]
            return Refine(total([prophecy.pre_cost(lambda h: h), *parts]) <= _val(epsilon))
        checks = []  # each edge's weight, checked over every change rather than its ends
        for weight, (kind, index, label) in zip(weights, what, strict=True):
            if kind == "post":
                term = prophecy.post_cost(index, value)
            else:
                term = prophecy.step_cost(graph.steps[index], label, y - x, value)
            checks.append(both([*near, term > _val(weight)]))
        solver = z3.Solver()
        solver.add(either(checks))
        if solver.check() != z3.unsat:
            return None
        return Loopproof(
            tuple(
                (k[0], k[1], value(prophecy.c[k]) * unit, value(prophecy.d[k]))
                for k in prophecy.keys
            ),
            tuple((n, value(prophecy.dist[n]) * unit) for n in prophecy.names),
            (),
            pre + top,
            len(graph.states),
            len(graph.steps),
            (),
            tuple((n, value(prophecy.high[n]) * unit) for n in prophecy.names),
            tuple(checks),
        )

    duties = prophecy.duties()
    found = cegis.search(
        prophecy.holes(),
        prophecy.fixed(lambda h: h),
        lambda value: [duty(kind, step, other, value) for kind, step, other in duties],
        close,
        budget,
    )
    return None if found is None else replace(found.proof, obligations=found.formulas)
