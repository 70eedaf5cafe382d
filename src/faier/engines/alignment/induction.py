"""Proofs for every number of queries: an alignment that is an invariant of the query loop.

The loop (``loops.py``) is run one iteration at a time from *abstract loop
states* (``states.py``): the loop-carried Python values kept exactly (counters, flags, a
stored loop index as one token), every loop-carried number a free real wᵥ,
output lists as append-only accumulators.  From the state after ``pre``,
iterations are explored until no new abstract state appears (at most
``MAX_STATES``): a finite graph whose edges are iteration paths.  Every run
of the program on any number of queries is a walk in this graph from the
first state, then ``post``.  A branch on the loop counter and constants
(``(i + 1) % M == 0``) is taken both ways in every iteration, so the walks
cover every value of the constants too.

The alignment is per program line and side (the ``side`` selectors), and each
loop-carried number v has a *distance* dᵥ (a hole: its aligned value is
wᵥ + dᵥ).  Obligations, each for every real w, every answer pair |y − x| ≤ Δ
of the current query and every noise: the aligned iteration takes the same
path, appends the same items, and leaves every carried number at its
distance; ``pre`` leaves them at their distances and ``post`` releases equal
numbers.  With one-query neighbours the graph is refined by modes (``Mode``:
still, or moved with the numbers holding the moved query).  Cost: each edge
costs at most max over Δ of Σ|sₖ|/bₖ (convex in Δ, so an end point, and
checked as an obligation); a reachable cycle of positive cost makes the cost
grow with n (no proof), otherwise the largest cost of a walk, plus pre's,
must be ≤ ε.  As every iteration of the aligned run follows the original's
path, the alignment can be inverted iteration by iteration, as at a fixed n.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import z3

from faier.core.budget import Budget
from faier.engines.alignment import cegis, loops
from faier.engines.alignment.cegis import Duty, Refine, Value, number
from faier.engines.alignment.execute import (
    Draw,
    Form,
    Pairs,
    Symbols,
    both,
    either,
    form_term,
    holds,
    total,
)
from faier.engines.alignment.states import Graph, State, Step, live_names
from faier.engines.alignment.synthesis import _val
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
    """One-query neighbours: each number's distance while it holds the moved query, c + e·δ."""
    largest_cost: Fraction
    states: int
    steps: int
    obligations: tuple[z3.BoolRef, ...]
    bounds: tuple[tuple[str, Fraction], ...] = ()
    """Prophecy proofs: before the winner, aligned − original ≤ bound for each number."""
    costs: tuple[z3.BoolRef, ...] = ()
    """Per edge of the cost graph: its cost above the weight the walk used (each unsat,
    checked as one disjunction)."""
    guards: tuple[str, ...] = ()
    """The program lines of counter branches, each taken both ways in every iteration."""
    hides: tuple[tuple[str, str], ...] = ()
    """Per draw line whose companion reads a loop-carried number: what its D cancels."""
    modes: int = 0
    """How many (state, mode) pairs a run can be in (one-query neighbours)."""
    assignment: tuple[tuple[str, Fraction], ...] = ()
    """Every hole's value by its z3 name (``horizon.py`` reads the alignment's costs)."""


Mode = tuple[str, frozenset[str]]
"""("every" | "still" | "moved", the numbers holding the moved query).  With every-query
neighbours every iteration's query moves by any |Δ| ≤ Δ₀ (one mode); with one-query
neighbours a run is *still* until the iteration that reads the moved query (its change
δ), then *moved*, and each loop-carried number whose value depends on the moved query
(it reads it, a number that does, or a draw whose shift does) has the distance c + e·δ,
every other number its still distance.  A number stops holding the moved query when it
is overwritten (SmartSum's block sum at the end of a block)."""

EVERY: Mode = ("every", frozenset())
STILL: Mode = ("still", frozenset())
MAX_MODES = 256


@dataclass(frozen=True)
class Move:
    """One iteration path taken from one mode: the query's change and the mode after."""

    step: int
    before: Mode
    after: Mode
    change: str
    """``free`` (every query: any |Δ| ≤ Δ₀), ``delta`` (the moved query, δ), ``zero``."""


class Prover:
    """CEGIS for the loop's alignment (holes per line and side, distances per number)."""

    def __init__(self, graph: Graph, unit: Fraction, epsilon: Fraction, one_query: bool) -> None:
        self.graph = graph
        self.unit = unit
        self.epsilon = epsilon
        self.one_query = one_query
        self.first = STILL if one_query else EVERY
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
        self.moves, self.reachable = self._reach()

    def _holding(self, step: Step, holding: frozenset[str], read: bool) -> frozenset[str]:
        """The numbers after ``step`` that hold the moved query: those reading it (``read``:
        this iteration reads it), a number holding it, or a draw whose companion does."""
        state = self.graph.states[step.source]

        def holds_it(k: int) -> bool:
            return k >= STATE and state.numbers[k - STATE] in holding

        shifted = {
            k
            for k, comp in enumerate(step.companions)
            if any((i == 0 and read) or holds_it(i) for i, _ in comp)
        }
        return frozenset(
            name
            for name, form in step.carried
            if name in self.live
            and (
                (read and bool(form.inputs))
                or any(holds_it(k) or (k < STATE and k in shifted) for k, _ in form.noise)
            )
        )

    def _after(self, step: Step, mode: Mode) -> list[tuple[str, Mode]]:
        if mode[0] == "every":
            return [("free", EVERY)]
        if mode[0] == "still":
            return [("zero", STILL), ("delta", ("moved", self._holding(step, frozenset(), True)))]
        return [("zero", ("moved", self._holding(step, mode[1], False)))]

    def _reach(self) -> tuple[list[Move], set[tuple[int, Mode]]]:
        """Every iteration path from every (state, mode) pair a run can be in."""
        seen = {(0, self.first)}
        todo = [(0, self.first)]
        moves: list[Move] = []
        while todo:
            s, mode = todo.pop()
            for j, step in enumerate(self.graph.steps):
                if step.source != s:
                    continue
                for change, after in self._after(step, mode):
                    moves.append(Move(j, mode, after, change))
                    pair = (step.target, after)
                    if step.target is not None and pair not in seen:
                        if len(seen) >= MAX_MODES:
                            raise loops.NotALoop(f"more than {MAX_MODES} (state, mode) pairs")
                        seen.add((step.target, after))
                        todo.append((step.target, after))
        return moves, seen

    def pairs(self) -> list[tuple[int, Mode]]:
        """The reachable (state, mode) pairs in a fixed order (not a set's, which depends on
        string hashing: the synthesiser's constraints, hence its answer, would vary)."""
        return sorted(self.reachable, key=lambda p: (p[0], p[1][0], sorted(p[1][1])))

    def holes(self) -> list[z3.ArithRef]:
        out = [*self.c.values(), *self.d.values(), *self.dist.values()]
        if self.one_query:
            out += [h for pair in self.moved.values() for h in pair]
        return out

    # shifts and distances under an assignment (z3 terms or numbers)
    def shift(
        self,
        key: tuple[str, str],
        comp: Pairs,
        dx: Any,
        value: Any,
        state: State | None = None,
        mode: Mode = EVERY,
        delta: Any = 0,
    ) -> Any:
        """c·Δ₀ + d·D: D the change the draw's companion cancels, the current query's
        (``dx``) and the distances of the loop-carried numbers in it; after the loop
        c·Δ₀ + d·δ (δ once the query has moved)."""
        c, d = value(self.c[key]), value(self.d[key])
        if key[1] == "post":
            return _val(c) * _val(self.unit) + _val(d) * _val(dx)
        parts = [_val(coef) * _val(dx) for i, coef in comp if i == 0]
        if state is not None:
            parts += [
                _val(coef) * self.distance(state.numbers[i - STATE], mode, delta, value)
                for i, coef in comp
                if i >= STATE
            ]
        return _val(c) * _val(self.unit) + _val(d) * total(parts)

    def distance(self, name: str, mode: Mode, delta: Any, value: Any) -> Any:
        if name not in self.live:
            return z3.RealVal(0)
        if mode[0] != "moved" or name not in mode[1]:
            return _val(value(self.dist[name])) * _val(self.unit)
        c, e = self.moved[name]
        return _val(value(c)) * _val(self.unit) + _val(value(e)) * _val(delta)

    def _shifts(self, step: Step, mode: Mode, dx: Any, delta: Any, value: Any) -> list[Any]:
        state = self.graph.states[step.source]
        return [
            self.shift((d.site, _sel(side)), comp, dx, value, state, mode, delta)
            for d, side, comp in zip(step.draws, step.sides, step.companions, strict=True)
        ]

    def _aligned(
        self,
        form: Form,
        state: State,
        shifts: list[Any],
        x: Any,
        y: Any,
        eta: Any,
        value: Any,
        mode: Mode,
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
        self, move: Move, x: Any, y: Any, eta: Any, value: Any, delta: Any
    ) -> tuple[list[Any], Any]:
        """(hypothesis, goal) of one iteration path from one mode."""
        step = self.graph.steps[move.step]
        before = move.before
        state = self.graph.states[step.source]
        shifts = self._shifts(step, before, _val(y) - _val(x), delta, value)
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
            goal.append(aligned - original == self.distance(name, move.after, delta, value))
        return hyp, both(goal)

    def _post_change(self, s: int, form: Form, mode: Mode, delta: Any, value: Any) -> Any:
        state = self.graph.states[s]
        draws = self.graph.post[s][2]
        parts = []
        for k, c in form.noise:
            if k >= STATE:
                parts.append(_val(c) * self.distance(state.numbers[k - STATE], mode, delta, value))
            else:
                dx = delta if mode[0] == "moved" else Fraction(0)
                parts.append(_val(c) * self.shift((draws[k].site, "post"), (), dx, value))
        return total(parts)

    def fixed(self, value: Any) -> list[Any]:
        """pre sets the distances; post releases equal numbers (for every δ: at 0 and Δ₀)."""
        out = []
        pre_shifts = [
            self.shift((d.site, "pre"), (), Fraction(0), value) for d in self.graph.pre_draws
        ]
        for name, form in self.graph.pre_numbers:
            if name not in self.live:
                continue
            change = total([_val(c) * pre_shifts[k] for k, c in form.noise if k < STATE])
            out.append(change == self.distance(name, self.first, Fraction(0), value))
        for s, mode in self.pairs():
            for form in self.graph.post[s][1]:
                if form.inputs:
                    out.append(z3.BoolVal(False))
                points = (Fraction(0), self.unit) if mode[0] == "moved" else (Fraction(0),)
                out += [self._post_change(s, form, mode, p, value) == 0 for p in points]
        return out

    def _size(self, kind: str, shift: Any, scale: Fraction) -> Any:
        size = shift if kind == "exponential" else z3.If(shift >= 0, shift, -shift)
        return size / _val(scale)

    def edge_cost(self, move: Move, value: Any, dx: Any, delta: Any) -> Any:
        step = self.graph.steps[move.step]
        shifts = self._shifts(step, move.before, dx, delta, value)
        return total(
            [self._size(d.kind, t, d.scale) for d, t in zip(step.draws, shifts, strict=True)]
        )

    def post_cost(self, s: int, mode: Mode, delta: Any, value: Any) -> Any:
        dx = delta if mode[0] == "moved" else Fraction(0)
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

    def points(self, move: Move) -> tuple[tuple[Fraction, Fraction], ...]:
        """(Δ, δ) where an edge's cost can be largest: each is convex in the change, so an
        end point (a moved run's δ enters through the distances it cancels)."""
        ends = (-self.unit, self.unit)
        if move.change == "free":
            return tuple((p, Fraction(0)) for p in ends)
        if move.change == "delta":
            return tuple((p, p) for p in ends)
        if move.before[0] == "moved":
            return tuple((Fraction(0), p) for p in ends)
        return ((Fraction(0), Fraction(0)),)

    def change_bounds(self, move: Move, x: Any, y: Any) -> list[Any]:
        """What the current query's change and δ range over on one move."""
        unit = _val(self.unit)
        bounds = {
            "free": [y - x <= unit, x - y <= unit],
            "delta": [self.delta <= unit, -self.delta <= unit],
            "zero": [],
        }[move.change]
        if self.one_query:
            bounds += [self.delta <= unit, -self.delta <= unit]
        return bounds


def prove(
    graph: Graph,
    unit: Fraction,
    epsilon: Fraction,
    integer: bool,
    one_query: bool,
    budget: Budget,
    horizon: int | None = None,
    costly: list[tuple[tuple[str, Fraction], ...]] | None = None,
) -> Loopproof | None:
    """CEGIS (``cegis.py``); None when no alignment of this shape exists within the bounds.
    With a ``horizon``, the cost need only stay within ε on runs of at most that many
    queries.  Candidates that keep every iteration obligation but cost too much are
    appended to ``costly`` (their holes' values by name)."""
    prover = Prover(graph, unit, epsilon, one_query)
    sym = Symbols(1, integer)
    x, y, delta = sym.x[0], sym.x2[0], prover.delta

    def duty(move: Move, value: Value) -> Duty:
        """The aligned iteration goes wrong on ``move`` (neighbours, noise, carried values)."""
        other = x if move.change == "zero" else (x + delta if move.change == "delta" else y)
        hyp, goal = prover.step_goal(move, x, other, sym.eta, value, delta)

        def refine(m: z3.ModelRef) -> Any:
            xv, yv, dv = (number(m.eval(v, True)) for v in (x, y, delta))
            noise = {k: number(m.eval(v, True)) for k, v in sym.noise.items()}
            ov = xv if move.change == "zero" else (xv + dv if move.change == "delta" else yv)
            _, goal = prover.step_goal(move, xv, ov, lambda k: noise.get(k, 0), lambda h: h, dv)
            return goal

        return Duty(both([*prover.change_bounds(move, x, y), *hyp, z3.Not(goal)]), refine)

    def close(value: Value) -> Loopproof | Refine | None:
        failure = _cost_failure(graph, prover, value, epsilon, horizon)
        if failure is not None:
            if costly is not None:
                costly.append(tuple((str(h), value(h)) for h in prover.holes()))
            return Refine(failure)
        pre = number(prover.pre_cost(value))
        edges, weights, costs = _cost_edges(graph, prover, value)
        top, _ = walks(edges, weights, (0, prover.first), horizon)
        assert top is not None
        checks = _cost_checks(prover, value, weights, costs, x, y)
        if checks is None:
            return None
        return Loopproof(
            tuple((k[0], k[1], value(prover.c[k]) * unit, value(prover.d[k])) for k in prover.keys),
            tuple((n, value(prover.dist[n]) * unit) for n in prover.names),
            tuple(
                (n, value(prover.moved[n][0]) * unit, value(prover.moved[n][1]))
                for n in prover.names
                if one_query and any(n in mode[1] for _, mode in prover.reachable)
            ),
            pre + top,
            len(graph.states),
            len(graph.steps),
            (),
            costs=checks,
            guards=tuple(dict.fromkeys(site for step in graph.steps for site, _ in step.guards)),
            hides=_hides(graph),
            modes=len(prover.reachable) if one_query else 0,
            assignment=tuple((str(h), value(h)) for h in prover.holes()),
        )

    found = cegis.search(
        prover.holes(),
        prover.fixed(lambda h: h),
        lambda value: [duty(move, value) for move in prover.moves],
        close,
        budget,
    )
    return None if found is None else replace(found.proof, obligations=found.formulas)


def _hides(graph: Graph) -> tuple[tuple[str, str], ...]:
    """Per draw line whose companion reads a loop-carried number: the companion's text."""
    found: dict[str, list[str]] = {}
    for step in graph.steps:
        state = graph.states[step.source]
        for d, comp in zip(step.draws, step.companions, strict=True):
            carried = [state.numbers[i - STATE] for i, _ in comp if i >= STATE]
            if carried:
                terms = found.setdefault(d.site, [])
                for name in [*carried, "q[i]"] if any(i == 0 for i, _ in comp) else carried:
                    if name not in terms:
                        terms.append(name)
    return tuple((site, " + ".join(terms)) for site, terms in found.items())


Cost = tuple[str, int, Fraction, Fraction]
"""What an edge costs: ("step", move, Δ, δ) or ("post", state, δ, δ)."""


def cost_graph(graph: Graph, prover: Prover, value: Any) -> tuple[list[Edge], list[Fraction]]:
    """One alignment's cost graph over (state, mode), each edge at its worst change
    (``horizon.py`` walks it to a given number of queries)."""
    edges, weights, _ = _cost_edges(graph, prover, value)
    return edges, weights


def _cost_edges(
    graph: Graph, prover: Prover, value: Any
) -> tuple[list[Edge], list[Fraction], list[tuple[Cost, Mode]]]:
    """The cost graph over (state, mode), each edge at its worst change, and what it costs."""
    edges: list[Edge] = []
    weights: list[Fraction] = []
    costs: list[tuple[Cost, Mode]] = []
    for m, move in enumerate(prover.moves):
        step = graph.steps[move.step]
        points = prover.points(move)
        prices = [number(prover.edge_cost(move, value, _val(dx), _val(dl))) for dx, dl in points]
        worst = max(range(len(points)), key=lambda k: prices[k])
        dx, dl = points[worst]
        to = None if step.target is None else (step.target, move.after)
        edges.append(((step.source, move.before), to, move.step, dx))
        weights.append(prices[worst])
        costs.append((("step", m, dx, dl), move.before))
    for s, mode in prover.pairs():
        ends = (-prover.unit, prover.unit) if mode[0] == "moved" else (Fraction(0),)
        prices = [number(prover.post_cost(s, mode, _val(p), value)) for p in ends]
        worst = max(range(len(ends)), key=lambda k: prices[k])
        edges.append(((s, mode), None, -1 - s, ends[worst]))
        weights.append(prices[worst])
        costs.append((("post", s, ends[worst], ends[worst]), mode))
    return edges, weights, costs


def _symbolic_cost(prover: Prover, cost: tuple[Cost, Mode], value: Any) -> Any:
    (kind, index, dx, dl), mode = cost
    if kind == "step":
        return prover.edge_cost(prover.moves[index], value, _val(dx), _val(dl))
    return prover.post_cost(index, mode, _val(dl), value)


def _cost_failure(
    graph: Graph, prover: Prover, value: Any, epsilon: Fraction, horizon: int | None = None
) -> Any | None:
    """A linear constraint on the holes that the candidate's cost breaks, or None."""
    edges, weights, costs = _cost_edges(graph, prover, value)
    top, walk = walks(edges, weights, (0, prover.first), horizon)

    def symbolic(e: int) -> Any:
        return _symbolic_cost(prover, costs[e], lambda h: h)

    if top is None:
        return both([symbolic(e) <= 0 for e in walk])
    pre = number(prover.pre_cost(value))
    if pre + top <= epsilon:
        return None
    return total([prover.pre_cost(lambda h: h), *(symbolic(e) for e in walk)]) <= _val(epsilon)


def _cost_checks(
    prover: Prover,
    value: Any,
    weights: list[Fraction],
    costs: list[tuple[Cost, Mode]],
    x: Any,
    y: Any,
) -> tuple[z3.BoolRef, ...] | None:
    """Per edge: some change in its range costs more than the weight the walk used — each
    must be unsatisfiable (the end-point argument, checked by the solvers instead of
    trusted, all at once as one disjunction); None if z3 satisfies one."""
    out = []
    unit = _val(prover.unit)
    delta = prover.delta
    for weight, cost in zip(weights, costs, strict=True):
        (kind, index, _, _), mode = cost
        if kind == "step":
            move = prover.moves[index]
            dx = {"free": y - x, "delta": delta, "zero": z3.RealVal(0)}[move.change]
            term = prover.edge_cost(move, value, dx, delta)
            bounds = prover.change_bounds(move, x, y)
        else:
            term = prover.post_cost(index, mode, delta, value)
            bounds = [delta <= unit, -delta <= unit]
        out.append(both([*bounds, term > _val(weight)]))
    solver = z3.Solver()
    solver.add(either(out))
    return tuple(out) if solver.check() == z3.unsat else None


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
    hides = dict(proof.hides)
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
        if d and site in hides and selector != "post":
            text += f", D = −(the change of {hides[site]}; a carried number's is its distance)"
        lines.append(f"  {names.get(site, site)} {kinds[site].describe()}, {where}: shift {text}")
    for name, distance in proof.distances:
        lines.append(f"  loop-carried {name}: aligned value = value + {distance}")
    for name, c, e in proof.moved:
        lines.append(
            f"  loop-carried {name} while it holds the moved query: aligned value = value + "
            + _affine(c, e, "δ")
        )
    if proof.modes:
        lines.append(
            f"  one-query neighbours: {proof.modes} (state, mode) pairs, a mode being still "
            "(the moved query not read yet) or moved with the numbers holding it"
        )
    if proof.guards:
        shown = "; ".join(guard_text(site) for site in proof.guards)
        lines.append(
            f"  counter branches ({shown}) read only the loop counter and constants: either "
            "outcome is taken in every iteration (a nondeterministic choice), so the proof "
            "covers every value of the constants"
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
        + (
            f", each of the {len(proof.costs)} edge costs checked by the solvers"
            if proof.costs
            else ""
        )
    )
    return lines


def guard_text(site: str) -> str:
    """``line 17 `(i + 1) % M == 0` `` from a counter branch's site."""
    path, _, line = site.rpartition(":")
    text = linecache.getline(path, int(line)).strip().removeprefix("if ").removesuffix(":")
    return f"line {line} `{text}`" if text else f"line {line}"


def _affine(c: Fraction, d: Fraction, symbol: str) -> str:
    """``c + d·symbol`` as a reader writes it: ``1``, ``δ``, ``−δ``, ``1 + D``, ``2·D``."""
    term = "" if d == 0 else (symbol if d == 1 else "−" + symbol if d == -1 else f"{d}·{symbol}")
    if not term:
        return str(c)
    if not c:
        return term
    return f"{c} − {term[1:]}" if term.startswith("−") else f"{c} + {term}"
