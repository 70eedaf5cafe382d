"""Structured HMMs for the sequence-mode benchmarks, beside the dense random ones.

Each builder returns ``(SequenceSystem, comparisons)`` exactly like
``sequence_mode.random_hmm_system``: the system built by
``faier.engines.exact.sequence_mode.hmm_system`` from a
:class:`faier.model.hmm.HMM` with exact Fractions, and the prior pairs to
compare.  Transitions are sparse (a few entries per row), which is where
merging and pruning meet realistic models rather than dense noise.  The
``*_hmm`` variants return the :class:`HMM` itself and the prior pairs, for
checks that run the forward algorithm on their own.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from faier.engines.exact import sequence_mode
from faier.model.hmm import HMM

ZERO = Fraction(0)


Prior = dict[int, Fraction]
"""A sparse initial distribution: state index → probability."""


def location_grid(
    k: int, seed: int = 1
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison]]:
    """The location-privacy grid (:func:`location_grid_hmm`) as a sequence system."""
    return _system(*location_grid_hmm(k, seed))


def sparse_random(
    states: int, out_degree: int = 3, observations: int = 3, seed: int = 1
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison]]:
    """The sparse random HMM (:func:`sparse_random_hmm`) as a sequence system."""
    return _system(*sparse_random_hmm(states, out_degree, observations, seed))


def _system(
    hmm: HMM, pairs: list[tuple[Prior, Prior]]
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison]]:
    comparisons = [
        sequence_mode.SequenceComparison(a, b, None)  # type: ignore[arg-type]
        for a, b in pairs
    ]
    return sequence_mode.hmm_system(hmm), comparisons


def location_grid_hmm(k: int, seed: int = 1) -> tuple[HMM, list[tuple[Prior, Prior]]]:
    """Location privacy on a k×k grid of places (k² hidden states).

    Each step the person stays with probability 1/2, otherwise moves to one of
    the 4 neighbouring cells uniformly (fewer at the border: the 1/2 is shared
    among the neighbours that exist).  The observation is the *coarse* noisy
    version, chosen to keep the search tractable: the grid is split into 4
    quadrants (row and column halves, ``2·r // k``), and each step reports the
    true quadrant with probability 3/4, else one of the other 3 uniformly
    (1/12 each), so there are 4 observations.  (The fine version, a noisy cell
    among k² observations, is not built.)  Priors: home in cell (0, 0) against
    home in cell (k−1, k−1), point masses, compared both ways.  ``seed`` is
    unused (the model is deterministic); it is kept for a uniform signature.
    """
    del seed
    if k < 2:
        raise ValueError("the grid needs k ≥ 2")
    n = k * k
    half = Fraction(1, 2)
    transition = []
    emission = []
    for r in range(k):
        for c in range(k):
            neighbours = [
                (r + dr) * k + (c + dc)
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < k and 0 <= c + dc < k
            ]
            row = [ZERO] * n
            row[r * k + c] = half
            for t in neighbours:
                row[t] = half / len(neighbours)
            transition.append(tuple(row))
            quadrant = (2 * r // k) * 2 + (2 * c // k)
            emission.append(
                tuple(Fraction(3, 4) if q == quadrant else Fraction(1, 12) for q in range(4))
            )
    hmm = HMM(
        tuple(f"c{r}_{c}" for r in range(k) for c in range(k)),
        tuple(f"q{q}" for q in range(4)),
        tuple(transition),
        tuple(emission),
        {},
    )
    home, away = {0: Fraction(1)}, {n - 1: Fraction(1)}
    return hmm, [(home, away), (away, home)]


def sparse_random_hmm(
    states: int, out_degree: int = 3, observations: int = 3, seed: int = 1
) -> tuple[HMM, list[tuple[Prior, Prior]]]:
    """A sparse random HMM and every ordered pair of three random priors.

    Each state moves to ``out_degree`` distinct random states with random
    weights 1..9 (exact Fractions); emissions are dense random rows (weights
    0..9, one entry bumped so none is all zero) over ``observations``; the
    three priors are random rows of the same kind over the states.
    """
    rng = random.Random(seed)

    def dense(width: int) -> tuple[Fraction, ...]:
        weights = [rng.randint(0, 9) for _ in range(width)]
        weights[rng.randrange(width)] += 1
        total = sum(weights)
        return tuple(Fraction(w, total) if w else ZERO for w in weights)

    degree = min(out_degree, states)
    transition = []
    for _ in range(states):
        targets = rng.sample(range(states), degree)
        weights = [rng.randint(1, 9) for _ in targets]
        row = [ZERO] * states
        for t, w in zip(targets, weights, strict=True):
            row[t] = Fraction(w, sum(weights))
        transition.append(tuple(row))
    emission = tuple(dense(observations) for _ in range(states))
    hmm = HMM(
        tuple(f"s{i}" for i in range(states)),
        tuple(f"o{i}" for i in range(observations)),
        tuple(transition),
        emission,
        {},
    )
    priors = [{s: p for s, p in enumerate(dense(states)) if p} for _ in range(3)]
    return hmm, [(priors[i], priors[j]) for i, j in itertools.permutations(range(3), 2)]
