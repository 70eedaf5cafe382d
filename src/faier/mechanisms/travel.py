"""Work sent to another Python interpreter: by value where the other side could not import it.

The fork server's child or a new interpreter (:mod:`faier.mechanisms.isolation`,
when this process has other threads or the work uses Dask) gets the caller's
``sys.path`` but not its modules.  Functions of installed packages and of faier travel by name;
those of any other module (a script's ``__main__``, a test file pytest
imported by path, a mechanism file's helpers) travel by value with
cloudpickle.  A ``dask.distributed.Client`` travels as its scheduler's
address: the other process connects its own client.

Two things a fork would have kept travel with the work: the source lines of
every function sent by value (a proof that reads a mechanism's loop needs
them, and a script's ``__main__`` or a notebook cell cannot be read back
there), and the state a higher layer declares with :func:`carry` (the
engines a user registered).
"""

from __future__ import annotations

import linecache
import marshal
import os
import pickle
import sys
import sysconfig
from collections import ChainMap
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import CodeType, FunctionType, ModuleType
from typing import Any, ClassVar

from faier.errors import MechanismError, SpecError

_carried: dict[str, tuple[Callable[[], object], Callable[[Any], None]]] = {}


def carry(name: str, save: Callable[[], object], restore: Callable[[Any], None]) -> None:
    """Send ``save()`` with every piece of work; the other side calls ``restore`` on it first.

    For state a higher layer keeps in this process that its work reads there
    (``restore`` must be a module-level function, so that it travels by name).
    """
    _carried[name] = (save, restore)


def portable(work: object) -> bytes:
    """``work`` pickled for a new interpreter (refused with the reason when it cannot go)."""
    import cloudpickle  # type: ignore[import-untyped]

    for module in _local_modules():  # kept registered, as the cluster's executor does
        cloudpickle.register_pickle_by_value(module)
    try:
        files: set[str] = set()
        carried = _dumps(
            [(restore, save()) for save, restore in _carried.values()], cloudpickle, files
        )
        sent = _dumps(work, cloudpickle, files)
        return pickle.dumps((_sources(files), carried, sent), protocol=pickle.HIGHEST_PROTOCOL)
    except (SpecError, MechanismError):
        raise
    except Exception as failure:
        raise MechanismError(
            f"the mechanism cannot be sent to a new Python process ({type(failure).__name__}: "
            f"{failure}); faier starts one because this process runs other threads or Dask",
            fix="define the mechanism without open files, locks or sockets, or call faier "
            "from a process without other threads",
        ) from None


def dumps(value: object) -> bytes:
    """A result or exception pickled in the new interpreter (its own classes by value)."""
    import cloudpickle

    data: bytes = cloudpickle.dumps(value)
    return data


def loaded(fd: int) -> Any:
    """The work :func:`portable` wrote to the file ``fd`` (read from its start), once the
    sources and the carried state that came with it are in place."""
    parts: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        parts.append(chunk)
        offset += len(chunk)
    sources, carried, sent = pickle.loads(b"".join(parts))
    for path, lines in sources.items():  # no modification time: never reread from disk
        linecache.cache[path] = (sum(map(len, lines)), None, lines, path)
    for restore, state in pickle.loads(carried):
        restore(state)
    return pickle.loads(sent)


def _sources(files: set[str]) -> dict[str, list[str]]:
    """The lines of each file, as this process reads them (a notebook's cells included)."""
    found = {}
    for path in sorted(files):
        lines = linecache.getlines(path)
        if lines:
            found[path] = lines
    return found


def _dumps(work: object, cloudpickle: Any, files: set[str]) -> bytes:
    import io

    class Pickler(cloudpickle.Pickler):  # type: ignore[misc]
        dispatch_table: ClassVar[ChainMap[Any, Any]] = ChainMap(
            {CodeType: _code_with_its_file}, cloudpickle.Pickler.dispatch_table
        )

        def reducer_override(self, obj: Any) -> Any:
            if _is_dask_client(obj):
                return str, (_reachable_address(obj),)
            reduced = super().reducer_override(obj)
            if isinstance(obj, FunctionType) and reduced is not NotImplemented:
                files.add(obj.__code__.co_filename)  # sent by value: its source goes too
            return reduced

    out = io.BytesIO()
    Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(work)
    return out.getvalue()


def _code_with_its_file(code: CodeType) -> tuple[Callable[[bytes], Any], tuple[bytes]]:
    """Code by marshal (the same interpreter reads it), keeping the file name and line numbers
    that cloudpickle replaces with ``<dynamic-code>``: the source is found by them there."""
    return marshal.loads, (marshal.dumps(code),)


def _is_dask_client(found: object) -> bool:
    kind = type(found)
    return kind.__name__ == "Client" and kind.__module__.split(".")[0] == "distributed"


def _reachable_address(client: Any) -> str:
    """The scheduler's address, which another process can connect to; refused when the
    scheduler or a worker runs inside this process (``LocalCluster(processes=False)``): user
    code on such a worker would run here, where its exit ends the caller."""
    address = str(getattr(getattr(client, "scheduler", None), "address", None) or "")
    if not address or address.startswith("inproc://"):
        raise _inside(f"the dask Client's scheduler ({address or 'no address'})")
    if _workers_here(client):
        raise _inside(f"a worker of the dask Client at {address}")
    return address


def _inside(what: str) -> SpecError:
    return SpecError(
        f"{what} runs inside this process: faier runs the mechanism in another process,"
        " and never in this one",
        where="cluster",
        fix="start the cluster with worker processes (LocalCluster(processes=True), the"
        " default) or pass cluster='local:N'",
    )


def _workers_here(client: Any) -> bool:
    """Whether a worker of ``client`` is a thread of this process (asked of the workers)."""
    try:
        pids = client.run(os.getpid)
    except Exception:  # the workers cannot say: the cluster reports its own errors later
        return False
    return isinstance(pids, dict) and os.getpid() in pids.values()


def _local_modules() -> list[ModuleType]:
    """Loaded modules outside the installed packages and faier (a test file, a script's
    helpers); ``__main__`` travels by value anyway."""
    found = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or name == "__main__" or name.split(".")[0] == "faier":
            continue
        if getattr(module, "__name__", None) != name:
            continue
        if not _installed(path):
            found.append(module)
    return found


@cache
def _installed(path: str) -> bool:
    """Whether the module file ``path`` lies in an installed package or the standard library
    (remembered: a call made beside other threads asks it of every loaded module)."""
    where = Path(path).resolve()
    return any(where.is_relative_to(root) for root in _installed_roots())


@cache
def _installed_roots() -> tuple[Path, ...]:
    import site

    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    roots = {Path(paths[key]).resolve() for key in keys if key in paths}
    roots.add(Path(site.getusersitepackages()).resolve())
    return tuple(roots)
