"""What one ``faier.verify`` call costs, by how its work is isolated from the caller.

Each way runs in a process of its own (a fresh ``python``): the first call,
then the median of the next ``--calls``.  The ways, the first three the
baseline:

- in-process: no child at all (as inside the ``faier`` command's child);
- fork: the caller has one thread, its work runs in a forked child;
- new interpreter: the caller runs another thread (a Jupyter kernel always
  does), the fork server turned off: a new interpreter per call;
- fork server: the same caller, each call's child forked by the fork server.

    .venv/bin/python benchmarks/isolation.py             # 20 calls after the first
    .venv/bin/python benchmarks/isolation.py --calls 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time
from fractions import Fraction
from typing import Any

import machine

import faier

WAYS = ("in-process", "fork", "new interpreter", "fork server")


@faier.program(inputs=faier.scalars(2))
def coin(x: Any, ctx: Any) -> Any:
    """Randomized response with probability 3/4 of the truth: ε* = ln 3."""
    keep = ctx.draw(faier.bernoulli(Fraction(3, 4)))
    return (x > 0) if keep else not (x > 0)


def measure(way: str, calls: int) -> list[float]:
    """Seconds of each of ``calls + 1`` calls, made the way named (in this process)."""
    from faier.mechanisms import forkserver, isolation

    if way == "in-process":
        isolation.mark_isolated()
    if way == "new interpreter":
        forkserver.available = lambda: False
    stop = threading.Event()
    if way in ("new interpreter", "fork server"):
        threading.Thread(target=stop.wait, daemon=True).start()
    seconds = []
    for _ in range(calls + 1):
        start = time.perf_counter()
        result = faier.verify(coin, "ln(3)")
        seconds.append(time.perf_counter() - start)
        assert result.verdict is not None and result.verdict.value == "holds", result
    stop.set()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--way", choices=WAYS, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.way:
        print(json.dumps(measure(options.way, options.calls)))
        return
    print(machine.describe())
    print(f"{'way':<16} {'first call, s':>14} {'median of next ' + str(options.calls) + ', s':>22}")
    for way in WAYS:
        command = [sys.executable, __file__, "--way", way, "--calls", str(options.calls)]
        found = subprocess.run(command, capture_output=True, text=True, check=True)
        seconds = json.loads(found.stdout.splitlines()[-1])
        print(f"{way:<16} {seconds[0]:>14.3f} {statistics.median(seconds[1:]):>22.3f}")


if __name__ == "__main__":
    main()
