"""The FAIER papers' hidden Markov models, built exactly: Fig. 1c and Fig. 2.

The Pufferfish examples with unknown priors use the models the FAIER papers
verified, so their Algorithm 1 runs on the very HMMs of the papers
(docs/REFERENCES.md):

* Fig. 1c: the truncated α-geometric mechanism on a count in {0..m}; the
  state is the true count and emits the noisy count (horizon 1).
* Fig. 2: discrete Noisy Max over n queries with answers in {0..m}; a top
  state ``in012`` (an answer vector) observes ``start`` and moves to the
  bottom state ``out021`` of a noisy vector with the product of the noise
  probabilities; a bottom state observes the reported index (ties broken
  uniformly, or the first maximum) or the maximal value, and stays put
  (horizon 2).

HMMs are immutable, so each is built once per process and shared.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

from faier.errors import SpecError
from faier.model.distribution import truncated_geometric
from faier.model.hmm import HMM

START = "start"


@functools.lru_cache(maxsize=8)
def geometric_hmm(alpha: Fraction = Fraction(1, 2), m: int = 2) -> HMM:
    """FAIER papers Fig. 1c: states are true counts, observations the noisy counts ``j~``."""
    states = tuple(str(x) for x in range(m + 1))
    observations = tuple(f"{j}~" for j in range(m + 1))
    emission = tuple(
        tuple(truncated_geometric(alpha, m, x).prob(j) for j in range(m + 1)) for x in range(m + 1)
    )
    transition = tuple(tuple(Fraction(int(i == j)) for j in range(m + 1)) for i in range(m + 1))
    return HMM(states, observations, transition, emission)


def vector_state(prefix: str, vector: tuple[int, ...]) -> str:
    """``in011`` / ``out021``: the state of an answer or noisy vector."""
    return prefix + "".join(map(str, vector))


def _reported(noisy: tuple[int, ...], ties: str, m: int) -> tuple[Fraction, ...]:
    top = max(noisy)
    if ties == "value":
        return tuple(Fraction(int(v == top)) for v in range(m + 1))
    winners = [i for i, v in enumerate(noisy) if v == top]
    if ties == "first":
        return tuple(Fraction(int(i == winners[0])) for i in range(len(noisy)))
    return tuple(
        Fraction(1, len(winners)) if i in winners else Fraction(0) for i in range(len(noisy))
    )


@functools.lru_cache(maxsize=8)
def noisy_max_hmm(
    n: int = 3, ties: str = "uniform", alpha: Fraction = Fraction(1, 2), m: int = 2
) -> HMM:
    """FAIER papers Fig. 2: discrete Noisy Max as a two-layer HMM.

    The bottom states observe the reported index ``1``..``n`` (ties uniform or
    first), or with ``ties="value"`` the maximal noisy value ``0~``..``m~``
    (the Noisy Max notes' "Wrong Version of Noisy Max", Ex. 7.2).
    """
    if ties not in ("uniform", "first", "value"):
        raise SpecError(f"unknown tie rule {ties!r}", fix="choose uniform, first or value")
    noise = [[truncated_geometric(alpha, m, v).prob(j) for j in range(m + 1)] for v in range(m + 1)]
    vectors = list(itertools.product(range(m + 1), repeat=n))
    states = tuple(vector_state("in", v) for v in vectors) + tuple(
        vector_state("out", v) for v in vectors
    )
    reported = (
        [f"{v}~" for v in range(m + 1)] if ties == "value" else [str(i + 1) for i in range(n)]
    )
    observations = (START, *reported)
    zeros = (Fraction(0),) * len(vectors)
    transition = []
    emission = []
    for x in vectors:
        moves = []
        for y in vectors:
            p = Fraction(1)
            for xi, yi in zip(x, y, strict=True):
                p *= noise[xi][yi]
            moves.append(p)
        transition.append(zeros + tuple(moves))
        emission.append((Fraction(1), *(Fraction(0),) * len(reported)))
    for i, y in enumerate(vectors):
        transition.append(tuple(Fraction(int(j == len(vectors) + i)) for j in range(len(states))))
        emission.append((Fraction(0), *_reported(y, ties, m)))
    return HMM(states, observations, tuple(transition), tuple(emission))
