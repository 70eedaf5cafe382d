"""Where to run: ``local``, ``local:N``, ``tcp://host:port``, or a Client the caller holds.

Read without importing dask, so that ``--cluster`` is checked (and reported
at its flag) as fast as every other option, and faier runs without the
``cluster`` extra until a cluster is asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from faier.errors import SpecError

MAX_LOCAL_WORKERS = 256
SCHEMES = ("tcp", "tls", "ws", "wss", "inproc", "ucx")
_REMOTE = re.compile(
    r"^(?P<scheme>[a-z]+)://(?P<host>[^\s/:]+|\[[0-9a-fA-F:]+\])(:(?P<port>\d+))?/?$"
)
_FIX = "write local, local:4 or tcp://HOST:PORT (a running 'dask scheduler')"


@dataclass(frozen=True)
class ClusterAddress:
    """A cluster to start (``local``, with ``workers`` processes or one per core) or reach."""

    kind: str
    """``local`` (a LocalCluster started and stopped by faier), ``remote`` or ``client``."""
    workers: int | None = None
    url: str | None = None
    client: Any = None
    """A caller's ``dask.distributed.Client`` (kind ``client``); faier never closes it."""

    def __reduce__(self) -> tuple[Any, ...]:
        """A caller's Client travels to another process as its scheduler's address: that
        process connects (and closes) its own client (``faier.mechanisms.travel``)."""
        if self.kind == "client":
            return ClusterAddress, ("remote", None, self.client)
        return ClusterAddress, (self.kind, self.workers, self.url, self.client)

    def show(self) -> str:
        """How the report names the cluster."""
        if self.kind == "local":
            return "local" if self.workers is None else f"local:{self.workers}"
        if self.kind == "remote":
            assert self.url is not None
            return self.url
        scheduler = getattr(self.client, "scheduler", None)
        return str(getattr(scheduler, "address", None) or "a dask Client")


def _is_client(raw: object) -> bool:
    kind = type(raw)
    return kind.__name__ == "Client" and kind.__module__.split(".")[0] == "distributed"


def read_cluster(raw: Any) -> ClusterAddress:
    """``--cluster`` text, a :class:`ClusterAddress` or a ``dask.distributed.Client``."""
    if isinstance(raw, ClusterAddress):
        return raw
    if _is_client(raw):
        return ClusterAddress("client", client=raw)
    if not isinstance(raw, str):
        raise SpecError(
            f"{type(raw).__name__} is not a cluster address",
            fix=_FIX + ", or pass a dask.distributed.Client",
        )
    text = raw.strip()
    if text == "local":
        return ClusterAddress("local")
    if text.startswith("local:"):
        count = text.removeprefix("local:").strip()
        if not count.isdigit() or not 1 <= int(count) <= MAX_LOCAL_WORKERS:
            raise SpecError(
                f"{text!r}: the number of local workers must be 1 to {MAX_LOCAL_WORKERS}",
                fix="e.g. local:4",
            )
        return ClusterAddress("local", workers=int(count))
    found = _REMOTE.match(text)
    if found is None or found["scheme"] not in SCHEMES:
        raise SpecError(f"cannot read the cluster address {text!r}", fix=_FIX)
    if found["port"] is not None and not 0 < int(found["port"]) < 65536:
        raise SpecError(f"{text!r}: port {found['port']} is out of range", fix=_FIX)
    return ClusterAddress("remote", url=text)
