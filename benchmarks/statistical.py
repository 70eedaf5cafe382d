"""The statistical tester's cost per test ε: vectorised sampling against one run per sample.

For every mechanism of StatDP's suite (continuous noise) and discrete Noisy
Max (n = 5), at StatDP's 500 000 test / 100 000 selection samples (§5.4) per
input and its 16 input pairs (StatDP Table 1 at lengths 5 and 10; 4 for the
histograms, whose neighbours move one query):

* ``CPU/ε``: CPU seconds of a complete run at one test ε (the claimed ε₀ =
  0.7): argument generation, selection, test and loss interval;
* ``grid``: CPU seconds per ε of a run over the 23-point grid 0..2.2 of
  StatDP's figures (selection samples and event counts are shared by all ε);
* ``samples/s``: mechanism runs drawn per CPU second in the one-ε run;
* ``loop``: the same one-ε run drawing one run per sample (the scalar
  pseudo-code, or ``ctx.draw`` for the discrete mechanism), measured at a
  fraction of the sample counts and scaled up (cost is linear in them);
* ``StatDP``: the original tool's CPU seconds per ε on this machine with 16
  input pairs, as measured for the issue (17 s, 14–15 s, 24–26 s, 31 s).

Single process (``workers=1``) so that CPU seconds are the tester's own.

    .venv/bin/python benchmarks/statistical.py            # full counts, several minutes
    .venv/bin/python benchmarks/statistical.py --quick    # 50 000 / 10 000 samples
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import machine

from faier import api
from faier.core.problem import Problem
from faier.engines.statistical.config import Config, parse_epsilons
from faier.engines.statistical.reports import StatReport
from faier.engines.statistical.subjects import Subject, from_problem, from_sampled
from faier.engines.statistical.tester import run
from faier.mechanisms.library.continuous import SUITE

CLAIMED = 0.7
STATDP = {
    "noisy-max-laplace": "17",
    "svt-laplace": "14–15",
    "isvt4-laplace": "24–26",
    "discrete noisy-max n=5": "31",
}


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[bool], Subject]


def sampled_builder(name: str) -> Callable[[bool], Subject]:
    """The suite's mechanism ``name`` as a subject, its draws one by one or vectorised."""

    def build(each: bool) -> Subject:
        return from_sampled(SUITE[name], CLAIMED, per_sample=each)

    return build


def problem_builder(problem: Problem) -> Callable[[bool], Subject]:
    """A loaded problem as a subject, its draws one by one or vectorised."""

    def build(each: bool) -> Subject:
        return from_problem(problem, per_sample=each)

    return build


def cases() -> list[Case]:
    found = [Case(name, sampled_builder(name)) for name in SUITE]
    problem = api.load_problem("noisy-max", settings={"n": "5"})
    found.append(Case("discrete noisy-max n=5", problem_builder(problem)))
    for name in ("noisy-max-gaussian", "svt-gaussian"):
        program = api.load_problem(name)  # a ctx.draw program: path by path, else one run each
        found.append(Case(f"{name} (program)", problem_builder(program)))
    return found


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def drawn(subject: Subject, report: StatReport) -> int:
    """Mechanism runs of a report: selection on every side, test on the sides it tested."""
    tested = {
        side
        for c in [p.candidate for p in report.points]
        + ([report.interval.candidate] if report.interval else [])
        for side in (c.left, c.right)
    }
    s = report.settings
    return len(subject.sides) * s.selection_samples + len(tested) * s.samples


def timed(
    case: Case, each: bool, samples: int, selection: int, grid: tuple[float, ...]
) -> tuple[float, int, StatReport]:
    """CPU seconds (subject and run), runs drawn, and the report."""
    start = cpu()
    subject = case.build(each)
    config = Config(CLAIMED, grid, samples=samples, selection_samples=selection, seed=2018)
    report = run(subject, config)
    return cpu() - start, drawn(subject, report), report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 000 / 10 000 samples")
    parser.add_argument(
        "--loop-fraction", type=float, default=0.05, help="share of the counts for the loop"
    )
    parser.add_argument("--only", help="comma-separated case names")
    args = parser.parse_args()
    samples, selection = (50_000, 10_000) if args.quick else (500_000, 100_000)
    grid = parse_epsilons("0:2.2:0.1")
    print(f"machine: {machine.describe()}")
    print(
        f"samples per input: {samples} test, {selection} selection; claimed ε₀ = {CLAIMED}; "
        f"loop measured at {args.loop_fraction:g} of the counts and scaled"
    )
    header = (
        f"{'mechanism':30} {'pairs':>5} {'CPU/ε':>7} {'grid/ε':>7} {'samples/s':>10} "
        f"{'loop CPU/ε':>10} {'loop s/s':>9} {'speed-up':>8} {'StatDP':>7}"
    )
    print(header)
    print("-" * len(header))
    chosen = set(args.only.split(",")) if args.only else None
    for case in cases():
        if chosen and case.name not in chosen:
            continue
        seconds, runs, report = timed(case, False, samples, selection, (CLAIMED,))
        grid_seconds, _, _ = timed(case, False, samples, selection, grid)
        small = max(2, round(samples * args.loop_fraction))
        small_selection = max(2, round(selection * args.loop_fraction))
        loop_seconds, loop_runs, _ = timed(case, True, small, small_selection, (CLAIMED,))
        scaled = loop_seconds * runs / loop_runs
        per_grid_point = grid_seconds / len(grid)
        print(
            f"{case.name:30} {report.pairs // 2:>5} {seconds:>7.2f} {per_grid_point:>7.2f} "
            f"{runs / seconds:>10.3g} {scaled:>10.1f} {loop_runs / loop_seconds:>9.3g} "
            f"{scaled / seconds:>7.0f}× {STATDP.get(case.name, ''):>7}",
            flush=True,
        )
    print(f"finished at {time.strftime('%Y-%m-%d %H:%M')}")


if __name__ == "__main__":
    main()
