"""dpCTL* timings: dpCTL*'s own models, and PRISM case studies against plain stormpy.

The first table covers the Above Threshold MDP over {0..5} and subsampling
majority for n = 3..8: model, formula, states, answer, seconds.  dpCTL* gives
no timings; these are faier's baseline.  Every answer is exact (Storm's
rational engine, exact action-word enumeration, or Proposition 2 with exact
bounds).

The second table, "PRISM case studies", runs faier on PRISM models of Crowds
(tests/logic/models/crowds-protocol.pm, 4k to 357k states) and of the dining
cryptographers (N = 3, 4, 5, MDPs) and compares it with plain stormpy in the
same process: stormpy parses the file, builds it exactly and answers one
P=?/Pmax=? query; faier loads the file (load_model) and checks the same query,
and, loading again, a D formula.  The ratios are faier's seconds over
stormpy's; faier's values are compared with stormpy's in the initial states.
The last table times whole processes side by side, each a fresh interpreter: a
plain stormpy script (parse, property-directed exact build, one query, as a stormpy
user writes it) and ``faier check --json``, on public models (QVBS's Crowds, nand,
rabin.3, zeroconf, consensus.4, herman.7, leader_sync.4-3, csma.2-4 and the PRISM
suite's brp, vendored under tests/logic/models) and the two case studies: wall and
CPU seconds (user + system of the process and its children), the least of --runs
with the two commands taking turns, the ratio per row, values compared exactly.

    .venv/bin/python benchmarks/logic.py            # everything (a few minutes on 2 cores)
    .venv/bin/python benchmarks/logic.py --quick    # k ≤ 1, n ≤ 5, Crowds up to 17k states
    .venv/bin/python benchmarks/logic.py --whole    # only the whole-process table (1-2 min)
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import machine
import stormpy

from faier.logic import check, load_model, parse_neighbour_spec, probabilities
from faier.logic.analysis import least_delta
from faier.logic.examples import above_threshold, above_threshold_path, subsampling_majority
from faier.logic.models import LogicModel
from faier.logic.parser import parse_formula


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
            result, seconds = timed(functools.partial(check, model, formula, state=state))
            where = f" at {state}" if state else " at all 72 inputs"
            rows.append(("above-threshold", formula + where, size, answer(result), seconds))
        need, seconds = timed(
            functools.partial(least_delta, model, path, "1", method="proposition 2")
        )
        rows.append(
            ("above-threshold", f"least δ for ε = 1, k = {k}: Prop. 2", size, need.show(), seconds)
        )
        if k <= 2:
            need, seconds = timed(functools.partial(least_delta, model, path, "1"))
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
        model, seconds = timed(functools.partial(subsampling_majority, n))
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
            result, seconds = timed(functools.partial(check, model, formula))
            rows.append((name, formula, size, answer(result), seconds))
        _, seconds = timed(functools.partial(probabilities, model, "X X out1"))
        rows.append((name, "P=? [X X out1] (LTL engine)", size, "", seconds))
    return rows


MODELS = Path(__file__).resolve().parents[1] / "tests" / "logic" / "models"
CROWDS = MODELS / "crowds-protocol.pm"
CROWDS_SIZES = ((3, 10), (4, 10), (4, 15), (6, 10), (5, 15))
"""(TotalRuns, CrowdSize): 4,136, 17,446, 76,296, 178,178 and 356,592 states (PF 4/5, badC 1)."""
QUICK_CROWDS_SIZES = CROWDS_SIZES[:2]
DINING_SIZES = (3, 4, 5)


@dataclass(frozen=True)
class CaseStudy:
    """One PRISM model with its constants, a P=?/Pmax=? query and a D formula."""

    name: str
    path: Path
    constants: Mapping[str, str]
    label: str
    """The label both queries are about."""
    optimum: str
    """``P`` on a chain, ``Pmax`` on an MDP."""
    diff: str
    neighbours: str

    @property
    def query(self) -> str:
        return f"{self.optimum}=? [F {self.label}]"

    @property
    def storm_query(self) -> str:
        return f'{self.optimum}=? [F "{self.label}"]'


def case_studies(quick: bool) -> list[CaseStudy]:
    cases = []
    for runs, size in QUICK_CROWDS_SIZES if quick else CROWDS_SIZES:
        constants = {"TotalRuns": str(runs), "CrowdSize": str(size), "PF": "4/5", "badC": "1"}
        cases.append(
            CaseStudy(
                f"crowds runs={runs} size={size}",
                CROWDS,
                constants,
                "seen0twice",
                "P",
                "D{ln(3), 0}[F seen0twice]",
                "@sentA~@sentB",
            )
        )
    for n in DINING_SIZES:
        path = MODELS / ("dining-cryptographers.pm" if n == 3 else f"dining-cryptographers-{n}.pm")
        outcome = "out_d" + "a" * (n - 1)
        pairs = "; ".join(f"@paid{i}~@paid{i + 1}" for i in range(n - 1))
        cases.append(
            CaseStudy(
                f"dining cryptographers N={n}",
                path,
                {},
                outcome,
                "Pmax",
                f"D{{0, 0}}[F {outcome}]",
                pairs,
            )
        )
    return cases


def stormpy_run(case: CaseStudy) -> tuple[int, int, list[Fraction], float]:
    """Plain stormpy: parse, build exactly, one query; states, transitions, initial values, s."""
    start = time.perf_counter()
    program = stormpy.parse_prism_program(str(case.path))
    if case.constants:
        # ints as ints (Storm's int constants), anything else exactly as a rational
        constants = {
            k: int(v) if v.isdigit() else stormpy.Rational(v) for k, v in case.constants.items()
        }
        program, _ = stormpy.instantiate_constants(program, constants)
    built = stormpy.build_model[stormpy.Rational](
        program, options=stormpy.BuilderOptions(build_full=True)
    )
    result = stormpy.model_checking(built, stormpy.parse_property(case.storm_query, program))
    values = sorted(Fraction(str(result.get_value(s))) for s in built.initial_states)
    seconds = time.perf_counter() - start
    return built.nr_states, built.nr_transitions, values, seconds


def faier_run(
    case: CaseStudy, formula: str, neighbours: str | None, directed: bool = True
) -> tuple[Any, float]:
    """faier from the file: load_model (built for the formula where Storm can direct the
    build, as ``faier check`` does; ``directed=False``: the whole model) and check; the
    result, or the error's text."""
    start = time.perf_counter()
    try:
        question = parse_formula(formula).formula if directed else None
        model = load_model(str(case.path), case.constants, question=question)
        relation = parse_neighbour_spec(neighbours) if neighbours else None
        result: Any = check(model, formula, neighbours=relation)
    except Exception as exc:  # a refused formula is a cell of the table, not a crash
        result = f"{type(exc).__name__}: {exc}"
    return result, time.perf_counter() - start


def d_answer(result: Any) -> str:
    if isinstance(result, str):
        return result
    methods = sorted({row.method for op in result.operators for row in op.rows} - {"no neighbours"})
    text = f"{result.verdict.value} ({' + '.join(methods)})"
    return text + (f": {result.reason}" if result.reason else "")


def case_study_rows(quick: bool) -> list[tuple[str, ...]]:
    warm = case_studies(quick=True)[0]  # the first calls pay for lazy loading: not timed
    warm = replace(warm, constants={**warm.constants, "TotalRuns": "1"})
    stormpy_run(warm)
    faier_run(warm, warm.query, None)
    rows: list[tuple[str, ...]] = []
    for case in case_studies(quick):
        gc.collect()
        states, transitions, storm_values, storm_seconds = stormpy_run(case)
        gc.collect()
        p_result, p_seconds = faier_run(case, case.query, None)
        gc.collect()
        _, whole_seconds = faier_run(case, case.query, None, directed=False)
        gc.collect()
        d_result, d_seconds = faier_run(case, case.diff, case.neighbours)
        if isinstance(p_result, str):
            agree = p_result
        else:
            faier_values = sorted(value for _, value in p_result.values)
            agree = "same" if faier_values == storm_values else f"differ: {faier_values}"
        rows.append(
            (
                case.name,
                f"{states:,}",
                f"{transitions:,}",
                f"{storm_seconds:.3f}",
                f"{whole_seconds:.3f}",
                f"{p_seconds:.3f}",
                f"{p_seconds / storm_seconds:.1f}x",
                f"{d_seconds:.3f}",
                f"{d_seconds / storm_seconds:.1f}x",
                f"{agree} ({', '.join(map(str, storm_values))})",
                d_answer(d_result),
            )
        )
    return rows


def print_case_studies(quick: bool) -> None:
    rows = case_study_rows(quick)
    print()
    print("PRISM case studies: stormpy = parse + exact build + one query (this process);")
    print("faier P, faier D = load_model + check, each from the file; x = over stormpy;")
    print("faier P is built for its query (Storm's property-directed build, as faier check")
    print("does), faier P whole on the whole model (as before issue 25)")
    print("  crowds: P=? [F seen0twice] and D{ln(3), 0}[F seen0twice] with @sentA~@sentB")
    print("  dining cryptographers: Pmax=? [F out_daa..] and D{0, 0}[F out_daa..] with")
    print("    @paid0~@paid1; @paid1~@paid2; ... (out_daa..: 0 disagrees, the others agree)")
    header = (
        "model",
        "states",
        "transitions",
        "stormpy s",
        "faier P whole s",
        "faier P s",
        "P x",
        "faier D s",
        "D x",
        "faier P = stormpy (initial values)",
        "faier D",
    )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    right = {1, 2, 3, 4, 5, 6, 7, 8}
    for row in [header, *rows]:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=False))
        ]
        print("  ".join([*cells, row[-1]]))


STORMPY_ALONE = """
import sys, stormpy
path, constants, query = sys.argv[1], sys.argv[2], sys.argv[3]
program = stormpy.parse_prism_program(path)
if constants:
    values = dict(kv.split("=") for kv in constants.split(","))
    values = {
        k: int(v) if v.isdigit() else v == "true" if v in ("true", "false") else stormpy.Rational(v)
        for k, v in values.items()
    }
    program, _ = stormpy.instantiate_constants(program, values)
properties = stormpy.parse_properties(query, program)
model = stormpy.build_model[stormpy.Rational](program, properties)
result = stormpy.model_checking(model, properties[0])
print(model.nr_states, [str(result.get_value(s)) for s in model.initial_states])
"""
"""Plain stormpy as a user writes it: parse, property-directed exact build, one query."""


@dataclass(frozen=True)
class Public:
    """A public model (QVBS or the PRISM benchmark suite, vendored under tests/logic/models)
    with one question from its own property file, asked of stormpy and of ``faier check``."""

    name: str
    file: str
    constants: str
    query: str


PUBLIC = (
    Public(
        "Crowds 5-10 (QVBS)", "crowds.prism", "TotalRuns=5,CrowdSize=10", "P=? [ F observe0>1 ]"
    ),
    Public("nand 20-2 (QVBS)", "nand.prism", "N=20,K=2", "P=? [ F s=4 & z/N<0.1 ]"),
    Public("rabin.3 (QVBS)", "rabin.3.prism", "", "Pmax=? [ F (p1=2|p2=2|p3=2) ]"),
    Public("brp 64-5 (PRISM suite)", "brp.pm", "N=64,MAX=5", "P=? [ F s=5 ]"),
    Public(
        "zeroconf 20-2 (QVBS)", "zeroconf.prism", "N=20,K=2,reset=true", "Pmin=? [ F (l=4 & ip=1) ]"
    ),
    Public(
        "consensus.4 K=2 (QVBS)",
        "consensus.4.prism",
        "K=2",
        'Pmin=? [ F "finished"&"all_coins_equal_1" ]',
    ),
    Public("herman.7 (QVBS)", "herman.7.prism", "", 'R=? [ F "stable" ]'),
    Public(
        "leader_sync.4-3 (QVBS)", "leader_sync.4-3.prism", "", 'R{"num_rounds"}=? [ F "elected" ]'
    ),
    Public(
        "csma.2-4 (QVBS)",
        "csma.2-4.prism",
        "",
        'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]',
    ),
)
QUICK_PUBLIC = tuple(p for p in PUBLIC if not p.name.startswith(("Crowds", "nand")))


@dataclass(frozen=True)
class Timing:
    """One child process: wall seconds, CPU seconds (user + system, its own children
    included) and what it printed."""

    wall: float
    cpu: float
    output: str


def whole_process(command: list[str], environment: Mapping[str, str]) -> Timing:
    """Run ``command`` to its end; CPU from getrusage(RUSAGE_CHILDREN), which counts the
    child and every process it waited for (faier's command runs in a forked child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, check=True, capture_output=True, text=True, env=environment)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, done.stdout)


def best(
    commands: tuple[list[str], list[str]], environment: Mapping[str, str], runs: int
) -> tuple[Timing, Timing]:
    """Each command's run with the least CPU of ``runs``, the two taking turns (a load
    that comes and goes weighs on both alike), after one untimed run each that writes the
    bytecode caches, as an installed package has them."""
    for command in commands:
        whole_process(command, environment)
    timings: tuple[list[Timing], list[Timing]] = ([], [])
    for _ in range(runs):
        for command, found in zip(commands, timings, strict=True):
            found.append(whole_process(command, environment))
    first, second = (min(found, key=lambda t: t.cpu) for found in timings)
    return first, second


def _stormpy_values(output: str) -> tuple[int, list[Fraction]]:
    states, _, values = output.strip().splitlines()[-1].partition(" ")
    return int(states), sorted(Fraction(v) for v in json.loads(values.replace("'", '"')))


def _faier_values(output: str) -> list[Fraction]:
    return sorted(Fraction(v) for v in json.loads(output)["values"].values())


def print_whole_processes(quick: bool, runs: int) -> None:
    """``faier check FILE -f QUERY`` against a stormpy script, each a fresh process."""
    with tempfile.TemporaryDirectory() as caches:
        environment = {**os.environ, "PYTHONPYCACHEPREFIX": caches}
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        _whole_process_table(quick, runs, environment)


def _whole_process_table(quick: bool, runs: int, environment: Mapping[str, str]) -> None:
    print()
    print(f"Whole processes (interpreter start, imports, build, one query), least CPU of {runs},")
    print("  stormpy and faier taking turns")
    print("  stormpy: parse + property-directed exact build + query; faier: faier check --json")
    print("  (the console entry, faier.cli.entry: a plain check runs without typer)")
    print("  CPU = user + system of the process and its children; x = faier over stormpy")
    faier = [sys.executable, "-c", "from faier.cli.entry import main; main()", "check"]
    cases = [
        (p.name, MODELS / p.file, p.constants, p.query, p.query)
        for p in (QUICK_PUBLIC if quick else PUBLIC)
    ]
    cases += [
        (
            c.name,
            c.path,
            ",".join(f"{k}={v}" for k, v in c.constants.items()),
            c.storm_query,
            c.query,
        )
        for c in case_studies(quick=True)  # the larger Crowds sizes are in the table above
    ]
    header = (
        "model",
        "states",
        "query",
        "stormpy s",
        "faier s",
        "wall x",
        "stormpy CPU",
        "faier CPU",
        "CPU x",
        "values",
    )
    widths = (26, 8, 54, 9, 7, 6, 11, 9, 6, 6)
    print("  ".join(c.ljust(w) for c, w in zip(header, widths, strict=True)), flush=True)
    for name, path, constants, storm_query, faier_query in cases:
        settings = ["--set", constants] if constants else []
        plain, ours = best(
            (
                [sys.executable, "-c", STORMPY_ALONE, str(path), constants, storm_query],
                [*faier, str(path), *settings, "-f", faier_query, "--json"],
            ),
            environment,
            runs,
        )
        states, expected = _stormpy_values(plain.output)
        same = "same" if _faier_values(ours.output) == expected else "DIFFER"
        row = (
            name,
            f"{states:,}",
            faier_query,
            f"{plain.wall:.2f}",
            f"{ours.wall:.2f}",
            f"{ours.wall / plain.wall:.2f}x",
            f"{plain.cpu:.2f}",
            f"{ours.cpu:.2f}",
            f"{ours.cpu / plain.cpu:.2f}x",
            same,
        )
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)), flush=True)


def main() -> None:
    sys.set_int_max_str_digits(0)  # exact answers can be longer than 4300 digits (brp 512-5)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="k ≤ 1, n ≤ 5, Crowds up to 17k states"
    )
    parser.add_argument(
        "--prism", action="store_true", help="only the PRISM case studies against stormpy"
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="only the whole-process table (public models, stormpy script against faier check)",
    )
    parser.add_argument("--runs", type=int, default=2, help="timed runs per process (least CPU)")
    options = parser.parse_args()
    if options.whole:
        print(f"machine: {machine.describe()}")
        print_whole_processes(options.quick, options.runs)
        return
    if options.prism:
        print_case_studies(options.quick)
        print_whole_processes(options.quick, options.runs)
        return
    print(f"# faier dpCTL* benchmark — Python {platform.python_version()}, {platform.machine()}")
    print(f"machine: {machine.describe()}")
    rows = above_threshold_rows(1 if options.quick else 3)
    rows += subsampling_rows(range(3, 6 if options.quick else 9))
    widths = [max(len(str(r[i])) for r in rows) for i in range(4)]
    header = ("model", "formula", "states", "answer", "seconds")
    print("  ".join(h.ljust(w) for h, w in zip(header, [*widths, 7], strict=False)))
    for model, formula, states, result, seconds in rows:
        cells = [model, formula, str(states), result]
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)), f"{seconds:7.3f}")
    print_case_studies(options.quick)
    print_whole_processes(options.quick, options.runs)


if __name__ == "__main__":
    main()
