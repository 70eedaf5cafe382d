"""Shared test set-up: the brute-force reference module is importable as ``reference`` (and
``threads.another_thread``, a live thread beside a test's), and hypothesis runs derandomized
under CI (``CI`` set), so a CI run is reproducible."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

from threads import another_thread

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
"""Same examples every run; no deadline, since a slow CI machine must not change the outcome."""

settings.load_profile("ci" if os.environ.get("CI") else "default")


@pytest.fixture
def other_thread() -> Iterator[None]:
    """A live thread beside the test's, as a Jupyter kernel has (heartbeat, IOPub): the API
    then runs its work in a child of the fork server instead of a fork."""
    with another_thread():
        yield


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The Dask tests (tests/cluster) run last, whatever the command line's order.

    Dask leaves threads in the process for its lifetime, and beside other threads
    the API runs its work in a child of the fork server
    (faier.mechanisms.forkserver), a fresh interpreter that a test's monkeypatch of
    faier's modules does not reach: tests that patch an engine's constant would
    ask a different question there.
    """
    cluster = Path(__file__).parent / "cluster"
    items.sort(key=lambda item: item.path.is_relative_to(cluster))
