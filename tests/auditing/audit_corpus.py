"""Functions with the privacy bugs shipped in real DP code, and their fixed versions.

One or more per bug class of "Privacy in Theory, Bugs in Practice" (Cebere et
al., PETS 2026).  The line a bug is reported at carries the comment ``# BUG``
(the line of the primitive, or of the call that differs between D and D′).
"""

from __future__ import annotations

import random

import numpy as np

# -- sensitivity computed for clipped data, raw data noised


def raw_data_noised(data, epsilon=1.0):
    np.nan_to_num(np.clip(data, 0.0, 1.0))
    sensitivity = 1.0  # right for `clipped`, which is not what is released
    return float(np.sum(data) + np.random.laplace(0.0, sensitivity / epsilon))  # BUG


def clipped_data_noised(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))


# -- the dataset size used as public under add/remove


def mean_over_private_size(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    noisy = np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon)  # BUG
    return float(noisy / max(len(data), 1))


def mean_over_public_size(data, epsilon=1.0, n=100):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float((np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon)) / n)


# -- NaN (and ±inf) surviving np.clip


def nan_through_clip(data, epsilon=1.0):
    clipped = np.clip(data, 0.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))  # BUG


# -- categories inferred from the private data


def histogram_of_seen_categories(data, epsilon=1.0):
    counts = {}
    for category in sorted(set(data)):
        true = sum(1 for x in data if x == category)
        counts[category] = true + np.random.laplace(0.0, 1.0 / epsilon)  # BUG
    return counts


def histogram_of_public_categories(data, epsilon=1.0, categories=("a", "b", "c")):
    return {
        c: sum(1 for x in data if x == c) + np.random.laplace(0.0, 1.0 / epsilon)
        for c in categories
    }


# -- a scale that is zero for some parameter


def scale_floored(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    scale = 1.0 // epsilon  # 0 once epsilon > 1
    return float(np.sum(clipped) + np.random.laplace(0.0, scale))  # BUG


def scale_divided(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))


# -- the budget spent twice


def budget_spent_twice(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    total = float(np.sum(clipped))
    first = total + np.random.laplace(0.0, 1.0 / epsilon)
    second = total + np.random.laplace(0.0, 1.0 / epsilon)  # BUG
    return (first, second)


def budget_split(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    total = float(np.sum(clipped))
    first = total + np.random.laplace(0.0, 2.0 / epsilon)
    second = total + np.random.laplace(0.0, 2.0 / epsilon)
    return (first, second)


# -- noise drawn from Python's random


def python_uniform_noise(data, epsilon=1.0):
    clipped = min(max(len(data), 0), 10**9)
    return clipped + random.uniform(-1.0 / epsilon, 1.0 / epsilon)  # BUG


def python_gauss_under_delta(data, epsilon=1.0, sigma=5.0):
    return len(data) + random.gauss(0.0, sigma)


# -- a data-dependent loop count


def noisy_sum_per_batch(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    released = []
    for start in range(0, len(clipped), 2):
        noise = np.random.laplace(0.0, 1.0 / epsilon)  # BUG
        released.append(float(clipped[start : start + 2].sum() + noise))
    return released


def noisy_histogram_of_values(data, epsilon=1.0, bins=4):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    counts = np.histogram(clipped, bins=bins, range=(0.0, 1.0))[0]
    return [float(c + np.random.laplace(0.0, 1.0 / epsilon)) for c in counts]


# -- a data-dependent scale


def scale_from_the_data(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    spread = float(clipped.max() - clipped.min()) if len(clipped) else 1.0
    return float(np.sum(clipped) + np.random.laplace(0.0, max(spread, 0.5) / epsilon))  # BUG


def scale_from_the_bounds(data, epsilon=1.0, lower=0.0, upper=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=lower, posinf=upper, neginf=lower), lower, upper)
    return float(np.sum(clipped) + np.random.laplace(0.0, (upper - lower) / epsilon))


# -- noise seeded with a constant


def seeded_noise(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    rng = np.random.default_rng(42)  # BUG
    return float(np.sum(clipped) + rng.laplace(0.0, 1.0 / epsilon))


def fresh_noise(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    rng = np.random.default_rng()
    return float(np.sum(clipped) + rng.laplace(0.0, 1.0 / epsilon))


# -- Gaussian noise under a pure ε claim


def gaussian_for_pure_epsilon(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.normal(0.0, 4.0 / epsilon))  # BUG


def gaussian_for_approximate_dp(data, epsilon=1.0, delta=1e-5):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    sigma = float(np.sqrt(2 * np.log(1.25 / delta)) / epsilon)
    return float(np.sum(clipped) + np.random.normal(0.0, sigma))


# -- a diffprivlib mechanism subclassed to leak


def leaky_geometric(data, epsilon=1.0):
    from diffprivlib.mechanisms import Geometric

    class Doubled(Geometric):
        def randomise(self, value):
            return super().randomise(2 * value)  # BUG

    count = int(sum(1 for x in data if x > 0.5))
    return Doubled(epsilon=epsilon, sensitivity=1).randomise(count)


def diffprivlib_geometric(data, epsilon=1.0):
    from diffprivlib.mechanisms import Geometric

    count = int(sum(1 for x in data if x > 0.5))
    return Geometric(epsilon=epsilon, sensitivity=1).randomise(count)


# -- faier's own distributions, sampled by user code


def faier_laplace_twice_the_sensitivity(data, epsilon=1.0):
    import faier

    rng = np.random.default_rng()
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 2.0)
    return float(np.sum(clipped)) + faier.laplace(0, 1 / epsilon).sample(rng)  # BUG


def faier_laplace_at_the_sensitivity(data, epsilon=1.0):
    import faier

    rng = np.random.default_rng()
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped)) + faier.laplace(0, 1 / epsilon).sample(rng)
