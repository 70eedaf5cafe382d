"""Every benchmark in turn, each printing its own tables (and its baseline, run beside it).

``make bench`` runs this.  Each benchmark runs in its own Python process, so
one's imports and caches do not flatter the next; a benchmark that fails is
reported and the others still run (exit 1 at the end if any failed).

    .venv/bin/python benchmarks/run.py                    # everything (about an hour on 2 cores)
    .venv/bin/python benchmarks/run.py --quick            # reduced sizes (a few minutes)
    .venv/bin/python benchmarks/run.py --only smt logic   # some of them
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Benchmark:
    """One benchmark script, with the arguments that make it quick."""

    name: str
    quick: tuple[str, ...]


BENCHMARKS = (
    Benchmark("distribution_mode", ("--max-n", "8", "--baseline-max-n", "5")),
    Benchmark("orbit_search", ("--quick",)),
    Benchmark("sequence_mode", ()),
    Benchmark("exact_arithmetic", ("--quick",)),
    Benchmark("structured_hmms", ("--quick",)),
    Benchmark("model_files", ("--quick",)),
    Benchmark("smt", ("--timeout", "10", "--dp-timeout", "10", "--max-n", "3")),
    Benchmark("correlated", ("--quick",)),
    Benchmark("statistical", ("--quick",)),
    Benchmark("cluster", ("--quick",)),
    Benchmark("adapters", ("--quick",)),
    Benchmark("logic", ("--quick",)),
    Benchmark("pld", ("--quick",)),
    Benchmark("soundness", ("--cases", "300")),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each benchmark at reduced sizes")
    parser.add_argument("--only", nargs="+", choices=[b.name for b in BENCHMARKS])
    args = parser.parse_args()
    chosen = [b for b in BENCHMARKS if not args.only or b.name in args.only]
    failed: list[str] = []
    times: list[tuple[str, float, int]] = []
    for bench in chosen:
        command = [sys.executable, str(HERE / f"{bench.name}.py")]
        command += list(bench.quick) if args.quick else []
        print(f"\n=== {bench.name}: {' '.join(command[1:])}", flush=True)
        start = time.perf_counter()
        code = subprocess.run(command, check=False).returncode
        times.append((bench.name, time.perf_counter() - start, code))
        if code != 0:
            failed.append(bench.name)
    print("\n=== summary")
    for name, seconds, code in times:
        print(f"{name:<18} {seconds:8.1f} s   {'ok' if code == 0 else f'exit {code}'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
