"""All samples of a noise-drawing program at once, path by path: the right distribution.

References are independent of the batch code: one-dimensional integrals by
scipy (Noisy Max with Gaussian noise, a mixture), and the program's own
single runs compared by two-sample tests where no closed form is at hand.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from scipy import integrate, stats

import faier
from faier.engines.statistical import batch_paths, subjects
from faier.engines.statistical.batch_paths import PathBatch, Unbatchable, batchable, run_paths
from faier.errors import MechanismError
from faier.mechanisms.handlers import SamplingContext
from faier.model.distribution import bernoulli

N = 200_000


def noisy_max(x: tuple[int, ...], sigma: float, value: bool = False) -> Any:
    def body(ctx: Any) -> Any:
        noisy = [q + ctx.draw(faier.gaussian(0, sigma)) for q in x]
        best = max(range(len(x)), key=lambda i: noisy[i])
        return noisy[best] if value else best

    return body


def sparse_vector(x: tuple[int, ...], cutoff: int) -> Any:
    """⊤/⊥ per query against one noisy threshold, stopping after ``cutoff`` ⊤."""

    def body(ctx: Any) -> Any:
        threshold = 1 + ctx.draw(faier.laplace(0, 2))
        out: list[bool] = []
        for q in x:
            above = q + ctx.draw(faier.laplace(0, 4)) >= threshold
            out.append(above)
            if above and out.count(True) == cutoff:
                break
        return tuple(out)

    return body


def single_runs(body: Any, n: int, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    return [body(SamplingContext(rng)) for _ in range(n)]


def within(count: int, p: float, n: int) -> bool:
    """A frequency within 5 standard deviations of its probability."""
    return abs(count - n * p) <= 5 * math.sqrt(n * p * (1 - p)) + 1


def test_noisy_max_gaussian_indices_have_the_integrals_probabilities() -> None:
    x, sigma = (0, 1, 2), 1.0
    outputs = run_paths(noisy_max(x, sigma), N, np.random.default_rng(1))
    counts = Counter(outputs)
    for i in range(3):

        def density(t: float, i: int = i) -> float:
            others = math.prod(stats.norm.cdf(t - x[j], scale=sigma) for j in range(3) if j != i)
            return float(stats.norm.pdf(t - x[i], scale=sigma) * others)

        p = integrate.quad(density, -12, 14)[0]
        assert within(counts[i], p, N), (i, counts[i], N * p)


def test_a_finite_draw_chooses_the_noise_of_each_sample() -> None:
    """A coin picks the noise scale: Pr[noise ≥ 1] = ⅓·e^(-1)/2 + ⅔·e^(-1/4)/2."""

    def body(ctx: Any) -> Any:
        wide = ctx.draw(bernoulli("1/3"))
        noise = ctx.draw(faier.laplace(0, 1 if wide else 4))
        return (wide, noise >= 1)

    counts = Counter(run_paths(body, N, np.random.default_rng(2)))
    p_wide_above = (1 / 3) * math.exp(-1) / 2
    p_narrow_above = (2 / 3) * math.exp(-1 / 4) / 2
    assert within(counts[(True, True)], p_wide_above, N)
    assert within(counts[(False, True)], p_narrow_above, N)
    assert within(counts[(True, True)] + counts[(True, False)], 1 / 3, N)


@pytest.mark.parametrize("cutoff", [1, 2])
def test_paths_of_different_lengths_match_single_runs(cutoff: int) -> None:
    """Sparse Vector draws as many query noises as it runs for: transcripts by chi-square."""
    body = sparse_vector((0, 2, 1, 2), cutoff)
    batch = Counter(run_paths(body, N, np.random.default_rng(3)))
    single = Counter(single_runs(body, 40_000, 4))
    keys = sorted(set(batch) | set(single))
    table = np.array([[batch[k] for k in keys], [single[k] for k in keys]]) + 0.5
    assert stats.chi2_contingency(table).pvalue > 1e-6
    assert all(len(k) <= 4 and k.count(True) <= cutoff for k in batch)


def test_released_numbers_match_single_runs() -> None:
    body = noisy_max((0, 2, 1), 1.5, value=True)
    batch = run_paths(body, N, np.random.default_rng(5))
    assert all(isinstance(v, float) for v in batch[:100])
    single = single_runs(body, 40_000, 6)
    assert stats.ks_2samp(batch, single).pvalue > 1e-6


@pytest.mark.parametrize(
    "operation",
    [float, round, lambda v: v * v, abs],
    ids=["float", "round", "product", "abs"],
)
def test_what_arrays_cannot_do_is_run_once_per_sample(operation: Any) -> None:
    def body(ctx: Any) -> Any:
        return operation(ctx.draw(faier.laplace(0, 1))) > 0

    assert not batchable(body)


def test_integer_noise_is_run_once_per_sample() -> None:
    def body(ctx: Any) -> Any:
        return ctx.draw(faier.discrete_laplace(1)) >= 0

    with pytest.raises(Unbatchable):
        run_paths(body, 10, np.random.default_rng(0))
    assert not batchable(body)


def test_too_many_paths_give_up() -> None:
    with patch.object(batch_paths, "MAX_PATHS", 3), pytest.raises(Unbatchable):
        run_paths(noisy_max((0, 1, 2, 3), 1.0), 1000, np.random.default_rng(0))


def test_a_batch_that_fails_later_falls_back_for_good() -> None:
    calls: list[int] = []

    def fallback(n: int, rng: np.random.Generator) -> Any:
        calls.append(n)
        return run_paths(noisy_max((0, 1), 1.0), n, rng)

    def body(ctx: Any) -> Any:
        raise Unbatchable("only on a rare path")

    draw = PathBatch(body, lambda n, rng: subjects.Outputs.from_values(fallback(n, rng)))
    assert draw.draw(50, np.random.default_rng(0)).n == 50
    assert draw.draw(20, np.random.default_rng(0)).n == 20
    assert calls == [50, 20] and not draw.batched


def test_the_tester_samples_noisy_max_gaussian_at_once() -> None:
    problem = faier.load_problem("noisy-max-gaussian")
    assert isinstance(problem.mechanism, faier.Program)
    subject = subjects.from_problem(problem, per_sample=False)
    assert "all samples at once, path by path" in subject.sampling
    assert all(isinstance(d, PathBatch) for d in subject.draws)
    one_by_one = subjects.from_problem(problem, per_sample=True)
    assert "one run" in one_by_one.sampling


@pytest.mark.parametrize(
    "body",
    [
        noisy_max((0, 1, 2), 1.0),
        noisy_max((0, 2, 1), 1.0, value=True),
        sparse_vector((0, 2, 1, 2), 2),
        lambda ctx: ("x", ctx.draw(faier.laplace(0, 1)), ctx.draw(faier.laplace(0, 1)) > 0),
        lambda ctx: [1, 2] if ctx.draw(faier.laplace(0, 1)) > 0 else [3],
    ],
    ids=["index", "value", "transcript", "mixed", "ragged"],
)
def test_outputs_built_per_path_are_those_built_per_sample(body: Any) -> None:
    fast = batch_paths.run_outputs(body, 2000, np.random.default_rng(7))
    slow = subjects.Outputs.from_values(run_paths(body, 2000, np.random.default_rng(7)))
    assert fast.categories == slow.categories and fast.is_list == slow.is_list
    assert np.array_equal(fast.codes, slow.codes)
    assert np.array_equal(fast.numbers, slow.numbers, equal_nan=True)


def test_a_nested_output_is_refused_as_in_single_runs() -> None:
    def body(ctx: Any) -> Any:
        return ((ctx.draw(faier.laplace(0, 1)),), True)

    with pytest.raises(MechanismError, match="nested list"):
        batch_paths.run_outputs(body, 100, np.random.default_rng(0))
