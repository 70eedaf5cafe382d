"""Library objects as black boxes: draws per second through faier's adapters, against
the library called bare in a loop (the adapter's overhead) and faier's own vectorised
Laplace (the baseline a vectorised mechanism reaches); then one assert_private per object.

    .venv/bin/python benchmarks/adapters.py            # 20 000 draws per object
    .venv/bin/python benchmarks/adapters.py --quick    # 3 000
"""

from __future__ import annotations

import argparse
import functools
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import faier
from faier.adapters import from_diffprivlib, from_opendp
from faier.mechanisms.sampled import Sampled, vectorised


@vectorised(neighbours="one-query")
def faier_laplace(queries: Any, epsilon: float, n: int, rng: np.random.Generator) -> Any:
    """faier's vectorised Laplace (the baseline)."""
    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)


def cases() -> list[tuple[str, Sampled, Callable[[], Any], tuple[int, ...]]]:
    """(name, wrapped mechanism, one bare library call, input)."""
    found: list[tuple[str, Sampled, Callable[[], Any], tuple[int, ...]]] = []
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        real, whole = dp.atom_domain(T=float, nan=False), dp.atom_domain(T=int)
        laplace = dp.m.make_laplace(real, dp.absolute_distance(T=float), scale=1.0)
        geometric = dp.m.make_geometric(whole, dp.absolute_distance(T=int), scale=1.0)
        noisy_max = dp.m.make_noisy_max(
            dp.vector_domain(whole), dp.linf_distance(T=int), dp.max_divergence(), scale=2.0
        )
        found += [
            ("OpenDP make_laplace", from_opendp(laplace), lambda: laplace(1.0), (1,)),
            ("OpenDP make_geometric", from_opendp(geometric), lambda: geometric(1), (1,)),
            (
                "OpenDP make_noisy_max (3)",
                from_opendp(noisy_max, lengths=(3,)),
                lambda: noisy_max([1, 1, 1]),
                (1, 1, 1),
            ),
        ]
    except ImportError:
        print("opendp not installed: its rows are left out")
    try:
        from diffprivlib import mechanisms as m

        state = np.random.RandomState(1)
        objects = [
            ("Laplace", m.Laplace(epsilon=1, sensitivity=1, random_state=state), (1,)),
            ("Geometric", m.Geometric(epsilon=1, sensitivity=1, random_state=state), (1,)),
            (
                "Snapping",
                m.Snapping(epsilon=1, sensitivity=1, lower=0, upper=10, random_state=state),
                (1,),
            ),
        ]
        for name, obj, value in objects:
            found.append(
                (f"diffprivlib {name}", from_diffprivlib(obj), _bare(obj, value[0]), value)
            )
        exponential = m.Exponential(epsilon=1, sensitivity=1, utility=[0, 0, 0], random_state=state)
        found.append(
            (
                "diffprivlib Exponential (3)",
                from_diffprivlib(exponential),
                exponential.randomise,
                (0, 0, 0),
            )
        )
    except ImportError:
        print("diffprivlib not installed: its rows are left out")
    return found


def _bare(obj: Any, value: int) -> Callable[[], Any]:
    return lambda: obj.randomise(value)


def repeat(call: Callable[[], Any], n: int) -> list[Any]:
    """``n`` bare calls of a library's mechanism, one after another."""
    return [call() for _ in range(n)]


def rate(run: Callable[[], Any], n: int) -> float:
    start = time.perf_counter()
    run()
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 000 draws per object")
    args = parser.parse_args()
    n = 3000 if args.quick else 20_000
    rng = np.random.default_rng(1)
    print(f"draws per second, {n} draws per object; load average {os.getloadavg()[0]:.2f}")
    base = rate(lambda: faier_laplace.sample(np.array([1]), 1.0, n, rng, ()), n)
    print(f"{'mechanism':30} {'adapter':>12} {'bare loop':>12} {'assert_private':>15}")
    print(f"{'faier vectorised Laplace':30} {base:12.3g} {'':>12} {'':>15}")
    for name, wrapped, bare, value in cases():
        queries = np.array(value)
        through = rate(functools.partial(wrapped.sample, queries, 1.0, n, rng, ()), n)
        loop = rate(functools.partial(repeat, bare, n), n)
        start = time.perf_counter()
        faier.assert_private(wrapped, samples=n, seed=1, alpha=1e-6)
        checked = time.perf_counter() - start
        print(f"{name:30} {through:12.3g} {loop:12.3g} {checked:13.2f} s")


if __name__ == "__main__":
    main()
