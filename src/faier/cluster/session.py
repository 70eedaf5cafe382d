"""A ``dask.distributed`` client for a :class:`ClusterAddress`; what faier started, it stops.

``local`` starts a ``LocalCluster`` of worker *processes* (one thread each:
the units hold the GIL in numpy and Fraction code), ``tcp://…`` connects to a
scheduler someone started with ``dask scheduler`` and ``dask worker``, and a
caller's own ``Client`` is used as it is and left open.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from faier.cluster.address import ClusterAddress
from faier.errors import SpecError

CONNECT_SECONDS = 10.0
"""How long to wait for a remote scheduler before calling the address bad input."""

EXTRA = "install the cluster extra: pip install 'faier[cluster]'"


def distributed() -> Any:
    """The ``distributed`` module, or bad input saying how to install it."""
    try:
        import distributed as module
    except ImportError:
        raise SpecError("dask.distributed is not installed", where="--cluster", fix=EXTRA) from None
    return module


@contextmanager
def open_client(address: ClusterAddress) -> Iterator[Any]:
    """A client for the address, closed (with any cluster faier started) on the way out."""
    if address.kind == "client":
        yield address.client
        return
    module = distributed()
    if address.kind == "local":
        cluster = module.LocalCluster(
            n_workers=address.workers or os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: 8787 may be taken
            silence_logs=logging.ERROR,
        )
        client = module.Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    assert address.url is not None
    try:
        _reachable(address.url)
        _is_scheduler(address.url)
        client = module.Client(address.url, timeout=CONNECT_SECONDS)
    except SpecError:
        raise
    except Exception as failure:  # a server that is not a scheduler may make dask fail anyhow
        raise _no_scheduler(address.url, f"{type(failure).__name__}: {failure}") from None
    try:
        yield client
    finally:
        client.close()


def _no_scheduler(url: str, why: str) -> SpecError:
    return SpecError(
        f"no dask scheduler answers at {url} ({why})",
        where="--cluster",
        fix="start one with 'dask scheduler' and 'dask worker ADDRESS', or check the address",
    )


def _is_scheduler(url: str) -> None:
    """Ask the server who it is, in a child killed after CONNECT_SECONDS; refuse a non-scheduler.

    A server of another kind may never answer dask's handshake, or answer
    bytes that dask reads as a frame of exabytes (a MemoryError): the child
    takes either, and the address is bad input.
    """
    from faier.errors import BudgetExceeded
    from faier.mechanisms.isolation import EndedWithoutResult, call_isolated

    try:
        kind = call_isolated(_identity, url, timeout=CONNECT_SECONDS)
    except BudgetExceeded:
        raise _no_scheduler(url, f"no handshake within {CONNECT_SECONDS:g} s") from None
    except (Exception, EndedWithoutResult) as failure:
        raise _no_scheduler(url, f"{type(failure).__name__}: {failure}") from None
    if kind != "Scheduler":
        raise _no_scheduler(url, f"the server there is {kind or 'not a dask server'}")


def _identity(url: str) -> str | None:
    """The ``type`` a dask server at ``url`` says it is (run in a child: it may never return)."""
    import asyncio

    from distributed.comm import core

    connect: Any = core.connect

    async def ask() -> object:
        comm = await connect(url, timeout=CONNECT_SECONDS)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            await comm.close()

    reply = asyncio.run(ask())
    found = reply.get("type") if isinstance(reply, dict) else None
    return found if isinstance(found, str) else None


def _reachable(url: str) -> None:
    """A refused TCP connection fails at once (the client would retry until its timeout)."""
    scheme, _, rest = url.partition("://")
    host, _, port = rest.rstrip("/").rpartition(":")
    if scheme not in ("tcp", "tls") or not port.isdigit():
        return
    with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS):
        pass


def worker_count(client: Any) -> int:
    """Threads across the cluster's workers now (what the report calls its workers)."""
    info = client.scheduler_info()
    return sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()) or 1
