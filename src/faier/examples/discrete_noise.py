"""Mechanisms with OpenDP's integer noise as built-in examples for the certified engine.

``faier verify noisy-max-discrete-laplace --epsilon 0.7`` decides
report-noisy-max with discrete Laplace noise (the noise OpenDP adds to
integers) over every neighbouring pair of the grid {0..m}ⁿ, and
``svt-discrete-laplace`` Sparse Vector with the same noise;
``count-discrete-laplace`` is a count released with discrete Laplace noise
and clamped to its range (the truncated geometric mechanism of the FAIER
papers §4.1 with α = e^(−ε₀), the range-restricted geometric mechanism of
Ghosh, Roughgarden and Sundararajan 2012); ``count-discrete-gaussian``
releases the count with discrete Gaussian noise ((ε, δ) only).  Each entry
is (name, title, reference, parameters, builder), as in ``continuous.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from faier.core.problem import Problem
from faier.errors import SpecError
from faier.examples.parameters import ParameterSpec, fraction
from faier.mechanisms.discrete_noise import discrete_gaussian, discrete_laplace
from faier.mechanisms.inputs import grid, scalars
from faier.mechanisms.program import Program
from faier.privacy.neighbours import EveryQuery
from faier.privacy.specs import DifferentialPrivacy

QUERIES = ParameterSpec("n", "int", 3, "number of queries", minimum=1, maximum=6)
ANSWERS = ParameterSpec("m", "int", 1, "answers lie in {0..m}", minimum=1, maximum=20)
RANGE = ParameterSpec("m", "int", 4, "the count lies in {0..m}", minimum=1, maximum=200)
EPS0 = ParameterSpec("eps0", "fraction", "7/10", "ε₀ that sets the noise scale")
SIGMA = ParameterSpec("sigma", "fraction", "2", "σ of the discrete Gaussian noise")
THRESHOLD = ParameterSpec("T", "int", 1, "public threshold (a whole number)")

Spec = tuple[str, str, str, tuple[ParameterSpec, ...], Callable[[dict[str, Any]], Problem]]


def _positive(v: dict[str, Any], name: str) -> Fraction:
    value = fraction(v[name])
    if value <= 0:
        raise SpecError(f"{name} must be positive", where=f"--set {name}={v[name]}", fix="e.g. 2")
    return value


def _noisy_max(v: dict[str, Any]) -> Problem:
    noise = discrete_laplace(0, 2 / _positive(v, "eps0"))

    def body(x: Any, ctx: Any) -> Any:
        best, index = None, 0
        for i, answer in enumerate(x):
            noisy = answer + ctx.draw(noise)
            if best is None or noisy > best:
                best, index = noisy, i
        return index

    name = "noisy-max-discrete-laplace"
    doc = f"index of the largest of {v['n']} counts plus {noise.describe()} (ties: the first)"
    program: Program[Any] = Program(name, body, grid(v["n"], v["m"]), doc, lambda i: f"index {i}")
    return Problem(name, program, DifferentialPrivacy(EveryQuery(1)), title=doc)


def _svt(v: dict[str, Any]) -> Problem:
    eps0 = _positive(v, "eps0")
    threshold_noise = discrete_laplace(0, 2 / eps0)
    query_noise = discrete_laplace(0, 4 / eps0)
    threshold = int(v["T"])

    def body(x: Any, ctx: Any) -> Any:
        noisy_threshold = threshold + ctx.draw(threshold_noise)
        out = []
        for answer in x:
            if answer + ctx.draw(query_noise) >= noisy_threshold:
                out.append(True)
                break
            out.append(False)
        return tuple(out)

    name = "svt-discrete-laplace"
    doc = (
        f"Sparse Vector, cutoff 1: threshold {threshold} + {threshold_noise.describe()}, "
        f"each answer + {query_noise.describe()}, ⊤ at the first answer reaching it"
    )
    program: Program[Any] = Program(name, body, grid(v["n"], v["m"]), doc)
    return Problem(name, program, DifferentialPrivacy(EveryQuery(1)), title=doc)


def _count(kind: str) -> Callable[[dict[str, Any]], Problem]:
    def build(v: dict[str, Any]) -> Problem:
        top = v["m"]
        if kind == "laplace":
            noise = discrete_laplace(0, 1 / _positive(v, "eps0"))

            def body(x: Any, ctx: Any) -> Any:
                return min(max(x + ctx.draw(noise), 0), top)

            doc = f"a count in {{0..{top}}} plus {noise.describe()}, clamped to [0, {top}]"
        else:
            noise = discrete_gaussian(0, _positive(v, "sigma"))

            def body(x: Any, ctx: Any) -> Any:
                return x + ctx.draw(noise)

            doc = f"a count in {{0..{top}}} plus {noise.describe()}"
        name = f"count-discrete-{kind}"
        program: Program[Any] = Program(name, body, scalars(top), doc)
        return Problem(name, program, DifferentialPrivacy(EveryQuery(1)), title=doc)

    return build


SPECS: tuple[Spec, ...] = (
    (
        "noisy-max-discrete-laplace",
        "report-noisy-max, DLap(2/ε₀) on integers, reports the index (correct)",
        "Canonne, Kamath and Steinke 2020; StatDP §5.1, Alg. 5 with integer noise",
        (QUERIES, ANSWERS, EPS0),
        _noisy_max,
    ),
    (
        "svt-discrete-laplace",
        "Sparse Vector, DLap(2/ε₀) threshold and DLap(4/ε₀) queries, cutoff 1 (correct)",
        "StatDP §5.3, Alg. 11 with integer noise; Lyu et al. 2017",
        (QUERIES, ANSWERS, EPS0, THRESHOLD),
        _svt,
    ),
    (
        "count-discrete-laplace",
        "a count plus DLap(1/ε₀), clamped to its range (the truncated geometric, α = e^(−ε₀))",
        "FAIER papers §4.1; Ghosh, Roughgarden and Sundararajan 2012",
        (RANGE, EPS0),
        _count("laplace"),
    ),
    (
        "count-discrete-gaussian",
        "a count plus discrete Gaussian noise N_Z(0, σ²) ((ε, δ); no finite pure ε)",
        "Canonne, Kamath and Steinke 2020",
        (RANGE, SIGMA),
        _count("gaussian"),
    ),
)
