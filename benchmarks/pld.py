"""Exact PLD composition against Google's dp_accounting, and against the brute-force product.

Prints one table per mechanism: k, the ε asked (⌈√k⌉ times the mechanism's own,
so that δ(ε) stays away from 0 and 1), seconds for faier's exact k-fold PLD
(square and multiply over exact loss values), its number of loss values, the
exact δ(ε) (both orders, the larger), dp_accounting's pessimistic and
optimistic δ(ε) of the exported PLD composed k times and its seconds
(the baseline, run beside it), and for small k the brute-force hockey-stick
sum over all output tuples of the product (a second baseline, seconds).

    .venv/bin/python benchmarks/pld.py            # k up to 1000
    .venv/bin/python benchmarks/pld.py --quick    # k up to 100
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction

import machine

import faier
from faier.accounting.pld import PrivacyLossDistribution
from faier.privacy.budget import Epsilon

CASES = (
    ("truncated ½-geometric over {0..4}, pair 1;2", "geometric", "1;2", {"m": "4"}, "ln(2)"),
    (
        "Noisy Max n = 5 (uniform ties), its worst pair",
        "noisy-max",
        "1,1,1,1,1;0,2,2,2,2",
        {"n": "5"},
        "1",
    ),
)


def brute(outputs: list[tuple[str, Fraction, Fraction]], k: int, exp_eps: float) -> float:
    """δ(ε) of the k-fold product by summing over every output tuple, both orders."""
    forward = backward = Fraction(0)
    t = Fraction(exp_eps)
    for word in itertools.product(outputs, repeat=k):
        p = math.prod((o[1] for o in word), start=Fraction(1))
        q = math.prod((o[2] for o in word), start=Fraction(1))
        forward += max(Fraction(0), p - t * q)
        backward += max(Fraction(0), q - t * p)
    return float(max(forward, backward))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="k up to 100")
    args = parser.parse_args()
    ks = (1, 3, 10, 100) if args.quick else (1, 3, 10, 100, 1000)
    print(f"machine: {machine.describe()}\n")
    from importlib.metadata import version

    print(f"dp_accounting {version('dp-accounting')}, value_discretization_interval 1e-4\n")
    for title, target, pair, settings, eps_text in CASES:
        report = faier.pld(target, pair, settings=settings, accountant=False)
        single: PrivacyLossDistribution = report.single
        from faier.accounting.build import comparison_of, outcomes_of

        problem = faier.load_problem(target, settings=settings)
        outputs = outcomes_of(problem, comparison_of(problem, pair))
        upper = single.to_dp_accounting(pessimistic_estimate=True)
        lower = single.to_dp_accounting(pessimistic_estimate=False)
        print(f"{title}: {len(outputs)} outputs, {len(single.atoms)} loss values, ε₀ = {eps_text}")
        header = (
            f"{'k':>5} {'ε':>10} {'faier s':>8} {'losses':>7} {'exact δ(ε)':>22} "
            f"{'dp_acc. pess.':>15} {'dp_acc. opt.':>15} {'dp_acc. s':>10} {'brute s':>8}"
        )
        print(header)
        for k in ks:
            eps = Epsilon.parse(f"{math.isqrt(k - 1) + 1}*{eps_text}")
            started = time.perf_counter()
            composed = single.compose(k)
            exact = max(composed.delta(eps).value, composed.reversed().delta(eps).value)
            ours = time.perf_counter() - started
            started = time.perf_counter()
            pess = float(upper.self_compose(k).get_delta_for_epsilon(eps.value))
            opt = float(lower.self_compose(k).get_delta_for_epsilon(eps.value))
            theirs = (time.perf_counter() - started) / 2
            brute_s = "—"
            if len(outputs) ** k <= 20_000:
                started = time.perf_counter()
                check = brute(outputs, k, math.exp(eps.value))
                brute_s = f"{time.perf_counter() - started:.3f}"
                assert math.isclose(check, exact, rel_tol=1e-9, abs_tol=1e-15), (check, exact)
            print(
                f"{k:>5} {eps.value:>10.4g} {ours:>8.3f} {len(composed.atoms):>7} {exact:>22.15g} "
                f"{pess:>15.10g} {opt:>15.10g} {theirs:>10.3f} {brute_s:>8}"
            )
        print()


if __name__ == "__main__":
    main()
