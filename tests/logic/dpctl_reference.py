"""Brute-force dpCTL* semantics, written independently of faier.logic's engines.

Bounded path formulas: every finite path of the formula's horizon is listed
with its exact probability and the LTL semantics is applied to it directly.
Unbounded ``a U b`` over state formulas: the textbook linear system, solved
by Gaussian elimination over Fractions.  Only the syntax tree is shared with
faier (it is plain data).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction

from faier.logic.syntax import (
    And,
    Atom,
    Const,
    Finally,
    Formula,
    Globally,
    Implies,
    Next,
    Not,
    Or,
    Until,
)

Rows = Mapping[str, Mapping[str, Fraction]]
Labels = Mapping[str, frozenset[str]]


def state_holds(node: Formula, state: str, labels: Labels) -> bool:
    """A boolean combination of labels, in one state."""
    if isinstance(node, Atom):
        return node.name in labels.get(state, frozenset())
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Not):
        return not state_holds(node.operand, state, labels)
    if isinstance(node, And):
        return state_holds(node.left, state, labels) and state_holds(node.right, state, labels)
    if isinstance(node, Or):
        return state_holds(node.left, state, labels) or state_holds(node.right, state, labels)
    if isinstance(node, Implies):
        return not state_holds(node.left, state, labels) or state_holds(node.right, state, labels)
    raise TypeError(f"not a label formula: {node!r}")


def depth(node: Formula) -> int:
    """Steps a bounded path formula looks ahead."""
    if isinstance(node, Atom | Const):
        return 0
    if isinstance(node, Next):
        return 1 + depth(node.operand)
    if isinstance(node, Until):
        assert node.bound is not None
        return node.bound + max(depth(node.left), depth(node.right))
    if isinstance(node, Finally | Globally):
        assert node.bound is not None
        return node.bound + depth(node.operand)
    if isinstance(node, Not):
        return depth(node.operand)
    assert isinstance(node, And | Or | Implies)
    return max(depth(node.left), depth(node.right))


def on_path(node: Formula, path: Sequence[str], i: int, labels: Labels) -> bool:
    """LTL semantics at position i of a finite path long enough for the formula."""
    if isinstance(node, Atom | Const):
        return state_holds(node, path[i], labels)
    if isinstance(node, Not):
        return not on_path(node.operand, path, i, labels)
    if isinstance(node, And):
        return on_path(node.left, path, i, labels) and on_path(node.right, path, i, labels)
    if isinstance(node, Or):
        return on_path(node.left, path, i, labels) or on_path(node.right, path, i, labels)
    if isinstance(node, Implies):
        return not on_path(node.left, path, i, labels) or on_path(node.right, path, i, labels)
    if isinstance(node, Next):
        return on_path(node.operand, path, i + 1, labels)
    if isinstance(node, Finally):
        assert node.bound is not None
        return any(on_path(node.operand, path, j, labels) for j in range(i, i + node.bound + 1))
    if isinstance(node, Globally):
        assert node.bound is not None
        return all(on_path(node.operand, path, j, labels) for j in range(i, i + node.bound + 1))
    assert isinstance(node, Until) and node.bound is not None
    for j in range(i, i + node.bound + 1):
        if on_path(node.right, path, j, labels):
            return True
        if not on_path(node.left, path, j, labels):
            return False
    return False


def paths(rows_at: object, start: str, length: int) -> list[tuple[tuple[str, ...], Fraction]]:
    """Every path of ``length`` steps from ``start``; ``rows_at(step, state)`` gives the row."""
    out = [((start,), Fraction(1))]
    for step in range(length):
        out = [
            ((*path, target), mass * p)
            for path, mass in out
            for target, p in rows_at(step, path[-1]).items()  # type: ignore[operator]
            if p
        ]
    return out


def bounded_probability(rows: Rows, labels: Labels, node: Formula, start: str) -> Fraction:
    """Pr(start, node) on a chain, by listing every path of the formula's horizon."""
    h = depth(node)
    return sum(
        (m for path, m in paths(lambda _, s: rows[s], start, h) if on_path(node, path, 0, labels)),
        Fraction(0),
    )


def word_probability(
    actions: Mapping[str, Mapping[str, Mapping[str, Fraction]]],
    labels: Labels,
    node: Formula,
    start: str,
    word: Sequence[str],
) -> Fraction:
    """Pr(start, node) on an MDP when step i takes action word[i] (single-action states ignore it)."""

    def row(step: int, state: str) -> Mapping[str, Fraction]:
        offered = actions[state]
        return offered[word[step]] if len(offered) > 1 else next(iter(offered.values()))

    h = depth(node)
    return sum(
        (m for path, m in paths(row, start, h) if on_path(node, path, 0, labels)), Fraction(0)
    )


def words(letters: Sequence[str], length: int) -> list[tuple[str, ...]]:
    return list(itertools.product(letters, repeat=length))


def until_probability(
    rows: Rows, labels: Labels, left: Formula, right: Formula
) -> dict[str, Fraction]:
    """Pr(s, left U right) for every s: graph precomputation, then an exact linear solve."""
    states = list(rows)
    yes = {s for s in states if state_holds(right, s, labels)}
    can = set(yes)
    changed = True
    while changed:
        changed = False
        for s in states:
            reaches = any(t in can for t, p in rows[s].items() if p)
            if s not in can and state_holds(left, s, labels) and reaches:
                can.add(s)
                changed = True
    unknown = [s for s in states if s in can and s not in yes]
    index = {s: i for i, s in enumerate(unknown)}
    n = len(unknown)
    matrix = [[Fraction(0)] * (n + 1) for _ in range(n)]
    for s in unknown:
        i = index[s]
        matrix[i][i] += 1
        for t, p in rows[s].items():
            if t in index:
                matrix[i][index[t]] -= p
            elif t in yes:
                matrix[i][n] += p
    for col in range(n):
        pivot = next(r for r in range(col, n) if matrix[r][col] != 0)
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        for r in range(n):
            if r != col and matrix[r][col] != 0:
                factor = matrix[r][col] / matrix[col][col]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[col], strict=True)]
    out = {s: Fraction(int(s in yes)) for s in states}
    for s in unknown:
        i = index[s]
        out[s] = matrix[i][n] / matrix[i][i]
    return out


def close(p: Fraction, q: Fraction, ratio: Fraction, delta: Fraction) -> bool:
    """p ≤ ratio·q + δ."""
    return p <= ratio * q + delta
