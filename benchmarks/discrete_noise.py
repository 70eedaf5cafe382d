"""Discrete Laplace and discrete Gaussian noise decided by the certified engine, whole process.

Each row runs ``faier verify`` or ``faier epsilon`` on a mechanism file in a
fresh process (interpreter start and imports included, timed from outside)
and prints wall and CPU seconds with the answer.  The baseline, run here in
the same way: the exact engine on its own truncated geometric mechanism
(``faier epsilon geometric``, α = 1/2, rationals throughout), the same
mechanism as the clamped discrete Laplace count but with a rational α.

    .venv/bin/python benchmarks/discrete_noise.py
"""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine

PROGRAMS = """
from fractions import Fraction
import faier

@faier.program(inputs=faier.scalars(4))
def clamped(x, ctx):
    return min(max(x + ctx.draw(faier.discrete_laplace(0, Fraction(10, 7))), 0), 4)

@faier.program(inputs=faier.scalars(4))
def count(x, ctx):
    return x + ctx.draw(faier.discrete_laplace(0, 2))

@faier.program(inputs=faier.scalars(4))
def gaussian(x, ctx):
    return x + ctx.draw(faier.discrete_gaussian(0, 2))

@faier.program(inputs=faier.grid(3, 1))
def argmax(x, ctx):
    best, index = None, 0
    for i, v in enumerate(x):
        noisy = v + ctx.draw(faier.discrete_laplace(0, Fraction(20, 7)))
        if best is None or noisy > best:
            best, index = noisy, i
    return index

@faier.program(inputs=faier.grid(4, 1))
def argmax4(x, ctx):
    best, index = None, 0
    for i, v in enumerate(x):
        noisy = v + ctx.draw(faier.discrete_laplace(0, 2))
        if best is None or noisy > best:
            best, index = noisy, i
    return index
"""

OPENDP = """
import opendp.prelude as dp

dp.enable_features("contrib")
bounded = dp.m.make_geometric(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0,
                              bounds=(0, 10))
"""

ROWS = (
    (
        "clamped count (truncated geometric), t = 10/7",
        "programs",
        "clamped",
        ["verify", "-e", "0.7"],
    ),
    ("clamped count", "programs", "clamped", ["epsilon"]),
    ("released count, DLap(2)", "programs", "count", ["verify", "-e", "1/2"]),
    (
        "released count, discrete Gaussian σ = 2",
        "programs",
        "gaussian",
        ["verify", "-e", "1", "--delta", "0.01"],
    ),
    (
        "released count, discrete Gaussian σ = 2",
        "programs",
        "gaussian",
        ["epsilon", "--delta", "0.01"],
    ),
    ("argmax of 3 DLap(20/7)", "programs", "argmax", ["epsilon"]),
    ("argmax of 4 DLap(2)", "programs", "argmax4", ["epsilon"]),
    ("argmax of 4 DLap(2)", "programs", "argmax4", ["verify", "-e", "0.94"]),
    ("SVT, DLap(20/7), DLap(40/7) queries, {0..2}³", "example", None, ["epsilon"]),
    ("SVT, DLap(20/7), DLap(40/7) queries, {0..2}³", "example", None, ["verify", "-e", "0.7"]),
    ("OpenDP make_geometric, bounds (0, 10)", "opendp", None, ["verify", "-e", "1"]),
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], timeout: float = 120.0) -> tuple[float, float, dict[str, object]]:
    """(wall seconds, CPU seconds, the JSON answer) of one whole ``faier`` process."""
    cli = Path(sys.executable).with_name("faier")
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [str(cli), *args, "--json"], capture_output=True, text=True, timeout=timeout
    )
    seconds, used = time.perf_counter() - started, _children_cpu() - cpu
    try:
        return seconds, used, json.loads(done.stdout)
    except json.JSONDecodeError:
        return seconds, used, {"verdict": f"exit {done.returncode}"}


def answer(data: dict[str, object]) -> str:
    star = data.get("epsilon_star")
    if data.get("verdict") is not None:
        return str(data["verdict"])
    if not isinstance(star, dict):
        return "—"
    low, high = star.get("lower"), star.get("upper")
    if low == "inf":
        return "∞"
    closed = star.get("closed_form")
    if high == "inf":
        return f"≥ {low:.10f}"
    assert isinstance(low, float) and isinstance(high, float)
    text = f"[{low:.10f}, {high:.10f}]"
    return f"{closed} ∈ {text}" if closed else text


def main() -> None:
    print(f"machine: {machine.describe()}\n")
    print("seconds: wall (CPU) of the whole process\n")
    with tempfile.TemporaryDirectory() as folder:
        files = {"programs": Path(folder, "programs.py"), "opendp": Path(folder, "lib.py")}
        named = {"example": ["svt-discrete-laplace", "--set", "m=2"]}
        files["programs"].write_text(PROGRAMS)
        files["opendp"].write_text(OPENDP)
        header = f"{'mechanism':46s} {'command':28s} {'seconds':>15s}  answer"
        print(header)
        print("-" * len(header))
        for title, where, name, command in ROWS:
            chosen = ["--name", name] if name else []
            target = named[where] if where in named else [str(files[where]), *chosen]
            args = [command[0], *target, *command[1:]]
            wall, cpu, data = run(args)
            shown = " ".join(command)
            print(f"{title:46s} {shown:28s} {wall:7.2f} ({cpu:5.2f})  {answer(data)}")
        wall, cpu, data = run(["epsilon", "geometric", "--set", "m=4"])
        ratio = data.get("epsilon_star", {})
        value = ratio.get("value") if isinstance(ratio, dict) else None
        print(
            f"{'baseline: exact engine, geometric α = 1/2':46s} {'epsilon':28s} "
            f"{wall:7.2f} ({cpu:5.2f})  ln 2 = {value if value is not None else math.log(2)}"
        )


if __name__ == "__main__":
    main()
