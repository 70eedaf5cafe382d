"""A helper interpreter, started once, that forks one child per API call made from threads.

A process that runs other threads (a Jupyter kernel always does) cannot
fork safely: the copy inherits locks that the other threads hold.  Starting
a new interpreter for each call is safe but slow (1 to 2.6 s, mostly
importing faier).  Instead, the first such call starts this server: a new
interpreter with no threads of its own, in its own session (a terminal's
Ctrl-C is the caller's, which then stops the call), that imports faier's
isolation and, after each call, the faier modules that call's child
imported.  Each call then sends it, over a Unix socket, the work's files
(:mod:`~faier.mechanisms.isolation` writes the work, pickled by
:mod:`~faier.mechanisms.travel`, to one of them) and a socket of its own,
on which the server answers the child's process id, then its wait status;
a ``kill`` sent there, or the socket closed, kills the child.

The server ends when the caller does (its socket's end, its parent gone,
and on Linux ``PR_SET_PDEATHSIG`` when started from the main thread), and
its children die with it.  A call that finds it gone starts another; one
that gets no process id in :data:`START_WAIT` seconds gives it up and the
caller starts a new interpreter for that call instead.

Why not ``multiprocessing``'s "forkserver" context: its server is one per
process, shared with the caller's own use of multiprocessing; it reruns the
caller's ``__main__`` script file in the server and in every child; and its
waits for the server are unbounded.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

START_WAIT = 60.0
"""Seconds a call waits for the server to answer its child's process id (it may be importing)."""
_KILL_WAIT = 5.0
"""Seconds a kill waits for the child's status before the server itself is killed."""
_PARENT_CHECK = 1.0
"""Seconds between the server's checks that its caller is still alive."""
_PRELOAD = (
    "faier.mechanisms.isolation",
    "faier.mechanisms.travel",
    "faier.mechanisms.relay",
    "cloudpickle",
    "ctypes",
    "faulthandler",
)
"""What every child needs, imported by the server as it starts."""
_GONE = -2
"""The wait status of a child whose server ended before saying how the child ended
(``isolation._how`` reads every status below -1 so)."""

_BOOT = (
    "import json, sys\n"
    "spec = json.loads(sys.argv[1])\n"
    "sys.path[:] = spec['path']\n"
    "from faier.mechanisms.forkserver import serve\n"
    "serve(spec)\n"
)


def available() -> bool:
    """Whether this platform has what the server needs (Linux: sequenced-packet sockets)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SOCK_SEQPACKET")


@dataclass
class Child:
    """In the caller: one call's child, forked by the server; its status comes over ``call``."""

    pid: int
    call: socket.socket
    server: int
    status: int | None = None

    @property
    def handle(self) -> int:
        """A descriptor that becomes readable when the child ended (for ``select``)."""
        return self.call.fileno()

    def ended(self) -> int | None:
        """The child's wait status once it ended (:data:`_GONE` if the server did), else None."""
        if self.status is None:
            try:
                data = self.call.recv(64, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return None
            except OSError:
                data = b""
            self.status = int(data.split()[1]) if data.startswith(b"status ") else _GONE
        return self.status

    def kill(self) -> None:
        """Kill the child and wait (bounded) for its status; a server that does not answer dies."""
        with contextlib.suppress(OSError):
            self.call.send(b"kill")
        end = time.monotonic() + _KILL_WAIT
        while self.ended() is None:
            left = end - time.monotonic()
            if left <= 0:
                _stop(self.server)  # its children die with it
                self.status = _GONE
                break
            select.select([self.call], [], [], left)

    def close(self) -> None:
        self.call.close()


@dataclass
class _Server:
    """In the caller: the server's process (a child of ``owner``) and the socket to it."""

    pid: int
    control: socket.socket
    owner: int = field(default_factory=os.getpid)

    def alive(self) -> bool:
        if self.owner != os.getpid():
            return False
        try:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return done == 0


_lock = threading.Lock()
_server: _Server | None = None


def fork(spec: dict[str, Any], fds: Sequence[int]) -> Child | None:
    """Have the server fork a child that runs ``spec`` with ``fds`` (see :func:`_forked`).

    The child's standard input, output and error are this process's now
    (pytest's capture, a notebook's), not the server's.  None when no server
    answers: the caller then runs the work another way.
    """
    std = [fd for fd in (0, 1, 2) if _is_open(fd)]
    spec = {**spec, "std": std}
    for _ in range(2):  # a server found dead is restarted once
        server = _running()
        if server is None:
            return None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            message = json.dumps({"run": spec}).encode()
            socket.send_fds(server.control, [message], [theirs.fileno(), *fds, *std])
        except OSError as failure:
            ours.close()
            if failure.errno == errno.EMSGSIZE:  # a huge environment: not the server's fault
                return None
            _discard(server)
            continue
        finally:
            theirs.close()
        try:
            ready, _, _ = select.select([ours], [], [], START_WAIT)
            data = ours.recv(64) if ready else b""
        except BaseException:  # Ctrl-C: the call's socket closed, its child (if any) killed
            ours.close()
            raise
        if data.startswith(b"pid "):
            return Child(int(data.split()[1]), ours, server.pid)
        ours.close()
        _discard(server)
        if ready:  # it ended while the request waited: a new one may do
            continue
        return None
    return None


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def warm(modules: Sequence[str]) -> None:
    """Ask the server to import these faier modules, so that its next children inherit them."""
    names = [name for name in modules if name.startswith("faier.")]
    server = _server
    if not names or server is None or server.owner != os.getpid():
        return
    with contextlib.suppress(OSError):
        server.control.send(json.dumps({"warm": names}).encode(), socket.MSG_DONTWAIT)


def _running() -> _Server | None:
    """The server, started if there is none or it died (its process reaped); None if it cannot."""
    global _server
    with _lock:
        if _server is not None and not _server.alive():
            _close(_server)
            _server = None
        if _server is None:
            _server = _start()
        return _server


def _discard(server: _Server) -> None:
    global _server
    with _lock:
        _stop(server.pid)
        _close(server)
        if _server is server:
            _server = None


def _close(server: _Server) -> None:
    server.control.close()
    if server.owner == os.getpid():
        with contextlib.suppress(ChildProcessError):
            os.waitpid(server.pid, os.WNOHANG)


def _stop(pid: int) -> None:
    """Kill the server (its children die with it) and reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _start() -> _Server | None:
    if not sys.executable:
        return None
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    spec = {
        "path": sys.path,
        "control": theirs.fileno(),
        "caller": os.getpid(),
        "die_with_caller": threading.current_thread() is threading.main_thread(),
    }
    theirs.set_inheritable(True)
    try:
        command = [sys.executable, "-c", _BOOT, json.dumps(spec)]
        pid = os.posix_spawn(sys.executable, command, os.environ, setsid=True)
    except OSError:
        ours.close()
        return None
    finally:
        theirs.close()
    return _Server(pid, ours)


def serve(spec: dict[str, Any]) -> None:
    """The server's life: fork a child per request until the caller is gone."""
    import importlib

    from faier.mechanisms import isolation

    caller = int(spec["caller"])
    if spec["die_with_caller"]:
        isolation.die_with(caller, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())  # the spawning thread's mask, inherited
    for number in (0, 1, 2):  # taken, so that no descriptor received lands on one
        if not _is_open(number):
            os.open(os.devnull, os.O_RDWR)
    control = socket.socket(fileno=int(spec["control"]))
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    for name in _PRELOAD:
        importlib.import_module(name)
    calls: dict[int, socket.socket | None] = {}
    """Each running child's call socket, by process id (None once the caller closed it)."""
    try:
        while os.getppid() == caller:
            open_calls = [call.fileno() for call in calls.values() if call is not None]
            watched = [control.fileno(), wake_read, *open_calls]
            ready, _, _ = select.select(watched, [], [], _PARENT_CHECK)
            if wake_read in ready:
                os.read(wake_read, 4096)
            _reap(calls)
            for pid, call in list(calls.items()):
                if call is None or call.fileno() not in ready:
                    continue
                asked = call.recv(16)
                if asked in (b"", b"kill"):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                if not asked:  # the caller is gone from this call: its status goes nowhere
                    call.close()
                    calls[pid] = None
            if control.fileno() in ready:
                message, fds, _, _ = socket.recv_fds(control, 1 << 20, 16)
                if not message:
                    break
                request = json.loads(message)
                if "warm" in request:
                    _import(request["warm"])
                else:
                    _fork(request["run"], fds, calls, (control.fileno(), wake_read, wake_write))
    finally:
        for pid in calls:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os._exit(0)


def _import(names: list[str]) -> None:
    import importlib

    for name in names:
        if isinstance(name, str) and name.startswith("faier."):
            with contextlib.suppress(Exception):
                importlib.import_module(name)


def _reap(calls: dict[int, socket.socket | None]) -> None:
    """Reap every ended child and send its status to its call, if still open."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        call = calls.pop(pid, None)
        if call is not None:
            with contextlib.suppress(OSError):
                call.send(b"status %d" % status)
            call.close()


def _fork(
    spec: dict[str, Any],
    fds: list[int],
    calls: dict[int, socket.socket | None],
    own: tuple[int, ...],
) -> None:
    """Fork the child of one request; its call socket gets the process id."""
    call = socket.socket(fileno=fds[0])
    try:
        pid = os.fork()
    except OSError:
        call.close()
        for fd in fds[1:]:
            os.close(fd)
        return
    if pid == 0:
        _forked(spec, fds, [*own, *(other.fileno() for other in filter(None, calls.values()))])
    for fd in fds[1:]:
        os.close(fd)
    with contextlib.suppress(OSError):
        call.send(b"pid %d" % pid)
    calls[pid] = call


def _forked(spec: dict[str, Any], fds: list[int], server_fds: list[int]) -> None:
    """The child: the caller's path, directory and environment, then the work; never returns.

    ``fds`` are the call socket, the work's file, the result file, the note
    page, the relay's two ends (if any) and the caller's standard streams
    (those in ``spec["std"]``), in that order.
    """
    from faier.mechanisms import isolation

    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in [*server_fds, fds[0]]:
            os.close(fd)
        streams = fds[len(fds) - len(spec["std"]) :]
        for number, fd in zip(spec["std"], streams, strict=True):
            os.dup2(fd, number)
            os.close(fd)
        os.environ.clear()
        os.environ.update(spec["environ"])
        sys.path[:] = spec["path"]
        with contextlib.suppress(OSError):
            os.chdir(spec["cwd"])
        spec = {
            **spec,
            "parent": os.getppid(),
            "payload": fds[1],
            "box": fds[2],
            "page": fds[3],
            "link": None if spec["link"] is None else [*fds[4:6], *spec["link"][2:]],
        }
    except BaseException:
        os._exit(70)
    isolation.fresh_child(spec)
