"""D over an MDP: query schedulers, decided exactly where possible, soundly otherwise.

A query scheduler picks the i-th action from the history's length alone: it
is an action word.  A state with one action takes it whatever the word says
(a purely probabilistic step, dpCTL* §7.1's '-'); a state with a choice must
offer every letter of the MDP's query alphabet.

* bounded path formulas: every action word up to the horizon is enumerated
  (letters that act alike on the states still reachable are tried once), and
  both probabilities are computed exactly — an exact decision (dpCTL* §8.1);
* otherwise, dpCTL* Proposition 2 (§8.1): if max Pr(s) − e^ε·min Pr(t) ≤ δ in
  both directions, D holds; if not, words ending in one letter repeated
  forever are tried for an exact violation; failing both, the answer is
  unknown with the bounds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import FaierError, ModelError
from faier.logic._bounded import (
    Frontier,
    Progression,
    advance,
    settle,
    word_probability,
    word_row,
)
from faier.logic._closeness import Closeness, DiffBudget, closer_to_failing, scaled
from faier.logic._storm import StormSystem
from faier.logic.syntax import Formula
from faier.model.chains import MDP, MarkovChain
from faier.results import Loss

Word = tuple[str | None, ...]
TAIL_CANDIDATES = 64
"""How many (prefix, repeated letter) words are tried for a violation of an unbounded D."""


class WordsExhausted(Exception):
    """The action-word budget ran out before the enumeration finished."""


class NoQueryAlphabet(ModelError):
    """States with a choice offer different actions, so action words define no scheduler.

    Real models (interleaved modules, commands without action labels) are
    like this; D is then decided by Proposition 2 alone, which bounds every
    scheduler.
    """


def query_letters(mdp: MDP) -> tuple[str, ...]:
    """The query alphabet: the actions of states with a choice (each must offer all of them)."""
    letters: dict[str, None] = {}
    choosers = [s for s in mdp.states if len(mdp.actions[s]) > 1]
    for state in choosers:
        letters.update(dict.fromkeys(mdp.actions[state]))
    for state in choosers:
        missing = [a for a in letters if a not in mdp.actions[state]]
        if missing:
            raise NoQueryAlphabet(
                f"state {state!r} offers {_listed(mdp.actions[state])} but not "
                f"{_listed(missing)}: a query scheduler picks one action per step for all states",
                where="MDP",
                fix="offer every query action in every state that has a choice "
                "(or give a state exactly one action)",
            )
    return tuple(letters)


def _listed(names: Iterable[str], limit: int = 4) -> str:
    shown = list(names)
    more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
    return ", ".join(shown[:limit]) + more


@dataclass(frozen=True)
class PairCheck:
    """D's comparisons between two neighbours: the verdict, the closest comparison, how decided."""

    holds: bool | None
    closest: Closeness | None
    tightest: Loss | None
    method: str
    reason: str | None = None


def _comparisons(
    budget: DiffBudget, s: str, t: str, ps: Fraction, pt: Fraction
) -> Iterator[tuple[str, str, Fraction, Fraction, int]]:
    yield s, t, ps, pt, budget.excess(ps, pt)
    yield t, s, pt, ps, budget.excess(pt, ps)


@dataclass
class _Node:
    """A node of one start state's action-word tree: mass accepted so far, what is still open."""

    accepted: Fraction
    pending: Frontier
    children: dict[str, _Node] | None = None

    def __post_init__(self) -> None:
        self.open_mass = sum(self.pending.values(), Fraction(0))


class _Trees:
    """Action-word trees of every start state, explored lazily and shared between pairs.

    A node's children are keyed by letter; letters with the same effect on the
    node's open (state, rest) pairs share one child, so a start state that
    only reads part of a letter (one computation of Above Threshold reads m
    of m|n) branches only on that part.
    """

    def __init__(self, search: WordSearch) -> None:
        self.search = search
        self.roots: dict[str, _Node] = {}
        canonical: dict[frozenset[tuple[str, Fraction]], int] = {}
        self.row_ids = {
            (state, action): canonical.setdefault(frozenset(row.items()), len(canonical))
            for state in search.mdp.states
            for action, row in search.mdp.actions[state].items()
        }

    def root(self, state: str) -> _Node:
        if state not in self.roots:
            self.roots[state] = self._settled({(state, self.search.path): Fraction(1)}, Fraction(0))
        return self.roots[state]

    def _settled(self, frontier: Frontier, accepted: Fraction) -> _Node:
        self.search.tick()
        pending, gained = settle(self.search.progression, frontier)
        return _Node(accepted + gained, pending)

    def children(self, node: _Node) -> dict[str, _Node]:
        if node.children is None:
            mdp = self.search.mdp
            if not node.pending:
                node.children = {}
            elif all(len(mdp.actions[u]) == 1 for u, _ in node.pending):
                child = self._settled(advance(node.pending, word_row(mdp, None)), node.accepted)
                node.children = {"": child}
            else:
                choosers = sorted({u for u, _ in node.pending if len(mdp.actions[u]) > 1})
                by_rows: dict[tuple[int, ...], _Node] = {}
                by_effect: dict[tuple[object, ...], _Node] = {}
                node.children = {}
                for letter in self.search.letters:
                    rows = tuple(self.row_ids[(u, letter)] for u in choosers)
                    if rows not in by_rows:
                        child = self._settled(
                            advance(node.pending, word_row(mdp, letter)), node.accepted
                        )
                        key = (child.accepted, frozenset(child.pending.items()))
                        by_rows[rows] = by_effect.setdefault(key, child)
                    node.children[letter] = by_rows[rows]
                if len(by_effect) == 1:
                    node.children = {"": next(iter(by_effect.values()))}
        return node.children


@dataclass
class WordSearch:
    """Exact comparisons of neighbour pairs over every action word of a bounded path formula.

    ``limit`` caps the search nodes (tree nodes built plus pair nodes visited)
    over all pairs; past it, :class:`WordsExhausted` is raised.
    """

    mdp: MDP
    letters: tuple[str, ...]
    path: Formula
    sat: Mapping[Formula, frozenset[str]]
    budget: DiffBudget
    limit: int
    nodes: int = 0

    def __post_init__(self) -> None:
        self.progression = Progression(self.sat)
        self.trees = _Trees(self)

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.limit:
            raise WordsExhausted

    def pair(self, s: str, t: str) -> PairCheck:
        """Every action word for the pair (s, t), exactly: the comparison closest to failing.

        Branch and bound on max(Pr(s) − e^ε·Pr(t), Pr(t) − e^ε·Pr(s)): a subtree
        whose open mass cannot beat the worst comparison found is skipped.
        """
        best: Closeness | None = None
        worst: Fraction | float | None = None
        leaves = 0
        epsilon = self.budget.epsilon
        ratio = epsilon.exp_ratio
        slack = 0 if ratio is not None else _SLACK

        def gap(p: Fraction, q: Fraction) -> Fraction | float:
            return p - ratio * q if ratio is not None else float(p) - scaled(epsilon, q)

        def visit(a: _Node, b: _Node, word: Word) -> None:
            nonlocal best, worst, leaves
            self.tick()
            if not a.pending and not b.pending:
                leaves += 1
                for left, right, p, q, sign in _comparisons(
                    self.budget, s, t, a.accepted, b.accepted
                ):
                    candidate = Closeness(
                        left,
                        right,
                        p,
                        q,
                        sign <= 0,
                        self.budget.margin(p, q),
                        self.budget.margin_value(p, q),
                        "words",
                        word,
                    )
                    if closer_to_failing(candidate, best):
                        best = candidate
                    value = gap(p, q)
                    worst = value if worst is None else max(worst, value)
                return
            bound = max(
                gap(a.accepted + a.open_mass, b.accepted), gap(b.accepted + b.open_mass, a.accepted)
            )
            if worst is not None and bound < worst - slack:
                return
            kids_a, kids_b = self.trees.children(a), self.trees.children(b)
            seen: set[tuple[int, int]] = set()
            for letter in self.letters or ("",):
                child_a = kids_a.get(letter, kids_a.get("", a))
                child_b = kids_b.get(letter, kids_b.get("", b))
                key = (id(child_a), id(child_b))
                if key in seen:
                    continue
                seen.add(key)
                forced = letter not in kids_a and letter not in kids_b
                visit(child_a, child_b, (*word, None if forced else letter))

        visit(self.trees.root(s), self.trees.root(t), ())
        assert best is not None
        return PairCheck(best.holds, best, None, f"action words ({leaves} compared)")


_SLACK = 1e-9
"""Float slack for pruning: a skipped subtree can beat the worst comparison by less than this."""


def enumerate_words(
    mdp: MDP,
    letters: tuple[str, ...],
    path: Formula,
    sat: Mapping[Formula, frozenset[str]],
    budget: DiffBudget,
    pairs: list[tuple[str, str]],
    limit: int,
) -> dict[tuple[str, str], PairCheck]:
    """Exact checks, pair by pair, until done or ``limit`` search nodes are spent.

    The pairs checked before the budget ran out keep their exact answers.
    """
    search = WordSearch(mdp, letters, path, sat, budget, limit)
    done: dict[tuple[str, str], PairCheck] = {}
    for pair in pairs:
        try:
            done[pair] = search.pair(*pair)
        except WordsExhausted:
            break
    return done


def unfold(
    mdp: MDP,
    word: Word,
    repeat: str | None,
    starts: tuple[str, ...],
) -> MarkovChain:
    """The chain an action word induces: states ``s@i`` (step i), the last level repeating."""
    depth = len(word)

    def row(state: str, level: int) -> Mapping[str, Fraction]:
        return word_row(mdp, word[level] if level < depth else repeat)(state)

    states: list[str] = []
    transitions: dict[str, dict[str, Fraction]] = {}
    labels: dict[str, frozenset[str]] = {}
    todo = [(s, 0) for s in starts]
    seen = set(todo)
    while todo:
        state, level = todo.pop()
        name = f"{state}@{level}"
        states.append(name)
        labels[name] = mdp.label(state)
        nxt = min(level + 1, depth)
        transitions[name] = {}
        for target, p in row(state, level).items():
            transitions[name][f"{target}@{nxt}"] = p
            if (target, nxt) not in seen:
                seen.add((target, nxt))
                todo.append((target, nxt))
    return MarkovChain(tuple(states), transitions, labels)


def _lift(
    chain: MarkovChain, sat: Mapping[Formula, frozenset[str]]
) -> dict[Formula, frozenset[str]]:
    return {
        node: frozenset(s for s in chain.states if s.rpartition("@")[0] in members)
        for node, members in sat.items()
    }


def word_values(
    mdp: MDP,
    path: Formula,
    sat: Mapping[Formula, frozenset[str]],
    word: Word,
    repeat: str | None,
    starts: tuple[str, ...],
) -> dict[str, Fraction]:
    """Pr(s, path) under an action word, by Storm on the unfolded chain (exact)."""
    chain = unfold(mdp, word, repeat, starts)
    values = StormSystem(chain).probabilities(path, _lift(chain, sat))
    return {s: values[f"{s}@0"] for s in starts}


def recheck(
    mdp: MDP,
    path: Formula,
    sat: Mapping[Formula, frozenset[str]],
    witness: Closeness,
) -> None:
    """Recompute a witness word's two probabilities with Storm on the unfolded chain.

    A finite word (bounded formula) is also recomputed by progression; any
    disagreement is a bug and fails loudly.
    """
    if witness.method == "every scheduler":
        fresh = StormSystem(mdp)
        low = fresh.probabilities(path, sat, "min", (witness.left,))[witness.left]
        high = fresh.probabilities(path, sat, "max", (witness.right,))[witness.right]
        if (low, high) != (witness.p, witness.q):
            raise FaierError(
                f"internal disagreement on min/max: a fresh Storm model gives ({low}, {high}), "
                f"the check ({witness.p}, {witness.q}); please report this"
            )
        return
    assert witness.word is not None
    starts = (witness.left, witness.right)
    storm = word_values(mdp, path, sat, witness.word, witness.repeat, starts)
    direct = storm
    if witness.repeat is None:
        direct = {s: word_probability(mdp, path, sat, s, witness.word) for s in starts}
    if storm != direct or (storm[witness.left], storm[witness.right]) != (witness.p, witness.q):
        raise FaierError(
            f"internal disagreement on the word {witness.word}: Storm {storm}, "
            f"progression {direct}, search ({witness.p}, {witness.q}); please report this"
        )


def proposition2(
    budget: DiffBudget,
    high: Mapping[str, Fraction],
    low: Mapping[str, Fraction],
    s: str,
    t: str,
) -> tuple[bool, Closeness]:
    """dpCTL* Proposition 2 for one pair: sufficient, and the comparison closest to failing."""
    best: Closeness | None = None
    ok = True
    for left, right in ((s, t), (t, s)):
        p, q = high[left], low[right]
        sign = budget.excess(p, q)
        ok = ok and sign <= 0
        candidate = Closeness(
            left,
            right,
            p,
            q,
            sign <= 0,
            budget.margin(p, q),
            budget.margin_value(p, q),
            "proposition 2",
        )
        if closer_to_failing(candidate, best):
            best = candidate
    assert best is not None
    return ok, best


def every_scheduler_fails(
    budget: DiffBudget,
    high: Mapping[str, Fraction],
    low: Mapping[str, Fraction],
    s: str,
    t: str,
) -> Closeness | None:
    """Proposition 2's converse: min Pr(left) > e^ε·max Pr(right) + δ fails under every scheduler.

    Whatever schedulers D quantifies over (query schedulers, or any where a
    model has no query alphabet), each gives Pr(left) ≥ min and Pr(right) ≤
    max, so this one exact comparison of Storm's exact extremes is a witness.
    """
    for left, right in ((s, t), (t, s)):
        p, q = low[left], high[right]
        if budget.excess(p, q) > 0:
            return Closeness(
                left,
                right,
                p,
                q,
                False,
                budget.margin(p, q),
                budget.margin_value(p, q),
                "every scheduler",
            )
    return None


def _tail_words(letters: tuple[str, ...]) -> Iterator[tuple[Word, str]]:
    tried = 0
    for length in itertools.count():
        for prefix in itertools.product(letters, repeat=length):
            for repeat in letters:
                if tried >= TAIL_CANDIDATES:
                    return
                tried += 1
                yield prefix, repeat


def tail_violation(
    mdp: MDP,
    letters: tuple[str, ...],
    path: Formula,
    sat: Mapping[Formula, frozenset[str]],
    budget: DiffBudget,
    s: str,
    t: str,
) -> Closeness | None:
    """An exact violation under a word 'prefix, then one letter forever', if a short one exists."""
    if not letters:
        return None
    for prefix, repeat in _tail_words(letters):
        values = word_values(mdp, path, sat, prefix, repeat, (s, t))
        for left, right, p, q, sign in _comparisons(budget, s, t, values[s], values[t]):
            if sign > 0:
                return Closeness(
                    left,
                    right,
                    p,
                    q,
                    False,
                    budget.margin(p, q),
                    budget.margin_value(p, q),
                    "tail words",
                    prefix,
                    repeat,
                )
    return None
