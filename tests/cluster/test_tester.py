"""The statistical tester on a cluster: the same seed gives bit-identical p-values.

Every unit (phase × side × chunk) seeds its own generator, so the pool, a
LocalCluster, a remote scheduler and a cluster that loses a worker in the
middle all compute the same counts, hence the same p-values and interval.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import faier.testing as t
from faier.engines.statistical.reports import EpsilonPoint, StatReport

distributed = pytest.importorskip("distributed")

FAIER = str(Path(sys.executable).parent / "faier")

RUN = {
    "claimed": "0.7",
    "epsilons": "0.5,0.7,0.9",
    "samples": 400_000,
    "selection_samples": 40_000,
    "seed": 11,
    "thinnings": 50,
}
"""4 test units per side (100 000 samples each): enough to split, quick to run."""


def figures(report: StatReport) -> tuple[Any, ...]:
    points = tuple((p.epsilon, p.p_value, p.p_reverse, p.counts) for p in report.points)
    assert report.interval is not None
    return points, report.interval.counts, report.interval.low, report.interval.high


@pytest.fixture(scope="module")
def local_run() -> StatReport:
    return t.statistical_test("noisy-max-laplace", workers=1, **RUN)


def test_pool_and_cluster_agree_bit_for_bit(local_run: StatReport, client: Any) -> None:
    pooled = t.statistical_test("noisy-max-laplace", workers=2, **RUN)
    clustered = t.statistical_test("noisy-max-laplace", cluster=client, **RUN)
    assert figures(pooled) == figures(local_run)
    assert figures(clustered) == figures(local_run)
    assert clustered.settings.workers == 2
    assert clustered.settings.cluster is not None
    assert clustered.settings.cluster.startswith("tcp://127.0.0.1:")
    assert clustered.to_json()["settings"]["cluster"] == clustered.settings.cluster
    assert "cluster" not in local_run.to_json()["settings"]
    rejected = [p.rejected(0.05) for p in local_run.points]
    assert rejected == [True, False, False]  # Noisy Max with Laplace noise is 0.7-DP (StatDP §5)
    assert client.status != "closed"  # a caller's client stays open


def test_certify_and_bound_on_the_cluster(client: Any) -> None:
    run = {
        "claimed": "1.2",
        "epsilons": "0.9,1.2",
        "samples": 100_000,
        "selection_samples": 20_000,
        "seed": 3,
    }
    here = t.certify("noisy-max", settings={"n": "3"}, workers=1, **run)
    there = t.certify("noisy-max", settings={"n": "3"}, cluster=client, **run)
    assert there.test.settings.cluster is not None
    assert figures(there.test) == figures(here.test)
    keep = ("certified", "witness", "lower_bound", "verdict")
    assert {k: there.to_json()[k] for k in keep} == {k: here.to_json()[k] for k in keep}
    bound_here = t.bound("noisy-max", settings={"n": "3"}, workers=1, **run)
    bound_there = t.bound("noisy-max", settings={"n": "3"}, cluster=client, **run)
    exact_there, exact_here = bound_there.to_json()["exact"], bound_here.to_json()["exact"]
    exact_there.pop("seconds", None)
    exact_here.pop("seconds", None)
    # the deciding engine gets the run's options, so it says whether it used the cluster
    assert exact_there.pop("method").startswith(exact_here.pop("method").rstrip(")"))
    assert exact_there == exact_here
    assert (
        exact_here["epsilon_star"]["ratio"] == "24/7"
    )  # Noisy Max n = 3, uniform ties (FAIER journal §6.2.2)


def test_a_mechanism_from_a_users_file_travels_by_value(client: Any) -> None:
    """The workers cannot import the user's file: cloudpickle sends its code along."""
    mechanism = str(Path(__file__).parent / "data" / "blackbox_laplace.py")
    run = {
        "claimed": "0.7",
        "samples": 20_000,
        "selection_samples": 4_000,
        "seed": 2,
        "epsilons": "0.3,1",
    }
    here = t.statistical_test(mechanism, workers=1, **run)
    there = t.statistical_test(mechanism, cluster=client, **run)
    assert figures(there) == figures(here)
    assert [p.rejected(0.05) for p in here.points] == [True, False]


def test_a_helper_module_next_to_the_users_file_travels_too(client: Any, tmp_path: Path) -> None:
    """The file imports a module from its own folder, which no worker can import."""
    helper = f"noise_helpers_{uuid.uuid4().hex}"
    (tmp_path / f"{helper}.py").write_text(
        "import numpy as np\n\n\n"
        "def noisy_argmax(queries, epsilon, rng):\n"
        "    noise = rng.laplace(scale=2 / epsilon, size=len(queries))\n"
        "    return int(np.argmax(np.asarray(queries, dtype=float) + noise))\n"
    )
    mechanism = tmp_path / "mechanism.py"
    mechanism.write_text(
        f"from {helper} import noisy_argmax\n"
        "from faier.mechanisms.sampled import blackbox\n\n\n"
        "@blackbox(name='helped')\n"
        "def helped(queries, epsilon, rng):\n"
        "    return noisy_argmax(queries, epsilon, rng)\n"
    )
    run = {"claimed": "0.7", "samples": 4_000, "selection_samples": 1_000, "seed": 3}
    here = t.statistical_test(str(mechanism), workers=1, epsilons="0.3", **run)
    there = t.statistical_test(str(mechanism), cluster=client, epsilons="0.3", **run)
    assert figures(there) == figures(here)  # the helper was found where the file was loaded


def test_a_local_cluster_started_by_faier() -> None:
    small = {**RUN, "samples": 200_000, "epsilons": "0.5"}
    here = t.statistical_test("noisy-max-laplace", workers=1, **small)
    there = t.statistical_test("noisy-max-laplace", cluster="local:2", **small)
    assert [p.p_value for p in there.points] == [p.p_value for p in here.points]
    assert there.settings.cluster == "local:2"


class KillOnFirstUnit:
    """Progress that kills one worker process (SIGKILL) when the first test unit is back."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.testing = False
        self.killed: int | None = None

    def stage(self, description: str, total: int) -> None:
        self.testing = description == "testing"

    def advance(self) -> None:
        if self.testing and self.killed is None:
            self.killed = self.pids[0]
            os.kill(self.killed, signal.SIGKILL)

    def point(self, point: EpsilonPoint) -> None:
        return None


def test_a_worker_killed_mid_run_changes_nothing(local_run: StatReport) -> None:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.CRITICAL,
    )
    with cluster, distributed.Client(cluster) as client:
        pids = sorted(client.run(os.getpid).values())
        killer = KillOnFirstUnit(pids)
        report = t.statistical_test("noisy-max-laplace", cluster=client, progress=killer, **RUN)
        assert killer.killed is not None
        with pytest.raises(ProcessLookupError):
            os.kill(killer.killed, 0)
        assert figures(report) == figures(local_run)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def scheduler() -> Iterator[str]:
    """``dask scheduler`` and one ``dask worker`` on 127.0.0.1, as a user starts them."""
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    if dask is None:
        pytest.skip("the dask command is not installed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    host, port = address.removeprefix("tcp://").split(":")
    worker = [dask, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard"]
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--host", host, "--port", port, "--no-dashboard"], **quiet
        )
    ]
    try:
        started += [subprocess.Popen(worker, **quiet) for _ in range(2)]
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=30)
        yield address
    finally:
        for process in started:  # single processes (no nanny): nothing is left behind
            process.kill()
            process.wait()


def _faier(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [FAIER, *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_a_remote_scheduler_serves_the_cli(scheduler: str) -> None:
    args = ["test", "noisy-max-laplace", "--claimed", "0.7", "--epsilons", "0.5,0.9"]
    args += ["--samples", "300000", "--selection-samples", "40000", "--seed", "5"]
    started = time.perf_counter()
    remote = _faier(*args, "--cluster", scheduler)
    assert time.perf_counter() - started < 120
    local = _faier(*args, "--workers", "1")
    assert remote["points"] == local["points"]
    assert remote["loss_interval"] == local["loss_interval"]
    assert remote["settings"]["cluster"] == scheduler
    assert remote["settings"]["workers"] == 2


def test_no_scheduler_is_bad_input() -> None:
    done = subprocess.run(
        [
            FAIER,
            "test",
            "noisy-max-laplace",
            "--claimed",
            "0.7",
            "--cluster",
            f"tcp://127.0.0.1:{_free_port()}",
            "--samples",
            "1000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "--cluster" in done.stderr and "no dask scheduler answers" in done.stderr
