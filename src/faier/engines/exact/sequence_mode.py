"""Sequence mode: observation sequences of HMMs and interactive mechanisms.

Both are reduced to a :class:`SequenceSystem`: for every step symbol a
sparse matrix per side, so that the forward vectors of a prefix are
``a = a0·L[s1]···L[sk]`` and ``b = b0·R[s1]···R[sk]`` and the prefix has
probability sum(a) under π and sum(b) under τ.  For an HMM both sides share
M_ω = diag(o(·, ω))·P.  For an interactive mechanism a symbol is an answer
pair (x, x') with an observation, and the two sides read x and x'.

This is the simple, exhaustive engine: depth-first over all symbol
sequences up to the horizon, skipping prefixes impossible under π.
ε*(k) is the largest loss over sequences of length ≤ k; because the rows of
Σ_ω M_ω are stochastic, a prefix never has a larger loss than its best
extension, so this equals the maximum over complete runs of length k.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from faier.core.budget import Budget
from faier.errors import SpecError
from faier.mechanisms.interactive import Interactive
from faier.model.hmm import HMM, entries
from faier.model.values import show_input
from faier.privacy.specs import Comparison
from faier.results import Loss, Witness, loss_of

Rows = tuple[tuple[tuple[int, Fraction], ...], ...]
SparseVector = dict[int, Fraction]


@dataclass(frozen=True)
class StepSymbol:
    """One step of a transcript: the observation, and the answer pair if interactive."""

    observation: str
    answers: tuple[Hashable, Hashable] | None = None


@dataclass(frozen=True)
class SequenceSystem:
    """Per-symbol transition matrices for the π side (left) and τ side (right)."""

    size: int
    symbols: tuple[StepSymbol, ...]
    left: tuple[Rows, ...]
    right: tuple[Rows, ...]
    halted: int | None = None
    state_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class SequenceComparison:
    """Initial vectors of both sides, with the names shown in a witness."""

    a0: SparseVector
    b0: SparseVector
    comparison: Comparison[Hashable]


def hmm_system(hmm: HMM) -> SequenceSystem:
    """M_ω[s][t] = o(s, ω)·p(s, t) for each observation ω."""
    if hmm.is_parametric:
        raise SpecError(
            "the model still has unknown parameters",
            fix="fix them with --set NAME=VALUE (the SMT engine handles unknown parameters)",
        )
    n = len(hmm.states)
    moves = [list(entries(hmm.transition[s])) for s in range(n)]
    matrices: list[Rows] = []
    for w in range(len(hmm.observations)):
        rows = []
        for s in range(n):
            o = hmm.emission[s][w]
            rows.append(tuple((t, o * p) for t, p in moves[s]) if o else ())
        matrices.append(tuple(rows))
    symbols = tuple(StepSymbol(name) for name in hmm.observations)
    return SequenceSystem(n, symbols, tuple(matrices), tuple(matrices), None, hmm.states)


def hmm_comparisons(
    hmm: HMM, comparisons: Sequence[Comparison[Hashable]]
) -> list[SequenceComparison]:
    """Initial distributions over state names as sparse vectors."""
    out = []
    for comparison in comparisons:
        vectors = []
        for dist in (comparison.left, comparison.right):
            vectors.append({hmm.state_index(str(s)): p for s, p in dist})
        out.append(SequenceComparison(vectors[0], vectors[1], comparison))
    return out


def interactive_system(
    mechanism: Interactive, *, delta: int = 1, max_states: int | None = None
) -> tuple[SequenceSystem, dict[str, int]]:
    """Answer-pair symbols over the explored automaton; also the start state indices."""
    automaton = mechanism.automaton(max_states=max_states)
    n = len(automaton.states)
    letter_index = {x: i for i, x in enumerate(automaton.letters)}
    symbols: list[StepSymbol] = []
    left: list[Rows] = []
    right: list[Rows] = []

    matrices: dict[tuple[int, int], Rows] = {}

    def rows_for(letter: int, obs: int) -> Rows:
        if (letter, obs) not in matrices:
            matrices[(letter, obs)] = tuple(
                tuple((t, p) for o, t, p in automaton.moves[s][letter] if o == obs)
                for s in range(n)
            )
        return matrices[(letter, obs)]

    for x, y in mechanism.letter_pairs(delta):
        for obs in range(1, len(automaton.observations)):
            symbols.append(StepSymbol(automaton.observations[obs], (x, y)))
            left.append(rows_for(letter_index[x], obs))
            right.append(rows_for(letter_index[y], obs))
    end_rows = rows_for(0, 0)
    symbols.append(StepSymbol(automaton.observations[0]))
    left.append(end_rows)
    right.append(end_rows)
    names = tuple(repr(state) for state in automaton.states)
    system = SequenceSystem(n, tuple(symbols), tuple(left), tuple(right), automaton.halted, names)
    return system, dict(automaton.starts)


def halting_depth(system: SequenceSystem, starts: Iterable[int]) -> int | None:
    """The most steps any run takes from a start to the halted state, when every run halts:
    the explored automaton, its halted state left out, has no cycle reachable from a start.
    None when some run can go on forever (or nothing halts).  A search to this horizon
    covers every complete transcript, so its ε* needs no ``--horizon``."""
    halted, firsts = system.halted, list(starts)
    if halted is None:
        return None
    following: list[set[int]] = [set() for _ in range(system.size)]
    for rows in (*system.left, *system.right):
        for s, row in enumerate(rows):
            if s != halted:
                following[s].update(t for t, p in row if p > 0)
    depth: dict[int, int] = {halted: 0}
    on_path: set[int] = set()
    for start in firsts:
        if start in depth:
            continue
        stack: list[tuple[int, list[int]]] = [(start, sorted(following[start]))]
        on_path.add(start)
        while stack:
            state, pending = stack[-1]
            if pending:
                nxt = pending.pop()
                if nxt in on_path:
                    return None  # a cycle: some run may never halt
                if nxt not in depth:
                    on_path.add(nxt)
                    stack.append((nxt, sorted(following[nxt])))
                continue
            if not following[state]:
                return None  # a state that neither moves nor halts
            depth[state] = 1 + max(depth[t] for t in following[state])
            stack.pop()
            on_path.discard(state)
    longest = max((depth[s] for s in firsts), default=0)
    return longest if longest > 0 else None


IntegerRows = tuple[tuple[tuple[int, int], ...], ...]

_INTEGER_FROM = 8
"""Vectors with at least this many entries are multiplied in integers over one denominator."""

_DENSE_FROM = 32
"""Matrices with at least this many states, at least a quarter of them non-zero, are
multiplied by FLINT (python-flint's fmpz_mat) when it is installed."""


@dataclass(frozen=True)
class IntegerMatrix:
    """A matrix as ``scale[s]·rows[s][t] / den``: small numerators, one common denominator.

    Row s of an HMM's M_ω has its own denominator d_s (emission times
    transition row); ``den`` is their lcm and ``scale[s] = den / d_s``.  Keeping
    the scale out of the numerators keeps them a few bits long, so a product
    with a vector of thousands of bits costs small-by-big multiplications
    (scaling into the numerators made them as long as ``den``, hundreds of
    bits on dense HMMs, and the product ten times slower).
    """

    den: int
    scale: tuple[int, ...]
    rows: IntegerRows
    row_sums: tuple[int, ...]
    dense: Any = None


_integer_rows_cache: dict[int, tuple[Rows, IntegerMatrix]] = {}


def _integer_rows(rows: Rows) -> IntegerMatrix:
    """The integer form of a matrix, computed once per matrix."""
    hit = _integer_rows_cache.get(id(rows))
    if hit is not None and hit[0] is rows:
        return hit[1]
    row_dens = [math.lcm(*(p.denominator for _, p in row)) for row in rows]
    den = math.lcm(*row_dens)
    ints = tuple(
        tuple((t, p.numerator * (d // p.denominator)) for t, p in row)
        for row, d in zip(rows, row_dens, strict=True)
    )
    n = len(rows)
    dense = None
    if n >= _DENSE_FROM and 4 * sum(len(row) for row in ints) >= n * n:
        flint = _flint()
        if flint is not None:
            table = [[0] * n for _ in range(n)]
            for s, row in enumerate(ints):
                for t, p in row:
                    table[s][t] += p
            dense = flint.fmpz_mat(table)
    matrix = IntegerMatrix(
        den,
        tuple(den // d for d in row_dens),
        ints,
        tuple(sum(p for _, p in row) for row in ints),
        dense,
    )
    if len(_integer_rows_cache) > 4096:
        _integer_rows_cache.clear()
    _integer_rows_cache[id(rows)] = (rows, matrix)
    return matrix


@cache
def _flint() -> Any:
    """python-flint, or None: FLINT's multimodular products are faster, never needed."""
    try:
        import flint
    except ImportError:
        return None
    return flint


def _times(vector: SparseVector, rows: Rows) -> SparseVector:
    """vector·rows, exactly.

    A long vector is brought to one common denominator and multiplied in
    Python integers, then each entry reduced once: Fraction arithmetic would
    reduce (a gcd of numbers of thousands of digits) at every one of the n²
    additions, which dominated dense HMMs (150 states: 17.5 of 18.3 s).
    """
    if len(vector) < _INTEGER_FROM:
        out: SparseVector = {}
        for s, x in vector.items():
            for t, p in rows[s]:
                out[t] = out.get(t, Fraction(0)) + x * p
        return out
    matrix = _integer_rows(rows)
    common = math.lcm(*(x.denominator for x in vector.values()))
    total = common * matrix.den
    scale = matrix.scale
    if matrix.dense is not None:
        scaled = [0] * len(rows)
        for s, x in vector.items():
            scaled[s] = x.numerator * (common // x.denominator) * scale[s]
        product = _flint().fmpz_mat([scaled]) * matrix.dense
        entries = ((t, int(product[0, t])) for t in range(len(rows)))
        return {t: Fraction(v, total) for t, v in entries if v}  # entries are ≥ 0: 0 unreached
    sums: dict[int, int] = {}
    for s, x in vector.items():
        scaled_x = x.numerator * (common // x.denominator) * scale[s]
        for t, weight in matrix.rows[s]:
            sums[t] = sums.get(t, 0) + scaled_x * weight
    return {t: Fraction(v, total) for t, v in sums.items()}


def _cached_times(
    cache: dict[int, tuple[SparseVector, Fraction]], vector: SparseVector, rows: Rows, side: int
) -> tuple[SparseVector, Fraction]:
    """vector·rows and its mass; symbols sharing a matrix (same answer) share the product."""
    key = 2 * id(rows) + side
    hit = cache.get(key)
    if hit is None:
        product = _times(vector, rows)
        hit = (product, sum(product.values(), Fraction(0)))
        cache[key] = hit
    return hit


@dataclass
class DepthRecord:
    """Largest loss found among prefixes of one length."""

    loss: Loss
    p: Fraction
    q: Fraction
    comparison: int
    path: tuple[int, ...]


@dataclass
class SearchState:
    """Best loss per depth (and, for δ, every complete run), filled during search."""

    horizon: int
    best: list[DepthRecord | None]
    leaves: dict[int, dict[tuple[int, ...], tuple[Fraction, Fraction]]] = field(
        default_factory=dict
    )


def search(
    system: SequenceSystem,
    comparisons: Sequence[SequenceComparison],
    horizon: int,
    budget: Budget,
    state: SearchState,
    *,
    collect_leaves: bool = False,
) -> None:
    """Exhaustive depth-first search; fills ``state`` as it goes (usable after a timeout)."""
    halted = system.halted
    for index, comparison in enumerate(comparisons):
        leaves: dict[tuple[int, ...], tuple[Fraction, Fraction]] = {}
        if collect_leaves:
            state.leaves[index] = leaves
        stack: list[tuple[tuple[int, ...], SparseVector, SparseVector]] = [
            ((), comparison.a0, comparison.b0)
        ]
        while stack:
            path, a, b = stack.pop()
            budget.spend()
            depth = len(path) + 1
            products: dict[int, tuple[SparseVector, Fraction]] = {}
            for sym in range(len(system.symbols)):
                a2, pa = _cached_times(products, a, system.left[sym], 0)
                if pa == 0:
                    continue
                b2, pb = _cached_times(products, b, system.right[sym], 1)
                loss = loss_of(pa, pb)
                record = state.best[depth]
                new_path = (*path, sym)
                if record is None or loss.exceeds(record.loss):
                    state.best[depth] = DepthRecord(loss, pa, pb, index, new_path)
                finished = halted is not None and set(a2) <= {halted} and set(b2) <= {halted}
                if depth < horizon and not finished:
                    stack.append((new_path, a2, b2))
                elif collect_leaves:
                    leaves[new_path] = (pa, pb)


def cumulative(state: SearchState) -> list[DepthRecord | None]:
    """ε*(k) records: the best over all prefix lengths ≤ k, for k = 1..horizon."""
    out: list[DepthRecord | None] = []
    running: DepthRecord | None = None
    for k in range(1, state.horizon + 1):
        record = state.best[k]
        if record is not None and (running is None or record.loss.exceeds(running.loss)):
            running = record
        out.append(running)
    return out


def sequence_witness(
    system: SequenceSystem,
    comparison: SequenceComparison,
    path: Sequence[int],
    p: Fraction,
    q: Fraction,
) -> Witness:
    """A witness naming both sides, the answer streams (if any) and the observations."""
    symbols = [system.symbols[s] for s in path]
    outputs = tuple(s.observation for s in symbols)
    comp = comparison.comparison
    answered = [s.answers for s in symbols if s.answers is not None]
    if answered:
        left_answers = [x for x, _ in answered]
        right_answers = [y for _, y in answered]
        return Witness(
            left=f"{comp.left_name}, answers {_show_answers(left_answers)}",
            right=f"{comp.right_name}, answers {_show_answers(right_answers)}",
            output=outputs,
            p=p,
            q=q,
            kind="inputs",
            left_value=left_answers,
            right_value=right_answers,
        )
    return Witness(comp.left_name, comp.right_name, outputs, p, q, comp.kind)


@dataclass(frozen=True)
class _Written:
    """A witness and what its text was made of, for a witness one step longer."""

    comparison: int
    path: tuple[int, ...]
    witness: Witness
    inner: tuple[str, str]


def sequence_witnesses(
    system: SequenceSystem,
    comparisons: Sequence[SequenceComparison],
    records: Sequence[DepthRecord | None],
) -> list[Witness | None]:
    """:func:`sequence_witness` of each record, the same text.

    A record whose path extends the previous record's by one answered step
    extends its text and answer lists (copies in C) instead of writing them
    again: Above Threshold's witnesses of lengths 1..1000 took 0.16 s
    written one by one.
    """
    out: list[Witness | None] = []
    last: _Written | None = None
    for record in records:
        if record is None:
            out.append(None)
            continue
        path = tuple(record.path)
        step = system.symbols[path[-1]] if path else None
        if (
            last is not None
            and step is not None
            and step.answers is not None
            and record.comparison == last.comparison
            and len(path) == len(last.path) + 1
            and path[:-1] == last.path
        ):
            x, y = step.answers
            before = last.witness
            inner = (
                f"{last.inner[0]}, {show_input(x)}",
                f"{last.inner[1]}, {show_input(y)}",
            )
            comp = comparisons[record.comparison].comparison
            witness = Witness(
                left=f"{comp.left_name}, answers [{inner[0]}]",
                right=f"{comp.right_name}, answers [{inner[1]}]",
                output=(*before.output, step.observation),
                p=record.p,
                q=record.q,
                kind="inputs",
                left_value=[*before.left_value, x],
                right_value=[*before.right_value, y],
            )
        else:
            witness = sequence_witness(
                system, comparisons[record.comparison], path, record.p, record.q
            )
            if witness.left_value is None:
                out.append(witness)
                last = None
                continue
            inner = (
                ", ".join(show_input(v) for v in witness.left_value),
                ", ".join(show_input(v) for v in witness.right_value),
            )
        out.append(witness)
        last = _Written(record.comparison, path, witness, inner)
    return out


def _show_answers(answers: list[Hashable]) -> str:
    """``show_input`` of the answer tuple; plain answers joined at once (long transcripts:
    Above Threshold writes a witness of every length up to 1000)."""
    if tuple in set(map(type, answers)):
        return show_input(tuple(answers))
    return "[" + ", ".join(map(str, answers)) + "]"


def recompute(
    system: SequenceSystem, comparison: SequenceComparison, path: Sequence[int]
) -> tuple[Fraction, Fraction]:
    """Both probabilities of a transcript, recomputed from scratch (witness check)."""
    a, b = dict(comparison.a0), dict(comparison.b0)
    for sym in path:
        a, b = _times(a, system.left[sym]), _times(b, system.right[sym])
    return sum(a.values(), Fraction(0)), sum(b.values(), Fraction(0))
