"""faier on Dask: the tester, a batch of jobs and the split sequence search, 1, 2 and 4 workers.

Three tables, each with its single-process baseline measured in the same run:

* **tester**: ``noisy-max-laplace`` (StatDP's Noisy Max with Laplace noise)
  at 10⁷ test samples per input (``--quick``: 10⁶), claim 0.7, ε ∈ {0.5,
  0.7, 0.9}, seed 1: the local pool with 1, 2, 4 processes, and a
  LocalCluster of 1, 2, 4 worker processes (started beforehand, its start-up
  shown apart); every configuration must give the same p-values.
* **batch**: 58 jobs (verify Noisy Max n = 2..5 × three tie rules × two
  claims, ε* of the truncated geometric over a 4 × 4 grid, Above Threshold
  at horizons 1..5, histograms, randomized response), on 1, 2, 4 local
  processes and on a LocalCluster of 1, 2, 4 workers.
* **search**: the merged sequence search on a sparse random HMM (benchmarks/
  hmm_models.py; 250 states at horizon 10, ``--quick`` 60 at 6) in one
  process against the split search on 2 and 4 workers, same ε*(k) for
  every k asked.

Then the scheduler's overhead per work unit: no-op units through the same
``UnitMap`` the tester uses.  Speed-up is against the first row of each
table.  On a machine with 2 cores, 4 workers can only show the cost of
oversubscription.

    .venv/bin/python benchmarks/cluster.py            # 10⁷ samples per input (minutes)
    .venv/bin/python benchmarks/cluster.py --quick    # 10⁶ samples, a smaller HMM
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hmm_models
import machine
from distributed import Client, LocalCluster

import faier.testing as t
from faier.batch import run_batch
from faier.cluster.address import read_cluster
from faier.cluster.executor import UnitMap
from faier.core.budget import Budget
from faier.engines.exact import branch_and_bound, sequence_mode
from faier.engines.exact.cluster_search import ClusterSearch

WORKERS = (1, 2, 4)

SUITE = """
timeout: 120
jobs:
  - {target: noisy-max, grid: {n: [2, 3, 4, 5], ties: [first, uniform, value]}, claim: ln(2)}
  - {target: noisy-max, grid: {n: [2, 3, 4, 5], ties: [first, uniform, value]}, claim: '1.372'}
  - {target: geometric, grid: {alpha: [1/2, 1/3, 1/4, 1/5], m: [2, 3, 4, 5]}}
  - {target: above-threshold, command: epsilon, horizon: 1}
  - {target: above-threshold, command: epsilon, horizon: 2}
  - {target: above-threshold, command: epsilon, horizon: 3}
  - {target: above-threshold, command: epsilon, horizon: 4}
  - {target: above-threshold, command: epsilon, horizon: 5}
  - {target: histogram, grid: {bins: [2, 3], alpha: [1/2, 1/3]}}
  - {target: randomized-response, grid: {truth: [1/4, 1/2, 3/4], heads: [1/4, 1/2, 3/4]}}
"""


def cluster(workers: int) -> tuple[LocalCluster, Client, float]:
    started = time.perf_counter()
    local = LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    client = Client(local)  # type: ignore[no-untyped-call]
    client.run(lambda: __import__("faier.testing"))  # imports are part of start-up
    return local, client, time.perf_counter() - started


def timed(action: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action(*args, **kwargs)
    return time.perf_counter() - started, value


def row(label: str, seconds: float, base: float, extra: str = "") -> None:
    print(f"| {label} | {seconds:.2f} s | {base / seconds:.2f}× | {extra} |", flush=True)


def tester(samples: int, clusters: dict[int, Client]) -> None:
    run = {
        "claimed": "0.7",
        "epsilons": "0.5,0.7,0.9",
        "samples": samples,
        "selection_samples": 100_000,
        "seed": 1,
    }
    print(f"\ntester: noisy-max-laplace, {samples:,} test samples per input\n")
    print("| configuration | seconds | speed-up | p-values at ε = 0.5, 0.7, 0.9 |")
    print("|---|---|---|---|")
    base = 0.0
    reference = None
    for workers in WORKERS:
        seconds, report = timed(t.statistical_test, "noisy-max-laplace", workers=workers, **run)
        base = base or seconds
        values = [p.p_value for p in report.points]
        reference = reference or values
        assert values == reference
        row(
            f"pool, {workers} process{'es' if workers > 1 else ''}",
            seconds,
            base,
            ", ".join(f"{v:.3g}" for v in values),
        )
    for workers, client in clusters.items():
        seconds, report = timed(t.statistical_test, "noisy-max-laplace", cluster=client, **run)
        values = [p.p_value for p in report.points]
        assert values == reference, (values, reference)
        row(f"LocalCluster, {workers} worker{'s' if workers > 1 else ''}", seconds, base, "same")


def batch(clusters: dict[int, Client]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "suite.yaml"
        suite.write_text(SUITE, encoding="utf-8")
        print("\nbatch: 58 jobs (verify, ε*, Above Threshold horizons)\n")
        print("| configuration | seconds | speed-up | jobs |")
        print("|---|---|---|---|")
        base = 0.0
        for workers in WORKERS:
            out = Path(folder) / f"pool-{workers}.jsonl"
            seconds, report = timed(run_batch, suite, workers=workers, output=out)
            base = base or seconds
            row(f"local processes, {workers}", seconds, base, f"{report.total} ({report.counts()})")
        for workers, client in clusters.items():
            out = Path(folder) / f"cluster-{workers}.jsonl"
            seconds, report = timed(run_batch, suite, cluster=client, output=out)
            row(f"LocalCluster, {workers} workers", seconds, base, f"{report.total}")


def search(size: int, horizon: int, clusters: dict[int, Client]) -> None:
    system, comparisons = hmm_models.sparse_random(size)
    print(
        f"\nsearch: sparse random HMM, {size} states, horizon {horizon}, "
        f"{len(comparisons)} comparisons\n"
    )
    print("| configuration | seconds | speed-up | ε*(horizon) |")
    print("|---|---|---|---|")

    def once(how: Callable[..., Any]) -> tuple[float, Any]:
        state = sequence_mode.SearchState(horizon, [None] * (horizon + 1))
        seconds, _ = timed(
            lambda: how(system, comparisons, horizon, Budget(), state, arithmetic="float")
        )
        return seconds, [None if r is None else r.loss for r in sequence_mode.cumulative(state)]

    base, reference = once(branch_and_bound.merged_search)
    top = reference[-1]
    row(
        "one process",
        base,
        base,
        "none" if top is None else f"ε* = {top.value:.6f}",
    )
    for workers, client in clusters.items():
        if workers == 1:
            continue
        split = ClusterSearch(read_cluster(client))
        seconds, losses = once(split)
        assert losses == reference
        row(
            f"split, {workers} workers",
            seconds,
            base,
            "same ε*(k); " + split.note.split(": ", 1)[-1],
        )


def overhead(clusters: dict[int, Client]) -> None:
    print("\nscheduler overhead per unit (no-op units through the tester's UnitMap)\n")
    print("| workers | units | seconds | per unit |")
    print("|---|---|---|---|")
    for workers, client in clusters.items():
        count = 1000
        units: UnitMap[int, int] = UnitMap(client, lambda shared, unit: unit, None, "nothing")
        units.run(list(range(50)), lambda _: None)  # warm
        seconds, _ = timed(units.run, list(range(count)), lambda _: None)
        units.close()
        print(
            f"| {workers} | {count} | {seconds:.2f} s | {1000 * seconds / count:.2f} ms |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10⁶ samples, a smaller HMM")
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)
    print(machine.describe())
    clusters: dict[int, Client] = {}
    started: list[tuple[LocalCluster, Client]] = []
    print("\nLocalCluster start-up (processes, one thread each, faier imported):", end="")
    for workers in WORKERS:
        local, client, seconds = cluster(workers)
        clusters[workers] = client
        started.append((local, client))
        print(f" {workers} workers {seconds:.1f} s;", end="", flush=True)
    print()
    try:
        tester(1_000_000 if args.quick else 10_000_000, clusters)
        batch(clusters)
        search(60 if args.quick else 250, 6 if args.quick else 10, clusters)
        overhead(clusters)
    finally:
        for local, client in started:
            client.close()  # type: ignore[no-untyped-call]
            local.close()
    print(f"\nload average after: {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
