"""Noisy Max at real sizes: the grid search over orbits against the plain grid search.

Every row is a whole process: a fresh Python that builds Noisy Max, computes
ε* with the exact engine and prints it, timed from outside (interpreter start,
imports and all) with its peak resident memory read by the child itself from
``resource.getrusage`` (so one row's memory is not another's).  The orbit
search runs on Noisy Max as shipped (symmetric in its queries for
``ties=uniform`` and ``ties=value``); the baseline is the same mechanism with
its symmetry declaration removed, i.e. the grid search over every input
vector (the previous engine), run in the same way: it refuses grids above
``MAX_INPUTS`` (3^13 is the largest it lists), which takes a moment.  Then
the CLI, whole process, for the issue's commands.

    .venv/bin/python benchmarks/orbit_search.py                 # n up to 30
    .venv/bin/python benchmarks/orbit_search.py --quick         # n up to 16
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import machine

CHILD = """
import json, resource, sys, time
from dataclasses import replace
from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.errors import FaierError
from faier.mechanisms.library.noisy_max import noisy_max
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
n, ties, relation, plain = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "plain"
started = time.perf_counter()
try:
    mechanism = noisy_max(n, ties)
    if plain:
        mechanism = replace(mechanism, symmetry=None)
    neighbours = OneQuery(1) if relation == "one-query" else EveryQuery(1)
    result = epsilon(Problem("nm", mechanism, DifferentialPrivacy(neighbours)))
    shown = result.epsilon_star.show() if result.epsilon_star is not None else "unknown"
    ratio = str(result.epsilon_star.ratio) if result.epsilon_star is not None else None
    method = result.method
except FaierError as exc:
    shown, ratio, method = "refused: " + str(exc).split(" (")[0], None, ""
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"shown": shown, "ratio": ratio, "seconds": time.perf_counter() - started,
                  "peak_kb": peak, "method": method}))
"""


VALUE_ONE_QUERY_BASELINE = 9
"""Above this the plain grid search on ``ties=value`` with one-query neighbours, where
ε* = ln 2 is attained by a large share of all triples, spends minutes and gigabytes
rechecking them (n = 13: 103 s, 4.3 GB in a trial run)."""


@dataclass(frozen=True)
class Run:
    """One whole process: wall seconds from outside, compute seconds and peak memory inside."""

    wall: float
    compute: float
    peak_mb: float
    shown: str
    ratio: str | None
    method: str

    def cells(self) -> str:
        return f"{self.wall:7.2f} s {self.peak_mb:7.0f} MB"


def child(n: int, ties: str, relation: str, plain: bool, timeout: float) -> Run | None:
    command = [sys.executable, "-c", CHILD, str(n), ties, relation, "plain" if plain else "orbit"]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    data = json.loads(done.stdout.splitlines()[-1])
    return Run(
        wall, data["seconds"], data["peak_kb"] / 1024, data["shown"], data["ratio"], data["method"]
    )


def orbits_of(method: str) -> str:
    """'231 / 229999': input orbits and neighbour-pair orbits, from the method text."""
    if "input orbits" not in method:
        return "—"
    inputs = method.split("(", 1)[1].split(" input orbits")[0]
    pairs = method.split("inputs, ", 1)[1].split(" neighbour-pair orbits")[0]
    return f"{inputs} / {pairs}"


def cli_seconds(args: list[str]) -> tuple[float, str]:
    cli = Path(sys.executable).with_name("faier")
    started = time.perf_counter()
    done = subprocess.run([str(cli), *args], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("ε*")), "")
    return seconds, line.removeprefix("ε*").strip() or f"exit {done.returncode}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 16")
    parser.add_argument("--baseline-max-n", type=int, default=30, help="largest n for baselines")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per process")
    args = parser.parse_args()
    print(f"machine: {machine.describe()}\n")
    sizes = [5, 10, 13, 14, 16] if args.quick else [5, 10, 13, 14, 16, 20, 25, 30]
    cases = [("uniform", "every-query", n) for n in sizes]
    large = [n for n in sizes if n in (13, 20, 30) or (args.quick and n == 16)]
    large = [9, *large]
    cases += [("value", "every-query", n) for n in large]
    cases += [("value", "one-query", n) for n in large]
    cases += [("uniform", "one-query", n) for n in large]
    header = (
        f"{'ties':8s} {'neighbours':12s} {'n':>3s}  {'orbit search (whole process)':>22s}  "
        f"{'orbits in / pairs':>20s}  {'ε*':44s}  baseline: plain grid search"
    )
    print(header)
    print("-" * len(header))
    for ties, relation, n in cases:
        run = child(n, ties, relation, plain=False, timeout=args.timeout)
        if run is None:
            print(f"{ties:8s} {relation:12s} {n:3d}  {'> timeout':>22s}")
            continue
        base = ""
        listable = 3**n <= 2_000_000  # faier.mechanisms.inputs.MAX_INPUTS: else refused at once
        tied = ties == "value" and relation == "one-query"
        if tied and n > VALUE_ONE_QUERY_BASELINE and listable:
            base = "skipped (every tied triple rechecked: 103 s, 4.3 GB at n = 13)"
        elif n <= args.baseline_max_n:
            plain = child(n, ties, relation, plain=True, timeout=args.timeout)
            if plain is None:
                base = f"> {args.timeout:g} s"
            elif plain.ratio is None:
                base = f"{plain.cells()}  {plain.shown}"
            else:
                agree = "same ε*" if plain.ratio == run.ratio else "DISAGREES"
                base = f"{plain.cells()}  {agree}"
        else:
            base = "skipped (--baseline-max-n)"
        shown = run.shown if len(run.shown) <= 44 else run.shown[:41] + "..."
        print(
            f"{ties:8s} {relation:12s} {n:3d}  {run.cells():>22s}  {orbits_of(run.method):>20s}  "
            f"{shown:44s}  {base}",
            flush=True,
        )
    print("\nCLI, whole process (faier epsilon noisy-max --set n=N --set ties=uniform):")
    for n in [13, 16] if args.quick else [13, 20, 30]:
        seconds, shown = cli_seconds(
            ["epsilon", "noisy-max", "--set", f"n={n}", "--set", "ties=uniform"]
        )
        print(f"  n = {n:2d}  {seconds:7.2f} s   {shown[:70]}")
    seconds, _ = cli_seconds(["examples"])
    print(f"  (CLI start-up alone, faier examples: {seconds:.2f} s)")


if __name__ == "__main__":
    main()
