"""SMT engine benchmark: the FAIER papers' Algorithm 1 against the fast encoding, per solver.

Part 1, per parametric example: wall time of ``faier verify`` with the faithful
encoding (Algorithm 1, z3), the fast encoding with z3, with cvc5 and with the
portfolio, each under ``--timeout`` (a run that hits it is shown as a timeout),
and the verdict.  Then the whole-process time of the Ex. 6.2 proof (FAIER
journal numbering) from a shell.

Part 2: Algorithm 1 on the FAIER papers' Noisy Max HMM (Fig. 2, 2·3ⁿ states) under
every-query ±1 neighbours, n = 3, 4, 5, deciding ln 2 (violated) and ε* (holds,
so every pair is queried), beside the exact engine on the same questions.

    .venv/bin/python benchmarks/smt.py                  # timeouts 60 s / 120 s
    .venv/bin/python benchmarks/smt.py --timeout 20 --dp-timeout 30 --max-n 4
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import subprocess
import sys
import time
from collections.abc import Hashable
from pathlib import Path

from faier import api
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines import exact, smt
from faier.examples.paper_hmms import noisy_max_hmm, vector_state
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.privacy.budget import Epsilon
from faier.privacy.specs import Comparison, Pufferfish
from faier.results import Result, Verdict

ROOT = Path(__file__).resolve().parents[1]

CASES: tuple[tuple[str, str, str, tuple[str, ...], dict[str, str]], ...] = (
    ("Ex. 4.5, secret conditioning", "count-independent-disease", "ln(2)", (), {}),
    ("Ex. 4.5, paper's priors", "count-independent-disease", "ln(2)", (), {"priors": "paper"}),
    ("Ex. 4.3-4.4, contagious", "count-contagious-disease", "ln(2)", (), {}),
    ("Ex. 6.2 (conf. 5), independent", "most-common-disease", "ln(2)", (), {}),
    ("Ex. 6.2, paper's priors", "most-common-disease", "ln(2)", (), {"priors": "paper"}),
    ("Ex. 6.3, A contagious", "most-common-disease-family", "ln(2)", (), {}),
    ("conf. Ex. 6, five diseases", "most-common-of-five-diseases", "ln(2)", (), {}),
    (
        "notes Ex. 7.1, p1, p2 unknown",
        "most-common-disease-secret-c",
        "ln(2)",
        ("p1 in (0, 1)", "p2 in (0, 1)"),
        {},
    ),
)

RUNS = (
    ("faithful (z3)", "z3", "faithful"),
    ("fast z3", "z3", "fast"),
    ("fast cvc5", "cvc5", "fast"),
    ("portfolio", "portfolio", "fast"),
)


def cell(result: Result, seconds: float, timeout: float) -> str:
    """``0.21 s holds`` or ``timeout (60 s)``."""
    verdict = result.verdict.value if result.verdict is not None else "?"
    if result.verdict is Verdict.UNKNOWN:
        reason = result.reason or ""
        if "timeout" in reason:
            return f"timeout ({timeout:g} s)"
        return f"{seconds:.2f} s unknown"
    return f"{seconds:.2f} s {verdict}"


def examples(timeout: float) -> None:
    header = ["example", *(name for name, _, _ in RUNS)]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for label, target, eps, params, settings in CASES:
        row = [label]
        for _, solver, encoding in RUNS:
            started = time.perf_counter()
            result = api.verify(
                target,
                eps,
                settings=settings,
                params=params,
                engine="smt",
                solver=solver,
                encoding=encoding,
                timeout=timeout,
            )
            row.append(cell(result, time.perf_counter() - started, timeout))
        print(" | ".join(row), flush=True)


PYTHON_PROOF = "import faier; print(faier.verify('most-common-disease', 'ln(2)').verdict.value)"


def whole_process(runs: int = 3) -> None:
    """The Ex. 6.2 proof in a fresh process, from the shell and from Python: best of ``runs``."""
    faier = Path(sys.executable).parent / "faier"
    commands = (
        (
            "faier verify most-common-disease -e 'ln(2)'",
            [str(faier), "verify", "most-common-disease", "-e", "ln(2)"],
        ),
        ('python -c "import faier; faier.verify(...)"', [sys.executable, "-c", PYTHON_PROOF]),
    )
    print()
    for label, command in commands:
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
            times.append(time.perf_counter() - started)
        verdict = "holds" if done.returncode == 0 else f"exit {done.returncode}"
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"whole process, {label}: {verdict}; {shown} s (best {min(times):.2f} s)")


def noisy_max_dp(n: int) -> Problem:
    """FAIER papers Fig. 2 for n queries, each pair of neighbouring inputs (every query ±1) once."""
    vectors = list(itertools.product(range(3), repeat=n))
    pairs: tuple[Comparison[Hashable], ...] = tuple(
        Comparison(
            Distribution.point(vector_state("in", a)),
            Distribution.point(vector_state("in", b)),
            vector_state("in", a),
            vector_state("in", b),
        )
        for a, b in itertools.combinations(vectors, 2)
        if all(abs(x - y) <= 1 for x, y in zip(a, b, strict=True))
    )
    privacy = Pufferfish(pairs, "DP, every query ±1 (point masses on the papers' input states)")
    return Problem(f"noisy-max-{n}-fig2", noisy_max_hmm(n), privacy, 2)


def dp(max_n: int, timeout: float) -> None:
    print("\nn | ε | Algorithm 1 (z3) | queries | exact engine (same HMM) | exact (noisy-max)")
    print("--- | --- | --- | --- | --- | ---")
    for n in range(3, max_n + 1):
        started = time.perf_counter()
        problem = noisy_max_dp(n)
        built = time.perf_counter() - started
        star = api.epsilon("noisy-max", settings={"n": str(n)}).exact_loss
        assert star is not None and star.ratio is not None
        for text in ("ln(2)", f"ln({star.ratio})"):
            eps = Epsilon.parse(text)
            started = time.perf_counter()
            options = smt.SolverSettings(solver="z3", encoding="faithful", timeout=timeout)
            result = smt.verify(problem, eps, options)
            faithful = cell(result, time.perf_counter() - started, timeout)
            started = time.perf_counter()
            checked = exact.verify(problem, eps, budget=Budget(timeout))
            on_hmm = cell(checked, time.perf_counter() - started, timeout)
            started = time.perf_counter()
            direct = api.verify("noisy-max", text, settings={"n": str(n)})
            assert direct.verdict is not None
            program = f"{time.perf_counter() - started:.2f} s {direct.verdict.value}"
            assert isinstance(problem.privacy, Pufferfish)
            pairs = len(problem.privacy.pairs)
            print(
                f"{n} | {text} | {faithful} | {result.statistics.explored} "
                f"(of {4 * pairs}) | {on_hmm} | {program}",
                flush=True,
            )
        assert isinstance(problem.mechanism, HMM)
        states = len(problem.mechanism.states)
        print(f"  (n = {n}: HMM with {states} states built in {built:.2f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per example run")
    parser.add_argument("--dp-timeout", type=float, default=120.0, help="seconds per DP run")
    parser.add_argument("--max-n", type=int, default=5, help="largest Noisy Max n in part 2")
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"# faier SMT benchmark — {machine}, {os.cpu_count()} cores")
    print(
        f"# Python {platform.python_version()}; timeouts {args.timeout:g} / {args.dp_timeout:g} s\n"
    )
    examples(args.timeout)
    whole_process()
    dp(args.max_n, args.dp_timeout)


if __name__ == "__main__":
    main()
