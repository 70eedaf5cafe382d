"""StatDP's suite with continuous noise (StatDP §5, Algorithms 5–15) as sampled mechanisms.

Each mechanism is written twice on purpose:

* a numpy sampler drawing n outputs at once, the tester's fast path;
* the paper's scalar pseudo-code, which the argument generator executes
  symbolically, the benchmark times as the per-sample baseline, and the tests
  check against the sampler in distribution.

``epsilon`` is the claimed ε₀ that sets the noise scales.  Noisy Max reports
1-based indices, like faier's discrete Noisy Max.  The sparse vector variants
return the list of answers in query order (the paper prepends), ``True`` /
``False`` per query, and iSVT 4 the noisy answer instead of ``True``.  SVT
uses Lap(4NΔ/ε₀) for the queries like Lyu et al. and the StatDP code (see
``sparse_vector.py`` on the paper's misprint); Δ = 1 throughout.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from faier.mechanisms.sampled import ABSENT, NUMBER, Argument, Outputs, Queries, Sampled

Vector = list[float]


def _laplace_noisy(queries: Queries, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    return queries + rng.laplace(scale=2.0 / epsilon, size=(n, queries.size))


def _exponential_noisy(queries: Queries, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    return queries + rng.exponential(scale=2.0 / epsilon, size=(n, queries.size))


def noisy_max_laplace(queries: Queries, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    """Index of the largest answer + Lap(2/ε₀) (Alg. 5, correct)."""
    return _laplace_noisy(queries, epsilon, n, rng).argmax(axis=1) + 1


def noisy_max_laplace_value(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator
) -> Any:
    """The largest noisy answer itself (Alg. 7, incorrect: ε₀·|Q|/2)."""
    return _laplace_noisy(queries, epsilon, n, rng).max(axis=1)


def noisy_max_exponential(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator
) -> Any:
    """Index of the largest answer + Exp(2/ε₀) (Alg. 6, correct)."""
    return _exponential_noisy(queries, epsilon, n, rng).argmax(axis=1) + 1


def noisy_max_exponential_value(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator
) -> Any:
    """The largest noisy answer itself (Alg. 8, incorrect: no finite ε)."""
    return _exponential_noisy(queries, epsilon, n, rng).max(axis=1)


def histogram_laplace(queries: Queries, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    """Every count + Lap(1/ε₀) (Alg. 9, correct for one-query neighbours)."""
    return queries + rng.laplace(scale=1.0 / epsilon, size=(n, queries.size))


def histogram_wrong_scale(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator
) -> Any:
    """Every count + Lap(ε₀) (Alg. 10, incorrect: 1/ε₀-DP)."""
    return queries + rng.laplace(scale=epsilon, size=(n, queries.size))


def _sparse(
    queries: Queries,
    n: int,
    rng: np.random.Generator,
    *,
    threshold: float,
    threshold_scale: float,
    query_scale: float | None,
    cutoff: int | None,
    reveal: bool = False,
) -> Outputs:
    """n sparse vector runs, one query position at a time over the runs still going.

    Runs that halted draw no more noise, so a cutoff of 1 costs about two
    draws per run instead of one per query.
    """
    length = queries.size
    noisy_threshold = threshold + rng.laplace(scale=threshold_scale, size=n)
    codes = np.full((n, length), ABSENT, dtype=np.int16)
    numbers = np.full((n, length), np.nan)
    hits = np.zeros(n, dtype=np.int64)
    running = np.arange(n)
    for j in range(length):
        if running.size == 0:
            break
        value = queries[j] + (
            rng.laplace(scale=query_scale, size=running.size) if query_scale else 0.0
        )
        up = value >= noisy_threshold[running]
        if reveal:
            codes[running, j] = np.where(up, NUMBER, 0)
            numbers[running[up], j] = value[up]
        else:
            codes[running, j] = up
        if cutoff is not None:
            hits[running] += up
            running = running[hits[running] < cutoff]
    return Outputs(numbers, codes, (False,) if reveal else (False, True), True)


def svt(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator, *, N: int, T: float
) -> Outputs:
    """Lyu et al.'s SVT (Alg. 11, correct)."""
    return _sparse(
        queries,
        n,
        rng,
        threshold=T,
        threshold_scale=2.0 / epsilon,
        query_scale=4.0 * N / epsilon,
        cutoff=int(N),
    )


def isvt1(queries: Queries, epsilon: float, n: int, rng: np.random.Generator, *, T: float) -> Any:
    """No query noise, no cutoff (Alg. 12, not private for any ε)."""
    return _sparse(
        queries, n, rng, threshold=T, threshold_scale=1.0 / epsilon, query_scale=None, cutoff=None
    )


def isvt2(queries: Queries, epsilon: float, n: int, rng: np.random.Generator, *, T: float) -> Any:
    """No cutoff on ``True`` answers (Alg. 14, not private for any ε)."""
    return _sparse(
        queries,
        n,
        rng,
        threshold=T,
        threshold_scale=2.0 / epsilon,
        query_scale=2.0 / epsilon,
        cutoff=None,
    )


def isvt3(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator, *, N: int, T: float
) -> Any:
    """Query noise that does not scale with N (Alg. 13: (1+6N)/4·ε₀)."""
    return _sparse(
        queries,
        n,
        rng,
        threshold=T,
        threshold_scale=4.0 / epsilon,
        query_scale=4.0 / (3.0 * epsilon),
        cutoff=int(N),
    )


def isvt4(
    queries: Queries, epsilon: float, n: int, rng: np.random.Generator, *, N: int, T: float
) -> Any:
    """Reports the noisy answer instead of ``True`` (Alg. 15, not ε₀-private)."""
    return _sparse(
        queries,
        n,
        rng,
        threshold=T,
        threshold_scale=2.0 / epsilon,
        query_scale=2.0 * N / epsilon,
        cutoff=int(N),
        reveal=True,
    )


def _argmax(values: Vector) -> int:
    best = 0
    for i in range(1, len(values)):
        if values[i] > values[best]:
            best = i
    return best


def noisy_max_laplace_ref(queries: Vector, epsilon: float, rng: Any) -> int:
    noisy = [q + rng.laplace(scale=2.0 / epsilon) for q in queries]
    return _argmax(noisy) + 1


def noisy_max_laplace_value_ref(queries: Vector, epsilon: float, rng: Any) -> float:
    return float(max(q + rng.laplace(scale=2.0 / epsilon) for q in queries))


def noisy_max_exponential_ref(queries: Vector, epsilon: float, rng: Any) -> int:
    noisy = [q + rng.exponential(scale=2.0 / epsilon) for q in queries]
    return _argmax(noisy) + 1


def noisy_max_exponential_value_ref(queries: Vector, epsilon: float, rng: Any) -> float:
    return float(max(q + rng.exponential(scale=2.0 / epsilon) for q in queries))


def histogram_laplace_ref(queries: Vector, epsilon: float, rng: Any) -> list[float]:
    return [q + rng.laplace(scale=1.0 / epsilon) for q in queries]


def histogram_wrong_scale_ref(queries: Vector, epsilon: float, rng: Any) -> list[float]:
    return [q + rng.laplace(scale=epsilon) for q in queries]


def svt_ref(queries: Vector, epsilon: float, rng: Any, *, N: Any, T: Any) -> list[bool]:
    out: list[bool] = []
    noisy_threshold = T + rng.laplace(scale=2.0 / epsilon)
    count = 0
    for q in queries:
        if q + rng.laplace(scale=4.0 * N / epsilon) >= noisy_threshold:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def isvt1_ref(queries: Vector, epsilon: float, rng: Any, *, T: Any) -> list[bool]:
    noisy_threshold = T + rng.laplace(scale=1.0 / epsilon)
    return [q >= noisy_threshold for q in queries]


def isvt2_ref(queries: Vector, epsilon: float, rng: Any, *, T: Any) -> list[bool]:
    noisy_threshold = T + rng.laplace(scale=2.0 / epsilon)
    return [q + rng.laplace(scale=2.0 / epsilon) >= noisy_threshold for q in queries]


def isvt3_ref(queries: Vector, epsilon: float, rng: Any, *, N: Any, T: Any) -> list[bool]:
    out: list[bool] = []
    noisy_threshold = T + rng.laplace(scale=4.0 / epsilon)
    count = 0
    for q in queries:
        if q + rng.laplace(scale=4.0 / (3.0 * epsilon)) >= noisy_threshold:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


def isvt4_ref(queries: Vector, epsilon: float, rng: Any, *, N: Any, T: Any) -> list[Any]:
    out: list[Any] = []
    noisy_threshold = T + rng.laplace(scale=2.0 / epsilon)
    count = 0
    for q in queries:
        noisy = q + rng.laplace(scale=2.0 * N / epsilon)
        if noisy >= noisy_threshold:
            out.append(noisy)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out


CUTOFF = Argument("N", "noise", low=1, integer=True)
THRESHOLD = Argument("T", "branch")


def _entry(
    name: str,
    sampler: Any,
    reference: Any,
    doc: str,
    neighbours: str = "every-query",
    arguments: tuple[Argument, ...] = (),
) -> tuple[str, Sampled]:
    return name, Sampled(
        name,
        vectorised=sampler,
        reference=reference,
        neighbours=neighbours,
        arguments=arguments,
        doc=doc,
    )


SUITE: dict[str, Sampled] = dict(
    (
        _entry(
            "noisy-max-laplace",
            noisy_max_laplace,
            noisy_max_laplace_ref,
            "Noisy Max, Lap(2/ε₀), reports the index (StatDP Alg. 5; correct)",
        ),
        _entry(
            "noisy-max-laplace-value",
            noisy_max_laplace_value,
            noisy_max_laplace_value_ref,
            "Noisy Max, Lap(2/ε₀), reports the value (Alg. 7; incorrect, ε₀·|Q|/2)",
        ),
        _entry(
            "noisy-max-exponential",
            noisy_max_exponential,
            noisy_max_exponential_ref,
            "Noisy Max, Exp(2/ε₀), reports the index (Alg. 6; correct)",
        ),
        _entry(
            "noisy-max-exponential-value",
            noisy_max_exponential_value,
            noisy_max_exponential_value_ref,
            "Noisy Max, Exp(2/ε₀), reports the value (Alg. 8; incorrect, no finite ε)",
        ),
        _entry(
            "histogram-laplace",
            histogram_laplace,
            histogram_laplace_ref,
            "Histogram, Lap(1/ε₀) per bin (Alg. 9; correct)",
            neighbours="one-query",
        ),
        _entry(
            "histogram-laplace-wrong-scale",
            histogram_wrong_scale,
            histogram_wrong_scale_ref,
            "Histogram, Lap(ε₀) per bin (Alg. 10; incorrect, 1/ε₀-DP)",
            neighbours="one-query",
        ),
        _entry(
            "svt-laplace",
            svt,
            svt_ref,
            "Sparse Vector, Lyu et al. (Alg. 11; correct)",
            arguments=(CUTOFF, THRESHOLD),
        ),
        _entry(
            "isvt1-laplace",
            isvt1,
            isvt1_ref,
            "iSVT 1: no query noise, no cutoff (Alg. 12; no finite ε)",
            arguments=(THRESHOLD,),
        ),
        _entry(
            "isvt2-laplace",
            isvt2,
            isvt2_ref,
            "iSVT 2: no cutoff (Alg. 14; no finite ε)",
            arguments=(THRESHOLD,),
        ),
        _entry(
            "isvt3-laplace",
            isvt3,
            isvt3_ref,
            "iSVT 3: query noise ignores N (Alg. 13; (1+6N)/4·ε₀)",
            arguments=(CUTOFF, THRESHOLD),
        ),
        _entry(
            "isvt4-laplace",
            isvt4,
            isvt4_ref,
            "iSVT 4: reports the noisy answer above the threshold (Alg. 15; not ε₀-private)",
            arguments=(CUTOFF, THRESHOLD),
        ),
    )
)
"""The suite by name: ``faier test svt-laplace --claimed 0.7``."""
