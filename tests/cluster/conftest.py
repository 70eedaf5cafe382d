"""One LocalCluster of two worker processes per test module (started once each: about 2 s).

Not one for the whole session: while a client lives its threads run in this process, and
the API then runs every call in a new interpreter instead of a fork (slower) for the rest
of the session.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
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
