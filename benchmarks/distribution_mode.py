"""Distribution mode at scale: the grid search against the pair-by-pair search.

Prints one table: case, size, method, seconds, candidates rechecked exactly,
ε*.  The baseline is the foundation's distribution mode (every ordered
neighbour pair compared in exact arithmetic, :func:`pair_search`), run in the
same process on the same mechanism where it finishes within ``--baseline-timeout``.
Rows marked "exact per input" use the grid search without the mechanism's
batch evaluator (exact distributions of all inputs, screened in float64).
Seconds are one ``epsilon()`` call, the mechanism already built; then
whole-process times: a fresh Python computing Noisy Max's ε*, and the CLI.
Where ε* is attained by very many exactly tied triples (``ties=value`` with
one-query neighbours, histograms) every tied triple is rechecked exactly, so
those rows cost about the exact distributions of the inputs involved (for
Noisy Max from its closed forms in integers, ``NoisyMax.grid_column``: the
n = 9 row took 42 s with the step program's distributions, 1.3 s with them).

    .venv/bin/python benchmarks/distribution_mode.py            # n up to 12
    .venv/bin/python benchmarks/distribution_mode.py --max-n 9 --baseline-max-n 6
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import machine

from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import distribution_mode, epsilon
from faier.engines.exact.losses import worst_outcome
from faier.errors import BudgetExceeded
from faier.mechanisms.library.histogram import histogram
from faier.mechanisms.library.noisy_max import noisy_max
from faier.mechanisms.program import StepProgram
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Loss

Relation = EveryQuery | OneQuery


def show(loss: Loss | None) -> str:
    return "—" if loss is None else loss.show()


def pair_search(mechanism: Any, relation: Relation, timeout: float) -> Loss | None:
    """The foundation's distribution mode: every ordered neighbour pair, exactly."""
    budget = Budget(timeout=timeout)
    comparisons = DifferentialPrivacy(relation).comparisons(mechanism.inputs.values)
    best: Loss | None = None
    for compared in distribution_mode.compare_outputs(mechanism, comparisons, budget):
        budget.check_time()
        worst = worst_outcome((o, p, q) for o, (p, q) in compared.outcomes.items())
        if worst is not None and (best is None or worst.loss.exceeds(best)):
            best = worst.loss
    return best


def without_evaluator(mechanism: Any) -> StepProgram[Any, Any]:
    """The same step program, without its batch evaluator."""
    return StepProgram(
        mechanism.name,
        mechanism.start,
        mechanism.step,
        mechanism.inputs,
        mechanism.doc,
        mechanism.output_name,
    )


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, ...]] = []
        header = ("case", "size", "method", "seconds", "rechecked", "ε*")
        self.widths = [28, 26, 22, 9, 9, 0]
        self.emit(header)

    def emit(self, cells: tuple[str, ...]) -> None:
        line = "  ".join(c.ljust(w) for c, w in zip(cells, self.widths, strict=True))
        print(line.rstrip(), flush=True)

    def grid(self, case: str, mechanism: Any, relation: Relation, label: str) -> Loss | None:
        started = time.perf_counter()
        result = epsilon(Problem(case, mechanism, DifferentialPrivacy(relation)))
        seconds = time.perf_counter() - started
        found = re.search(r"(\d+) candidates rechecked", result.method)
        pairs = re.search(r"(\d+) neighbour pairs", result.method)
        size = f"{len(mechanism.inputs)} inputs, {pairs.group(1) if pairs else '?'} pairs"
        self.emit(
            (
                case,
                size,
                label,
                f"{seconds:.3f}",
                found.group(1) if found else "—",
                show(result.exact_loss),
            )
        )
        return result.exact_loss

    def baseline(
        self, case: str, mechanism: Any, relation: Relation, timeout: float, expected: Loss | None
    ) -> None:
        started = time.perf_counter()
        try:
            loss = pair_search(mechanism, relation, timeout)
        except BudgetExceeded:
            self.emit((case, "", "pair search (baseline)", f"> {timeout:g}", "—", "did not finish"))
            return
        seconds = time.perf_counter() - started
        agrees = "" if loss == expected else "   DISAGREES WITH THE GRID SEARCH"
        self.emit((case, "", "pair search (baseline)", f"{seconds:.3f}", "—", show(loss) + agrees))


def process_seconds(command: list[str]) -> tuple[float, str]:
    """Wall time of a fresh process and the line of its output that shows ε*."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    lines = [line.strip() for line in done.stdout.splitlines() if "ln(" in line]
    return seconds, lines[0] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=12, help="largest Noisy Max n")
    parser.add_argument("--baseline-max-n", type=int, default=6, help="largest n for baselines")
    parser.add_argument("--baseline-timeout", type=float, default=300.0)
    args = parser.parse_args()
    print(f"machine: {machine.describe()}\n")
    table = Table()
    slow = args.baseline_timeout

    def noisy(ties: str, relation: Relation, sizes: range, fallback_max: int = 0) -> None:
        for n in sizes:
            case = f"noisy max {ties} n={n}" + (
                " one-query" if isinstance(relation, OneQuery) else ""
            )
            loss = table.grid(case, noisy_max(n, ties), relation, "grid search")
            if n <= fallback_max:
                table.grid(
                    case, without_evaluator(noisy_max(n, ties)), relation, "… exact per input"
                )
            if n <= args.baseline_max_n:
                table.baseline(case, noisy_max(n, ties), relation, slow, loss)

    noisy("uniform", EveryQuery(1), range(2, args.max_n + 1), fallback_max=min(8, args.max_n))
    noisy("first", EveryQuery(1), range(3, args.max_n + 1, 3))
    noisy("value", OneQuery(1), range(3, min(args.max_n, 9) + 1, 3))  # exact ties everywhere
    for bins in range(2, 7):
        for relation in (OneQuery(1), EveryQuery(1)):
            kind = "one-query" if isinstance(relation, OneQuery) else "every-query"
            case = f"histogram {bins} bins {kind}"
            loss = table.grid(case, histogram(bins), relation, "grid search")
            if bins <= 4:
                table.baseline(case, histogram(bins), relation, slow, loss)

    print("\nwhole process (fresh interpreter: import faier, compute ε*, print it):")
    code = (
        "import sys; from faier.engines.exact import epsilon; from faier.core.problem import "
        "Problem; from faier.mechanisms.library.noisy_max import noisy_max; from "
        "faier.privacy.specs import DifferentialPrivacy; r = epsilon(Problem('nm', "
        "noisy_max(int(sys.argv[1]), 'uniform'), DifferentialPrivacy())); "
        "print(r.epsilon_star.show())"
    )
    runs = [("python -c 'import faier' (startup only)", [sys.executable, "-c", "import faier"])]
    for n in (5, 9, 12):
        if n <= args.max_n:
            runs.append((f"python: noisy max uniform n={n}", [sys.executable, "-c", code, str(n)]))
    cli = Path(sys.executable).with_name("faier")
    if cli.exists():
        command = [str(cli), "epsilon", "noisy-max", "--set", "n=5"]
        runs.append(("CLI: faier epsilon noisy-max --set n=5", command))
    for label, command in runs:
        seconds, shown = process_seconds(command)
        print(f"  {label:44s} {seconds:7.3f} s   {shown[:60]}")


if __name__ == "__main__":
    main()
