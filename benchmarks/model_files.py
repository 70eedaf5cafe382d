"""Model files with many states: loading and deciding them, whole process.

Each row writes a YAML model of n absorbing states (no transitions; each emits
a or b with its own probabilities; one pair, horizon 2), then runs ``faier
epsilon`` on it in a fresh process, timed from outside: wall seconds, CPU
seconds of the child (user + system) and its peak resident memory, read by a
small wrapper process.  Loading once built a dense n × n matrix of Fractions
(2,000 states: 108 s; 200,000: never finished, 1 GB and growing); rows are kept
sparse now.  A last row shows ``--max-states`` refusing the largest model
before building it.

    .venv/bin/python benchmarks/model_files.py            # 2,000, 20,000 and 200,000 states
    .venv/bin/python benchmarks/model_files.py --quick    # 2,000 and 20,000
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine


def write_model(path: Path, n: int) -> None:
    with path.open("w") as out:
        out.write("states: [" + ", ".join(f"s{i}" for i in range(n)) + "]\n")
        out.write("observations: [a, b]\nemissions:\n")
        for i in range(n):
            out.write(f"  s{i}: {{a: 1/{i % 7 + 2}, b: {i % 7 + 1}/{i % 7 + 2}}}\n")
        out.write("pairs: [[s0, s1]]\nhorizon: 2\n")


WRAPPER = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write(f"{usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}\\n")
"""
"""Runs one command and reports its own CPU seconds and peak memory (kB) on stderr."""


def run(args: list[str], timeout: float) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, the ε* line or how it ended) of one ``faier`` process."""
    cli = Path(sys.executable).with_name("faier")
    command = [sys.executable, "-c", WRAPPER, str(cli), *args]
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return timeout, float("nan"), float("nan"), f"> {timeout:g} s"
    wall = time.perf_counter() - started
    cpu, peak_kb = done.stderr.split()[-2:]
    lines = done.stdout.splitlines()
    shown = next((ln for ln in lines if ln.startswith(("ε*", "reason"))), "")
    return wall, float(cpu), int(peak_kb) / 1024, " ".join(shown.split()) or "no result"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="up to 20,000 states")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per process")
    args = parser.parse_args()
    print(f"machine: {machine.describe()}\n")
    sizes = [2_000, 20_000] if args.quick else [2_000, 20_000, 200_000]
    print(f"{'states':>8s}  {'wall':>8s}  {'CPU':>8s}  {'peak':>8s}  result")
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = Path(folder) / f"absorbing-{n}.yaml"
            write_model(path, n)
            wall, cpu, peak, shown = run(["epsilon", str(path)], args.timeout)
            print(f"{n:8d}  {wall:7.2f}s  {cpu:7.2f}s  {peak:6.0f}MB  {shown}", flush=True)
        n = sizes[-1]
        wall, cpu, peak, shown = run(["epsilon", str(path), "--max-states", "1000"], args.timeout)
        print(f"{n:8d}  {wall:7.2f}s  {cpu:7.2f}s  {peak:6.0f}MB  --max-states 1000: {shown}")


if __name__ == "__main__":
    main()
