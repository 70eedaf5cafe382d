"""Exact path probabilities of bounded path formulas, computed without Storm.

A bounded path formula (X, U<=k, F<=k, G<=k over state formulas) is decided
within its horizon.  *Progression* rewrites it, state by state, into what the
rest of the path still has to satisfy; the mass of (state, rest) pairs is
pushed forward exactly until every rest is true or false.  On an MDP the
step's transitions come from an action word (a query scheduler's prefix).
This is how MDP action words are enumerated, and how faier rechecks a
witness that Storm produced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from faier.logic.syntax import (
    And,
    Const,
    Finally,
    Formula,
    Globally,
    Implies,
    Next,
    Not,
    Or,
    Until,
    is_state_formula,
)
from faier.model.chains import MDP, MarkovChain

Rest = Formula | bool
Frontier = dict[tuple[str, Formula], Fraction]
Row = Mapping[str, Fraction]


def _not(value: Rest) -> Rest:
    """Negation; a negated state formula stays whole, since ``sat`` may know only it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, Not) and not is_state_formula(value):
        return value.operand
    return Not(value)


def _and(left: Rest, right: Rest) -> Rest:
    if left is False or right is False:
        return False
    if left is True:
        return right
    if right is True:
        return left
    return And(left, right)


def _or(left: Rest, right: Rest) -> Rest:
    if left is True or right is True:
        return True
    if left is False:
        return right
    if right is False:
        return left
    return Or(left, right)


@dataclass
class Progression:
    """Rewrites a path formula at a state into what the path's remainder must satisfy.

    ``sat`` holds the states of each maximal state subformula; boolean
    combinations of those are evaluated from them.
    """

    sat: Mapping[Formula, frozenset[str]]
    _memo: dict[tuple[Formula, str], Rest] = field(default_factory=dict)

    def holds(self, node: Formula, state: str) -> bool:
        if node in self.sat:
            return state in self.sat[node]
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Not):
            return not self.holds(node.operand, state)
        if isinstance(node, And):
            return self.holds(node.left, state) and self.holds(node.right, state)
        if isinstance(node, Or):
            return self.holds(node.left, state) or self.holds(node.right, state)
        if isinstance(node, Implies):
            return not self.holds(node.left, state) or self.holds(node.right, state)
        raise KeyError(f"no states given for {node!r}")

    def step(self, node: Formula, state: str) -> Rest:
        key = (node, state)
        if key not in self._memo:
            self._memo[key] = self._step(node, state)
        return self._memo[key]

    def _step(self, node: Formula, state: str) -> Rest:
        if is_state_formula(node):
            return self.holds(node, state)
        if isinstance(node, Not):
            return _not(self.step(node.operand, state))
        if isinstance(node, And):
            return _and(self.step(node.left, state), self.step(node.right, state))
        if isinstance(node, Or):
            return _or(self.step(node.left, state), self.step(node.right, state))
        if isinstance(node, Implies):
            return _or(_not(self.step(node.left, state)), self.step(node.right, state))
        if isinstance(node, Next):
            return node.operand
        if not isinstance(node, Until | Finally | Globally) or node.bound is None:
            raise ValueError(f"{node!r} is not a bounded path formula")
        later: Rest
        if isinstance(node, Until):
            later = Until(node.left, node.right, node.bound - 1) if node.bound else False
            return _or(self.step(node.right, state), _and(self.step(node.left, state), later))
        if isinstance(node, Finally):
            later = Finally(node.operand, node.bound - 1) if node.bound else False
            return _or(self.step(node.operand, state), later)
        later = Globally(node.operand, node.bound - 1) if node.bound else True
        return _and(self.step(node.operand, state), later)


def settle(progression: Progression, frontier: Frontier) -> tuple[Frontier, Fraction]:
    """Progress every (state, rest) once: the mass now decided true, and what is still open."""
    open_: Frontier = {}
    accepted = Fraction(0)
    for (state, rest), mass in frontier.items():
        after = progression.step(rest, state)
        if after is True:
            accepted += mass
        elif after is not False:
            key = (state, after)
            open_[key] = open_.get(key, Fraction(0)) + mass
    return open_, accepted


def advance(frontier: Frontier, row: Callable[[str], Row]) -> Frontier:
    """Move every open (state, rest) one step along ``row(state)``."""
    moved: Frontier = {}
    for (state, rest), mass in frontier.items():
        for target, p in row(state).items():
            key = (target, rest)
            moved[key] = moved.get(key, Fraction(0)) + mass * p
    return moved


def chain_probability(
    chain: MarkovChain, path: Formula, sat: Mapping[Formula, frozenset[str]], start: str
) -> Fraction:
    """Pr(start, path) for a bounded path formula on a Markov chain."""
    progression = Progression(sat)
    frontier: Frontier = {(start, path): Fraction(1)}
    total = Fraction(0)
    while frontier:
        frontier, accepted = settle(progression, frontier)
        total += accepted
        frontier = advance(frontier, lambda s: chain.transitions[s])
    return total


def word_row(mdp: MDP, letter: str | None) -> Callable[[str], Row]:
    """Transitions under one letter of an action word (a state with one action ignores it).

    ``None`` marks a step where the letter makes no difference: each state
    takes its first action.
    """

    def row(state: str) -> Row:
        offered = mdp.actions[state]
        if letter is not None and letter in offered:
            return offered[letter]
        if letter is None or len(offered) == 1:
            return next(iter(offered.values()))
        raise ValueError(f"state {state!r} does not offer {letter!r}")

    return row


def word_probability(
    mdp: MDP,
    path: Formula,
    sat: Mapping[Formula, frozenset[str]],
    start: str,
    word: tuple[str | None, ...],
) -> Fraction:
    """Pr(start, path) on an MDP under an action word (long enough for the formula)."""
    progression = Progression(sat)
    frontier: Frontier = {(start, path): Fraction(1)}
    total = Fraction(0)
    for letter in (*word, None):
        frontier, accepted = settle(progression, frontier)
        total += accepted
        if not frontier:
            return total
        frontier = advance(frontier, word_row(mdp, letter))
    raise ValueError("the word is shorter than the formula's horizon")
