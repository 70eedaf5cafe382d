"""Bottom-up satisfaction sets, three-valued: satisfied, violated, or undecided states.

On a Markov chain every state is decided (exact arithmetic throughout).  On
an MDP a D may stay undecided; a P or D above it is then undecided in every
state from which an undecided state can be reached, and decided elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from faier.errors import FaierError
from faier.logic._bounded import chain_probability
from faier.logic._closeness import Closeness, DiffBudget, closer_to_failing
from faier.logic._mdp import (
    NoQueryAlphabet,
    PairCheck,
    enumerate_words,
    every_scheduler_fails,
    proposition2,
    query_letters,
    tail_violation,
)
from faier.logic._mdp import recheck as mdp_recheck
from faier.logic._storm import Optimum, StormSystem
from faier.logic.models import LogicModel
from faier.logic.outcome import OperatorRow
from faier.logic.parser import make_room
from faier.logic.printer import format_formula
from faier.logic.syntax import (
    And,
    Atom,
    Const,
    Diff,
    Expression,
    Formula,
    Implies,
    Not,
    Or,
    Prob,
    Query,
    children,
    horizon,
    maximal_state_subformulas,
    walk,
)
from faier.model.chains import MDP, MarkovChain
from faier.results import Loss, Verdict


@dataclass(frozen=True)
class Truth:
    """Where a state formula holds, where it fails; the rest is undecided."""

    sat: frozenset[str]
    unsat: frozenset[str]

    def verdict(self, state: str) -> Verdict:
        if state in self.sat:
            return Verdict.HOLDS
        if state in self.unsat:
            return Verdict.VIOLATED
        return Verdict.UNKNOWN


@dataclass
class Operator:
    """What was computed for one P or D subformula, per state."""

    node: Prob | Diff
    truth: Truth
    rows: dict[str, OperatorRow] = field(default_factory=dict)


class Evaluator:
    """Evaluates a formula's subformulas on one model, remembering each P and D."""

    def __init__(
        self,
        model: LogicModel,
        word_limit: int,
        focus: tuple[str, ...] | None = None,
        root: Formula | None = None,
    ) -> None:
        """``focus`` and ``root``: only the focus states are needed for the P/D operators
        of ``root`` outside any path formula (an MDP's D then compares only their pairs)."""
        make_room()
        self.model = model
        self.system = model.system
        self.states = model.system.states
        self.word_limit = word_limit
        self.operators: dict[Formula, Operator] = {}
        self._truths: dict[Formula, Truth] = {}
        self._storm: StormSystem | None = None
        self._labels = model.label_sets()
        self._reach: dict[str, frozenset[str]] = {}
        self.focus = frozenset(focus) if focus is not None else None
        self.partial = _outer_operators(root) if root is not None else frozenset()

    @property
    def storm(self) -> StormSystem:
        if self._storm is None:
            self._storm = StormSystem(self.system)
        return self._storm

    # state formulas ---------------------------------------------------------------

    def truth(self, node: Formula) -> Truth:
        if node not in self._truths:
            self._truths[node] = self._truth(node)
        return self._truths[node]

    def _truth(self, node: Formula) -> Truth:
        everything = frozenset(self.states)
        if isinstance(node, Atom):
            sat = self._labels.get(node.name)
            if sat is None:
                valuations = self.model.valuations
                known = valuations is not None and valuations.is_boolean(node.name)
                sat = valuations.true_in(node.name) if valuations and known else frozenset()
            return Truth(sat, everything - sat)
        if isinstance(node, Expression):
            assert self.model.valuations is not None  # checked before evaluation
            sat = self.model.valuations.satisfying(node.left, node.op, node.right)
            return Truth(sat, everything - sat)
        if isinstance(node, Const):
            return Truth(everything, frozenset()) if node.value else Truth(frozenset(), everything)
        if isinstance(node, Not):
            inner = self.truth(node.operand)
            return Truth(inner.unsat, inner.sat)
        if isinstance(node, And):
            a, b = self.truth(node.left), self.truth(node.right)
            return Truth(a.sat & b.sat, a.unsat | b.unsat)
        if isinstance(node, Or):
            a, b = self.truth(node.left), self.truth(node.right)
            return Truth(a.sat | b.sat, a.unsat & b.unsat)
        if isinstance(node, Implies):
            a, b = self.truth(node.left), self.truth(node.right)
            return Truth(a.unsat | b.sat, a.sat & b.unsat)
        if isinstance(node, Prob):
            return self._prob(node)
        if isinstance(node, Diff):
            return self._diff(node)
        raise AssertionError(f"{node!r} is not a state formula")

    # path probabilities -------------------------------------------------------------

    def inputs(self, path: Formula) -> tuple[dict[Formula, frozenset[str]], frozenset[str]]:
        """The states of each maximal state subformula, and the states where any is undecided."""
        sat: dict[Formula, frozenset[str]] = {}
        undecided: set[str] = set()
        for sub in maximal_state_subformulas(path):
            truth = self.truth(sub)
            sat[sub] = truth.sat
            undecided |= set(self.states) - truth.sat - truth.unsat
        return sat, frozenset(undecided)

    def reach(self, state: str) -> frozenset[str]:
        """States reachable from ``state`` (under any action)."""
        if state not in self._reach:
            seen = {state}
            todo = [state]
            while todo:
                current = todo.pop()
                for row in self._rows(current):
                    for target in row:
                        if target not in seen:
                            seen.add(target)
                            todo.append(target)
            self._reach[state] = frozenset(seen)
        return self._reach[state]

    def _rows(self, state: str) -> list[Mapping[str, Fraction]]:
        if isinstance(self.system, MarkovChain):
            return [self.system.transitions[state]]
        return list(self.system.actions[state].values())

    def blocked(self, states: tuple[str, ...], undecided: frozenset[str]) -> bool:
        """True when an undecided subformula can matter for paths from these states."""
        return bool(undecided) and any(self.reach(s) & undecided for s in states)

    def values(
        self, path: Formula, optimum: Optimum = None, wanted: Iterable[str] | None = None
    ) -> dict[str, Fraction]:
        """Exact Pr(s, path) for every state, or for the ``wanted`` ones (min or max on an MDP)."""
        sat, _ = self.inputs(path)
        chosen: Optimum = None if isinstance(self.system, MarkovChain) else (optimum or "max")
        return self.storm.probabilities(path, sat, chosen, wanted)

    # P -------------------------------------------------------------------------------

    def _prob(self, node: Prob) -> Truth:
        test = node.test
        assert not isinstance(test, Query)
        _, undecided = self.inputs(node.path)
        chain = isinstance(self.system, MarkovChain)
        scope = self._scope(node)
        if chain:
            low = high = self.values(node.path, wanted=scope)
        else:
            low = self.values(node.path, "min", wanted=scope)
            high = self.values(node.path, "max", wanted=scope)
        rows: dict[str, OperatorRow] = {}
        for s in scope:
            if self.blocked((s,), undecided):
                verdict, reason = Verdict.UNKNOWN, "a nested D is undecided in a reachable state"
            else:
                ok = test.admits(low[s]) and test.admits(high[s])
                verdict, reason = (Verdict.HOLDS if ok else Verdict.VIOLATED), None
            rows[s] = OperatorRow(
                s,
                verdict,
                probability=low[s] if chain else None,
                bounds=None if chain else (low[s], high[s]),
                method="Storm, exact" if chain else "Storm, exact min/max over schedulers",
                reason=reason,
            )
        operator = _operator(node, rows)
        self.operators[node] = operator
        return operator.truth

    # D -------------------------------------------------------------------------------

    def _diff(self, node: Diff) -> Truth:
        budget = DiffBudget(node.epsilon, node.delta)
        if isinstance(self.system, MarkovChain):
            operator = self._diff_chain(node, budget)
        else:
            operator = self._diff_mdp(node, budget, self.system)
        self.operators[node] = operator
        return operator.truth

    def _scope(self, node: Prob | Diff) -> tuple[str, ...]:
        """The states whose row an operator needs: only the focus for an outermost one."""
        if node in self.partial and self.focus is not None:
            return tuple(s for s in self.states if s in self.focus)
        return self.states

    def _diff_chain(self, node: Diff, budget: DiffBudget) -> Operator:
        relation = self.model.neighbours
        scope = self._scope(node)
        wanted = set(scope).union(*(relation.neighbours(s) for s in scope))
        values = self.values(node.path, wanted=wanted)
        rows: dict[str, OperatorRow] = {}
        for s in scope:
            best: Closeness | None = None
            tightest = Loss(Fraction(1))
            for t in relation.neighbours(s):
                for left, right in ((s, t), (t, s)):
                    p, q = values[left], values[right]
                    sign = budget.excess(p, q)
                    candidate = Closeness(
                        left, right, p, q, sign <= 0, budget.margin(p, q), budget.margin_value(p, q)
                    )
                    if closer_to_failing(candidate, best):
                        best = candidate
                    ratio = budget.least_ratio(p, q)
                    if ratio.exceeds(tightest):
                        tightest = ratio
            verdict = Verdict.HOLDS if best is None or best.holds else Verdict.VIOLATED
            rows[s] = OperatorRow(
                s,
                verdict,
                probability=values[s],
                closest=best,
                tightest=tightest,
                method="Storm, exact",
            )
        return _operator(node, rows)

    def _diff_mdp(self, node: Diff, budget: DiffBudget, mdp: MDP) -> Operator:
        letters: tuple[str, ...] | None
        try:
            letters, no_words = query_letters(mdp), ""
        except NoQueryAlphabet as exc:
            letters, no_words = None, f"no action words ({exc.message}); "
        sat, undecided = self.inputs(node.path)
        relation = self.model.neighbours
        scope = self._scope(node)
        pairs = [p for p in relation.unordered() if p[0] in scope or p[1] in scope]
        checks: dict[tuple[str, str], PairCheck] = {}
        clean = [p for p in pairs if not self.blocked(p, undecided)]
        exhausted = False
        if horizon(node.path) is not None and letters is not None:
            checks.update(
                enumerate_words(mdp, letters, node.path, sat, budget, clean, self.word_limit)
            )
            exhausted = len(checks) < len(clean)
        remaining = [p for p in clean if p not in checks]
        if remaining:
            high, low = self.values(node.path, "max"), self.values(node.path, "min")
            for s, t in remaining:
                ok, closest = proposition2(budget, high, low, s, t)
                if ok:
                    checks[(s, t)] = PairCheck(True, closest, None, "Proposition 2")
                    continue
                everywhere = every_scheduler_fails(budget, high, low, s, t)
                if everywhere is not None:
                    checks[(s, t)] = PairCheck(False, everywhere, None, "every scheduler")
                    continue
                witness = (
                    None
                    if letters is None
                    else tail_violation(mdp, letters, node.path, sat, budget, s, t)
                )
                if witness is not None:
                    checks[(s, t)] = PairCheck(False, witness, None, "action word, repeated letter")
                    continue
                why = (
                    f"action-word budget of {self.word_limit} search nodes exceeded; "
                    if exhausted
                    else ""
                )
                checks[(s, t)] = PairCheck(
                    None,
                    closest,
                    None,
                    "Proposition 2",
                    no_words + why + "sufficient condition failed (Proposition 2): "
                    f"max Pr({closest.left}) = {closest.p}, min Pr({closest.right}) = {closest.q}",
                )
        rows: dict[str, OperatorRow] = {}
        for s in scope:
            mine = [checks.get(pair) for pair in pairs if s in pair]
            rows[s] = _mdp_row(s, mine)
        return _operator(node, rows)


def _outer_operators(root: Formula) -> frozenset[Formula]:
    """P/D nodes outside every path formula, and not also inside one."""
    outer: set[Formula] = set()
    inner: set[Formula] = set()

    def visit(node: Formula, nested: bool) -> None:
        if isinstance(node, Prob | Diff):
            (inner if nested else outer).add(node)
            for sub in walk(node.path):
                if isinstance(sub[1], Prob | Diff):
                    inner.add(sub[1])
            return
        for child in children(node):
            visit(child, nested)

    visit(root, False)
    return frozenset(outer - inner)


def _mdp_row(state: str, checks: list[PairCheck | None]) -> OperatorRow:
    if not checks:
        return OperatorRow(state, Verdict.HOLDS, method="no neighbours")
    if any(c is None for c in checks):
        return OperatorRow(
            state,
            Verdict.UNKNOWN,
            method="not checked",
            reason="a nested D is undecided in a reachable state",
        )
    decided = [c for c in checks if c is not None]
    failing = [c for c in decided if c.holds is False]
    if failing:
        pick = failing[0]
        return OperatorRow(state, Verdict.VIOLATED, closest=pick.closest, method=pick.method)
    unknown = [c for c in decided if c.holds is None]
    if unknown:
        pick = unknown[0]
        return OperatorRow(
            state, Verdict.UNKNOWN, closest=pick.closest, method=pick.method, reason=pick.reason
        )
    closest = min(
        (c.closest for c in decided if c.closest is not None),
        key=lambda c: c.margin_value,
        default=None,
    )
    tightest: Loss | None = Loss(Fraction(1))
    methods = sorted({c.method.split(" (")[0] for c in decided})
    for c in decided:
        if c.tightest is None:
            tightest = None
            break
        if tightest is not None and c.tightest.exceeds(tightest):
            tightest = c.tightest
    return OperatorRow(
        state,
        Verdict.HOLDS,
        closest=closest,
        tightest=tightest,
        method=" + ".join(methods) if len(decided) > 1 else decided[0].method,
    )


def _operator(node: Prob | Diff, rows: dict[str, OperatorRow]) -> Operator:
    sat = frozenset(s for s, r in rows.items() if r.verdict is Verdict.HOLDS)
    unsat = frozenset(s for s, r in rows.items() if r.verdict is Verdict.VIOLATED)
    return Operator(node, Truth(sat, unsat), rows)


def recheck(evaluator: Evaluator, node: Diff, witness: Closeness) -> None:
    """Recompute a witness's two probabilities by a second route; disagreement fails loudly.

    Chains: progression for bounded formulas (unbounded ones keep Storm's exact
    values).  MDPs: Storm on the chain the action word induces, and progression
    for finite words.
    """
    sat, _ = evaluator.inputs(node.path)
    system = evaluator.system
    if isinstance(system, MDP):
        mdp_recheck(system, node.path, sat, witness)
        return
    if horizon(node.path) is None:
        return
    p = chain_probability(system, node.path, sat, witness.left)
    q = chain_probability(system, node.path, sat, witness.right)
    if (p, q) != (witness.p, witness.q):
        raise FaierError(
            f"internal disagreement on {format_formula(node)}: Storm gives "
            f"({witness.p}, {witness.q}), direct computation ({p}, {q}); please report this"
        )
