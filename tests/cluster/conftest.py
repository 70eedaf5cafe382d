"""One LocalCluster of two worker processes for the cluster tests (started once: about 2 s)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="session")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
