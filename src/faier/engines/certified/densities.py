"""Outputs that hold noisy numbers: DP compares densities instead of probabilities.

Two shapes are decided:

* **Separable** (the histogram): no branch, every released number is its own
  noise variable plus a constant, x ↦ (c₁ + X₁, …, c_k + X_k).  The density
  ratio factors, and its supremum over the output is exact and attained:
  Σⱼ |cⱼ − c′ⱼ|/bⱼ for Laplace noise (at the output c itself); for
  exponential noise a shift up costs (c − c′)/b and a shift down is an
  output impossible on one side (∞).  ε\\* is then an exact rational.
* **One number** (Noisy Max reporting the value, iSVT 4 with cutoff 1): on
  each path the number is c + X_r for one noise variable X_r; the output
  density at v is the sum over paths of X_r's density at v − c times
  Pr[the path's other constraints | X_r = v − c], an exact piecewise
  exponential polynomial in v (the constraint forest rooted at X_r,
  :func:`.integrate.joint_density`).  Evaluated exactly at rational points
  (every breakpoint where all densities are continuous, the midpoints
  between breakpoints, and points beyond the last ones) it gives certified
  lower bounds of the loss and certified violations; an output whose
  density is identically zero on a piece for one input and positive there
  for its neighbour is an infinite loss.  The supremum between the points is
  bounded by :mod:`.supremum` (branch and bound in ball arithmetic).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from faier.engines.certified import argmax
from faier.engines.certified.exppoly import ExpSum, Piecewise, density
from faier.engines.certified.integrate import Unsupported, joint_density, probability
from faier.engines.certified.symbolic import Output, Path
from faier.mechanisms.continuous import Continuous

NUMBER = "·"
"""Where a noisy number stood in an output's skeleton."""


def split(output: Hashable) -> tuple[Hashable, tuple[Output, ...]]:
    """An output's skeleton (numbers replaced by NUMBER) and its numbers in order."""
    numbers: list[Output] = []

    def walk(value: Hashable) -> Hashable:
        if isinstance(value, Output):
            numbers.append(value)
            return NUMBER
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return value

    return walk(output), tuple(numbers)


def fill(skeleton: Hashable, values: Sequence[Fraction]) -> Any:
    """The skeleton with its numbers put back (for showing a witness output)."""
    it = iter(values)

    def walk(value: Any) -> Any:
        if value == NUMBER and isinstance(value, str):
            return next(it)
        if isinstance(value, tuple):
            return tuple(walk(v) for v in value)
        return value

    return walk(skeleton)


@dataclass(frozen=True)
class Shifted:
    """One released number c + X with X's distribution."""

    noise: Continuous
    shift: Fraction


def _affine(number: Output) -> tuple[int, Fraction, Fraction]:
    """(variable, a, c) of a released number a·X + c (one noise variable)."""
    if len(number.coefficients) != 1:
        raise Unsupported(
            f"a released number is a sum of {len(number.coefficients)} noise variables "
            "(one noise variable times a number plus a constant is decided)"
        )
    ((variable, a),) = number.coefficients
    return variable, a, number.constant


SYMMETRIC = ("laplace", "gaussian")
"""Families where a·X (X centred at 0) is the same family at scale |a|·s."""


def _single(number: Output, noise: tuple[Continuous, ...]) -> Shifted | None:
    """A released number X + c as shifted noise (a·X + c too, for a Laplace or Gaussian X
    at 0: that is the noise at scale |a|), None for any other form."""
    if len(number.coefficients) != 1:
        return None
    ((variable, a),) = number.coefficients
    dist = noise[variable]
    if a == 1:
        return Shifted(dist, number.constant)
    if dist.kind in SYMMETRIC and dist.loc == 0:
        return Shifted(replace(dist, scale=abs(a) * dist.scale), number.constant)
    return None


def separable(paths: Sequence[Path]) -> dict[Hashable, tuple[Shifted, ...]] | None:
    """The histogram shape, skeleton → its numbers; None when the paths are not of it."""
    found: dict[Hashable, tuple[Shifted, ...]] = {}
    for path in paths:
        if path.constraints or path.weight != 1:
            return None
        skeleton, numbers = split(path.output)
        singles = [_single(n, path.noise) for n in numbers]
        variables = [n.coefficients[0][0] for n in numbers if len(n.coefficients) == 1]
        if any(single is None for single in singles):
            return None  # −X of an exponential X: its density is taken as it is
        if len(set(variables)) != len(variables) or skeleton in found:
            return None
        found[skeleton] = tuple(single for single in singles if single is not None)
    return found


def same_noise(shapes: Sequence[dict[Hashable, tuple[Shifted, ...]]]) -> bool:
    """Whether every input releases each skeleton's numbers with the same noise (only
    their shifts differ): the shape whose loss :func:`separable_loss` gives exactly."""
    noise: dict[Hashable, tuple[Continuous, ...]] = {}
    for shape in shapes:
        for skeleton, numbers in shape.items():
            mine = tuple(n.noise for n in numbers)
            if noise.setdefault(skeleton, mine) != mine:
                return False
    return True


def released_pairs(
    a: tuple[Shifted, ...], b: tuple[Shifted, ...]
) -> Iterator[tuple[Shifted, Shifted]]:
    """The released numbers of two neighbouring inputs side by side; numbers drawn with
    different noise have no closed-form loss here (:class:`Unsupported`)."""
    for x, y in zip(a, b, strict=True):
        if x.noise != y.noise:
            raise Unsupported(
                "neighbouring inputs release numbers with different noise "
                f"({x.noise.describe()} and {y.noise.describe()})"
            )
        yield x, y


def separable_loss(a: tuple[Shifted, ...], b: tuple[Shifted, ...]) -> Fraction | None:
    """sup over outputs of ln(density under a / density under b), exactly (None: ∞)."""
    total = Fraction(0)
    for x, y in released_pairs(a, b):
        d = x.shift - y.shift
        if x.noise.kind == "laplace":
            total += abs(d) / x.noise.scale
        elif x.noise.kind == "exponential":
            if d < 0:
                return None
            total += d / x.noise.scale
        else:
            raise Unsupported(f"{x.noise.describe()} noise has no closed form")
    return total


def separable_point(a: tuple[Shifted, ...], b: tuple[Shifted, ...]) -> list[Fraction]:
    """An output attaining :func:`separable_loss` (or, for ∞, possible under a only)."""
    point = []
    for x, y in zip(a, b, strict=True):
        start = x.noise.loc + x.shift
        if x.noise.kind == "exponential":
            other = y.noise.loc + y.shift
            point.append((start + other) / 2 if start < other else max(start, other) + 1)
        else:
            point.append(start)
    return point


def separable_density(numbers: tuple[Shifted, ...], point: Sequence[Fraction]) -> ExpSum:
    """The joint density of the numbers at a point, exactly."""
    value = ExpSum.rational(1)
    for n, v in zip(numbers, point, strict=True):
        value = value * density(n.noise.kind, n.noise.loc, n.noise.scale).at(v - n.shift)
    return value


def line_densities(paths: Sequence[Path]) -> dict[Hashable, Piecewise | ExpSum]:
    """skeleton → the density of its one number (summed over paths), or the probability
    of a skeleton that releases no number (iSVT 4 answering ⊥ throughout).  The paths of
    one output are merged into one star where :mod:`.argmax` proves it (Noisy Max)."""
    found: dict[Hashable, Piecewise | ExpSum] = {}
    for path in argmax.merged(paths) or paths:
        skeleton, numbers = split(path.output)
        if len(numbers) > 1:
            raise Unsupported(
                f"an output releases {len(numbers)} noisy numbers under branches "
                "(one number, or numbers without branches, are decided)"
            )
        if not numbers:
            mass = probability(path.noise, path.constraints).scaled(path.weight)
            before = found.get(skeleton, ExpSum(()))
            assert isinstance(before, ExpSum)
            found[skeleton] = before + mass
            continue
        variable, a, c = _affine(numbers[0])
        # the density of a·X + c at v is f_X((v − c)/a)/|a|
        g = joint_density(path.noise, path.constraints, variable).shift(-c / a)
        if a != 1:
            g = g.stretched(1 / a).combine(Piecewise.constant(1 / abs(a)))
        if path.weight != 1:
            g = g.combine(Piecewise.constant(path.weight))
        previous = found.get(skeleton)
        assert previous is None or isinstance(previous, Piecewise)
        found[skeleton] = g if previous is None else previous.plus(g)
    return found


def continuous_at(g: Piecewise, t: Any) -> bool:
    """Whether g's pieces on both sides of a breakpoint agree there."""
    if t not in g.breaks:
        return True
    j = g.breaks.index(t)
    from faier.engines.certified.exppoly import piece_at

    return piece_at(g.pieces[j], t) == piece_at(g.pieces[j + 1], t)


def points(functions: Sequence[Piecewise]) -> tuple[list[Any], list[Any]]:
    """(breakpoints where every function is continuous, interior points of every piece)."""
    breaks = sorted({b for g in functions for b in g.breaks})
    if not breaks:
        return [], [Fraction(0)]
    kinks = [b for b in breaks if all(continuous_at(g, b) for g in functions)]
    inner = [breaks[0] - 1, *((a + b) / 2 for a, b in itertools.pairwise(breaks))]
    inner.append(breaks[-1] + 1)
    return kinks, inner
