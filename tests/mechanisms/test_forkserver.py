"""With other threads in the caller, API calls run in children of the fork server."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import faier
from faier.errors import BudgetExceeded, MechanismError
from faier.mechanisms import forkserver, isolation
from faier.results import Verdict

pytestmark = pytest.mark.skipif(not forkserver.available(), reason="no fork server here")


@faier.program(inputs=faier.scalars(1))
def quits(x: Any, ctx: Any) -> Any:
    os._exit(0)


@faier.program(inputs=faier.scalars(1))
def crashes(x: Any, ctx: Any) -> Any:
    os.kill(os.getpid(), signal.SIGSEGV)


@faier.program(inputs=faier.scalars(2))
def chatty(x: Any, ctx: Any) -> Any:
    """Randomized response with probability 3/4 (ε* = ln 3) that prints as it runs."""
    print("chatty ran", flush=True)
    keep = ctx.draw(faier.bernoulli(Fraction(3, 4)))
    return (x > 0) if keep else not (x > 0)


def _served_parent() -> int:
    """The process id of the process that forked the child of this call."""
    parent: int = isolation.api_call("parent", lambda _: os.getppid())
    return parent


def test_a_mechanism_that_ends_its_process_is_its_error(other_thread: None) -> None:
    with pytest.raises(MechanismError, match=r"quits: .*ended the process.*exit status 0"):
        faier.verify(quits, "1")
    with pytest.raises(MechanismError, match=r"crashes: .*killed by signal 11 \(SIGSEGV\)"):
        faier.verify(crashes, "1")
    server = forkserver._server
    assert server is not None and _served_parent() == server.pid


def test_what_it_prints_reaches_the_callers_output_now(
    other_thread: None, capfd: pytest.CaptureFixture[str]
) -> None:
    """pytest's capture replaced this process's stdout after the server started."""
    faier.verify(chatty, "ln(3)")  # the server may start here
    capfd.readouterr()
    result = faier.verify(chatty, "ln(3)")
    assert result.verdict is Verdict.HOLDS
    assert "chatty ran" in capfd.readouterr().out
    assert faier.verify(chatty, "ln(2)").verdict is Verdict.VIOLATED


def test_the_child_sees_the_callers_directory_and_environment_now(
    other_thread: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _served_parent()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FAIER_TEST_SEEN", "yes")
    found = isolation.api_call("where", lambda _: (os.getcwd(), os.environ.get("FAIER_TEST_SEEN")))
    assert found == (str(tmp_path), "yes")


def test_a_killed_server_is_replaced_and_reaped(other_thread: None) -> None:
    first = _served_parent()
    os.kill(first, signal.SIGKILL)
    second = _served_parent()
    assert second != first and second != os.getpid()
    with pytest.raises(ChildProcessError):
        os.waitpid(first, os.WNOHANG)  # reaped: no zombie left


def test_a_time_limit_kills_the_served_child(other_thread: None) -> None:
    with pytest.raises(BudgetExceeded):
        isolation._isolated(time.sleep, (60,), timeout=0.2, fresh=True)
    assert isolation.api_call("after", lambda _: "alive") == "alive"


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (zombies included)."""
    found = []
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if entry.isdigit():
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(stat[1]) == pid:
                    found.append(int(entry))
    return found


def test_calls_leave_no_descriptor_open_and_no_zombie(other_thread: None) -> None:
    """The server reaps each child before it sends its status; nothing stays open here."""
    _served_parent()
    server = _served_parent()  # the first call's modules are imported there by now
    before = sorted(os.listdir("/proc/self/fd"))
    server_fds = _settled(server, None)
    for _ in range(3):
        _served_parent()
        with pytest.raises(MechanismError):
            isolation.api_call("ends", lambda _: os._exit(3))
    assert sorted(os.listdir("/proc/self/fd")) == before
    assert _settled(server, server_fds) == server_fds
    assert _children(server) == []


def _settled(server: int, expected: list[str] | None) -> list[str]:
    """The server's open descriptors once it has closed the last call's socket (it may reply
    before it closes it): the set read twice alike, or ``expected``, within a few seconds."""
    deadline = time.monotonic() + 10
    last = sorted(os.listdir(f"/proc/{server}/fd"))
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = sorted(os.listdir(f"/proc/{server}/fd"))
        if now == expected or (expected is None and now == last):
            return now
        last = now
    return last


def _ended(pid: int) -> bool:
    """Whether process ``pid`` is gone or a zombie (a container's init may not reap)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


@pytest.mark.parametrize("starter", ["main", "thread"])
def test_the_server_and_its_child_end_with_their_caller(tmp_path: Path, starter: str) -> None:
    """A caller killed mid-call (kill -9) takes the server and the running child with it,
    whether the thread that started the server is the main one (Linux's parent-death
    signal) or one that ended since (the server's socket to its caller closes)."""
    pids = tmp_path / "pids"
    script = textwrap.dedent(
        f"""
        import os, threading, time
        from faier.mechanisms import isolation

        threading.Thread(target=time.sleep, args=(120,), daemon=True).start()
        servers = []
        call = lambda: servers.append(isolation.api_call("warm", lambda _: os.getppid()))
        first = threading.Thread(target=call)
        if {starter!r} == "main":
            first.run()
        else:
            first.start()
            first.join()

        def work(_):
            with open({str(pids)!r}, "w") as out:
                out.write(f"{{os.getppid()}} {{os.getpid()}} {{servers[0]}}")
            time.sleep(120)

        isolation.api_call("sleeps", work)
        """
    )
    caller = subprocess.Popen([sys.executable, "-c", script])
    try:
        end = time.monotonic() + 60
        while not (pids.exists() and pids.read_text()) and time.monotonic() < end:
            time.sleep(0.05)
        server, child, first = map(int, pids.read_text().split())
    finally:
        caller.kill()
        caller.wait()
    end = time.monotonic() + 30
    while not (_ended(server) and _ended(child)) and time.monotonic() < end:
        time.sleep(0.05)
    assert _ended(server) and _ended(child)
    assert first == server  # the thread that started it ended, the server did not


def test_the_server_does_not_keep_the_signals_its_starter_blocked(other_thread: None) -> None:
    """A server started with SIGCHLD blocked would notice its children's ends only by polling."""
    os.kill(_served_parent(), signal.SIGKILL)
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    try:
        server = _served_parent()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    status = Path(f"/proc/{server}/status").read_text()
    blocked = next(line for line in status.splitlines() if line.startswith("SigBlk:"))
    assert int(blocked.split()[1], 16) == 0


@faier.program(inputs=faier.grid(2, 2))
def above_threshold(q: Any, ctx: Any) -> Any:
    """Sparse Vector with one answer above the threshold (1-DP for every number of queries)."""
    threshold = ctx.draw(faier.laplace(0, 2))
    out = []
    for i in range(len(q)):
        if q[i] + ctx.draw(faier.laplace(0, 4)) >= threshold:
            out.append(True)
            break
        out.append(False)
    return tuple(out)


def test_the_mechanisms_source_travels_so_a_loop_is_proved_for_every_n(
    other_thread: None,
) -> None:
    """Code sent by value keeps its file and lines (cloudpickle names it ``<dynamic-code>``),
    and the lines go with it: the alignment engine reads the loop there as it does here."""
    result = faier.verify(above_threshold, epsilon=1, engine="alignment")
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None and result.proof.data["queries"] == "every n"
