"""A live thread beside a test's own, as a Jupyter kernel has (heartbeat, IOPub) or a Dask
client: the API then runs its work in a child of the fork server, and a process's signal
may go to that thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def another_thread() -> Iterator[None]:
    """A thread waiting until the block ends (then joined)."""
    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait)
    waiting.start()
    try:
        yield
    finally:
        stop.set()
        waiting.join()
