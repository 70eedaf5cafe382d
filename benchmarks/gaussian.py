"""Gaussian noise decided by the certified engine, whole process per decision.

Each row runs one command in a fresh process (interpreter start and imports
included, timed from outside): ``verify`` at a pure ε, ``verify --delta``,
``epsilon`` (the certified interval of ε*) and ``epsilon --delta`` (the least
ε for a δ, bisected on certified bounds), for Noisy Max and Sparse Vector
with Gaussian noise and the Gaussian mechanism (histogram) at n = 3 and 5.
The baseline, run here: Noisy Max's output probabilities at n = 3 by scipy
quad of ∫ φ(t − qᵢ) Π_{j≠i} Φ(t − q_j) dt (floats, no certificate), ε* and
δ(1/2) from them, and how far the certified balls' midpoints are from it.

    .venv/bin/python benchmarks/gaussian.py            # n = 3, 5
    .venv/bin/python benchmarks/gaussian.py --quick    # n = 3
"""

from __future__ import annotations

import argparse
import math
import time

import machine
from continuous import grid_neighbours, interval, quad_noisy_max_table, run

COMMANDS = (
    ("noisy-max-gaussian", ["verify", "--epsilon", "1.1"]),
    ("noisy-max-gaussian", ["verify", "--epsilon", "0.5", "--delta", "0.01"]),
    ("noisy-max-gaussian", ["epsilon"]),
    ("noisy-max-gaussian", ["epsilon", "--delta", "0.01"]),
    ("svt-gaussian", ["verify", "--epsilon", "1"]),
    ("svt-gaussian", ["verify", "--epsilon", "0.5", "--delta", "0.01"]),
    ("svt-gaussian", ["epsilon"]),
    ("svt-gaussian", ["epsilon", "--delta", "0.001"]),
    ("histogram-gaussian", ["verify", "--epsilon", "1", "--delta", "0.01"]),
    ("histogram-gaussian", ["epsilon", "--delta", "1e-5"]),
)


def scipy_baseline() -> tuple[float, float, float, dict[tuple[int, ...], list[float]]]:
    """(ε*, δ(1/2), seconds, table) of noisy-max-gaussian n = 3, σ = 2, by scipy quad."""
    from scipy.special import ndtr

    sigma = 2.0

    def pdf(t: float) -> float:
        return math.exp(-((t / sigma) ** 2) / 2) / (sigma * math.sqrt(2 * math.pi))

    started = time.perf_counter()
    table = quad_noisy_max_table(
        pdf, lambda t: float(ndtr(t / sigma)), (-40, 42), epsabs=1e-14, epsrel=1e-13
    )
    best, delta = 0.0, 0.0
    for x, y in grid_neighbours(table):
        pairs = list(zip(table[x], table[y], strict=True))
        best = max(best, *(math.log(p / r) for p, r in pairs))
        delta = max(delta, sum(max(0.0, p - math.exp(0.5) * r) for p, r in pairs))
    return best, delta, time.perf_counter() - started, table


def certified_gap(table: dict[tuple[int, ...], list[float]]) -> tuple[float, float, float]:
    """(largest |ball midpoint − quad|, largest ball radius, CPU seconds) on the same table."""
    from faier.core.budget import Budget
    from faier.engines.certified import engine, intervals
    from faier.examples.registry import find_example

    example = find_example("noisy-max-gaussian")
    assert example is not None
    started = time.process_time()
    balls = engine._table(example.problem({"n": "3"}), Budget(None, None))
    seconds = time.process_time() - started
    assert isinstance(balls, intervals.BallTable), "Gaussian noise: a table of arb balls"
    gap = radius = 0.0
    for x, dist in zip(balls.inputs, balls.values, strict=True):
        assert isinstance(x, tuple)
        for k, value in enumerate(table[x]):
            ball = dist[k + 1]
            gap = max(gap, abs(float(ball.mid()) - value))
            radius = max(radius, float(ball.rad()))
    return gap, radius, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 3 only")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per process")
    args = parser.parse_args()
    print(f"machine: {machine.describe()}\n")
    print("seconds: wall (CPU) of the whole process; the machine is shared, so CPU is the")
    print("figure that does not depend on the other jobs\n")
    header = (
        f"{'command':56s} {'n':>2s} {'answer':>9s} {'seconds':>16s}  "
        f"{'ε* or least ε (certified)':36s} {'rel. width':>10s}"
    )
    print(header)
    print("-" * len(header))
    for n in [3] if args.quick else [3, 5]:
        for target, words in COMMANDS:
            command = [words[0], target, "--set", f"n={n}", *words[1:]]
            seconds, cpu, data = run([*command, "--timeout", str(args.timeout)], args.timeout + 15)
            answer = "timeout" if data is None else str(data.get("verdict") or "ε*")
            shown, width = interval(data) if words[0] == "epsilon" else ("", "")
            print(
                f"{' '.join(command[:2] + command[4:]):56s} {n:2d} {answer:>9s} "
                f"{seconds:7.2f}s ({cpu:5.2f})  {shown:36s} {width:>10s}"
            )
    best, delta, seconds, table = scipy_baseline()
    gap, radius, cpu = certified_gap(table)
    print(
        f"\nbaseline (scipy quad, floats, no certificate): noisy-max-gaussian n = 3, 81 "
        f"probabilities in {seconds:.2f} s: ε* ≈ {best:.12f}, δ(1/2) ≈ {delta:.12f}"
    )
    print(
        f"certified table in process: {cpu:.2f} s CPU, largest ball radius {radius:.1e}, "
        f"largest |midpoint − quad| {gap:.1e}"
    )


if __name__ == "__main__":
    main()
