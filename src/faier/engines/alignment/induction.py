"""Proofs for every number of queries: an alignment that is an invariant of the query loop.

The loop (``loops.py``) is run one iteration at a time from *abstract loop
states* (``states.py``): the loop-carried Python values kept exactly (counters, flags, a
stored loop index as one token), every loop-carried number a free real wᵥ,
output lists as append-only accumulators.  From the state after ``pre``,
iterations are explored until no new abstract state appears (at most
``MAX_STATES``): a finite graph whose edges are iteration paths.  Every run
of the program on any number of queries is a walk in this graph from the
first state, then ``post``.

The alignment is per program line and side (the ``side`` selectors), and each
loop-carried number v has a *distance* dᵥ (a hole: its aligned value is
wᵥ + dᵥ).  Obligations, each for every real w, every answer pair |y − x| ≤ Δ
of the current query and every noise: the aligned iteration takes the same
path, appends the same items, and leaves every carried number at its
distance; ``pre`` leaves them at their distances and ``post`` releases equal
numbers.  Cost: each edge costs at most max over Δ of Σ|sₖ|/bₖ (convex in Δ,
so an end point); a reachable cycle of positive cost makes the cost grow
with n (no proof), otherwise the largest cost of a walk, plus pre's, must be
≤ ε.  As every iteration of the aligned run follows the original's path, the
alignment can be inverted iteration by iteration, as at a fixed n.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from faier.core.budget import Budget
from faier.engines.alignment.execute import (
    Draw,
    Form,
    Pairs,
    Symbols,
    both,
    form_term,
    holds,
    total,
)
from faier.engines.alignment.states import Graph, State, Step, live_names
from faier.engines.alignment.synthesis import BOUND, MAX_ROUNDS, _val
from faier.engines.alignment.values import STATE
from faier.engines.alignment.walks import Edge, walks


def _sel(side: int) -> str:
    return "free" if side == 0 else ("above" if side > 0 else "below")


@dataclass(frozen=True)
class Loopproof:
    """A verified alignment for every n, or None and why not."""

    holes: tuple[tuple[str, str, Fraction, Fraction], ...]
    distances: tuple[tuple[str, Fraction], ...]
    moved: tuple[tuple[str, Fraction, Fraction], ...]
    """One-query neighbours: each number's distance after the moved query, c + e·δ."""
    largest_cost: Fraction
    states: int
    steps: int
    obligations: tuple[z3.BoolRef, ...]
    bounds: tuple[tuple[str, Fraction], ...] = ()
    """Prophecy proofs: before the winner, aligned − original ≤ bound for each number."""


MODES_EVERY = ("every",)
MODES_ONE = ("still", "moved")
TRANSITIONS = {
    "every": (("every", "every", "free"),),
    "one": (("still", "still", "zero"), ("still", "moved", "delta"), ("moved", "moved", "zero")),
}
"""(mode before, mode after, the query's change): every query moves by any Δ ≤ Δ₀; with
one-query neighbours at most one iteration of a run reads the moved query, by δ."""


class Prover:
    """CEGIS for the loop's alignment (holes per line and side, distances per number)."""

    def __init__(self, graph: Graph, unit: Fraction, epsilon: Fraction, one_query: bool) -> None:
        self.graph = graph
        self.unit = unit
        self.epsilon = epsilon
        self.one_query = one_query
        self.modes = MODES_ONE if one_query else MODES_EVERY
        self.transitions = TRANSITIONS["one" if one_query else "every"]
        keys: list[tuple[str, str]] = [(d.site, "pre") for d in graph.pre_draws]
        for step in graph.steps:
            keys += [(d.site, _sel(side)) for d, side in zip(step.draws, step.sides, strict=True)]
        keys += [(d.site, "post") for _, _, draws in graph.post for d in draws]
        self.keys = list(dict.fromkeys(keys))
        self.live = live_names(graph)
        self.names = sorted(self.live)
        self.c = {k: z3.Int(f"c{j}") for j, k in enumerate(self.keys)}
        self.d = {k: z3.Int(f"d{j}") for j, k in enumerate(self.keys)}
        self.dist = {n: z3.Int(f"v{j}") for j, n in enumerate(self.names)}
        self.moved = {n: (z3.Int(f"m{j}"), z3.Int(f"e{j}")) for j, n in enumerate(self.names)}
        self.delta = z3.Real("delta")
        self.reachable = self._reach()

    def _reach(self) -> set[tuple[int, str]]:
        """The (state, mode) pairs a run can be in (the moved query read at most once)."""
        seen = {(0, self.modes[0])}
        todo = [(0, self.modes[0])]
        while todo:
            s, mode = todo.pop()
            for step in self.graph.steps:
                if step.source != s or step.target is None:
                    continue
                for before, after, _ in self.transitions:
                    if before == mode and (step.target, after) not in seen:
                        seen.add((step.target, after))
                        todo.append((step.target, after))
        return seen

    def holes(self) -> list[z3.ArithRef]:
        out = [*self.c.values(), *self.d.values(), *self.dist.values()]
        if self.one_query:
            out += [h for pair in self.moved.values() for h in pair]
        return out

    # shifts and distances under an assignment (z3 terms or numbers)
    def shift(self, key: tuple[str, str], comp: Pairs, dx: Any, value: Any) -> Any:
        c, d = value(self.c[key]), value(self.d[key])
        if key[1] == "post":  # after the loop: c·Δ₀, plus d·δ once the query has moved
            return _val(c) * _val(self.unit) + _val(d) * _val(dx)
        change = sum((coef for i, coef in comp if i == 0), Fraction(0))
        return _val(c) * _val(self.unit) + _val(d) * _val(change) * _val(dx)

    def distance(self, name: str, mode: str, delta: Any, value: Any) -> Any:
        if mode != "moved":
            return _val(value(self.dist[name])) * _val(self.unit)
        c, e = self.moved[name]
        return _val(value(c)) * _val(self.unit) + _val(value(e)) * _val(delta)

    def _aligned(
        self,
        form: Form,
        state: State,
        shifts: list[Any],
        x: Any,
        y: Any,
        eta: Any,
        value: Any,
        mode: str,
        delta: Any,
    ) -> tuple[Any, Any]:
        def var(k: int) -> Any:
            return _val(eta(k))

        def moved(k: int) -> Any:
            if k >= STATE:
                name = state.numbers[k - STATE]
                return _val(eta(k)) + self.distance(name, mode, delta, value)
            return _val(eta(k)) + shifts[k]

        original = form_term(form, lambda i: _val(x), var)
        aligned = form_term(form, lambda i: _val(y), moved)
        return original, aligned

    def step_goal(
        self,
        step: Step,
        transition: tuple[str, str, str],
        x: Any,
        y: Any,
        eta: Any,
        value: Any,
        delta: Any,
    ) -> tuple[list[Any], Any]:
        """(hypothesis, goal) of one iteration path under one transition of the modes."""
        before, after, _ = transition
        state = self.graph.states[step.source]
        shifts = [
            self.shift((d.site, _sel(side)), comp, _val(y) - _val(x), value)
            for d, side, comp in zip(step.draws, step.sides, step.companions, strict=True)
        ]
        hyp: list[Any] = []
        goal: list[Any] = []
        for cond in step.conditions:
            original, aligned = self._aligned(
                cond.form, state, shifts, x, y, eta, value, before, delta
            )
            hyp.append(holds(cond.op, original))
            goal.append(holds(cond.op, aligned))
        for k, d in enumerate(step.draws):
            if d.kind == "exponential":
                hyp.append(_val(eta(k)) >= 0)
                goal.append(_val(eta(k)) + shifts[k] >= 0)
            if d.kind == "discrete_laplace":
                shift = shifts[k]
                goal.append(z3.IsInt(z3.ToReal(shift) if z3.is_int(shift) else shift))
        for form in step.emitted:
            original, aligned = self._aligned(form, state, shifts, x, y, eta, value, before, delta)
            goal.append(original == aligned)
        for name, form in step.carried:
            if name not in self.live:
                continue
            original, aligned = self._aligned(form, state, shifts, x, y, eta, value, before, delta)
            goal.append(aligned - original == self.distance(name, after, delta, value))
        return hyp, both(goal)

    def _post_change(self, s: int, form: Form, mode: str, delta: Any, value: Any) -> Any:
        state = self.graph.states[s]
        draws = self.graph.post[s][2]
        parts = []
        for k, c in form.noise:
            if k >= STATE:
                parts.append(_val(c) * self.distance(state.numbers[k - STATE], mode, delta, value))
            else:
                dx = delta if mode == "moved" else Fraction(0)
                parts.append(_val(c) * self.shift((draws[k].site, "post"), (), dx, value))
        return total(parts)

    def fixed(self, value: Any) -> list[Any]:
        """pre sets the distances; post releases equal numbers (for every δ: at 0 and Δ₀)."""
        out = []
        first = self.modes[0]
        pre_shifts = [
            self.shift((d.site, "pre"), (), Fraction(0), value) for d in self.graph.pre_draws
        ]
        for name, form in self.graph.pre_numbers:
            if name not in self.live:
                continue
            change = total([_val(c) * pre_shifts[k] for k, c in form.noise if k < STATE])
            out.append(change == self.distance(name, first, Fraction(0), value))
        for s, forms, _ in self.graph.post:
            for form in forms:
                if form.inputs:
                    out.append(z3.BoolVal(False))
                for mode in self.modes:
                    if (s, mode) not in self.reachable:
                        continue
                    points = (Fraction(0), self.unit) if mode == "moved" else (Fraction(0),)
                    out += [self._post_change(s, form, mode, p, value) == 0 for p in points]
        return out

    def _size(self, kind: str, shift: Any, scale: Fraction) -> Any:
        size = shift if kind == "exponential" else z3.If(shift >= 0, shift, -shift)
        return size / _val(scale)

    def edge_cost(self, step: Step, value: Any, dx: Any) -> Any:
        return total(
            [
                self._size(d.kind, self.shift((d.site, _sel(side)), comp, dx, value), d.scale)
                for d, side, comp in zip(step.draws, step.sides, step.companions, strict=True)
            ]
        )

    def post_cost(self, s: int, mode: str, delta: Any, value: Any) -> Any:
        dx = delta if mode == "moved" else Fraction(0)
        return total(
            [
                self._size(d.kind, self.shift((d.site, "post"), (), dx, value), d.scale)
                for d in self.graph.post[s][2]
            ]
        )

    def pre_cost(self, value: Any) -> Any:
        return total(
            [
                self._size(d.kind, self.shift((d.site, "pre"), (), Fraction(0), value), d.scale)
                for d in self.graph.pre_draws
            ]
        )


def _number(term: Any) -> Fraction:
    value = z3.simplify(_val(term))
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    if z3.is_rational_value(value):
        return value.as_fraction()  # type: ignore[no-any-return]
    raise ValueError(f"not a number: {value}")


def hole_search(holes: list[z3.ArithRef], fixed: list[Any]) -> z3.Optimize:
    """The synthesiser of CEGIS: holes in [−BOUND, BOUND] under ``fixed``, smallest first."""
    synth = z3.Optimize()
    for h in holes:
        synth.add(h >= -BOUND, h <= BOUND)
    synth.add(fixed)
    if holes:
        synth.minimize(total([z3.If(h >= 0, h, -h) for h in holes]))
    return synth


def prove(
    graph: Graph,
    unit: Fraction,
    epsilon: Fraction,
    integer: bool,
    one_query: bool,
    budget: Budget,
) -> Loopproof | None:
    """CEGIS; None when no alignment of this shape exists within the bounds."""
    prover = Prover(graph, unit, epsilon, one_query)
    synth = hole_search(prover.holes(), prover.fixed(lambda h: h))
    sym = Symbols(1, integer)
    x, y, delta = sym.x[0], sym.x2[0], prover.delta
    for _ in range(MAX_ROUNDS):
        budget.check_time()
        if synth.check() != z3.sat:
            return None
        model = synth.model()

        def value(h: Any, model: z3.ModelRef = model) -> Fraction:
            return _number(model.eval(h, model_completion=True))

        found = False
        duties = []
        for step in graph.steps:
            for transition in prover.transitions:
                if (step.source, transition[0]) not in prover.reachable:
                    continue
                change = transition[2]
                other = x if change == "zero" else (x + delta if change == "delta" else y)
                hyp, goal = prover.step_goal(step, transition, x, other, sym.eta, value, delta)
                bounds = {
                    "free": [y - x <= _val(unit), x - y <= _val(unit)],
                    "delta": [delta <= _val(unit), -delta <= _val(unit)],
                    "zero": [],
                }[change]
                if one_query:
                    bounds += [delta <= _val(unit), -delta <= _val(unit)]
                formula = both([*bounds, *hyp, z3.Not(goal)])
                duties.append(formula)
                solver = z3.Solver()
                solver.add(formula)
                answer = solver.check()
                if answer == z3.unknown:
                    return None
                if answer == z3.sat:
                    found = True
                    m = solver.model()
                    xv, yv = _number(m.eval(x, True)), _number(m.eval(y, True))
                    dv = _number(m.eval(delta, True))
                    noise = {k: _number(m.eval(v, True)) for k, v in sym.noise.items()}
                    ov = xv if change == "zero" else (xv + dv if change == "delta" else yv)

                    def eta(k: int, noise: dict[int, Fraction] = noise) -> Any:
                        return noise.get(k, Fraction(0))

                    _, g = prover.step_goal(step, transition, xv, ov, eta, lambda h: h, dv)
                    synth.add(g)
        if found:
            continue
        failure = _cost_failure(graph, prover, value, unit, epsilon)
        if failure is not None:
            synth.add(failure)
            continue
        pre = _number(z3.simplify(prover.pre_cost(value)))
        edges, weights, _ = _cost_edges(graph, prover, value, unit)
        top, _ = walks(edges, weights, (0, prover.modes[0]))
        assert top is not None
        return Loopproof(
            tuple((k[0], k[1], value(prover.c[k]) * unit, value(prover.d[k])) for k in prover.keys),
            tuple((n, value(prover.dist[n]) * unit) for n in prover.names),
            tuple(
                (n, value(prover.moved[n][0]) * unit, value(prover.moved[n][1]))
                for n in prover.names
                if one_query
            ),
            pre + top,
            len(graph.states),
            len(graph.steps),
            tuple(duties),
        )
    return None


Cost = tuple[str, int, Fraction]
"""What an edge costs: ("step", iteration path, Δ) or ("post", state, δ)."""


def _cost_edges(
    graph: Graph, prover: Prover, value: Any, unit: Fraction
) -> tuple[list[Edge], list[Fraction], list[tuple[Cost, str]]]:
    """The cost graph over (state, mode), each edge at its worst change, and what it costs."""
    edges: list[Edge] = []
    weights: list[Fraction] = []
    costs: list[tuple[Cost, str]] = []

    def worst(term: Callable[[Fraction], Any], points: tuple[Fraction, ...]) -> Fraction:
        return max(points, key=lambda p: _number(z3.simplify(term(p))))

    for j, step in enumerate(graph.steps):
        for before, after, change in prover.transitions:

            def cost(dx: Fraction, step: Step = step) -> Any:
                return prover.edge_cost(step, value, _val(dx))

            dx = Fraction(0) if change == "zero" else worst(cost, (-unit, unit))
            to = None if step.target is None else (step.target, after)
            edges.append(((step.source, before), to, j, dx))
            weights.append(_number(z3.simplify(cost(dx))))
            costs.append((("step", j, dx), before))
    for s, _, _ in graph.post:
        for mode in prover.modes:

            def post(d: Fraction, s: int = s, mode: str = mode) -> Any:
                return prover.post_cost(s, mode, _val(d), value)

            d = worst(post, (-unit, unit)) if mode == "moved" else Fraction(0)
            edges.append(((s, mode), None, -1 - s, d))
            weights.append(_number(z3.simplify(post(d))))
            costs.append((("post", s, d), mode))
    return edges, weights, costs


def _cost_failure(
    graph: Graph, prover: Prover, value: Any, unit: Fraction, epsilon: Fraction
) -> Any | None:
    """A linear constraint on the holes that the candidate's cost breaks, or None."""
    edges, weights, costs = _cost_edges(graph, prover, value, unit)
    top, walk = walks(edges, weights, (0, prover.modes[0]))

    def symbolic(e: int) -> Any:
        (kind, index, point), mode = costs[e]
        if kind == "step":
            return prover.edge_cost(graph.steps[index], lambda h: h, _val(point))
        return prover.post_cost(index, mode, _val(point), lambda h: h)

    if top is None:
        return both([symbolic(e) <= 0 for e in walk])
    pre = _number(z3.simplify(prover.pre_cost(value)))
    if pre + top <= epsilon:
        return None
    return total([prover.pre_cost(lambda h: h), *(symbolic(e) for e in walk)]) <= _val(epsilon)


def describe(
    proof: Loopproof, names: dict[str, str], kinds: dict[str, Draw], epsilon: str
) -> list[str]:
    """The certificate's lines for a proof over every number of queries."""
    lines = [
        f"for every number of queries: the query loop has {proof.states} abstract states and "
        f"{proof.steps} iteration paths; alignment "
        + (
            "(the winner guessed: ShadowDP's shadow execution):"
            if proof.bounds
            else "(side selectors):"
        )
    ]
    for site, selector, c, d in proof.holes:
        where = {
            "pre": "before the loop",
            "post": "after the loop",
            "pending": "before the winner",
            "winner": "the last iteration that stores the counter (the winner)",
            "above": "after the winner, above" if proof.bounds else "above",
            "below": "after the winner, below" if proof.bounds else "below",
            "free": "after the winner" if proof.bounds else "free",
        }.get(selector, selector)
        symbol = "δ" if selector == "post" else "D"
        text = _affine(c, d, symbol)
        lines.append(f"  {names.get(site, site)} {kinds[site].describe()}, {where}: shift {text}")
    for name, distance in proof.distances:
        lines.append(f"  loop-carried {name}: aligned value = value + {distance}")
    for name, c, e in proof.moved:
        lines.append(
            f"  loop-carried {name} once the moved query is read: aligned value = value + "
            + _affine(c, e, "δ")
        )
    for name, bound in proof.bounds:
        lines.append(
            f"  loop-carried {name} before the winner: aligned value ≤ value + {bound} "
            "(the aligned run may take other paths there)"
        )
    if proof.moved or any(selector == "post" for _, selector, _, _ in proof.holes):
        lines.append("  δ: the one query's change (one-query neighbours)")
    lines.append(
        f"  cost over every run (no costly iteration repeats): at most {proof.largest_cost} "
        f"≤ ε = {epsilon}"
    )
    return lines


def _affine(c: Fraction, d: Fraction, symbol: str) -> str:
    """``c + d·symbol`` as a reader writes it: ``1``, ``δ``, ``−δ``, ``1 + D``, ``2·D``."""
    term = "" if d == 0 else (symbol if d == 1 else "−" + symbol if d == -1 else f"{d}·{symbol}")
    if not term:
        return str(c)
    if not c:
        return term
    return f"{c} − {term[1:]}" if term.startswith("−") else f"{c} + {term}"
