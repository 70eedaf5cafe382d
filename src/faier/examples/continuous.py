"""StatDP's suite with continuous noise as built-in examples for the certified engine.

``faier verify noisy-max-laplace --set n=3 --epsilon 0.7`` decides Noisy Max
with Lap(2/ε₀) noise over every neighbouring pair of the grid {0..m}ⁿ.  The
names are the tester's (``faier test noisy-max-laplace --claimed 0.7``
samples the same mechanism).  Each entry is (name, title, reference,
parameters, builder); ``registry.py`` turns them into examples.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from faier.core.problem import Problem
from faier.examples.parameters import ParameterSpec, fraction
from faier.mechanisms.library import statdp
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy

QUERIES = ParameterSpec("n", "int", 3, "number of queries", minimum=1, maximum=12)
ANSWERS = ParameterSpec("m", "int", 2, "answers lie in {0..m}", minimum=1, maximum=20)
EPS0 = ParameterSpec("eps0", "fraction", "7/10", "ε₀ that sets the noise scale (StatDP: 0.7)")
CUTOFF = ParameterSpec("cutoff", "int", 1, "halt after this many ⊤ answers (N)", minimum=1)
THRESHOLD = ParameterSpec("T", "fraction", "1", "public threshold")

SIGMA = ParameterSpec("sigma", "fraction", "2", "standard deviation σ of the Gaussian noise")
SIGMA_Q = ParameterSpec("sigma_q", "fraction", "4", "standard deviation of the query noise")

Spec = tuple[str, str, str, tuple[ParameterSpec, ...], Callable[[dict[str, Any]], Problem]]


def _sigma(v: dict[str, Any], name: str = "sigma") -> Fraction:
    from faier.errors import SpecError

    value = fraction(v[name])
    if value <= 0:
        raise SpecError(f"{name} must be positive", where=f"--set {name}={v[name]}", fix="e.g. 2")
    return value


def _gaussian(kind: str) -> Callable[[dict[str, Any]], Problem]:
    def build(v: dict[str, Any]) -> Problem:
        if kind == "noisy-max":
            mechanism = statdp.noisy_max(
                v["n"], v["m"], Fraction(1), noise="gaussian", report="index", sigma=_sigma(v)
            )
            neighbours: Any = EveryQuery(1)
        elif kind == "svt":
            mechanism = statdp.svt_gaussian(
                v["n"],
                v["m"],
                _sigma(v),
                _sigma(v, "sigma_q"),
                cutoff=v.get("cutoff", 1),
                threshold=fraction(v["T"]),
            )
            neighbours = EveryQuery(1)
        else:
            mechanism = statdp.histogram_gaussian(v["n"], v["m"], _sigma(v))
            neighbours = OneQuery(1)
        return Problem(
            mechanism.name, mechanism, DifferentialPrivacy(neighbours), title=mechanism.doc
        )

    return build


def _eps0(v: dict[str, Any]) -> Fraction:
    from faier.errors import SpecError

    value = fraction(v["eps0"])
    if value <= 0:
        raise SpecError("ε₀ must be positive", where=f"--set eps0={v['eps0']}", fix="e.g. 7/10")
    return value


def _noisy_max(noise: str, report: str) -> Callable[[dict[str, Any]], Problem]:
    def build(v: dict[str, Any]) -> Problem:
        mechanism = statdp.noisy_max(v["n"], v["m"], _eps0(v), noise=noise, report=report)
        return Problem(
            mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)), title=mechanism.doc
        )

    return build


def _histogram(wrong: bool) -> Callable[[dict[str, Any]], Problem]:
    def build(v: dict[str, Any]) -> Problem:
        mechanism = statdp.histogram(v["n"], v["m"], _eps0(v), wrong_scale=wrong)
        return Problem(
            mechanism.name, mechanism, DifferentialPrivacy(OneQuery(1)), title=mechanism.doc
        )

    return build


def _sparse(variant: str) -> Callable[[dict[str, Any]], Problem]:
    def build(v: dict[str, Any]) -> Problem:
        mechanism = statdp.sparse(
            variant,
            v["n"],
            v["m"],
            _eps0(v),
            cutoff=v.get("cutoff", 1),
            threshold=fraction(v["T"]),
        )
        return Problem(
            mechanism.name, mechanism, DifferentialPrivacy(EveryQuery(1)), title=mechanism.doc
        )

    return build


_BASE = (QUERIES, ANSWERS, EPS0)
_GAUSS = (QUERIES, ANSWERS, SIGMA)
_SVT = (*_BASE, CUTOFF, THRESHOLD)

SPECS: tuple[Spec, ...] = (
    (
        "noisy-max-laplace",
        "Noisy Max, Lap(2/ε₀), reports the index (continuous; correct)",
        "StatDP §5.1, Alg. 5",
        _BASE,
        _noisy_max("laplace", "index"),
    ),
    (
        "noisy-max-exponential",
        "Noisy Max, Exp(2/ε₀), reports the index (continuous; correct)",
        "StatDP §5.1, Alg. 6",
        _BASE,
        _noisy_max("exponential", "index"),
    ),
    (
        "noisy-max-laplace-value",
        "Noisy Max, Lap(2/ε₀), reports the value (continuous; incorrect)",
        "StatDP §5.1, Alg. 7",
        _BASE,
        _noisy_max("laplace", "value"),
    ),
    (
        "noisy-max-exponential-value",
        "Noisy Max, Exp(2/ε₀), reports the value (continuous; no finite ε)",
        "StatDP §5.1, Alg. 8",
        _BASE,
        _noisy_max("exponential", "value"),
    ),
    (
        "histogram-laplace",
        "histogram, Lap(1/ε₀) per bin, one-query neighbours (continuous; correct)",
        "StatDP §5.2, Alg. 9",
        _BASE,
        _histogram(False),
    ),
    (
        "histogram-laplace-wrong-scale",
        "histogram, Lap(ε₀) per bin (continuous; incorrect, 1/ε₀-DP)",
        "StatDP §5.2, Alg. 10",
        _BASE,
        _histogram(True),
    ),
    (
        "svt-laplace",
        "Sparse Vector (Lyu et al.), Lap noise (continuous; correct)",
        "StatDP §5.3, Alg. 11; Lyu et al. 2017",
        _SVT,
        _sparse("svt"),
    ),
    (
        "isvt1-laplace",
        "iSVT 1: no query noise, no cutoff (continuous; no finite ε)",
        "StatDP §5.3, Alg. 12",
        (*_BASE, THRESHOLD),
        _sparse("isvt1"),
    ),
    (
        "isvt2-laplace",
        "iSVT 2: no cutoff (continuous; incorrect)",
        "StatDP §5.3, Alg. 14",
        (*_BASE, THRESHOLD),
        _sparse("isvt2"),
    ),
    (
        "isvt3-laplace",
        "iSVT 3: query noise ignores N (continuous; incorrect)",
        "StatDP §5.3, Alg. 13",
        _SVT,
        _sparse("isvt3"),
    ),
    (
        "isvt4-laplace",
        "iSVT 4: reports the noisy answer (continuous; incorrect)",
        "StatDP §5.3, Alg. 15",
        _SVT,
        _sparse("isvt4"),
    ),
    (
        "noisy-max-gaussian",
        "Noisy Max, N(0, σ²), reports the index (continuous; (ε, δ))",
        "StatDP §5.1, Alg. 5 with Gaussian noise",
        _GAUSS,
        _gaussian("noisy-max"),
    ),
    (
        "svt-gaussian",
        "Sparse Vector, Gaussian threshold and query noise (continuous; (ε, δ))",
        "StatDP §5.3, Alg. 11 with Gaussian noise",
        (*_GAUSS, SIGMA_Q, CUTOFF, THRESHOLD),
        _gaussian("svt"),
    ),
    (
        "histogram-gaussian",
        "histogram, N(0, σ²) per bin, one-query neighbours (the Gaussian mechanism; no pure ε)",
        "Balle and Wang 2018, Thm 8 (exact δ(ε))",
        _GAUSS,
        _gaussian("histogram"),
    ),
)
