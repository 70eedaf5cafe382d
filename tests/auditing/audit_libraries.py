"""Functions built on OpenDP and diffprivlib mechanisms, correct and miscalibrated."""

from __future__ import annotations

import numpy as np


def opendp_laplace_sum(data, epsilon=1.0):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    m = dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0 / epsilon
    )
    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return m(clipped)


def opendp_laplace_too_small(data, epsilon=1.0):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    m = dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=0.5 / epsilon
    )
    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return m(clipped)


def opendp_integer_count(data, epsilon=1.0):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0 / epsilon)
    return m(int(sum(1 for x in data if x > 0.5)))


def opendp_gaussian(data, epsilon=1.0):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    m = dp.m.make_gaussian(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=5.0
    )
    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return m(clipped)


def dpl_laplace(data, epsilon=1.0):
    from diffprivlib.mechanisms import Laplace

    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return Laplace(epsilon=epsilon, sensitivity=1.0).randomise(clipped)


def dpl_gaussian_analytic(data, epsilon=1.0):
    from diffprivlib.mechanisms import GaussianAnalytic

    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return GaussianAnalytic(epsilon=epsilon, delta=1e-5, sensitivity=1.0).randomise(clipped)


def dpl_bounded(data, epsilon=1.0):
    from diffprivlib.mechanisms import LaplaceBoundedDomain

    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return LaplaceBoundedDomain(epsilon=epsilon, sensitivity=1.0, lower=0, upper=100).randomise(
        clipped
    )


def dpl_gaussian_classic(data, epsilon=1.0):
    from diffprivlib.mechanisms import Gaussian

    clipped = float(np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0).sum())
    return Gaussian(epsilon=epsilon, delta=1e-5, sensitivity=1.0).randomise(clipped)


def opendp_chained_sum(data, epsilon=1.0):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False)), dp.symmetric_distance()
    measurement = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0 / epsilon)
    clipped = np.clip(np.nan_to_num(data, nan=0.0, posinf=1.0, neginf=0.0), 0.0, 1.0)
    return measurement([float(x) for x in clipped])


def opendp_chained_sum_released_twice(data, epsilon=1.0):
    return (opendp_chained_sum(data, epsilon), opendp_chained_sum(data, epsilon))
