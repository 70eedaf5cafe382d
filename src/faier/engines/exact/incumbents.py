"""Incumbents for the sequence search: good transcripts found before the exact pass.

Pruning only bites once a good loss is known at every length.  Two cheap
sources supply one:

* **StatDP's input patterns** (StatDP §4.4.1, Table 1; FAIER conference §7.2
  notes they find violations fast).  For an interactive mechanism whose answers are whole
  numbers, each pattern at the horizon's length, shifted to every place it
  fits among the answers and read in both orders, fixes the answer pair of
  every step; the observations stay free, so the run is a search over
  observation sequences alone and stays tiny.
* **A beam**: the most promising prefixes of every length, for systems the
  patterns do not apply to (HMMs, non-numeric answers).

Measured on the sparse-vector family and Above Threshold (benchmarks/
sequence_mode.py): both sources give the same incumbents there, and the
pattern runs, which extend by two or three symbols instead of all of them,
cost a third of the beam at horizon 100; running both only adds time.

Every transcript found is a real one, its loss exact, so an incumbent is a
sound lower bound on ε*(k).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Sized
from dataclasses import dataclass
from typing import TypeVar

from faier.engines.exact.sequence_mode import SequenceSystem
from faier.privacy.patterns import patterns

BEAM_WIDTH = 16


@dataclass(frozen=True)
class AnswerRun:
    """One pattern placed among the answers: the answer pair of every step."""

    name: str
    answers: tuple[tuple[int, int], ...]


def answer_runs(system: SequenceSystem, horizon: int, delta: int = 1) -> Iterator[AnswerRun]:
    """Every Table 1 pattern of length ``horizon`` placed at each shift, both orders."""
    letters = sorted(
        {
            x
            for symbol in system.symbols
            if symbol.answers is not None
            for x in symbol.answers
            if isinstance(x, int) and not isinstance(x, bool)
        }
    )
    if not letters or horizon < 1:
        return
    available = set(letters)
    seen: set[tuple[tuple[int, int], ...]] = set()
    for pattern in patterns(horizon, delta):
        for shift in range(letters[0], letters[-1] - 2 * delta + 1):
            left = tuple(x + shift for x in pattern.left)
            right = tuple(x + shift for x in pattern.right)
            if not set(left) | set(right) <= available:
                continue
            for name, pairs in (
                (pattern.name, tuple(zip(left, right, strict=True))),
                (f"{pattern.name} (swapped)", tuple(zip(right, left, strict=True))),
            ):
                if pairs not in seen:
                    seen.add(pairs)
                    yield AnswerRun(f"{name} at +{shift}", pairs)


def symbols_following(system: SequenceSystem, run: AnswerRun) -> Callable[[int], list[int]]:
    """The symbols a run allows at each depth: its answer pair, and the end of the run."""
    by_answers: dict[tuple[int, int], list[int]] = {}
    free: list[int] = []
    for index, symbol in enumerate(system.symbols):
        if symbol.answers is None:
            free.append(index)
        else:
            by_answers.setdefault(symbol.answers, []).append(index)  # type: ignore[arg-type]

    def allowed(depth: int) -> list[int]:
        return by_answers.get(run.answers[depth - 1], []) + free

    return allowed


@dataclass(frozen=True)
class Branch:
    """Where a run leaves an earlier one: the earlier run's index and the steps they share."""

    source: int
    depth: int


def shared_prefixes(runs: Sequence[AnswerRun]) -> list[Branch]:
    """Per run, the first earlier run sharing its longest prefix of answer pairs.

    Extending a frontier is deterministic and the records only keep a
    strictly better loss, so a run may start from the earlier run's frontier
    after the shared steps with the same records and witnesses (Above
    Threshold at horizon 1000: "all below", "x shape" and "half half" share
    500 steps, 2000 of the 16 runs' 16 000).  The first earlier run with the
    longest prefix started no later than that prefix, so its frontier there
    was met.
    """
    found = []
    for index, run in enumerate(runs):
        best = Branch(-1, 0)
        for earlier in range(index):
            shared = _common_length(run.answers, runs[earlier].answers)
            if shared > best.depth:
                best = Branch(earlier, shared)
        found.append(best)
    return found


def _common_length(left: Sequence[object], right: Sequence[object]) -> int:
    for length, (x, y) in enumerate(zip(left, right, strict=False)):
        if x != y:
            return length
    return min(len(left), len(right))


Frontier = TypeVar("Frontier", bound=Sized)


def seed_incumbents(
    system: SequenceSystem,
    horizon: int,
    start: Frontier,
    extend: Callable[[Frontier, int, Sequence[int]], Frontier],
    best_of: Callable[[Frontier, int], Frontier],
    *,
    beam: bool = True,
) -> int:
    """Fill the per-length records through ``extend``: pattern runs, else a beam.

    ``extend(frontier, depth, symbols)`` grows every prefix by the given
    symbols and records the losses met; ``best_of(frontier, n)`` keeps the n
    prefixes of largest loss.  Returns the number of pattern runs tried.
    ``beam=False`` leaves the beam to the caller (the float frontier runs its
    own, in floats).
    """
    runs = list(answer_runs(system, horizon))
    branches = shared_prefixes(runs)
    waiting: dict[int, list[int]] = {}
    for later, branch in enumerate(branches):
        if branch.source >= 0:
            waiting.setdefault(branch.source, []).append(later)
    saved: dict[int, Frontier] = {}
    for index, run in enumerate(runs):
        depth = branches[index].depth
        if branches[index].source >= 0 and index not in saved:
            continue  # the shared prefix already ended every transcript
        frontier = saved.pop(index, start)
        allowed = symbols_following(system, run)
        handing = {later: branches[later].depth for later in waiting.get(index, ())}
        while True:
            for later, at in handing.items():
                if at == depth:
                    saved[later] = frontier
            if depth == horizon or not len(frontier):
                break
            depth += 1
            frontier = extend(frontier, depth, allowed(depth))
    if runs or not beam:
        return len(runs)
    frontier = start
    everything = range(len(system.symbols))
    for depth in range(1, horizon + 1):
        frontier = best_of(extend(frontier, depth, everything), BEAM_WIDTH)
        if not len(frontier):
            break
    return 0
