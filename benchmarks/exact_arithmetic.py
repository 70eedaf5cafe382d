"""Exact arithmetic and certified balls for the float frontier on dense random HMMs.

The float frontier steers the sequence search; its records, close prunes and
merges are decided by certified balls (python-flint ``arb``), and exactly,
in integers over one denominator, only where balls overlap.  Two tables:

1. **One forward step** of a vector that has already taken 9 steps (its
   entries thousands of bits long), in milliseconds, per representation:
   ``Fraction`` entry by entry (the first engine), reduced integers over one
   denominator (``sequence_mode._times``, the previous float-frontier
   recheck), unreduced integers with row-scaled small matrices
   (``integer_vectors``, now the exact fallback) and an ``arb`` ball at
   128 bits (now the decisions).
2. **The merged search**, each case in its own process (whole-process wall
   seconds include the interpreter, imports and building the HMM), with
   decisions by balls (the default) against the same search deciding every
   margin case exactly (balls off: the baseline); both must give the same
   exact ε*.  Random dense HMMs, weights 0..9, 3 observations, 6 prior pairs.

    .venv/bin/python benchmarks/exact_arithmetic.py            # up to 500 states
    .venv/bin/python benchmarks/exact_arithmetic.py --quick    # 100 and 200 states
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

from machine import describe

from faier.engines.exact import balls, lookahead, sequence_mode
from faier.engines.exact.integer_vectors import integer_times, integer_vector

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("sequence_bench", HERE / "sequence_mode.py")
assert _spec is not None and _spec.loader is not None
sequence_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sequence_bench)


def fraction_times(vector: sequence_mode.SparseVector, rows: Any) -> sequence_mode.SparseVector:
    out: sequence_mode.SparseVector = {}
    for s, x in vector.items():
        for t, p in rows[s]:
            out[t] = out.get(t, Fraction(0)) + x * p
    return out


FRACTIONS_UP_TO = 100
"""Fractions entry by entry take 18 s for one step at 300 states: only the smallest size."""


def timed(step: Any, repeat: int) -> float:
    """Milliseconds per call, best of ``repeat``."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - started)
    return 1000 * best


def one_step(states: int) -> list[str]:
    system, comparisons = sequence_bench.random_hmm_system(states, 3)
    rows = system.left[0]
    vector = integer_vector(comparisons[0].a0)
    for k in range(9):
        vector = integer_times(vector, system.left[k % 3])
    exact = vector.to_sparse()
    bits = max(x.denominator.bit_length() for x in exact.values())
    cells = [f"{bits:>6}"]
    if states <= FRACTIONS_UP_TO:
        cells.append(f"{timed(lambda: fraction_times(exact, rows), 1):9.1f}")
    else:
        cells.append(f"{'-':>9}")
    cells.append(f"{timed(lambda: sequence_mode._times(exact, rows), 2):9.1f}")
    cells.append(f"{timed(lambda: integer_times(vector, rows), 3):9.1f}")
    if balls.available():
        system_balls = balls.ball_system(system, balls.PRECISIONS[0])
        with balls.precision(balls.PRECISIONS[0]):
            row = system_balls.vector(exact)
            system_balls.matrix(rows)
            cells.append(f"{timed(lambda: system_balls.times(row, rows), 3):9.1f}")
    else:
        cells.append(f"{'-':>9}")
    return cells


def run_case(states: int, horizon: int, decisions: str) -> dict[str, Any]:
    """One search in this process (``--case``): seconds, memory and the exact ε*."""
    if decisions == "exact":
        balls.available = lambda: False
    if decisions == "previous":
        lookahead.MAX_WORDS = 0  # the engine before lookahead pruning
    started = time.perf_counter()
    seconds, explored, ratio = sequence_bench.search_random(states, horizon, "float")
    assert ratio is not None
    return {
        "search": seconds,
        "build": time.perf_counter() - started - seconds,
        "explored": explored,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "ratio": [ratio.numerator, ratio.denominator],
    }


def in_subprocess(states: int, horizon: int, decisions: str) -> dict[str, Any]:
    command = [sys.executable, str(Path(__file__).resolve()), "--case"]
    command += [str(states), str(horizon), decisions]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["whole"] = time.perf_counter() - started  # interpreter start and imports included
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 200 states only")
    parser.add_argument("--case", nargs=3, metavar=("STATES", "HORIZON", "DECISIONS"))
    args = parser.parse_args()
    if args.case:
        states, horizon, decisions = args.case
        print(json.dumps(run_case(int(states), int(horizon), decisions)))
        return
    print(describe())
    sizes = [100, 300] + ([] if args.quick else [500])
    print("\none forward step after 9 steps, milliseconds")
    print(
        f"{'states':>6} {'bits':>6} {'Fraction':>9} {'reduced':>9} {'integers':>9} {'arb 128':>9}"
    )
    for states in sizes:
        print(f"{states:>6} " + " ".join(one_step(states)), flush=True)
    cases = [(100, 8), (200, 8)] + ([] if args.quick else [(300, 10), (500, 10)])
    print(
        "\nmerged search, whole process (s) = build + search: the default (lookahead pruning,"
        "\ndecisions by balls), the previous engine (no lookahead) and decisions made exactly"
    )
    header = (
        f"{'states':>6} {'k':>3} | "
        f"{'default: whole':>14} {'search':>7} {'MB':>5} {'explored':>8} | "
        f"{'previous: whole':>15} {'search':>7} {'MB':>5} {'explored':>8} | "
        f"{'exact: whole':>12} {'search':>7} {'MB':>5} |  ε*"
    )
    print(header)
    print("-" * len(header))
    for states, horizon in cases:
        fast = in_subprocess(states, horizon, "balls")
        before = in_subprocess(states, horizon, "previous")
        slow = in_subprocess(states, horizon, "exact")
        if not fast["ratio"] == before["ratio"] == slow["ratio"]:
            raise SystemExit(f"disagreement at {states} states")
        ratio = Fraction(*fast["ratio"])
        value = math.log(ratio.numerator) - math.log(ratio.denominator)
        print(
            f"{states:>6} {horizon:>3} | {fast['whole']:14.2f} {fast['search']:7.2f} "
            f"{fast['maxrss_mb']:5.0f} {fast['explored']:>8} | {before['whole']:15.2f} "
            f"{before['search']:7.2f} {before['maxrss_mb']:5.0f} {before['explored']:>8} | "
            f"{slow['whole']:12.2f} {slow['search']:7.2f} {slow['maxrss_mb']:5.0f} |  "
            f"{value:.9f} ({ratio.numerator.bit_length()} bits)",
            flush=True,
        )


if __name__ == "__main__":
    main()
