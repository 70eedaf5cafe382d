"""The noise primitives faier recognises, and what each call's arguments mean.

A primitive call is read as a *family* (laplace, gaussian, discrete-laplace,
exponential, uniform, gumbel: location families whose draw is a centre plus
noise at a scale; ``selector`` for draws whose arguments are compared as they
are; ``library`` for a library mechanism that is neither) with its centre and
scale, so that a draw can be replayed on a neighbour as the same noise about
the neighbour's centre, and its privacy loss computed from the two centres.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

LOCATION_FAMILIES = ("laplace", "gaussian", "discrete-laplace", "exponential", "uniform", "gumbel")
"""Families whose draw is centre + noise: replayed as the same noise about the new centre."""


@dataclass(frozen=True)
class Site:
    """Where a primitive was called: the first frame of the audited code."""

    file: str
    line: int
    function: str

    def show(self) -> str:
        return f"{self.file}:{self.line} ({self.function})"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "function": self.function}


@dataclass(frozen=True)
class Reading:
    """One call's arguments read: family, centre and scale (None where the family has none)."""

    family: str
    centre: Any = 0.0
    scale: Any = None
    params: tuple[tuple[str, str], ...] = ()
    """The other arguments, as text: a selector's draws replay only where these agree."""
    claim: LibraryClaim | None = None
    handle: Any = field(default=None, compare=False)
    """The library object itself (an OpenDP measurement whose privacy map is read)."""


@dataclass(frozen=True)
class LibraryClaim:
    """What a library mechanism states about itself (diffprivlib, OpenDP)."""

    library: str
    epsilon: Fraction | None
    delta: Fraction
    sensitivity: Fraction | None

    def to_json(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "epsilon": None if self.epsilon is None else str(self.epsilon),
            "delta": str(self.delta),
            "sensitivity": None if self.sensitivity is None else str(self.sensitivity),
        }


def _bind(
    names: tuple[str, ...], defaults: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> list[Any]:
    values = list(defaults)
    for i, value in enumerate(args[: len(names)]):
        values[i] = value
    for i, name in enumerate(names):
        if name in kwargs:
            values[i] = kwargs[name]
    return values


def _text(value: Any) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        return np.array2string(value, threshold=20)
    if isinstance(value, list | tuple) and len(value) > 20:
        return f"{type(value).__name__} of {len(value)}: {value[:5]!r}…"
    return repr(value)


def _location(
    family: str, names: tuple[str, ...], defaults: tuple[Any, ...]
) -> Callable[..., Reading]:
    def read(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
        loc, scale, *_ = _bind(names, defaults, args, kwargs)
        return Reading(family, loc, scale)

    return read


def _one_sided(
    family: str, names: tuple[str, ...], defaults: tuple[Any, ...]
) -> Callable[..., Reading]:
    def read(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
        (scale, *_) = _bind(names, defaults, args, kwargs)
        return Reading(family, 0.0, scale)

    return read


def _uniform(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
    import numpy as np

    low, high, *_ = _bind(("low", "high", "size"), (0.0, 1.0, None), args, kwargs)
    return Reading("uniform", low, np.subtract(high, low))


def _standard(family: str) -> Callable[..., Reading]:
    def read(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
        return Reading(family, 0.0, 1.0)

    return read


def _selector(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
    params = tuple((str(i), _text(a)) for i, a in enumerate(args)) + tuple(
        (k, _text(v)) for k, v in sorted(kwargs.items())
    )
    return Reading("selector", None, None, params)


NUMPY: dict[str, Callable[..., Reading]] = {
    "laplace": _location("laplace", ("loc", "scale", "size"), (0.0, 1.0, None)),
    "normal": _location("gaussian", ("loc", "scale", "size"), (0.0, 1.0, None)),
    "gumbel": _location("gumbel", ("loc", "scale", "size"), (0.0, 1.0, None)),
    "exponential": _one_sided("exponential", ("scale", "size"), (1.0, None)),
    "uniform": _uniform,
    "standard_normal": _standard("gaussian"),
    "randn": _standard("gaussian"),
    "standard_exponential": _standard("exponential"),
    "random": _standard("uniform"),
    "random_sample": _standard("uniform"),
    "sample": _standard("uniform"),
    "ranf": _standard("uniform"),
    "rand": _standard("uniform"),
    **{
        name: _selector
        for name in (
            "integers",
            "randint",
            "random_integers",
            "choice",
            "permutation",
            "poisson",
            "binomial",
            "geometric",
            "negative_binomial",
            "hypergeometric",
            "multinomial",
            "beta",
            "gamma",
            "standard_gamma",
            "chisquare",
            "logistic",
            "lognormal",
            "pareto",
            "weibull",
            "rayleigh",
            "standard_cauchy",
            "standard_t",
            "triangular",
            "vonmises",
            "wald",
            "zipf",
            "dirichlet",
            "multivariate_normal",
            "bytes",
        )
    },
}
"""numpy's legacy ``np.random.*`` and ``Generator`` methods, by name."""


def _expovariate(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Reading:
    (lambd,) = _bind(("lambd",), (1.0,), args, kwargs)
    return Reading("exponential", 0.0, 1.0 / lambd if lambd else math.inf)


PYTHON: dict[str, Callable[..., Reading]] = {
    "gauss": _location("gaussian", ("mu", "sigma"), (0.0, 1.0)),
    "normalvariate": _location("gaussian", ("mu", "sigma"), (0.0, 1.0)),
    "expovariate": _expovariate,
    "uniform": lambda args, kwargs: Reading(
        "uniform", *_span(_bind(("a", "b"), (0.0, 1.0), args, kwargs))
    ),
    "random": _standard("uniform"),
    **{
        name: _selector
        for name in (
            "randint",
            "randrange",
            "choice",
            "choices",
            "sample",
            "getrandbits",
            "betavariate",
            "gammavariate",
            "lognormvariate",
            "paretovariate",
            "triangular",
            "vonmisesvariate",
            "weibullvariate",
            "binomialvariate",
        )
    },
}
"""Python's ``random`` module functions, by name."""


def _span(bounds: list[Any]) -> tuple[Any, Any]:
    low, high = bounds
    return low, high - low


def diffprivlib_reading(mechanism: Any, value: Any, defining: type) -> Reading:
    """A diffprivlib ``randomise(value)``: the class that defines it says the family."""
    import numpy as np

    epsilon = _fraction(getattr(mechanism, "epsilon", None))
    delta = _fraction(getattr(mechanism, "delta", 0.0)) or Fraction(0)
    sensitivity = _fraction(getattr(mechanism, "sensitivity", None))
    claim = LibraryClaim("diffprivlib", epsilon, delta, sensitivity)
    name = defining.__name__
    if name == "Laplace":
        scale = mechanism.sensitivity / (mechanism.epsilon - np.log(1 - mechanism.delta))
        return Reading("laplace", value, float(scale), claim=claim)
    if name in ("Gaussian", "GaussianAnalytic"):
        return Reading("gaussian", value, float(mechanism._scale), claim=claim)
    if name == "Geometric":
        scale = (
            Fraction(mechanism.sensitivity) / Fraction(mechanism.epsilon)
            if mechanism.epsilon
            else math.inf
        )
        return Reading("discrete-laplace", value, scale, claim=claim)
    return Reading("library", value, None, claim=claim)


def _fraction(value: Any) -> Fraction | None:
    if value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return Fraction(number) if math.isfinite(number) else None
