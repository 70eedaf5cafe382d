"""``faier audit`` on the bug corpus and diffprivlib's estimators, whole process per row.

Each row runs ``faier audit FILE:FUNCTION`` as a fresh Python process (interpreter
start, imports, the search) and, in the same run, the same function called plainly
once in a fresh process: the difference is what the audit costs.  Targets: under 2 s
whole process for a small function, under 30 s for an estimator.

    .venv/bin/python benchmarks/audit.py                  # the corpus, budget 100
    .venv/bin/python benchmarks/audit.py --estimators     # and diffprivlib's estimators
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "auditing" / "audit_corpus.py"
ESTIMATORS = ROOT / "tests" / "auditing" / "audit_estimators.py"

SMALL = [
    ("raw_data_noised", {}),
    ("clipped_data_noised", {}),
    ("mean_over_private_size", {}),
    ("mean_over_public_size", {}),
    ("nan_through_clip", {}),
    ("scale_floored", {"epsilon": "2"}),
    ("scale_divided", {"epsilon": "2"}),
    ("budget_spent_twice", {}),
    ("budget_split", {}),
    ("python_uniform_noise", {}),
    ("noisy_sum_per_batch", {}),
    ("noisy_histogram_of_values", {}),
    ("scale_from_the_data", {}),
    ("scale_from_the_bounds", {}),
    ("seeded_noise", {}),
    ("fresh_noise", {}),
    ("gaussian_for_pure_epsilon", {}),
    ("leaky_geometric", {}),
    ("diffprivlib_geometric", {}),
]
TABLES = ("gaussian_nb", "linear_regression", "logistic_regression", "pca", "kmeans")
LARGE = [
    "tools_mean",
    "tools_count_nonzero",
    "tools_histogram",
    "tools_quantile",
    "scaler_mean",
    *TABLES,
]

PLAIN = """
import importlib.util, sys, numpy as np
spec = importlib.util.spec_from_file_location("target", sys.argv[1])
module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)
data = np.load(sys.argv[3])
getattr(module, sys.argv[2])(data, **{k: float(v) for k, v in (a.split("=") for a in sys.argv[4:])})
"""


def _timed(command: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds (user + system, the child's own) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done


def _row(path: Path, name: str, args: dict[str, str], data: Path, budget: int) -> str:
    claim = args.get("epsilon", "1")
    extra = [f"--arg={k}={v}" for k, v in args.items()]
    faier = str(Path(sys.executable).parent / "faier")
    audit = [faier, "audit", f"{path}:{name}", "-e", claim]
    audit += ["--data", str(data), "--budget", str(budget), "--json", *extra]
    seconds, cpu, done = _timed(audit)
    if done.returncode not in (0, 1, 3):
        return f"{name:28s} failed (exit {done.returncode}): {done.stderr.strip()[:120]}"
    report = json.loads(done.stdout)
    given = [f"{k}={v}" for k, v in args.items()]
    plain, plain_cpu, ran = _timed(
        [sys.executable, "-c", PLAIN, str(path), name, str(data), *given]
    )
    if ran.returncode != 0:
        return f"{name:28s} the plain run failed: {ran.stderr.strip()[-120:]}"
    outcome = report["outcome"][:44]
    times = f"{seconds:6.2f} {cpu:6.2f}   {plain:6.2f} {plain_cpu:6.2f}"
    return f"{name:28s} {times}  {report['pairs']:4d}  {outcome}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimators", action="store_true", help="also diffprivlib's estimators")
    parser.add_argument("--budget", type=int, default=100, help="pairs per audit")
    options = parser.parse_args()
    print(f"machine: {machine.describe()}\n")
    import numpy as np

    with tempfile.TemporaryDirectory() as folder:
        vector, table = Path(folder) / "vector.npy", Path(folder) / "table.npy"
        np.save(vector, np.array([0.2, 0.5, 0.9]))
        np.save(table, np.array([[0.2, 0.1], [0.5, 0.7], [0.9, 0.8], [0.4, 0.3]]))
        print(f"{'':28s} {'audit (s)':>13s}   {'plain (s)':>13s}")
        print(
            f"{'function':28s} {'wall':>6s} {'cpu':>6s}   {'wall':>6s} {'cpu':>6s}  pairs  outcome"
        )
        for name, args in SMALL:
            print(_row(CORPUS, name, args, vector, options.budget), flush=True)
        if options.estimators:
            for name in LARGE:
                data = table if name in TABLES else vector
                print(_row(ESTIMATORS, name, {}, data, min(options.budget, 20)), flush=True)


if __name__ == "__main__":
    main()
