"""Many runs of a program that draws continuous noise at once: path by path, in numpy arrays.

A program drawing ``faier.laplace``/``gaussian``/``exponential`` noise has no
finite output table, and running its body once per sample costs some 25 µs
a run (``faier test noisy-max-gaussian`` took over two minutes).  Here the
body is replayed once per *decision path* (depth first, as the certified
engine's :func:`~faier.engines.certified.symbolic.paths` does) with every
sample at once: a draw is an array of n fresh variates, arithmetic is
numpy's, and each comparison keeps on the path only the samples for which
it comes out that way (the same float comparison a single run makes).

Why the samples are right: a sample's k-th draw is read from an array of n
independent variates of the distribution its own path draws at that point
(one array per position and distribution), and which array that is depends
only on its earlier draws, so every sample is one run of the program with
independent draws.  A path no sample follows is not explored further.

Programs that use a noisy value other than by sums, rational multiples and
comparisons (``float(x)``, ``round``, products of noise), integer noise
(``faier.discrete_laplace``), or more than :data:`MAX_PATHS` paths raise
:class:`Unbatchable`; the caller runs them once per sample instead.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import numpy.typing as npt

from faier.errors import BudgetExceeded, InternalError
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.decisions import Choices, advance
from faier.mechanisms.sampled import Outputs
from faier.model.distribution import Distribution

MAX_PATHS = 4096
"""Replays per batch before the batch gives up (each costs a few array operations)."""

KINDS = ("laplace", "exponential", "gaussian")
"""The noise drawn here as arrays (integer noise has its own exact sampler: run per sample)."""

Floats = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


class Unbatchable(Exception):
    """The program cannot be run on arrays; run it once per sample."""


class _Empty(BaseException):
    """No sample follows this path (a BaseException: a body's ``except`` must not hide it)."""


class Noisy:
    """A noisy number of every sample: a float array over all n samples."""

    __slots__ = ("run", "values")

    def __init__(self, values: Floats, run: _Replay) -> None:
        self.values = values
        self.run = run

    def _other(self, other: Any) -> Floats | float:
        if isinstance(other, Noisy):
            return other.values
        if isinstance(other, bool | np.bool_) or not isinstance(other, Real):
            raise Unbatchable(f"noise combined with {type(other).__name__}")
        return float(other)

    def __add__(self, other: Any) -> Noisy:
        return Noisy(self.values + self._other(other), self.run)

    __radd__ = __add__

    def __sub__(self, other: Any) -> Noisy:
        return Noisy(self.values - self._other(other), self.run)

    def __rsub__(self, other: Any) -> Noisy:
        return Noisy(self._other(other) - self.values, self.run)

    def __neg__(self) -> Noisy:
        return Noisy(-self.values, self.run)

    def __pos__(self) -> Noisy:
        return self

    def __mul__(self, other: Any) -> Noisy:
        if isinstance(other, Noisy):
            raise Unbatchable("a product of two noisy values")
        return Noisy(self.values * self._other(other), self.run)

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> Noisy:
        if isinstance(other, Noisy):
            raise Unbatchable("a division by a noisy value")
        return Noisy(self.values / self._other(other), self.run)

    def __ge__(self, other: Any) -> bool:
        return self.run.decide(self.values >= self._other(other))

    def __gt__(self, other: Any) -> bool:
        return self.run.decide(self.values > self._other(other))

    def __le__(self, other: Any) -> bool:
        return self.run.decide(self.values <= self._other(other))

    def __lt__(self, other: Any) -> bool:
        return self.run.decide(self.values < self._other(other))

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise Unbatchable("a noisy value used as a truth value")

    def __float__(self) -> float:
        raise Unbatchable("a noisy value converted to float")

    def __int__(self) -> int:
        raise Unbatchable("a noisy value converted to int")

    def __index__(self) -> int:
        raise Unbatchable("a noisy value used as an index")

    def __round__(self, ndigits: int | None = None) -> Any:
        raise Unbatchable("a noisy value rounded")


@dataclass
class _Draws:
    """The variates of every draw position, one array over all samples per distribution."""

    n: int
    rng: np.random.Generator
    arrays: dict[tuple[int, Hashable], Floats] = field(default_factory=dict)

    def noise(self, position: int, dist: Continuous) -> Floats:
        key = (position, (dist.kind, dist.loc, dist.scale))
        if key not in self.arrays:
            loc, scale = float(dist.loc), float(dist.scale)
            if dist.kind == "laplace":
                values = self.rng.laplace(loc, scale, self.n)
            elif dist.kind == "exponential":
                values = loc + self.rng.exponential(scale, self.n)
            else:
                values = self.rng.normal(loc, scale, self.n)
            self.arrays[key] = values
        return self.arrays[key]

    def uniform(self, position: int) -> Floats:
        key = (position, "uniform")
        if key not in self.arrays:
            self.arrays[key] = self.rng.random(self.n)
        return self.arrays[key]


@dataclass(kw_only=True)
class _Replay(Choices):
    """One replay of the body along a prefix of decisions, with the samples still on it."""

    draws: _Draws
    mask: Mask
    drawn: int = 0

    def _keep(self, kept: Mask) -> None:
        self.mask = self.mask & kept
        if not self.mask.any():
            raise _Empty

    def decide(self, outcome: Mask) -> bool:
        taken = self.choose(2) == 0
        self._keep(outcome if taken else ~outcome)
        return taken

    def draw(self, dist: Any) -> Any:
        position, self.drawn = self.drawn, self.drawn + 1
        if isinstance(dist, Continuous):
            if type(dist) is not Continuous or dist.kind not in (
                "laplace",
                "exponential",
                "gaussian",
            ):
                raise Unbatchable(f"{type(dist).__name__} noise has no array sampler here")
            return Noisy(self.draws.noise(position, dist), self)
        if not isinstance(dist, Distribution):
            raise Unbatchable(f"ctx.draw() of {type(dist).__name__}")
        index = self.choose(len(dist.items))
        cdf = np.cumsum([float(p) for _, p in dist.items])
        u = self.draws.uniform(position) * cdf[-1]
        low = cdf[index - 1] if index else 0.0
        last = index == len(dist.items) - 1
        self._keep((u >= low) & ((u < cdf[index]) | last))
        return dist.items[index][0]


Piece = tuple[npt.NDArray[np.intp], Any]
"""The samples that followed one path, and the path's output (noisy numbers as arrays)."""


def walk(body: Callable[[Any], Any], n: int, rng: np.random.Generator) -> list[Piece]:
    """n runs of ``body(ctx)``, path by path: which samples took it, and its output."""
    draws = _Draws(n, rng)
    pieces: list[Piece] = []
    prefix: list[int] = []
    replays = 0
    while True:
        replays += 1
        if replays > MAX_PATHS:
            raise Unbatchable(f"more than {MAX_PATHS} execution paths")
        run = _Replay(prefix, draws=draws, mask=np.ones(n, dtype=np.bool_))
        try:
            output = body(run)
        except _Empty:
            pass
        else:
            pieces.append((np.flatnonzero(run.mask), output))
        if not advance(prefix, run):
            return pieces


def run_paths(body: Callable[[Any], Any], n: int, rng: np.random.Generator) -> list[Any]:
    """n runs of ``body(ctx)`` as Python values, one per sample (noisy numbers as floats)."""
    return _values(walk(body, n, rng), n)


def _values(pieces: list[Piece], n: int) -> list[Any]:
    outputs: list[Any] = [None] * n
    for rows, template in pieces:
        for i in rows.tolist():
            outputs[i] = _read(template, i)
    return outputs


def run_outputs(body: Callable[[Any], Any], n: int, rng: np.random.Generator) -> Outputs:
    """n runs as :class:`Outputs`, the same as ``Outputs.from_values(run_paths(...))``.

    Each path's output is classified once (:meth:`Outputs.from_values` of one
    representative per path, its noisy numbers as 0.0), its rows copied to
    the path's samples, and the noisy slots filled from the arrays: building
    Python values per sample cost 93 % of a batch.
    """
    pieces = walk(body, n, rng)
    if sum(len(rows) for rows, _ in pieces) != n:
        raise InternalError(f"the paths of a batch cover {sum(len(r) for r, _ in pieces)} of {n}")
    shapes = Outputs.from_values([_read(template, None) for _, template in pieces])
    numbers = np.empty((n, shapes.width))
    codes = np.empty((n, shapes.width), dtype=shapes.codes.dtype)
    for k, (rows, template) in enumerate(pieces):
        numbers[rows] = shapes.numbers[k]
        codes[rows] = shapes.codes[k]
        for slot, noisy in _noisy_slots(template):
            numbers[rows, slot] = noisy.values[rows]
    return Outputs(numbers, codes, shapes.categories, shapes.is_list)


def _noisy_slots(template: Any) -> list[tuple[int, Noisy]]:
    if isinstance(template, Noisy):
        return [(0, template)]
    if isinstance(template, list | tuple):
        return [(j, v) for j, v in enumerate(template) if isinstance(v, Noisy)]
    return []


def _read(value: Any, i: int | None) -> Any:
    """The value of one sample (``None``: a representative, every noisy number 0.0)."""
    if isinstance(value, Noisy):
        return 0.0 if i is None else float(value.values[i])
    if isinstance(value, list | tuple):
        return type(value)(_read(v, i) for v in value)
    return value


@dataclass(eq=False)
class PathBatch:
    """n runs of a program on one input, all at once through its decision paths.

    ``fallback`` samples one run at a time; it takes over for good if a batch
    meets something arrays cannot do on a path the probe did not reach (the
    single runs then raise the program's own error, if it is one).
    """

    body: Callable[[Any], Any]
    fallback: Callable[[int, np.random.Generator], Outputs]
    batched: bool = True

    def draw(self, n: int, rng: np.random.Generator) -> Outputs:
        if self.batched:
            try:
                return run_outputs(self.body, n, rng)
            except BudgetExceeded:
                raise
            except Exception:
                self.batched = False
        return self.fallback(n, rng)


def batchable(body: Callable[[Any], Any]) -> bool:
    """Whether a probe batch runs: the program's noise and operations have array forms."""
    try:
        run_paths(body, 256, np.random.default_rng(0))
    except BudgetExceeded:
        raise
    except Exception:
        return False
    return True
