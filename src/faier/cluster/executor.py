"""Independent, seeded work units as Dask futures, with the interface of the local pool.

The shared state (the thing every unit needs, e.g. the tester's subject) is
pickled once here (cloudpickle, so a mechanism loaded from a user's file
travels by value) and becomes a *task* that unpickles it, not scattered
data: when the worker holding it dies, the scheduler recomputes it from the
graph instead of losing it.  Units are submitted with ``retries``; units on
a worker that dies are rescheduled by the scheduler itself.  Each unit seeds
its own generator from its identity, so where or how often it ran does not
change its result.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from faier.errors import MechanismError
from faier.mechanisms.loader import helper_modules

U = TypeVar("U")
R = TypeVar("R")

RETRIES = 3
"""Resubmissions of a unit that raised on a worker (a lost worker is rescheduled anyway)."""


def _load(payload: bytes) -> Any:
    import cloudpickle  # type: ignore[import-untyped]

    return cloudpickle.loads(payload)


def pickled(shared: object, what: str) -> bytes:
    """``shared`` as bytes a worker can load, or bad input naming what cannot travel.

    Modules that a user's mechanism file imported from its own folder are
    pickled by value too: the workers have neither the file nor its folder.
    """
    import cloudpickle

    for name in helper_modules:
        if name in sys.modules:
            cloudpickle.register_pickle_by_value(sys.modules[name])
    try:
        data: bytes = cloudpickle.dumps(shared)
    except Exception as failure:
        raise MechanismError(
            f"{what} cannot be sent to the cluster ({type(failure).__name__}: {failure})",
            where="--cluster",
            fix="run it without --cluster, or define the mechanism without open files, locks "
            "or sockets",
        ) from None
    return data


class UnitMap(Generic[U, R]):
    """Runs ``function(shared, unit)`` for each unit on a client; results in submission order."""

    def __init__(
        self, client: Any, function: Callable[[Any, U], R], shared: object, what: str
    ) -> None:
        self.client = client
        self.function = function
        self.what = what
        self.shared = client.submit(_load, pickled(shared, what), pure=False)
        self.pending: list[Any] = []

    def run(self, batch: Sequence[U], done: Callable[[U], None]) -> list[R]:
        """Submit every unit, call ``done`` as each finishes, and return results in order."""
        from distributed import as_completed

        futures = [
            self.client.submit(self.function, self.shared, unit, pure=False, retries=RETRIES)
            for unit in batch
        ]
        self.pending = futures
        position = {future.key: i for i, future in enumerate(futures)}
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            if future.status == "error":
                self._raise(future)
            done(batch[position[future.key]])
        results: list[R] = self.client.gather(futures)
        self.pending = []
        return results

    def _raise(self, future: Any) -> None:
        """The unit's own exception; a worker that died running it each time (``KilledWorker``:
        ``os._exit``, a signal or a crash in the mechanism) is the mechanism's error."""
        try:
            future.result()
        except Exception as failure:
            if type(failure).__name__ != "KilledWorker":
                raise
            raise MechanismError(
                f"{self.what} ended the worker process running it, every time it was tried"
                f" ({failure})",
                where="--cluster",
                fix="a mechanism must return a value or raise an exception,"
                " never call os._exit or kill its process",
            ) from None

    def cancel(self) -> None:
        """Drop what has not finished (after an interruption or a timeout)."""
        if self.pending:
            self.client.cancel(self.pending, force=True)
        self.pending = []

    def close(self) -> None:
        """Release the shared state on the cluster."""
        self.cancel()
        self.shared.release()
