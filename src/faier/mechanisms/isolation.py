"""User code runs where its exit, output or crash cannot become a verdict.

A mechanism is the user's Python, and Python can end a process in ways no
``except`` sees: ``os._exit(0)``, a signal, a crash of the interpreter, or a
``fork`` whose copy carries on with faier's own work.  Two pieces keep that
from ever reading as an answer; any command that runs user code uses them:

- :func:`call_isolated` runs a function in a forked child and passes its
  value (or exception) back through a file.  A child that ends without
  writing one raises :class:`EndedWithoutResult`, which says how it ended
  and what user code it was running (the last :func:`note`).  The ``faier``
  command runs all of its work this way (``cli/main.py``).
- :func:`user_code` brackets a stretch in which user code may run: its
  standard output goes to standard error (``--json`` stays clean),
  ``sys.exit`` inside becomes a :class:`~faier.errors.MechanismError`, and a
  process forked inside never leaves it.

The Python API's entries that run user code (``faier.verify``,
``faier.epsilon``, ``faier.assert_private``, ``faier.testing.statistical_test``,
``faier.audit``) go through :func:`api_call`: in a forked child unless this
process already is one (:func:`in_isolated_child`, e.g. the CLI's); when this
process runs other threads or the work uses Dask (a fork copies locks that the
other threads hold, and Dask's event loops cannot cross one), in a child of the
fork server (:mod:`~faier.mechanisms.forkserver`), or of a new interpreter where
there is none.  A ``progress`` callback stays in the caller's
process: the child's calls of it come back over a pipe, one at a time.

Where there is no ``fork`` (Windows) the function runs in the caller's
process: :func:`can_isolate` says which.
"""

from __future__ import annotations

import contextlib
import importlib
import mmap
import os
import pickle
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import IO, TYPE_CHECKING, Any, Protocol, TypeVar

from faier.errors import BudgetExceeded, FaierError, MechanismError

if TYPE_CHECKING:
    from faier.mechanisms import relay

R = TypeVar("R")

_NOTE_BYTES = 4096
_INTERRUPTED = _NOTE_BYTES - 1
_WATCHING = _NOTE_BYTES - 2
"""1 when the parent watches signals (``forward_signals``): its interrupts are the user's."""
_TEXT_BYTES = _WATCHING - 4
_MARK_WAIT = 0.25
"""Seconds a child waits for its parent to show a SIGINT that reached both at once."""
"""The page's last byte: 1 once the parent received an interrupt (``forward_signals``)."""
_note_page: mmap.mmap | None = None
"""In an isolated child: the page shared with the parent where :func:`note` writes; its
last byte is the parent's :func:`interrupt_requested` mark."""

_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_OWN = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
"""Signals the child does not ignore even when its caller does (see :func:`_own_signals`)."""
_WATCHED = {*_FORWARDED, signal.SIGCHLD}
_PR_SET_PDEATHSIG = 1
_CHILD_FAILED = 70
"""The exit status of an isolated child that could not write its result (EX_SOFTWARE)."""


class EndedWithoutResult(FaierError):
    """An isolated child ended without passing a result back: never a verdict.

    ``how`` says how it ended ("exit status 0", "killed by signal 9 (SIGKILL)");
    ``running`` is the last :func:`note` it made (which user code ran), if any.
    """

    def __init__(self, how: str, running: str | None) -> None:
        self.how = how
        self.running = running
        where = f" while running {running}" if running else ""
        super().__init__(f"the process ended without a result ({how}){where}")


def can_isolate() -> bool:
    """Whether :func:`call_isolated` forks (POSIX), rather than calling in this process."""
    return hasattr(os, "fork")


_marked_isolated = False
"""Set by :func:`mark_isolated` in a process forked for one piece of work (a batch job)."""


def mark_isolated() -> None:
    """Say that this process was forked to run one piece of work (its exit is watched)."""
    global _marked_isolated
    _marked_isolated = True


def in_isolated_child() -> bool:
    """Whether this process runs isolated already (a :func:`call_isolated` child, a batch job)."""
    return _marked_isolated or _note_page is not None


def api_call(
    what: str, function: Callable[[Any], R], *, progress: Any = None, fresh: bool = False
) -> R:
    """A public API entry's work, where user code that ends the process cannot end the caller's.

    ``function(relay)`` runs in a child and its value or exception comes back
    pickled; a child that ends without one raises
    :class:`~faier.errors.MechanismError` naming ``what``: never a verdict.
    The child is forked, or a new interpreter (:func:`_spawn`) when this
    process runs other threads or ``fresh`` says the work uses Dask.
    ``relay`` stands for ``progress`` (a callable or an object with methods)
    in the child: each call of it is made here, on the caller's object, in
    order, while the child waits; what it raises is raised there at that call
    (and the caller's own exception comes out here).  Without ``fork``, or
    inside an isolated child already, ``function(progress)`` runs here.
    """
    if not can_isolate() or in_isolated_child():
        return function(progress)
    try:
        if fresh or threading.active_count() > 1:
            return _isolated(function, (), progress=progress, fresh=True)
        return _isolated(function, (), progress=progress)
    except EndedWithoutResult as ended:
        running = f" (it was running {ended.running})" if ended.running else ""
        raise MechanismError(
            f"the mechanism ended the process without a result ({ended.how}){running}",
            where=what,
            fix="a mechanism must return a value or raise an exception,"
            " never call os._exit or kill its process",
        ) from None


def named(target: Any) -> str:
    """How an API call's target is named in its messages (a file, a name, a program's name)."""
    if isinstance(target, str | os.PathLike):
        return os.fspath(target)
    for attribute in ("name", "__name__"):
        found = getattr(target, attribute, None)
        if isinstance(found, str) and found:
            return found
    return type(target).__name__


def interrupt_requested() -> bool:
    """Whether a ``KeyboardInterrupt`` here may be the user's Ctrl-C (else user code raised it).

    In a child of :func:`call_isolated` with ``forward_signals`` the parent
    marks every interrupt it receives (a terminal's Ctrl-C reaches both);
    one the parent never saw came from inside, from user code.  Without
    ``forward_signals`` the parent handles Ctrl-C itself (it kills the
    child): False.  Outside such a child nothing tells them apart: True.

    A terminal's Ctrl-C reaches the parent and the child at the same moment,
    and the child may get here before the parent has marked it: the child
    waits a moment (:data:`_MARK_WAIT`) for the mark, or for a SIGINT pending
    in the parent (Linux), before it calls the interrupt the mechanism's own.
    """
    page = _note_page
    if page is None or page[_INTERRUPTED] == 1:
        return True
    if page[_WATCHING] != 1:
        return False
    end = time.monotonic() + _MARK_WAIT
    while page[_INTERRUPTED] != 1 and not _pending(os.getppid(), signal.SIGINT):
        if time.monotonic() >= end:
            return False
        time.sleep(0.001)
    return True


def _pending(pid: int, number: int) -> bool:
    """Whether signal ``number`` waits, blocked, in process ``pid`` (Linux's /proc; else False)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("ShdPnd:"):
                    return bool(int(line.split()[1], 16) >> (number - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False


def note(text: str) -> None:
    """Record which user code this process runs now (read by the parent if it dies).

    Cheap and a no-op outside an isolated child: call it once per loaded
    file or chosen mechanism, not per run of a body.
    """
    page = _note_page
    if page is None:
        return
    data = text.encode("utf-8", "replace")[:_TEXT_BYTES]
    page[4 : 4 + len(data)] = data
    page[:4] = len(data).to_bytes(4, "little")


def _read_note(page: mmap.mmap) -> str | None:
    size = int.from_bytes(page[:4], "little")
    if not 0 < size <= _TEXT_BYTES:
        return None
    return page[4 : 4 + size].decode("utf-8", "replace")


def call_isolated(
    function: Callable[..., R],
    /,
    *args: Any,
    timeout: float | None = None,
    forward_signals: bool = False,
) -> R:
    """``function(*args)`` in a forked child: its value, or the exception it raised.

    Raises :class:`EndedWithoutResult` when the child ends without one, and
    :class:`~faier.errors.BudgetExceeded` when it runs past ``timeout``
    seconds (it is killed).  Value and exception travel pickled; one that
    cannot be pickled comes back as a ``RuntimeError`` with its text.

    ``forward_signals`` (main thread only): Ctrl-C, SIGTERM and SIGHUP sent
    to this process are passed on to the child, which decides what they stop
    (a terminal's Ctrl-C reaches both already and is not sent twice).
    Without it a ``KeyboardInterrupt`` here kills the child.
    """
    if not can_isolate():
        return function(*args)
    return _isolated(function, args, timeout=timeout, forward_signals=forward_signals)


_RELAYED = object()
"""``progress`` of :func:`_isolated` when the function takes no relay (``call_isolated``)."""


def _isolated(
    function: Callable[..., R],
    args: tuple[Any, ...],
    *,
    timeout: float | None = None,
    forward_signals: bool = False,
    progress: Any = _RELAYED,
    fresh: bool = False,
) -> R:
    """:func:`call_isolated`, in a forked child or a new interpreter (``fresh``); with a
    ``progress`` the child calls ``function(*args, relay)`` (:mod:`~faier.mechanisms.relay`)."""
    watching = (
        forward_signals and not fresh and threading.current_thread() is threading.main_thread()
    )
    deadline = None if timeout is None else time.monotonic() + timeout
    relayed = progress is not _RELAYED
    with contextlib.ExitStack() as stack:
        box = stack.enter_context(_scratch("faier-outcome"))
        paper = stack.enter_context(_scratch("faier-note"))
        paper.truncate(_NOTE_BYTES)
        page = stack.enter_context(mmap.mmap(paper.fileno(), _NOTE_BYTES))
        # unwatched, a Ctrl-C is the parent's (it kills the child): the page's mark stays 0
        page[_WATCHING] = 1 if watching else 0
        pipes: relay.Pipes | None = None
        server: relay.Server | None = None
        link: relay.Link | None = None
        if relayed and progress is not None:
            from faier.mechanisms import relay  # a call without progress never loads it

            pipes = relay.Pipes()
            stack.callback(pipes.close)
            server = relay.Server(progress, pipes.requests, pipes.answers)
            link = pipes.link(progress)
        # the mask as it is (a signal handler that raises here changes nothing), then blocked
        # inside the try: Python runs pending handlers in pthread_sigmask, and one that
        # raised after the block left the watched signals blocked in this thread for good
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if watching else None
        try:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_BLOCK, _WATCHED)
            _flush()
            child: _Child
            if fresh:
                child = _spawn(function, args, box, paper, link, relayed)
            else:
                parent = os.getpid()
                pid = os.fork()
                if pid == 0:
                    theirs = () if pipes is None else pipes.parent_ends()
                    _child(function, args, box, page, mask, parent, link, relayed, theirs)
                child = _Local(pid)
            stack.callback(child.close)
            if pipes is not None:
                pipes.close_child_ends()
            if mask is not None:
                status, received = _wait_watching(pid, deadline, timeout, page)
            else:
                status, received = _wait_polling(child, deadline, timeout, server), None
        finally:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        outcome = _read_outcome(box)
        if outcome is not None:
            if relayed:
                _warm(box, served=not isinstance(child, _Local))
            kind, payload = outcome
            if kind == "raised":
                raise payload if server is None else server.original(payload)
            return payload  # type: ignore[no-any-return]
        if received is not None:
            if received == signal.SIGINT:
                raise KeyboardInterrupt
            signal.raise_signal(received)
        raise EndedWithoutResult(_how(status), _read_note(page))


def _scratch(name: str) -> IO[bytes]:
    """An anonymous file for the child's outcome or notes: in memory on Linux
    (``memfd_create``), which spares every command the ``tempfile`` module and the disk."""
    if hasattr(os, "memfd_create"):
        return os.fdopen(os.memfd_create(name, os.MFD_CLOEXEC), "w+b")
    import tempfile

    return tempfile.TemporaryFile()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def die_with(parent: int, code: int = _CHILD_FAILED) -> None:
    """Linux: this process (a child, the fork server) is killed when its parent dies (``kill -9``
    of ``faier`` stops the work); it ends with ``code`` if the parent died before the request."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(code)


def _own_signals() -> None:
    """The child's signals as a plain ``python`` has them, however the caller was started.

    A process started in the background by a shell ignores SIGINT (``nohup``:
    SIGHUP), and a forked or spawned child inherits that, and the signals
    the calling thread blocks: a mechanism's own ``os.kill(os.getpid(),
    SIGINT)`` was then ignored and its run read as a verdict.  Here SIGINT
    raises ``KeyboardInterrupt`` (the mechanism's error unless the parent
    saw a Ctrl-C too, :func:`interrupt_requested`) and the others end the
    process, as they would in a terminal.
    """
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in _OWN:
        if signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, *_OWN})


def _quiet_crashes() -> None:
    """No ``faulthandler`` dump in the child (pytest enables one): its crash is not the
    caller's, whose report names the signal and the user code.  Kept when the user asked
    for it when Python started (``-X faulthandler``, ``PYTHONFAULTHANDLER``)."""
    if "faulthandler" in sys._xoptions or os.environ.get("PYTHONFAULTHANDLER"):
        return
    with contextlib.suppress(Exception):
        import faulthandler

        faulthandler.disable()


def _child(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    box: IO[bytes],
    page: mmap.mmap,
    mask: set[int | signal.Signals] | None,
    parent: int,
    link: relay.Link | None,
    relayed: bool,
    theirs: tuple[int, ...],
) -> None:
    """The forked child: run, write the outcome, end without returning to the caller."""
    global _note_page
    code = _CHILD_FAILED
    try:
        for fd in theirs:  # the parent's ends of the relay: a dead parent must read as EOF
            os.close(fd)
        die_with(parent)
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _own_signals()
        _note_page = page
        _quiet_crashes()
        call = _with_relay(function, args, link, relayed)
        code = _run_and_write(call, box.fileno(), pickle.dumps)
    finally:
        os._exit(code)


def _with_relay(
    function: Callable[..., Any], args: tuple[Any, ...], link: relay.Link | None, relayed: bool
) -> Callable[[], Any]:
    if not relayed:
        return partial(function, *args)
    return partial(function, *args, None if link is None else link.relay())


def _run_and_write(call: Callable[[], Any], box: int, dumps: Callable[[Any], bytes]) -> int:
    """Run ``call`` and write its outcome to the file ``box``; the child's exit status."""
    try:
        me = os.getpid()
        before = set(sys.modules)
        outcome: tuple[str, Any]
        try:
            outcome = ("value", call())
        except BaseException as failure:  # passed back to the caller, which raises it
            outcome = ("raised", failure)
        _flush()
        if os.getpid() != me:  # a fork made by user code came back here: not the child
            return _CHILD_FAILED
        data = _pickled(outcome, dumps)
        learned = sorted(n for n in set(sys.modules) - before if n.startswith("faier."))
        extra = pickle.dumps(learned)
        view = memoryview(_framed(data) + _framed(extra))
        while view:
            view = view[os.write(box, view) :]
    except BaseException:
        return _CHILD_FAILED
    return 0


_CAUSE = "_faier_cause"
"""Where an exception crossing back keeps its ``__cause__`` (which pickle drops)."""
_CHAIN = 8


def _pickled(outcome: tuple[str, Any], dumps: Callable[[Any], bytes]) -> bytes:
    kind, payload = outcome
    chain = _causes(payload) if kind == "raised" else []
    for failure, cause in chain:
        failure.__dict__[_CAUSE] = cause
    try:
        return dumps(outcome)
    except Exception:  # a cause that cannot travel: without the causes
        for failure, _ in chain:
            failure.__dict__.pop(_CAUSE, None)
    try:
        return dumps(outcome)
    except Exception as failure:
        text = f"{type(payload).__name__}: {payload}" if kind == "raised" else repr(payload)
        stand_in = RuntimeError(f"{text} (could not be passed back: {failure})")
        return pickle.dumps(("raised", stand_in))


def _framed(data: bytes) -> bytes:
    return len(data).to_bytes(8, "little") + data


def _warm(box: IO[bytes], *, served: bool) -> None:
    """Import the faier modules the child imported (never user code) where the next child
    is forked from: here, or in the fork server (``served``), so that it inherits them
    instead of importing them again (``faier.verify``: about 0.5 s less)."""
    fd = box.fileno()
    with contextlib.suppress(Exception):
        first = 8 + int.from_bytes(os.pread(fd, 8, 0), "little")
        size = int.from_bytes(os.pread(fd, 8, first), "little")
        names = pickle.loads(os.pread(fd, size, first + 8))
        learned = [name for name in names if isinstance(name, str) and name.startswith("faier.")]
        if served:
            from faier.mechanisms import forkserver

            forkserver.warm(learned)
            return
        for name in learned:
            importlib.import_module(name)


def _read_outcome(box: IO[bytes]) -> tuple[str, Any] | None:
    fd = box.fileno()
    head = os.pread(fd, 8, 0)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "little")
    data = os.pread(fd, size, 8)
    if len(data) < size:
        return None
    try:
        found = pickle.loads(data)
    except Exception as failure:
        return ("raised", RuntimeError(f"the child's result could not be read: {failure}"))
    assert isinstance(found, tuple)
    if found[0] == "raised":
        _restore_causes(found[1])
    return found


def _causes(failure: BaseException) -> list[tuple[BaseException, BaseException]]:
    """(exception, its ``__cause__``) along the chain, a few links deep."""
    chain = []
    while isinstance(failure, BaseException) and failure.__cause__ is not None:
        chain.append((failure, failure.__cause__))
        failure = failure.__cause__
        if len(chain) >= _CHAIN:
            break
    return chain


def _restore_causes(failure: Any) -> None:
    for _ in range(_CHAIN):
        cause = getattr(failure, "__dict__", {}).pop(_CAUSE, None)
        if not isinstance(cause, BaseException):
            return
        failure.__cause__ = cause
        failure = cause


_BOOT = (
    "import json, sys\n"
    "spec = json.loads(sys.argv[1])\n"
    "sys.path[:] = spec['path']\n"
    "from faier.mechanisms.isolation import fresh_child\n"
    "fresh_child(spec)\n"
)
"""What a new interpreter started by :func:`_spawn` runs (the caller's ``sys.path`` first)."""


def _spawn(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    box: IO[bytes],
    paper: IO[bytes],
    link: relay.Link | None,
    relayed: bool,
) -> _Child:
    """A child without this process's threads that runs ``function(*args)``.

    The work travels by value (:func:`~faier.mechanisms.travel.portable`)
    to a child of the fork server (:mod:`~faier.mechanisms.forkserver`), or
    where there is none, to a new interpreter; the result file, the note page
    and the relay's pipes are passed to it.
    """
    import json

    from faier.mechanisms import forkserver, travel

    if not sys.executable:
        raise MechanismError(
            "faier cannot start a new Python process here (sys.executable is empty)",
            fix="call faier from a process without other threads, or from the faier command",
        )
    with _scratch("faier-work") as payload:
        payload.write(travel.portable((function, args)))
        payload.flush()
        spec = {
            "path": sys.path,
            "parent": os.getpid(),
            "payload": payload.fileno(),
            "box": box.fileno(),
            "page": paper.fileno(),
            "link": None if link is None else link.to_json(),
            "relayed": relayed,
        }
        passed = [payload.fileno(), box.fileno(), paper.fileno(), *(link.fds() if link else ())]
        if forkserver.available():
            served = {**spec, "cwd": _cwd(), "environ": dict(os.environ)}
            remote = forkserver.fork(served, passed)
            if remote is not None:
                return remote
        for fd in passed:
            os.set_inheritable(fd, True)
        try:
            command = [sys.executable, "-c", _BOOT, json.dumps(spec)]
            return _Local(os.posix_spawn(sys.executable, command, os.environ))
        finally:
            for fd in passed:
                os.set_inheritable(fd, False)


def _cwd() -> str | None:
    with contextlib.suppress(OSError):
        return os.getcwd()
    return None


def fresh_child(spec: dict[str, Any]) -> None:
    """A new interpreter's work (:func:`_spawn`, or a child of the fork server): load it, run,
    write the outcome, end."""
    from faier.mechanisms import relay, travel

    global _note_page
    code = _CHILD_FAILED
    try:
        die_with(int(spec["parent"]))
        _own_signals()
        _note_page = mmap.mmap(int(spec["page"]), _NOTE_BYTES)
        _quiet_crashes()
        link = None if spec["link"] is None else relay.Link.from_json(spec["link"])

        def work() -> Any:
            function, args = travel.loaded(int(spec["payload"]))
            return _with_relay(function, args, link, bool(spec["relayed"]))()

        code = _run_and_write(work, int(spec["box"]), travel.dumps)
    finally:
        os._exit(code)


def _reap(pid: int) -> int | None:
    """The child's wait status once it ended, else None (-1: reaped by someone else)."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return -1
    return status if done == pid else None


def _kill(pid: int, timeout: float | None) -> BudgetExceeded:
    """Kill and reap the child; the budget error that says why (raised by the caller)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    return BudgetExceeded(f"stopped at its time limit of {timeout or 0:g} s")


def _wait_watching(
    pid: int, deadline: float | None, timeout: float | None, page: mmap.mmap
) -> tuple[int, int | None]:
    """Wait with the watched signals blocked; pass on those that another process sent."""
    received: int | None = None
    while True:
        status = _reap(pid)
        if status is not None:
            return status, received
        wait = 0.25
        if deadline is not None:
            if time.monotonic() >= deadline:
                raise _kill(pid, timeout)
            wait = min(wait, max(deadline - time.monotonic(), 0.001))
        info = signal.sigtimedwait(_WATCHED, wait)
        if info is None or info.si_signo == signal.SIGCHLD:
            continue
        received = info.si_signo
        if received == signal.SIGINT:
            page[_INTERRUPTED] = 1
        if info.si_code <= 0:  # sent by a process (kill): the child has not seen it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, info.si_signo)


class _Child(Protocol):
    """A running child: :class:`_Local`, or one the fork server forked
    (:class:`~faier.mechanisms.forkserver.Child`)."""

    @property
    def handle(self) -> int | None: ...

    def ended(self) -> int | None: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...


class _Local:
    """A child of this process; ``handle`` is its pidfd where there is one."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.handle: int | None = None
        with contextlib.suppress(AttributeError, OSError):
            self.handle = os.pidfd_open(pid)  # type: ignore[attr-defined,unused-ignore]

    def ended(self) -> int | None:
        return _reap(self.pid)

    def kill(self) -> None:
        _kill(self.pid, None)

    def close(self) -> None:
        if self.handle is not None:
            os.close(self.handle)
            self.handle = None


def _wait_polling(
    child: _Child, deadline: float | None, timeout: float | None, server: relay.Server | None
) -> int:
    """Wait for the child (on its ``handle`` where it has one), answering its progress calls.

    Ctrl-C here (or anything the caller's callback raises that is not an
    ``Exception``) kills the child and goes on up.
    """
    handle = child.handle
    try:
        pause = 0.001
        while True:
            status = child.ended()
            if status is not None:
                return status
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                child.kill()
                raise BudgetExceeded(f"stopped at its time limit of {timeout or 0:g} s")
            watched = [] if handle is None else [handle]
            if server is not None and not server.closed:
                watched.append(server.requests)
            if handle is None:
                wait = pause if left is None else min(pause, left)
                pause = min(pause * 2, 0.05)
            else:
                wait = left  # type: ignore[assignment]
            if not watched:
                time.sleep(wait or 0)
                continue
            ready, _, _ = select.select(watched, [], [], wait)
            if server is not None and server.requests in ready:
                server.serve()
                pause = 0.001
    except BaseException:
        if child.ended() is None:  # still running (a deadline's kill has reaped it already)
            child.kill()
        raise


def _how(status: int) -> str:
    if status < -1:  # forkserver's: the server ended first
        return "the helper process that ran it ended"
    if status == -1:
        return "its exit status was taken by someone else"
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "unknown signal"
        return f"killed by signal {number} ({name})"
    if os.WIFEXITED(status):
        return f"exit status {os.WEXITSTATUS(status)}"
    return f"wait status {status}"


@contextlib.contextmanager
def user_code(what: str = "the mechanism") -> Iterator[None]:
    """A stretch where user code may run: stdout to stderr, ``sys.exit`` refused, forks kept in.

    ``what`` names the code in the message when it calls ``sys.exit``.
    Standard output is redirected for Python (``sys.stdout``) and for the
    file descriptor (C code, subprocesses); faier prints its own results
    after the stretch.
    """
    owner = os.getpid()
    _flush()
    saved: int | None = None
    with contextlib.suppress(OSError):
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except SystemExit as exit_call:
        raise MechanismError(
            f"{what} called sys.exit({exit_call.code!r}) while faier ran it",
            fix="return a value or raise an exception: a mechanism must not end the process",
        ) from None
    finally:
        if os.getpid() != owner:  # a process forked by user code never leaves the stretch
            _flush()
            os._exit(_CHILD_FAILED)
        _flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)
