"""Structured HMMs (benchmarks/hmm_models.py): the merged search on sparse, realistic models.

Prints, per case: the model, its states and horizon, then for the float64
frontier (the default) and, as baselines in the same run, the previous
engine (the float64 frontier without lookahead pruning) and exact rational
arithmetic: seconds of search (the HMM's construction is shown apart),
prefixes explored (``budget.explored``) and the process's peak memory
(``ru_maxrss``, interpreter and imports included), and the exact ε*.  Every
case runs in its own Python process with ``Budget(timeout=...)``, so memory
figures do not accumulate and a case past its limit prints "> N s".  Once a
model times out at some horizon its larger horizons are skipped.

    .venv/bin/python benchmarks/structured_hmms.py            # the full table
    .venv/bin/python benchmarks/structured_hmms.py --quick    # small cases, well under 30 s
    .venv/bin/python benchmarks/structured_hmms.py --profile grid 20 20 float
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import pstats
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import hmm_models
import machine

from faier.core.budget import Budget, hard_deadline
from faier.engines.exact import branch_and_bound, lookahead, sequence_mode
from faier.errors import BudgetExceeded

HERE = Path(__file__).resolve()

Case = tuple[str, list[int], list[int]]
"""A model, its sizes and the horizons each size is searched to."""

FULL: list[Case] = [
    ("grid", [5, 10, 20], [5, 10, 20]),
    ("sparse", [100, 400, 1000, 2000], [10]),
]
QUICK: list[Case] = [
    ("grid", [3, 5], [5, 10]),
    ("sparse", [50, 100], [6]),
]


def build(
    model: str, size: int
) -> tuple[sequence_mode.SequenceSystem, list[sequence_mode.SequenceComparison]]:
    if model == "grid":
        return hmm_models.location_grid(size)
    return hmm_models.sparse_random(size)


def states(model: str, size: int) -> int:
    return size * size if model == "grid" else size


MEMORY_LIMIT_GB = 8.0
"""Address-space cap per case: a frontier that outgrows it ends the case as "out of memory"."""


def run_case(model: str, size: int, horizon: int, arithmetic: str, limit: float) -> dict[str, Any]:
    """One search in this process; the answer as a dict (printed as JSON by ``--case``)."""
    cap = int(MEMORY_LIMIT_GB * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    started = time.perf_counter()
    system, comparisons = build(model, size)
    built = time.perf_counter() - started
    state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
    budget = Budget(timeout=limit)
    if arithmetic == "previous":
        lookahead.MAX_WORDS = 0  # the engine before lookahead pruning
        arithmetic = "float"
    started = time.perf_counter()
    finished, failure = True, None
    try:
        with hard_deadline(limit):
            branch_and_bound.merged_search(
                system, comparisons, horizon, budget, state, arithmetic=arithmetic
            )
    except BudgetExceeded:
        finished = False
    except MemoryError:
        finished, failure = False, f"out of memory (> {MEMORY_LIMIT_GB:g} GB)"
    seconds = time.perf_counter() - started
    ratio = None
    if finished:
        record = sequence_mode.cumulative(state)[-1]
        assert record is not None
        ratio = record.loss.ratio
    return {
        "built": built,
        "seconds": seconds,
        "explored": budget.explored,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "finished": finished,
        "failure": failure,
        "ratio": None if ratio is None else [ratio.numerator, ratio.denominator],
    }


def in_subprocess(
    model: str, size: int, horizon: int, arithmetic: str, limit: float
) -> dict[str, Any]:
    command = [sys.executable, str(HERE), "--case", model, str(size), str(horizon), arithmetic]
    command += ["--limit", str(limit)]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=limit + 120, check=False
        )
    except subprocess.TimeoutExpired:
        return {"finished": False, "failure": None, "explored": None}
    if done.returncode != 0 or not done.stdout.strip():
        failure = f"failed (exit {done.returncode}): {done.stderr.strip()[-200:]}"
        return {"finished": False, "failure": failure, "explored": None}
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def shorten(n: int) -> str:
    digits = str(n)
    return digits if len(digits) <= 12 else f"{digits[:5]}…[{len(digits)} digits]"


def show(ratio: Fraction | None) -> str:
    """ε* = ln(p/q), long numbers shortened; 2^bits for huge ratios, as sequence_mode.show."""
    if ratio is None:
        return "∞"
    value = math.log(ratio.numerator) - math.log(ratio.denominator)
    if ratio >= 10**6:
        return f"{value:.9f} = ln(≈2^{value / math.log(2):.2f})"
    return f"{value:.9f} = ln({shorten(ratio.numerator)}/{shorten(ratio.denominator)})"


def cell(result: dict[str, Any], limit: float, width: int = 9) -> str:
    if not result["finished"]:
        explored = "—" if result["explored"] is None else str(result["explored"])
        if result.get("failure"):
            what = "no mem" if "memory" in result["failure"] else "failed"
            return f"{what:>{width}} {explored:>9} {'':>7}"
        return f"{'> ' + format(limit, 'g') + ' s':>{width}} {explored:>9} {'':>7}"
    seconds = f"{result['seconds']:.2f}"
    return f"{seconds:>{width}} {result['explored']:9d} {result['maxrss_mb']:7.0f}"


def table(cases: list[Case], limit: float, baseline_limit: float) -> None:
    header = (
        f"{'model':18} {'states':>6} {'k':>3} {'build s':>7} | {'float s':>9} {'explored':>9} "
        f"{'MB':>7} | {'previous s':>10} {'explored':>9} {'MB':>7} | "
        f"{'exact s':>9} {'explored':>9} {'MB':>7} |  ε*(k)"
    )
    print(header)
    print("-" * len(header))
    for model, sizes, horizons in cases:
        for size in sizes:
            on = {"float": True, "previous": True, "exact": True}
            for horizon in horizons:
                if not on["float"]:
                    break
                name = f"location {size}×{size}" if model == "grid" else "sparse random d=3"
                fast = in_subprocess(model, size, horizon, "float", limit)
                baselines, cells = [], []
                for how in ("previous", "exact"):
                    if on[how]:
                        result = in_subprocess(model, size, horizon, how, baseline_limit)
                        on[how] = result["finished"]
                        cells.append(cell(result, baseline_limit, 10 if how == "previous" else 9))
                        baselines.append(result)
                    else:
                        width = 10 if how == "previous" else 9
                        cells.append(f"{'skipped':>{width}} {'':>9} {'':>7}")
                on["float"] = fast["finished"]
                ratio = Fraction(*fast["ratio"]) if fast["finished"] and fast["ratio"] else None
                for other in baselines:
                    if fast["finished"] and other["finished"] and fast["ratio"] != other["ratio"]:
                        raise SystemExit(f"disagreement on {name} k={horizon}")
                shown = (
                    show(ratio)
                    if fast["finished"]
                    else f"unknown ({fast.get('failure') or 'timed out'})"
                )
                built = f"{fast['built']:7.2f}" if "built" in fast else f"{'—':>7}"
                print(
                    f"{name:18} {states(model, size):6d} {horizon:3d} {built} | "
                    f"{cell(fast, limit)} | {cells[0]} | {cells[1]} |  {shown}",
                    flush=True,
                )


def profile(model: str, size: int, horizon: int, arithmetic: str, limit: float) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    result = run_case(model, size, horizon, arithmetic, limit)
    profiler.disable()
    print(json.dumps({k: v for k, v in result.items() if k != "ratio"}))
    pstats.Stats(profiler).sort_stats("tottime").print_stats(8)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small cases only (< 30 s)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per float case")
    parser.add_argument(
        "--baseline-limit", type=float, default=None, help="seconds per exact case (--limit)"
    )
    parser.add_argument("--case", nargs=4, metavar=("MODEL", "SIZE", "HORIZON", "ARITHMETIC"))
    parser.add_argument("--profile", nargs=4, metavar=("MODEL", "SIZE", "HORIZON", "ARITHMETIC"))
    args = parser.parse_args()
    if args.case:
        model, size, horizon, arithmetic = args.case
        print(json.dumps(run_case(model, int(size), int(horizon), arithmetic, args.limit)))
        return
    if args.profile:
        model, size, horizon, arithmetic = args.profile
        profile(model, int(size), int(horizon), arithmetic, args.limit)
        return
    print(f"machine: {machine.describe()}")
    limit = 10.0 if args.quick else args.limit
    baseline = args.baseline_limit if args.baseline_limit is not None else limit
    table(QUICK if args.quick else FULL, limit, baseline)


if __name__ == "__main__":
    main()
