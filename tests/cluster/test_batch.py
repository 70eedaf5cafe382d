"""``faier batch``: suites read strictly, jobs run in parallel, every job on file, resumable."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from faier.batch import job as jobs
from faier.batch import load_suite, run_batch
from faier.batch.records import exit_code
from faier.errors import SpecError
from threads import another_thread

DATA = Path(__file__).parent / "data"
FAIER = str(Path(sys.executable).parent / "faier")


def geometric_epsilon(alpha: Fraction, m: int) -> Fraction:
    """e^ε* of the truncated α-geometric on 0..m, every neighbour pair and output (brute force)."""

    def pr(k: int, x: int) -> Fraction:
        if k in (0, m):
            return alpha ** abs(k - x) / (1 + alpha)
        return (1 - alpha) / (1 + alpha) * alpha ** abs(k - x)

    return max(
        pr(k, x) / pr(k, y)
        for x in range(m + 1)
        for y in (x - 1, x + 1)
        if 0 <= y <= m
        for k in range(m + 1)
    )


def write(folder: Path, text: str) -> Path:
    path = folder / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    return path


SUITE = """
timeout: 60
jobs:
  - id: nm-paper
    target: noisy-max
    settings: {n: 5, ties: uniform}
    claim: 1.372
  - id: nm-exact
    target: noisy-max
    settings: {n: 5, ties: uniform}
    claim: ln(288/73)
  - target: geometric
    grid: {alpha: [1/2, 1/3], m: [2, 3]}
  - id: laplace
    target: noisy-max-laplace
    command: test
    claim: 0.7
    samples: 100000
    selection_samples: 10000
    epsilons: "0.5,0.9"
    seed: 1
    workers: 2
"""


def by_job(report: Any) -> dict[str, dict[str, Any]]:
    return {line["job"]: line for line in report.lines}


def test_a_suite_runs_and_every_answer_is_right(tmp_path: Path) -> None:
    report = run_batch(write(tmp_path, SUITE), workers=2)
    lines = by_job(report)
    assert report.total == len(lines) == 7 and report.ran == 7 and report.skipped == 0
    # FAIER journal Table 2 reports 1.372 for Noisy Max n = 5; ε* = ln(288/73) exactly
    assert lines["nm-paper"]["verdict"] == "violated" and lines["nm-paper"]["exit_code"] == 1
    assert lines["nm-exact"]["verdict"] == "holds" and lines["nm-exact"]["exit_code"] == 0
    assert lines["nm-paper"]["epsilon_star"]["ratio"] == "288/73"
    for alpha in ("1/2", "1/3"):
        for m in (2, 3):
            line = lines[f"epsilon geometric [alpha={alpha},m={m}]"]
            assert line["status"] == "done" and line["verdict"] is None and line["exit_code"] == 0
            assert Fraction(line["epsilon_star"]["ratio"]) == geometric_epsilon(Fraction(alpha), m)
    test = lines["laplace"]
    assert [p["p_value"] < 0.05 for p in test["points"]] == [True, False]
    for line in report.lines:  # the shared envelope first, then the job
        assert list(line)[:8] == [
            "command",
            "verdict",
            "exit_code",
            "seconds",
            "faier_version",
            "job",
            "status",
            "digest",
        ]
    assert report.exit_code == 1  # one job violated, none failed
    written = [json.loads(x) for x in report.output.read_text().splitlines()]
    assert sorted(x["job"] for x in written) == sorted(lines)


def test_crashes_hangs_and_bad_input_are_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "grace", lambda timeout: 0.5)  # forked children inherit it
    suite = write(
        tmp_path,
        f"""
jobs:
  - {{id: crash, target: {DATA / "crash.py"}, claim: ln(2)}}
  - {{id: hang, target: {DATA / "hang.py"}, claim: ln(2), timeout: 1}}
  - {{id: bad, target: geometric, settings: {{n: 3}}}}
  - {{id: fine, target: geometric}}
""",
    )
    started = time.perf_counter()
    report = run_batch(suite, workers=4)
    assert time.perf_counter() - started < 120  # a hang guard, not a benchmark
    lines = by_job(report)
    assert lines["crash"]["status"] == "crashed" and lines["crash"]["exit_code"] == 4
    assert "signal 9" in lines["crash"]["error"]
    assert lines["hang"]["status"] == "timed out" and lines["hang"]["exit_code"] == 3
    assert lines["bad"]["status"] == "bad input" and "no parameter 'n'" in lines["bad"]["error"]
    assert lines["fine"]["status"] == "done" and lines["fine"]["epsilon_star"]["ratio"] == "2"
    assert report.exit_code == 4
    counts = report.counts()
    assert (
        counts["crashed"] == counts["timed out"] == counts["bad input"] == counts["computed"] == 1
    )


@pytest.mark.parametrize(
    ("codes", "expected"),
    [([0, 0], 0), ([0, 1], 1), ([3, 0], 3), ([1, 3], 1), ([2, 1, 3], 2), ([4, 2, 1], 4), ([], 0)],
)
def test_exit_code_mapping(codes: list[int], expected: int) -> None:
    assert exit_code({"exit_code": c} for c in codes) == expected


def test_an_interrupted_batch_resumes(tmp_path: Path) -> None:
    """Two jobs finish; the others wait at a closed gate, so Ctrl-C always finds them running."""
    claims = ["ln(2)", "ln(3)", "ln(3/2)", "1", "0.5", "0.7"]
    jobs_text = "\n".join(
        f"  - {{id: job{i}, target: {DATA / ('slow.py' if i < 2 else 'gated.py')}, claim: '{c}'}}"
        for i, c in enumerate(claims)
    )
    suite = write(tmp_path, f"jobs:\n{jobs_text}\n")
    output = tmp_path / "suite.results.jsonl"
    gate = tmp_path / "gate"
    process = subprocess.Popen(
        [FAIER, "batch", str(suite), "--workers", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "FAIER_TEST_GATE": str(gate)},
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (
        not output.exists() or output.read_text().count("\n") < 2
    ):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, _ = process.communicate(timeout=60)
    assert process.returncode == 130
    first = [json.loads(x) for x in output.read_text().splitlines()]
    assert [x["job"] for x in first] == ["job0", "job1"]
    gate.touch()
    with output.open("a") as handle:  # a line cut short by a kill
        handle.write('{"command": "verify", "job": "job')
    again = run_batch(suite, workers=2)
    assert again.skipped == len(first) and again.ran == len(claims) - len(first)
    final = [json.loads(x) for x in output.read_text().splitlines()]
    assert sorted(x["job"] for x in final) == [f"job{i}" for i in range(len(claims))]
    verdicts = {x["job"]: x["verdict"] for x in final}
    # ε* = ln 2 (the truncated 1/2-geometric): ln(2), ln(3), 1 and 0.7 hold; ln(3/2) and 0.5 do not
    assert [verdicts[f"job{i}"] for i in range(6)] == [
        "holds",
        "holds",
        "violated",
        "holds",
        "violated",
        "holds",
    ]
    assert again.exit_code == 1
    third = run_batch(suite)
    assert third.ran == 0 and third.skipped == len(claims)


@pytest.mark.parametrize("beside", [False, True], ids=["alone", "beside another thread"])
def test_a_ctrl_c_right_after_a_fork_still_finds_the_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, beside: bool
) -> None:
    """Ctrl-C arriving between the fork and the bookkeeping cannot orphan the job's child,
    also when another thread (a Dask client's) takes the process's SIGINT, which a signal
    mask in the main thread does not hold back: the main thread then runs the handler at
    its next check (forced here once the other thread has taken the signal)."""
    suite = load_suite(write(tmp_path, "jobs:\n  - {id: g, target: geometric}\n"))
    fork = os.fork
    main = threading.main_thread()

    def fork_then_interrupt() -> int:
        pid = fork()
        if pid != 0 and threading.current_thread() is main:
            os.kill(os.getpid(), signal.SIGINT)  # the worst moment for the parent
            deadline = time.monotonic() + 10
            while beside and signal.SIGINT in signal.sigpending():
                if time.monotonic() > deadline:
                    break  # not taken by the other thread: the test is then the first one
                time.sleep(0.001)
            signal.pthread_sigmask(signal.SIG_BLOCK, ())  # runs any handler that is due
        return pid

    monkeypatch.setattr(jobs.os, "fork", fork_then_interrupt)
    running: list[jobs.Running] = []
    with (
        another_thread() if beside else contextlib.nullcontext(),
        pytest.raises(KeyboardInterrupt),
    ):
        jobs.start(suite.jobs[0], running)
    assert len(running) == 1
    running[0].kill()


def test_a_changed_job_is_run_again(tmp_path: Path) -> None:
    suite = write(tmp_path, "jobs:\n  - {id: g, target: geometric}\n")
    assert run_batch(suite).ran == 1
    write(tmp_path, "jobs:\n  - {id: g, target: geometric, settings: {alpha: 1/3}}\n")
    report = run_batch(suite)
    assert report.ran == 1 and by_job(report)["g"]["epsilon_star"]["ratio"] == "3"


BAD = [
    ("jobs: [", "line", "not valid YAML"),
    ("{}", "", "no jobs"),
    ("jobs: []", "", "no jobs"),
    ("jobs: [{target: geometric}]\nfoo: 1", "", "unknown key 'foo'"),
    ("jobs: [{target: nothing-like-this}]", "jobs[0]", "unknown target"),
    ("jobs: [{target: geometric, command: verify}]", "jobs[0]", "verify needs a claim"),
    ("jobs: [{target: geometric, command: prove}]", "jobs[0]", "unknown command"),
    (
        "jobs: [{target: geometric}, {id: x, target: geometric, horizon: -1}]",
        "jobs[1] (x): --horizon",
        "at least 1",
    ),
    ("jobs: [{target: geometric, colour: red}]", "jobs[0]", "unknown key 'colour'"),
    ("jobs: [{target: geometric, cluster: local}]", "jobs[0]", "cannot be set per job"),
    ("jobs: [{target: geometric, samples: 10}]", "jobs[0]", "only apply to test"),
    (
        "jobs: [{target: geometric}, {target: geometric}]",
        "job 'epsilon geometric'",
        "two jobs have this id",
    ),
    ("jobs: [{target: geometric, grid: {m: []}}]", "jobs[0]", "empty"),
    ("timeout: -3\njobs: [{target: geometric}]", "timeout", "positive"),
    ("jobs: [{target: geometric, claim: 1, epsilon: 2}]", "jobs[0]", "both"),
    (
        "jobs: [{target: geometric}, {id: b, target: geometric, claim: abc}]",
        "jobs[1] (b): claim",
        "cannot read ε = 'abc'",
    ),
    ("jobs: [{target: geometric, epsilon: ln(}]", "jobs[0]: epsilon", "cannot read ε"),
    (
        "jobs: [{target: geometric, grid: {a: "
        + str(list(range(1000)))
        + ", b: "
        + str(list(range(1000)))
        + ", c: "
        + str(list(range(1000)))
        + "}}]",
        "jobs[0]",
        "the grid makes 1000000000 jobs",
    ),
]


@pytest.mark.parametrize(("text", "where", "message"), BAD)
def test_bad_suites_name_file_job_and_fix(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    suite = write(tmp_path, text)
    with pytest.raises(SpecError) as raised:
        load_suite(suite)
    assert raised.value.where is not None and raised.value.where.startswith(
        f"{suite}: {where}".rstrip(": ")
    )
    assert message in raised.value.message
    assert raised.value.fix


def test_bad_suite_is_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    suite = write(
        tmp_path,
        "jobs:\n  - {target: geometric}\n  - {id: second, target: geometric, horizon: zero}\n",
    )
    done = subprocess.run(
        [FAIER, "batch", str(suite)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert f"{suite}: jobs[1] (second): --horizon" in done.stderr and "e.g." in done.stderr
    assert not (tmp_path / "suite.results.jsonl").exists()
    missing = subprocess.run(
        [FAIER, "batch", str(tmp_path / "none.yaml")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 2 and "file not found" in missing.stderr


def test_cli_json_summary(tmp_path: Path) -> None:
    suite = write(
        tmp_path,
        "jobs:\n  - {target: geometric, claim: ln(2)}\n  - {target: geometric, claim: '0.6'}\n",
    )
    done = subprocess.run(
        [FAIER, "batch", str(suite), "--json", "-o", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert [data[k] for k in ("command", "verdict", "exit_code")] == ["batch", None, 1]
    assert data["counts"]["holds"] == 1 and data["counts"]["violated"] == 1
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 2
    table = subprocess.run(
        [FAIER, "batch", str(suite), "-o", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (
        table.returncode == 1 and "2 already in" in table.stdout and "ε* = 0.693147" in table.stdout
    )


def test_on_a_cluster_the_answers_are_the_same(tmp_path: Path, client: Any) -> None:
    suite = write(tmp_path, SUITE)
    local = by_job(run_batch(suite, workers=2, output=tmp_path / "local.jsonl"))
    remote_report = run_batch(suite, cluster=client, output=tmp_path / "cluster.jsonl")
    remote = by_job(remote_report)
    assert remote_report.cluster is not None and remote_report.workers == 2
    assert set(remote) == set(local)
    for job, line in local.items():
        keep = ("verdict", "exit_code", "epsilon_star", "witness", "points", "loss_interval")
        assert {k: line.get(k) for k in keep} == {k: remote[job].get(k) for k in keep}, job
    assert not math.isnan(remote_report.seconds)


def test_bad_batch_options(tmp_path: Path) -> None:
    suite = write(tmp_path, "jobs:\n  - {target: geometric}\n")
    with pytest.raises(SpecError) as raised:
        run_batch(suite, workers=0)
    assert raised.value.where == "--workers"
    with pytest.raises(SpecError) as raised:
        run_batch(suite, cluster="local:zero")
    assert raised.value.where == "--cluster"
    assert not (tmp_path / "suite.results.jsonl").exists()
