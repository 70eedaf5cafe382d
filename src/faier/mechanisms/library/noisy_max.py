"""Discrete Noisy Max (FAIER journal Algorithms 2 and 3, Noisy Max notes).

Each of n query answers in {0..m} gets truncated α-geometric noise; the
mechanism reports the index of a maximal noisy answer (``ties="first"``:
the first one, FAIER journal Algorithm 2; ``ties="uniform"``: a uniformly
random one, journal Algorithm 3 = conference Algorithm 2) or the maximal noisy
value itself (``ties="value"``, the notes' "Wrong Version of Noisy Max",
Ex. 7.2).  Written as a step program over the state
(position, running max, chosen index, number of ties), so a run on one input
visits O(n²·m) states instead of (m+1)^n noise vectors.

For the engine's grid search it also tabulates its output probabilities over
the whole input grid in float64 (:meth:`NoisyMax.grid_table`), from closed
forms that are sums of products of non-negative numbers (no cancellation).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from faier.errors import SpecError
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import grid
from faier.mechanisms.program import Done, StepProgram
from faier.mechanisms.symmetry import PermuteQueries
from faier.model.distribution import Distribution, bernoulli, truncated_geometric

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]

CHUNK = 1 << 16
"""Inputs tabulated at a time, to bound the temporary arrays."""

TIES = ("first", "uniform", "value")

SYMMETRY = {"uniform": PermuteQueries("index"), "value": PermuteQueries("same")}
"""The tie rules under which permuting the answers permutes the output along.

Uniform tie-breaking reports each maximal index with the same chance and the
maximal value does not depend on positions; ``first`` is not symmetric (the
first of equal maxima wins), so it has no entry."""


@dataclass(frozen=True)
class NoisyMaxState:
    """Remaining answers, running noisy maximum, reported index, count of maxima."""

    remaining: tuple[int, ...]
    position: int
    maximum: int
    index: int
    ties: int


@dataclass(frozen=True)
class NoisyMax(StepProgram[NoisyMaxState, int]):
    """Discrete Noisy Max: a step program that can also tabulate its whole grid at once."""

    n: int = 3
    ties: str = "uniform"
    alpha: Fraction = Fraction(1, 2)
    m: int = 2

    def grid_outputs(self) -> tuple[int, ...]:
        """Indices 1..n, or the noisy values 0..m for ``ties=value``."""
        return tuple(range(self.m + 1)) if self.ties == "value" else tuple(range(1, self.n + 1))

    def grid_table(self) -> Floats | None:
        """Pr[output | x] for every x in {0..m}^n, in float64 (None if it underflowed).

        With g(u, v) = Pr[noisy = v | answer u] and the strict and weak cumulative
        sums lt, le: ``first`` gives index i the mass Σ_v g(x_i, v)·Π_{j<i} lt(x_j, v)
        ·Π_{j>i} le(x_j, v); ``value`` gives v the same sum over i; ``uniform``
        gives index i Σ_v g(x_i, v)·∫₀¹ Π_{j≠i} (lt(x_j, v) + g(x_j, v)·z) dz, which
        depends only on the multiset of the other answers, so the integral is
        computed once per multiset.
        """
        n, m = self.n, self.m
        g, lt, le = _cumulative_rows(self.alpha, m)
        outputs = len(self.grid_outputs())
        size = (m + 1) ** n
        table = np.zeros((outputs, size))
        integrals = _tie_integrals(g, lt, n, m) if self.ties == "uniform" else None
        for start in range(0, size, CHUNK):
            flat = np.arange(start, min(size, start + CHUNK))
            x = np.stack(np.unravel_index(flat, (m + 1,) * n))
            if integrals is not None:
                table[:, flat] = _uniform_chunk(g, x, n, m, integrals)
            else:
                table[:, flat] = _first_chunk(g, lt, le, x, m, by_value=self.ties == "value")
        if not table.all():
            return None  # every probability is positive: a zero can only be underflow
        return table.reshape((outputs, *(m + 1,) * n))

    @functools.cached_property
    def _integer_rows(self) -> tuple[int, list[list[int]], list[list[int]], list[list[int]]]:
        """D and D·g, D·lt, D·le (see :func:`_cumulative_rows`) for one common denominator D."""
        m = self.m
        rows = [truncated_geometric(self.alpha, m, u) for u in range(m + 1)]
        scale = math.lcm(*(rows[u].prob(v).denominator for u in range(m + 1) for v in range(m + 1)))
        g = [[int(rows[u].prob(v) * scale) for v in range(m + 1)] for u in range(m + 1)]
        lt = [list(itertools.accumulate([0, *row[:-1]])) for row in g]
        le = [list(itertools.accumulate(row)) for row in g]
        return scale, g, lt, le

    def grid_column(self, x: tuple[int, ...]) -> dict[int, Fraction]:
        """Pr[output | x] exactly, from the same closed forms as :meth:`grid_table`.

        In integers over one common denominator (D^n, times lcm(1..n) for the
        tie integral), so one input costs O(n²·m²) integer operations and one
        gcd per output, instead of a run of the step program.  ``uniform``
        computes one probability per distinct answer (indices with equal
        answers have equal chances); ``value`` uses Pr[max = v] =
        Π le(x_j, v) − Π lt(x_j, v); ``first`` prefix and suffix products.
        """
        n, m = self.n, self.m
        scale, g, lt, le = self._integer_rows
        out: dict[int, int] = {}
        if self.ties == "uniform":
            width = math.lcm(*range(1, n + 1))
            by_answer: dict[int, int] = {}
            for a in sorted(set(x)):
                others = list(x)
                others.remove(a)
                total = 0
                for v in range(m + 1):
                    poly = [1]
                    for u in others:
                        lo, hi = lt[u][v], g[u][v]
                        poly = [
                            (poly[k] * lo if k < len(poly) else 0)
                            + (poly[k - 1] * hi if k > 0 else 0)
                            for k in range(len(poly) + 1)
                        ]
                    integral = sum(c * (width // (k + 1)) for k, c in enumerate(poly))
                    total += g[a][v] * integral
                by_answer[a] = total
            out = {i + 1: by_answer[a] for i, a in enumerate(x)}
            denominator = scale**n * width
        elif self.ties == "value":
            for v in range(m + 1):
                out[v] = math.prod(le[u][v] for u in x) - math.prod(lt[u][v] for u in x)
            denominator = scale**n
        else:
            for v in range(m + 1):
                before = [1]  # before[i] = Π_{j<i} lt(x_j, v)
                for u in x[:-1]:
                    before.append(before[-1] * lt[u][v])
                after = 1  # Π_{j>i} le(x_j, v), built from the end
                for i in reversed(range(n)):
                    out[i + 1] = out.get(i + 1, 0) + g[x[i]][v] * before[i] * after
                    after *= le[x[i]][v]
            denominator = scale**n
        return {k: Fraction(c, denominator) for k, c in sorted(out.items()) if c}


def _cumulative_rows(alpha: Fraction, m: int) -> tuple[Floats, Floats, Floats]:
    """g[u, v] = Pr[noisy v | answer u]; lt, le: Pr[noisy < v], Pr[noisy ≤ v]; each rounded once."""
    g, lt, le = (np.zeros((m + 1, m + 1)) for _ in range(3))
    for u in range(m + 1):
        row = truncated_geometric(alpha, m, u)
        below = Fraction(0)
        for v in range(m + 1):
            p = row.prob(v)
            g[u, v], lt[u, v], le[u, v] = float(p), float(below), float(below + p)
            below += p
    return g, lt, le


def _first_chunk(g: Floats, lt: Floats, le: Floats, x: Ints, m: int, *, by_value: bool) -> Floats:
    """Per input (columns): the first-maximum index's or the maximum value's probabilities."""
    n, width = x.shape
    out = np.zeros((m + 1 if by_value else n, width))
    for v in range(m + 1):
        below, upto = lt[x, v], le[x, v]
        before = np.ones_like(below)
        np.cumprod(below[:-1], axis=0, out=before[1:])
        after = np.ones_like(upto)
        after[:-1] = np.cumprod(upto[:0:-1], axis=0)[::-1]
        terms = g[x, v] * before * after
        if by_value:
            out[v] = terms.sum(axis=0)
        else:
            out += terms
    return out


def _tie_integrals(g: Floats, lt: Floats, n: int, m: int) -> tuple[Ints, Floats]:
    """Sorted codes of the multisets of n − 1 answers, and ∫₀¹ Π (lt + g·z) dz per v and multiset.

    A multiset is coded by its sorted answers s as Σ_r s_r·(m+1)^r, below
    (m+1)^(n−1), which the grid's size bounds.  The polynomial in z is built one
    linear factor at a time for all multisets at once (non-negative coefficients).
    """
    multisets = list(itertools.combinations_with_replacement(range(m + 1), n - 1))
    others = np.array(multisets, dtype=np.intp).reshape(len(multisets), n - 1)
    codes = others @ ((m + 1) ** np.arange(n - 1))
    integrals = np.zeros((m + 1, len(others)))
    for v in range(m + 1):
        poly = np.zeros((len(others), n))
        poly[:, 0] = 1
        for r in range(n - 1):
            a, b = lt[others[:, r], v][:, None], g[others[:, r], v][:, None]
            poly[:, 1:] = poly[:, 1:] * a + poly[:, :-1] * b
            poly[:, :1] *= a
        integrals[v] = (poly / np.arange(1, n + 1)).sum(axis=1)
    order = np.argsort(codes)
    return codes[order], integrals[:, order]


def _uniform_chunk(g: Floats, x: Ints, n: int, m: int, integrals: tuple[Ints, Floats]) -> Floats:
    """Per input (columns): each index's probability under uniform tie-breaking.

    The others of index i are the sorted answers with one copy of x_i removed,
    at position p = #{j: x_j < x_i}; their code is the weighted prefix below p
    plus the suffix above p, each weight one place lower.
    """
    codes, values = integrals
    ordered = np.sort(x, axis=0)
    weights = (m + 1) ** np.arange(n)
    below, above = np.zeros_like(ordered), np.zeros_like(ordered)
    for r in range(1, n):
        below[r] = below[r - 1] + ordered[r - 1] * weights[r - 1]
        above[n - 1 - r] = above[n - r] + ordered[n - r] * weights[n - r - 1]
    position = (x[None, :, :] < x[:, None, :]).sum(axis=1)
    code = np.take_along_axis(below, position, 0) + np.take_along_axis(above, position, 0)
    out = np.zeros(x.shape)
    for i in range(n):
        others = np.searchsorted(codes, code[i])
        for v in range(m + 1):
            out[i] += g[x[i], v] * values[v, others]
    return out


def noisy_max(
    n: int = 3, ties: str = "uniform", alpha: Fraction = Fraction(1, 2), m: int = 2
) -> NoisyMax:
    """Report the (1-based) index of the largest noisy answer, or its value (``ties=value``)."""
    if ties not in TIES:
        raise SpecError(f"unknown tie rule {ties!r}", fix=f"choose one of {', '.join(TIES)}")
    rows = {v: truncated_geometric(alpha, m, v) for v in range(m + 1)}
    coins = {c: bernoulli(Fraction(1, c)) for c in range(2, n + 1)}
    merged: dict[tuple[int, int], Distribution[int]] = {}

    def noise(answer: int, maximum: int) -> Distribution[int]:
        """The noisy answer with the values that cannot change the state merged into -1.

        Below the running maximum (or at it, unless ties are uniform) a noisy value
        only moves the position on, so one draw stands for all of them: fewer
        successors per state, the same output distribution.
        """
        key = (answer, maximum)
        if key not in merged:
            keep = maximum if ties == "uniform" else maximum + 1
            merged[key] = rows[answer].map(lambda v: v if v >= keep else -1)
        return merged[key]

    def start(x: tuple[int, ...]) -> NoisyMaxState:
        return NoisyMaxState(x, 0, -1, 0, 0)

    def step(s: NoisyMaxState, ctx: Context) -> NoisyMaxState | Done[int]:
        if not s.remaining:
            return Done(s.maximum if ties == "value" else s.index)
        noisy = ctx.draw(noise(s.remaining[0], s.maximum))
        i = s.position + 1
        rest = s.remaining[1:]
        if noisy > s.maximum:
            return NoisyMaxState(rest, i, noisy, i, 1)
        if noisy == s.maximum:
            count = s.ties + 1
            take = ctx.draw(coins[count])
            return NoisyMaxState(rest, i, noisy, i if take else s.index, count)
        return NoisyMaxState(rest, i, s.maximum, s.index, s.ties)

    label = "the maximal noisy value" if ties == "value" else f"argmax, ties {ties}"
    return NoisyMax(
        name=f"discrete noisy max (n={n}, {label}, α={alpha}, m={m})",
        start=start,
        step=step,
        inputs=grid(n, m),
        doc=noisy_max.__doc__ or "",
        output_name=(lambda v: f"{v}~") if ties == "value" else (lambda i: f"index {i}"),
        symmetry=SYMMETRY.get(ties),
        n=n,
        ties=ties,
        alpha=alpha,
        m=m,
    )
