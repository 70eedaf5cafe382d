"""CheckDP's benchmark proved or refuted by the alignment engine, whole process per mechanism.

Each row runs ``faier verify examples/checkdp/NAME.py --epsilon E --engine alignment
--json`` in a fresh process (interpreter start and imports included, timed from
outside) beside CheckDP's verdict (Wang et al., CCS 2020, Table 2: every correct
mechanism proved, every buggy one refuted, each within 70 s), where a refutation's
witness is (its number of queries; the cut point when the released numbers were
coarsened, docs/PROOFS.md), and for each proof the grid engine's ε* over the
example's own grid (``faier epsilon … --engine certified``) as a consistency check:
a proof at ε beside a grid ε* (or a certified lower bound of it) above ε would be a
soundness bug, and the script exits 1.

The grids: n = 3 queries, {0,1,2}³, for every loop of the suite (Noisy Max with
Laplace and exponential noise, SVT, NumSVT, GapSVT, AdaptiveSVT, PartialSum,
PrefixSum); n = 1, {0,1,2}, for the Laplace mechanism (one query); n = 2, {0,1,2}²,
for SmartSum (at n = 3 its third release is a sum of two noise variables, which the
certified engine refuses, so its ε* = 2 is exact at n = 2).  Where the certified
engine refuses what a program releases (NumSVT, GapSVT, AdaptiveSVT, PrefixSum), the
column shows the certified lower bound from the program with its released numbers
coarsened, and where they were cut (``≥ 0.55 (cut at -12, …, 6)``; for PrefixSum only
the first released number is kept: a prefix sum cut at a point compares a sum of
noise variables).

    .venv/bin/python benchmarks/proofs.py
    .venv/bin/python benchmarks/proofs.py noisy_max sparse_vector   # some rows
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

import machine

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "checkdp"

SUITE = (
    ("laplace_mechanism", "1", "proved"),
    ("noisy_max", "1", "proved"),
    ("noisy_max_exponential", "1", "proved"),
    ("sparse_vector", "1", "proved"),
    ("num_svt", "1", "proved"),
    ("gap_svt", "1", "proved"),
    ("adaptive_svt", "1", "proved"),
    ("partial_sum", "1", "proved"),
    ("smart_sum", "2", "proved"),
    ("prefix_sum", "1", "proved"),
    ("bad_noisy_max1", "1", "refuted"),
    ("bad_noisy_max2", "1", "refuted"),
    ("bad_noisy_max3", "1", "refuted"),
    ("bad_noisy_max4", "1", "refuted"),
    ("bad_svt1", "1", "refuted"),
    ("bad_svt2", "1", "refuted"),
    ("bad_svt3", "1", "refuted"),
    ("bad_svt4", "1", "refuted"),
    ("bad_gap_svt", "1", "refuted"),
    ("bad_adaptive_svt", "1", "refuted"),
    ("bad_partial_sum", "1", "refuted"),
    ("bad_smart_sum", "2", "refuted"),
)
"""(example, claimed ε, CheckDP's verdict for every input and every number of queries)."""

TIMEOUT = 120.0


def run(args: list[str]) -> tuple[float, dict[str, object] | None]:
    """(wall seconds, the JSON) of one whole ``faier`` process."""
    cli = Path(sys.executable).with_name("faier")
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [str(cli), *args, "--json"], capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return math.inf, None
    seconds = time.perf_counter() - started
    try:
        return seconds, json.loads(done.stdout)
    except json.JSONDecodeError:
        return seconds, {"verdict": f"exit {done.returncode}"}


def grid_epsilon(path: Path) -> tuple[str, float | None]:
    """The certified engine's ε* over the example's grid (text, certified lower bound); a
    lower bound alone (upper ∞) where it coarsened the released numbers, with the cuts."""
    _, data = run(["epsilon", str(path), "--engine", "certified"])
    star = None if data is None else data.get("epsilon_star")
    if not isinstance(star, dict):
        return "—", None
    low, high = star.get("lower"), star.get("upper")
    if low == "inf":
        return "∞", math.inf
    if not isinstance(low, float):
        return "—", None
    if high == "inf":
        return f"≥ {low:.6f} ({coarsening(data)})", low
    shown = f"{low:.6f}" if high == low else f"[{low:.6f}, {high}]"
    return shown, low


def coarsening(data: dict[str, object] | None) -> str:
    """Where the witness event's released numbers were cut (``cut at 0``)."""
    witness = None if data is None else data.get("witness")
    output = str(witness.get("output", "")) if isinstance(witness, dict) else ""
    if "among the cut point" not in output:
        return "a lower bound"
    cuts = output.rsplit("cut point", 1)[-1].removeprefix("s").strip()
    cuts = cuts.split(", the others", 1)[0]
    first = "first number, " if "the first released number" in output else ""
    return f"{first}cut at {cuts}"


def witnessed(data: dict[str, object]) -> str:
    """Where a refutation's witness is: its number of queries, and the coarsening of the
    released numbers when the certified engine decided one (its loss a lower bound)."""
    witness = data.get("witness")
    if not isinstance(witness, dict):
        return ""
    inputs = witness.get("inputs")
    first = inputs[0] if isinstance(inputs, list) and inputs else None
    shown = f"witness at n = {len(first)}" if isinstance(first, list) else "witness"
    output = str(witness.get("output", ""))
    if "replaced by where it lies among the cut" in output:
        shown += ", released numbers cut at " + output.rsplit("cut point", 1)[-1].strip(" s")
    return shown


def main(names: list[str]) -> int:
    print(machine.describe())
    rows = [row for row in SUITE if not names or row[0] in names]
    header = ("mechanism", "ε", "CheckDP", "faier", "proof for / witness", "seconds", "grid ε*")
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    broken = False
    for name, claim, paper in rows:
        path = EXAMPLES / f"{name}.py"
        seconds, data = run(["verify", str(path), "--epsilon", claim, "--engine", "alignment"])
        verdict = "timeout" if data is None else str(data.get("verdict"))
        proof = None if data is None else data.get("proof")
        scope = ""
        if isinstance(proof, dict):
            queries = proof.get("queries")
            scope = "all inputs, every n" if queries == "every n" else f"all inputs, n = {queries}"
        grid = ""
        if verdict == "holds":
            grid, low = grid_epsilon(path)
            if low is not None and low > float(claim):
                grid += "  INCONSISTENT"
                broken = True
        if verdict == "violated" and data is not None:
            scope = witnessed(data)
        print(f"{name} | {claim} | {paper} | {verdict} | {scope} | {seconds:.2f} | {grid}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
