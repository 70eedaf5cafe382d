"""Suprema over correlated Pufferfish families: the SMT search against grid sampling.

For each family the SMT engine's `faier epsilon` (both bounds, exact when the
supremum is proved, where it is approached) runs beside the baseline a user
would try first: the exact engine at every point of a grid over the unknown
parameters, which gives a lower bound only (no proof, no limit).  Each row
prints the wall time of both and what each established.

    .venv/bin/python benchmarks/correlated.py            # household of 3, 4 and 5, chains
    .venv/bin/python benchmarks/correlated.py --quick    # household of 3 only
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from fractions import Fraction

import faier
from faier.core.problem import Problem
from faier.examples.paper_hmms import geometric_hmm
from faier.model.parameters import Interval, Parameter
from faier.privacy.quilt import quilt_privacy, symmetric_chain

GRID = [Fraction(k, 10) for k in range(1, 10)]


def _chain(length: int, q: Fraction | None) -> Problem:
    stay = Parameter("q", Interval(Fraction(1, 2), Fraction(1)), q)
    privacy = quilt_privacy(symmetric_chain("q", length), "1", (stay,), as_text=True)
    return Problem("chain", geometric_hmm(Fraction(1, 2), length), privacy, 1)


def _show(result: faier.Result) -> str:
    if result.exact_loss is not None and result.exact_loss.ratio is not None:
        report = result.parametric
        where = ""
        if report is not None and report.attained is False and report.limit:
            where = ", limit at " + ", ".join(f"{v.name} = {v.value}" for v in report.limit)
        return f"ε* = ln({result.exact_loss.ratio}) ≈ {result.exact_loss.value:.4f}{where}"
    lower = result.lower_bound.value if result.lower_bound is not None else None
    upper = result.parametric.upper if result.parametric is not None else None
    return f"bounds [{lower}, {upper.value if upper is not None else '?'}]"


def run_household(people: int) -> None:
    settings = {"people": str(people)}
    start = time.perf_counter()
    result = faier.epsilon("household-contagion", settings=settings, timeout=60)
    smt = time.perf_counter() - start
    start = time.perf_counter()
    best = Fraction(0)
    for p, c in itertools.product(GRID, GRID):
        found = faier.epsilon(
            "household-contagion", settings=settings, params=[f"p={p}", f"c={c}"], engine="exact"
        ).exact_loss
        if found is not None and found.ratio is not None:
            best = max(best, found.ratio)
    grid = time.perf_counter() - start
    print(
        f"| household of {people} (p, c) | {smt:.2f} s | {_show(result)} | "
        f"{grid:.2f} s | ≥ ln({best}) ≈ {math.log(best):.4f} |"
    )


def run_chain(length: int) -> None:
    start = time.perf_counter()
    result = faier.epsilon(_chain(length, None), timeout=60)
    smt = time.perf_counter() - start
    start = time.perf_counter()
    best = Fraction(0)
    for k in range(1, 10):
        found = faier.epsilon(_chain(length, Fraction(1, 2) + Fraction(k, 20))).exact_loss
        if found is not None and found.ratio is not None:
            best = max(best, found.ratio)
    grid = time.perf_counter() - start
    print(
        f"| chain of {length} steps (stay q) | {smt:.2f} s | {_show(result)} | "
        f"{grid:.2f} s | ≥ ln({best}) ≈ {math.log(best):.4f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the household of three only")
    args = parser.parse_args()
    print("| family | SMT search | result | grid baseline (exact engine) | grid's best |")
    print("|---|---|---|---|---|")
    for people in (3,) if args.quick else (3, 4, 5):
        run_household(people)
    if not args.quick:
        for length in (3, 5):
            run_chain(length)


if __name__ == "__main__":
    main()
