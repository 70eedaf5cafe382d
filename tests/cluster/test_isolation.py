"""On Dask the API still runs user code where its exit cannot become a verdict (issue: os._exit).

A forked child cannot use the caller's Dask event loops nor start its own,
so the work runs in a new interpreter that connects to the scheduler itself;
a mechanism that ends its process there, or on a worker, is the mechanism's
error, and the caller (this pytest process) carries on.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import pytest

import faier
from faier import testing as t
from faier.cluster.executor import UnitMap
from faier.errors import MechanismError, SpecError
from faier.mechanisms import isolation
from faier.mechanisms.sampled import blackbox

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.skipif(not isolation.can_isolate(), reason="no fork here")


@faier.program(inputs=faier.scalars(1))
def quits(x: Any, ctx: Any) -> Any:
    """Ends its process with status 0: the status must never read as 'holds'."""
    os._exit(0)


@blackbox(name="quits_when_sampled")
def quits_when_sampled(queries: Any, epsilon: float, rng: Any) -> Any:
    """Ends the process that samples it (a worker, or the process the test runs in)."""
    os._exit(0)


def test_verify_on_a_client_raises_when_the_mechanism_ends_the_process(client: Any) -> None:
    with pytest.raises(MechanismError, match="ended the process without a result") as ended:
        faier.verify(quits, "1", cluster=client)
    assert ended.value.where == "quits" and "exit status 0" in str(ended.value)


def test_a_sampled_mechanism_that_ends_its_process_fails_the_test(client: Any) -> None:
    run = {"claimed": "1", "samples": 200, "selection_samples": 100, "epsilons": "1"}
    with pytest.raises(MechanismError, match="quits_when_sampled"):
        t.statistical_test(quits_when_sampled, cluster=client, seed=1, **run)


def test_progress_on_a_client_comes_back_here_in_order(client: Any) -> None:
    seen: list[Any] = []
    result = faier.epsilon("above-threshold", horizon=2, cluster=client, progress=seen.append)
    assert result.epsilon_star is not None and seen
    assert all(type(s).__name__ == "SearchCounts" for s in seen)


@pytest.mark.parametrize("protocol", ["inproc://", "tcp://"])
def test_a_client_whose_workers_live_in_this_process_is_refused(protocol: str) -> None:
    """Its workers are threads of this process: a mechanism run there would end the caller."""
    cluster = distributed.LocalCluster(
        n_workers=1,
        processes=False,
        protocol=protocol,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    try:
        with distributed.Client(cluster) as inside, pytest.raises(SpecError) as refused:
            faier.verify(quits, "1", cluster=inside)
    finally:
        cluster.close()
    assert "runs inside this process" in str(refused.value)
    assert refused.value.fix is not None and "processes=True" in refused.value.fix


class _Worker:
    address = "tcp://127.0.0.1:1"


class _DiedEachTime:
    """A unit's future after its workers died running it as often as Dask allows."""

    status = "error"
    key = "unit-0"

    def result(self) -> Any:
        raise distributed.KilledWorker("unit-0", _Worker(), 3)


def test_a_mechanism_that_kills_its_workers_is_the_mechanisms_error() -> None:
    """Dask's nanny restarts a worker that a unit killed and the scheduler retries the unit;
    the KilledWorker that ends the retries is the mechanism's error, not faier's crash.
    (Pinned on the future: a real run waits for four worker restarts, about 8 s.)"""
    units: Any = UnitMap.__new__(UnitMap)
    units.what = "the mechanism quits"
    with pytest.raises(MechanismError, match="the mechanism quits ended the worker process"):
        units._raise(_DiedEachTime())
