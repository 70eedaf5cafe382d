"""Functions beside the corpus's fixed ones that must never be proved: each differs from a
provable function by one thing the proof does not model (the comment says which)."""

from __future__ import annotations

import numpy as np


def clipped_sum_doubled(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) * 2.0 + np.random.laplace(0.0, 2.0 / epsilon))


def clipped_sum_on_both_sides(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), -1.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))


def two_halves(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return (
        np.sum(clipped) + np.random.laplace(0.0, 2.0 / epsilon),
        np.sum(clipped) + np.random.laplace(0.0, 2.0 / epsilon),
    )


# -- near misses


def clip_without_nan_to_num(data, epsilon=1.0):
    return float(np.sum(np.clip(data, 0.0, 1.0)) + np.random.laplace(0.0, 1.0 / epsilon))


def divided_by_len(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float((np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon)) / len(data))


def scale_is_the_sum(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, np.sum(clipped) + 1.0))


def branch_on_the_sum(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    total = np.sum(clipped)
    if total:
        return float(total + np.random.laplace(0.0, 1.0 / epsilon))
    return 0.0


def branch_on_the_release(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    released = np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon)
    return released and np.sum(clipped)


def two_draws_over_epsilon(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return (
        np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon),
        np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon),
    )


def loop_sum(data, epsilon=1.0):
    total = 0.0
    for value in data:
        total = total + min(max(value, 0.0), 1.0)
    return float(total + np.random.laplace(0.0, 1.0 / epsilon))


def one_draw_twice(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    noise = np.random.laplace(0.0, 1.0 / epsilon)
    return (np.sum(clipped) + noise, np.sum(clipped) - noise)


def draw_released_beside(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    noise = np.random.laplace(0.0, 1.0 / epsilon)
    return (np.sum(clipped) + noise, noise)


def sum_after_the_release(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    released = float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))
    return released + np.sum(clipped) * 0.0 + np.sum(clipped)


def seeded_generator(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.default_rng(7).laplace(0.0, 1.0 / epsilon))


def gaussian_noise(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.normal(0.0, 1.0 / epsilon))


def unnoised_beside(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return (np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon), np.sum(clipped))


def clip_bounds_from_the_release(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    first = float(np.sum(clipped) + np.random.laplace(0.0, 2.0 / epsilon))
    wide = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, first)
    return (first, np.sum(wide) + np.random.laplace(0.0, 2.0 / epsilon))


def clip_then_records_noised(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped + np.random.laplace(0.0, 1.0 / epsilon)))


def clipped_beyond_the_largest_bound(data, epsilon=1.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 2.0**40)
    return float(np.sum(clipped) + np.random.laplace(0.0, 2.0**41 / epsilon))


def scale_a_third(data, epsilon=3.0):
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return float(np.sum(clipped) + np.random.laplace(0.0, 1.0 / epsilon))
