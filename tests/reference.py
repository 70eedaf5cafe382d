"""Independent brute-force reference computations with exact rationals.

Everything here is computed from first principles by enumerating every random
choice path with ``itertools.product``.  Nothing is imported from ``faier``; the
module exists so that the real engines can be cross-checked against slow but
obviously-correct code.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from fractions import Fraction
from itertools import product

Dist = dict[Hashable, Fraction]


def _add(dist: dict, key: Hashable, p: Fraction) -> None:
    """Accumulate probability ``p`` on ``key`` in ``dist``."""
    dist[key] = dist.get(key, Fraction(0)) + p


def truncated_geometric_row(alpha: Fraction, m: int, i: int) -> dict[int, Fraction]:
    """Output distribution over {0..m} of the truncated alpha-geometric mechanism on input i."""
    alpha = Fraction(alpha)
    if m == 0:
        return {0: Fraction(1)}
    row: dict[int, Fraction] = {}
    for j in range(m + 1):
        if j == 0:
            row[j] = alpha**i / (1 + alpha)
        elif j == m:
            row[j] = alpha ** (m - i) / (1 + alpha)
        else:
            row[j] = (1 - alpha) / (1 + alpha) * alpha ** abs(j - i)
    assert sum(row.values()) == 1, row
    return row


def noisy_max_distribution(
    values: tuple[int, ...],
    ties: str,
    alpha: Fraction = Fraction(1, 2),
    m: int = 2,
) -> dict[object, Fraction]:
    """Output distribution of discrete Noisy Max (ties: 'first', 'uniform' or 'value')."""
    rows = [truncated_geometric_row(alpha, m, v) for v in values]
    out: dict[object, Fraction] = {}
    for noisy in product(range(m + 1), repeat=len(values)):
        p = Fraction(1)
        for row, z in zip(rows, noisy, strict=True):
            p *= row[z]
        top = max(noisy)
        winners = [k + 1 for k, z in enumerate(noisy) if z == top]
        if ties == "first":
            _add(out, winners[0], p)
        elif ties == "uniform":
            for w in winners:
                _add(out, w, p / len(winners))
        elif ties == "value":
            _add(out, top, p)
        else:
            raise ValueError(f"unknown ties rule {ties!r}")
    assert sum(out.values()) == 1
    return out


def max_ratio(P: dict, Q: dict) -> Fraction | None:
    """Max over outputs w with P[w] > 0 of P[w]/Q[w]; None means infinity."""
    best = Fraction(0)
    for w, pw in P.items():
        if pw == 0:
            continue
        qw = Q.get(w, Fraction(0))
        if qw == 0:
            return None
        best = max(best, Fraction(pw) / qw)
    return best


def _max_or_none(ratios: Iterable[Fraction | None]) -> Fraction | None:
    """Maximum of ratios where None (infinity) dominates everything."""
    best = Fraction(0)
    for r in ratios:
        if r is None:
            return None
        best = max(best, r)
    return best


def dp_epsilon_ratio(
    mechanism: Callable[[object], dict],
    inputs: Iterable[object],
    neighbours: Callable[[object, object], bool],
) -> Fraction | None:
    """Max of P[w|x]/P[w|x'] over ordered neighbour pairs and outputs (None = infinity)."""
    inputs = list(inputs)
    dists = {x: mechanism(x) for x in inputs}
    return _max_or_none(
        max_ratio(dists[x], dists[y]) for x in inputs for y in inputs if neighbours(x, y)
    )


def every_query_neighbours(delta: int = 1) -> Callable[[tuple, tuple], bool]:
    """Predicate: x != y and every coordinate differs by at most delta."""
    return lambda x, y: x != y and all(abs(a - b) <= delta for a, b in zip(x, y, strict=True))


def one_query_neighbours(delta: int = 1) -> Callable[[tuple, tuple], bool]:
    """Predicate: exactly one coordinate differs, by at most delta."""

    def pred(x: tuple, y: tuple) -> bool:
        diffs = [abs(a - b) for a, b in zip(x, y, strict=True) if a != b]
        return len(diffs) == 1 and diffs[0] <= delta

    return pred


def above_threshold_transcript_prob(
    t: int,
    answers: tuple[int, ...],
    halts: bool,
    threshold_alpha: Fraction = Fraction(1, 4),
    query_alpha: Fraction = Fraction(1, 2),
    m: int = 2,
) -> Fraction:
    """Pr[F^(L-1) T] (halts) or Pr[F^L] on L answers, enumerating noisy threshold and answers."""
    trow = truncated_geometric_row(threshold_alpha, m, t)
    qrows = [truncated_geometric_row(query_alpha, m, r) for r in answers]
    total = Fraction(0)
    for t_noisy in range(m + 1):
        below, at_or_above = range(t_noisy), range(t_noisy, m + 1)
        # every noisy-answer path that yields this transcript: F = below, T = at_or_above
        choices = [below] * (len(answers) - 1) + [at_or_above if halts else below]
        for noisy in product(*choices):
            p = trow[t_noisy]
            for row, z in zip(qrows, noisy, strict=True):
                p *= row[z]
            total += p
    return total


def _near_sequences(r: tuple[int, ...], m: int) -> Iterable[tuple[int, ...]]:
    """All sequences s over {0..m} with |r_i - s_i| <= 1 for every i (r itself included)."""
    return product(*[range(max(0, a - 1), min(m, a + 1) + 1) for a in r])


def above_threshold_ratio(
    K: int,
    threshold_alpha: Fraction = Fraction(1, 4),
    query_alpha: Fraction = Fraction(1, 2),
    m: int = 2,
) -> Fraction | None:
    """Max transcript-probability ratio of discrete Above Threshold with horizon K (±1 answers)."""
    # Transcript F^j T depends only on the answers r_1..r_{j+1} and F^K on all K of them;
    # every ±1 prefix pair extends to a ±1 pair of full sequences, so for each transcript
    # we compute its probability on every prefix of the right length once and compare.
    transcripts = [(j + 1, True) for j in range(K)] + [(K, False)]
    best = Fraction(0)
    for t, (length, halts) in product(range(m + 1), transcripts):
        prob = {
            r: above_threshold_transcript_prob(t, r, halts, threshold_alpha, query_alpha, m)
            for r in product(range(m + 1), repeat=length)
        }
        for r in prob:
            for s in _near_sequences(r, m):
                if prob[r] > 0 and prob[s] == 0:
                    return None
                if prob[r] > 0 and prob[r] > best * prob[s]:
                    best = prob[r] / prob[s]
    return best


def hockey_stick(P: dict, Q: dict, e_eps: Fraction) -> Fraction:
    """Sum over outputs of max(0, P[w] - e_eps * Q[w])."""
    keys = set(P) | set(Q)
    zero = Fraction(0)
    return sum((max(zero, P.get(w, zero) - e_eps * Q.get(w, zero)) for w in keys), zero)


def randomized_response_distribution(
    x: int, truth: Fraction = Fraction(1, 2)
) -> dict[int, Fraction]:
    """With probability truth answer x, otherwise answer a fair coin in {0, 1}."""
    out: dict[int, Fraction] = {}
    for honest, coin in product((True, False), (0, 1)):
        p = (truth if honest else 1 - truth) * Fraction(1, 2)
        _add(out, x if honest else coin, p)
    return out


def histogram_distribution(
    counts: tuple[int, ...], alpha: Fraction, m: int
) -> dict[tuple[int, ...], Fraction]:
    """Distribution of the noisy histogram: independent truncated geometric noise per bin."""
    rows = [truncated_geometric_row(alpha, m, c) for c in counts]
    out: dict[tuple[int, ...], Fraction] = {}
    for noisy in product(range(m + 1), repeat=len(counts)):
        p = Fraction(1)
        for row, z in zip(rows, noisy, strict=True):
            p *= row[z]
        _add(out, noisy, p)
    return out


def pufferfish_ratio(
    mechanism: Callable[[object], dict], prior_left: dict, prior_right: dict
) -> Fraction | None:
    """Max ratio (both directions) between the prior-mixed output distributions."""

    def mix(prior: dict) -> dict:
        out: dict = {}
        for x, px in prior.items():
            for w, pw in mechanism(x).items():
                _add(out, w, px * pw)
        return out

    left, right = mix(prior_left), mix(prior_right)
    return _max_or_none([max_ratio(left, right), max_ratio(right, left)])


def two_person_count_prior(john_has: bool, p: Fraction, contagious: bool) -> dict[int, Fraction]:
    """Distribution of #diseased among John and one other, given John's status."""
    john = int(john_has)
    if contagious:
        return {2 * john: Fraction(1)}
    out: dict[int, Fraction] = {}
    for other in (0, 1):
        _add(out, john + other, p if other else 1 - p)
    return out
