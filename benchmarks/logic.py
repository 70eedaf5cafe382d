"""dpCTL* timings: the Above Threshold MDP over {0..5} and subsampling majority for n = 3..8.

Prints one table: model, formula, states, answer, seconds.  dpCTL* gives no
timings; these are faier's baseline.  Every answer is exact (Storm's rational
engine, exact action-word enumeration, or Proposition 2 with exact bounds).

    .venv/bin/python benchmarks/logic.py            # everything (about a minute on 2 cores)
    .venv/bin/python benchmarks/logic.py --quick    # k ≤ 1 and n ≤ 5
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable
from typing import Any

from faier.logic import check, probabilities
from faier.logic.analysis import least_delta
from faier.logic.examples import above_threshold, above_threshold_path, subsampling_majority
from faier.logic.models import LogicModel


def timed(action: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = action()
    return value, time.perf_counter() - start


def answer(result: Any) -> str:
    if result.verdict is None:
        values = [float(v) for _, v in result.values]
        return f"{len(values)} values in [{min(values):.6g}, {max(values):.6g}]"
    methods = sorted({row.method.split(" (")[0] for op in result.operators for row in op.rows})
    return f"{result.verdict.value} ({' + '.join(methods)})"


def above_threshold_rows(max_k: int) -> list[tuple[str, str, int, str, float]]:
    model, seconds = timed(above_threshold)
    size = len(model.system.states)
    rows = [("above-threshold", "build the MDP", size, "218 states, 96 neighbour pairs", seconds)]
    for k in range(max_k + 1):
        path = above_threshold_path(k)
        for formula, state in (
            (f"D{{0, 0.17}}[{path}]", "t3r5"),
            (f"D{{1, 0.74}}[{path}]", None),
        ):
            if state is None and k > 1:
                continue
            result, seconds = timed(lambda f=formula, s=state: check(model, f, state=s))
            where = f" at {state}" if state else " at all 72 inputs"
            rows.append(("above-threshold", formula + where, size, answer(result), seconds))
        need, seconds = timed(lambda p=path: least_delta(model, p, "1", method="proposition 2"))
        rows.append(
            ("above-threshold", f"least δ for ε = 1, k = {k}: Prop. 2", size, need.show(), seconds)
        )
        if k <= 2:
            need, seconds = timed(lambda p=path: least_delta(model, p, "1"))
            rows.append(
                (
                    "above-threshold",
                    f"least δ for ε = 1, k = {k}: words",
                    size,
                    need.show(),
                    seconds,
                )
            )
    best, seconds = timed(lambda: sup_over_k(model))
    rows.append(("above-threshold", "Prop. 2 sup over all k, ε = 1", size, best, seconds))
    return rows


def sup_over_k(model: LogicModel) -> str:
    """Proposition 2's δ for ε = 1 over every k: φ_k for k ≥ K needs K ⊥ first (a tail bound)."""
    needs = []
    for k in range(64):
        needs.append(least_delta(model, above_threshold_path(k), "1", method="proposition 2"))
        best = max(needs, key=lambda n: n.value)
        first_bots = "bot"
        for _ in range(k):
            first_bots = f"bot & X X ({first_bots})"
        tail = max(probabilities(model, f"X X ({first_bots})", optimum="max").values())
        if float(tail) < best.value - 1e-9:
            return f"k = {needs.index(best)}: {best.show()}; k ≥ {k + 1} below {float(tail):.6f}"
    return "not settled by k = 63"


def subsampling_rows(sizes: range) -> list[tuple[str, str, int, str, float]]:
    rows = []
    for n in sizes:
        model, seconds = timed(lambda n=n: subsampling_majority(n))
        size = len(model.system.states)
        name = f"subsampling n={n}"
        rows.append(
            (name, "build the chain (" + model.description.split("; ")[-2] + ")", size, "", seconds)
        )
        for formula in (
            "D{ln(2), 0}[F out1] & D{ln(2), 0}[F out0]",
            "D{8*ln(2), 1/2}[F out1] & D{8*ln(2), 1/2}[F out0]",
            "P=? [F none]",
        ):
            result, seconds = timed(lambda f=formula, m=model: check(m, f))
            rows.append((name, formula, size, answer(result), seconds))
        _, seconds = timed(lambda m=model: probabilities(m, "X X out1"))
        rows.append((name, "P=? [X X out1] (LTL engine)", size, "", seconds))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="k ≤ 1 and n ≤ 5")
    options = parser.parse_args()
    print(f"# faier dpCTL* benchmark — Python {platform.python_version()}, {platform.machine()}")
    rows = above_threshold_rows(1 if options.quick else 3)
    rows += subsampling_rows(range(3, 6 if options.quick else 9))
    widths = [max(len(str(r[i])) for r in rows) for i in range(4)]
    header = ("model", "formula", "states", "answer", "seconds")
    print("  ".join(h.ljust(w) for h, w in zip(header, [*widths, 7], strict=False)))
    for model, formula, states, result, seconds in rows:
        cells = [model, formula, str(states), result]
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)), f"{seconds:7.3f}")


if __name__ == "__main__":
    main()
