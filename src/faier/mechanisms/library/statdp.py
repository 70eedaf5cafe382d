"""StatDP's suite (StatDP §5, Algorithms 5–15) as programs drawing continuous noise.

The same mechanisms as ``continuous.py`` (which the tester samples), written
once against ``ctx.draw(faier.laplace(...))`` with exact noise scales so
that the certified engine decides them over a finite grid of query answers.
``eps0`` is the ε₀ that sets the noise (StatDP uses 0.7); Noisy Max reports
1-based indices; the sparse vector variants return one entry per query read
(``True``/``False``, iSVT 4 the noisy answer instead of ``True``), halting
after ``cutoff`` ⊤ answers where the algorithm has a cutoff.  SVT's query
noise is Lap(4NΔ/ε₀) as in Lyu et al. and the StatDP code; Δ = 1.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from faier.errors import SpecError
from faier.mechanisms.continuous import Continuous, exponential, gaussian, laplace
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import grid
from faier.mechanisms.program import Program
from faier.mechanisms.symmetry import permute_queries

SPARSE = ("svt", "isvt1", "isvt2", "isvt3", "isvt4")


def _show(output: Any) -> str:
    if isinstance(output, tuple):
        return "[" + ", ".join(_show(o) for o in output) + "]"
    if output is True:
        return "⊤"
    if output is False:
        return "⊥"
    return str(output)


def _argmax(noisy: list[Any]) -> int:
    """The first largest entry's position (ties have probability zero)."""
    best = 0
    for i in range(1, len(noisy)):
        if noisy[i] > noisy[best]:
            best = i
    return best


def noisy_max(
    n: int, m: int, eps0: Fraction, *, noise: str, report: str, sigma: Fraction | None = None
) -> Program[Any]:
    """Noisy Max with Lap(2/ε₀), Exp(2/ε₀) or N(0, σ²) noise, reporting the index or the value."""
    scale = 2 / eps0

    def draw() -> Continuous:
        if noise == "gaussian":
            assert sigma is not None
            return gaussian(0, sigma)
        return laplace(0, scale) if noise == "laplace" else exponential(scale)

    each = draw()  # one object for every draw: engines replay the body once per path

    def body(x: Any, ctx: Context) -> Any:
        noisy = [q + ctx.draw(each) for q in x]  # type: ignore[arg-type]
        best = _argmax(noisy)
        return best + 1 if report == "index" else noisy[best]

    return Program(
        name=f"noisy-max-{noise}" + ("" if report == "index" else "-value"),
        body=body,
        inputs=grid(n, m),
        doc=f"Noisy Max, {_noise_name(noise, sigma)}, reports the {report}",
        output_name=(lambda i: f"index {i}") if report == "index" else _show,
        symmetry=permute_queries("index" if report == "index" else "same"),
    )


def _noise_name(noise: str, sigma: Fraction | None) -> str:
    return {"laplace": "Lap(2/ε₀)", "exponential": "Exp(2/ε₀)"}.get(noise, f"N(0, {sigma}²)")


def histogram_gaussian(n: int, m: int, sigma: Fraction) -> Program[Any]:
    """Every count plus N(0, σ²): the Gaussian mechanism releasing n noisy numbers."""

    return Program(
        name="histogram-gaussian",
        body=_per_count(gaussian(0, sigma)),
        inputs=grid(n, m),
        doc=f"histogram, N(0, {sigma}²) per bin (the Gaussian mechanism)",
        output_name=_show,
    )


def svt_gaussian(
    n: int, m: int, sigma: Fraction, sigma_q: Fraction, *, cutoff: int, threshold: Fraction
) -> Program[Any]:
    """Sparse Vector with Gaussian threshold noise N(0, σ²) and query noise N(0, σ_q²)."""

    return Program(
        name="svt-gaussian",
        body=_sparse_body(threshold, gaussian(0, sigma), gaussian(0, sigma_q), cutoff, False),
        inputs=grid(n, m),
        doc=f"Sparse Vector, threshold {threshold} + N(0, {sigma}²), queries + N(0, {sigma_q}²), "
        f"cutoff {cutoff}",
        output_name=_show,
    )


def _per_count(noise: Continuous) -> Callable[[Any, Context], Any]:
    """Every count plus its own draw of ``noise`` (the histograms)."""

    def body(x: Any, ctx: Context) -> Any:
        return tuple(q + ctx.draw(noise) for q in x)  # type: ignore[arg-type]

    return body


def _sparse_body(
    threshold: Fraction,
    threshold_noise: Continuous,
    query_noise: Continuous | None,
    cutoff: int | None,
    release: bool,
) -> Callable[[Any, Context], Any]:
    """Each query (plus its noise, if any) against one noisy threshold: ⊤, or the noisy
    value when ``release`` (iSVT 4), else ⊥; stops after ``cutoff`` of them (None: never)."""

    def body(x: Any, ctx: Context) -> Any:
        noisy_threshold = threshold + ctx.draw(threshold_noise)  # type: ignore[arg-type]
        out: list[Any] = []
        hits = 0
        for q in x:
            value = q if query_noise is None else q + ctx.draw(query_noise)  # type: ignore[arg-type]
            if value >= noisy_threshold:
                out.append(value if release else True)
                hits += 1
                if cutoff is not None and hits >= cutoff:
                    break
            else:
                out.append(False)
        return tuple(out)

    return body


def histogram(n: int, m: int, eps0: Fraction, *, wrong_scale: bool) -> Program[Any]:
    """Every count plus Lap(1/ε₀) (Alg. 9), or Lap(ε₀) (Alg. 10, wrong scale)."""
    scale = eps0 if wrong_scale else 1 / eps0

    return Program(
        name="histogram-laplace" + ("-wrong-scale" if wrong_scale else ""),
        body=_per_count(laplace(0, scale)),
        inputs=grid(n, m),
        doc=f"histogram, Lap({'ε₀' if wrong_scale else '1/ε₀'}) per bin",
        output_name=_show,
        symmetry=permute_queries("vector"),
    )


def sparse(
    variant: str, n: int, m: int, eps0: Fraction, *, cutoff: int, threshold: Fraction
) -> Program[Any]:
    """SVT (Alg. 11) and iSVT 1–4 (Algs. 12–15) over n queries."""
    if variant not in SPARSE:
        raise SpecError(f"unknown sparse vector variant {variant!r}", fix=", ".join(SPARSE))
    big_n = Fraction(cutoff)
    threshold_scale, query_scale, stops = {
        "svt": (2 / eps0, 4 * big_n / eps0, True),
        "isvt1": (1 / eps0, None, False),
        "isvt2": (2 / eps0, 2 / eps0, False),
        "isvt3": (4 / eps0, 4 / (3 * eps0), True),
        "isvt4": (2 / eps0, 2 * big_n / eps0, True),
    }[variant]

    query_noise = None if query_scale is None else laplace(0, query_scale)
    body = _sparse_body(
        threshold,
        laplace(0, threshold_scale),
        query_noise,
        cutoff if stops else None,
        variant == "isvt4",
    )

    return Program(
        name=f"{variant}-laplace",
        body=body,
        inputs=grid(n, m),
        doc=f"{variant} with public threshold {threshold}"
        + (f" and cutoff {cutoff}" if stops else ""),
        output_name=_show,
        # without a cutoff every query meets the same threshold: permuting the answers
        # permutes the answer vector; with one, the order decides where it halts
        symmetry=None if stops else permute_queries("vector"),
    )
