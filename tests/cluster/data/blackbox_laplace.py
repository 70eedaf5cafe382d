"""A user's sampled mechanism: Report Noisy Max with Laplace noise, one run per call."""

import numpy as np

from faier.mechanisms.sampled import blackbox


@blackbox(name="my-noisy-max")
def my_noisy_max(queries, epsilon, rng):
    """The index of the largest query answer plus Lap(2/ε) noise."""
    noisy = np.asarray(queries, dtype=float) + rng.laplace(scale=2 / epsilon, size=len(queries))
    return int(np.argmax(noisy))
