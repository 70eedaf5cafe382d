"""User code in a forked child: its value comes back, its way of ending the process does not."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from faier.errors import BudgetExceeded, MechanismError
from faier.mechanisms import isolation
from faier.mechanisms.isolation import EndedWithoutResult, call_isolated, user_code

pytestmark = pytest.mark.skipif(not isolation.can_isolate(), reason="needs os.fork")


def _raises() -> None:
    raise ValueError("from the child")


def _exits_hard(code: int) -> None:
    isolation.note("mechanism 'leaky' in leaky.py")
    os._exit(code)


def _kills_itself() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _sleeps() -> None:
    time.sleep(60)


def test_the_value_and_the_exception_come_back() -> None:
    assert call_isolated(sum, [1, 2, 3]) == 6
    assert call_isolated(lambda: {"a": (1, 2)}) == {"a": (1, 2)}
    with pytest.raises(ValueError, match="from the child"):
        call_isolated(_raises)


def test_an_exception_that_does_not_pickle_comes_back_as_text() -> None:
    class Local(Exception):
        pass

    def fails() -> None:
        raise Local("unpicklable")

    with pytest.raises(RuntimeError, match="Local: unpicklable"):
        call_isolated(fails)


@pytest.mark.parametrize("code", [0, 1, 3])
def test_os_exit_is_no_result_and_names_what_ran(code: int) -> None:
    with pytest.raises(EndedWithoutResult) as ended:
        call_isolated(_exits_hard, code)
    assert ended.value.how == f"exit status {code}"
    assert ended.value.running == "mechanism 'leaky' in leaky.py"


def test_a_signal_is_no_result() -> None:
    with pytest.raises(EndedWithoutResult) as ended:
        call_isolated(_kills_itself, forward_signals=True)
    assert ended.value.how == "killed by signal 9 (SIGKILL)"
    assert ended.value.running is None


def test_a_child_past_its_time_limit_is_killed() -> None:
    with pytest.raises(BudgetExceeded, match=r"time limit of 0\.2 s"):
        call_isolated(_sleeps, timeout=0.2)
    with pytest.raises(BudgetExceeded):
        call_isolated(_sleeps, timeout=0.2, forward_signals=True)


def _forks_then_returns() -> int:
    with user_code():
        os.fork()  # both copies return here; only the child that entered may leave
    return os.getpid()


def test_a_fork_made_by_user_code_never_leaves_the_stretch() -> None:
    child = call_isolated(_forks_then_returns)
    assert child != os.getpid()


def test_user_output_goes_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    with user_code():
        print("printed by the mechanism")
        os.write(1, b"written to fd 1\n")
    print("faier's own output")
    captured = capfd.readouterr()
    assert captured.out == "faier's own output\n"
    assert "printed by the mechanism" in captured.err and "written to fd 1" in captured.err


def test_sys_exit_in_user_code_is_a_mechanism_error() -> None:
    with (
        pytest.raises(MechanismError, match=r"'leaky' called sys.exit\(0\)"),
        user_code("mechanism 'leaky'"),
    ):
        sys.exit(0)


def test_an_interrupt_the_parent_never_saw_came_from_user_code() -> None:
    """Outside an isolated child a KeyboardInterrupt may be Ctrl-C; inside, only if the
    parent received one too (a terminal's Ctrl-C reaches both)."""
    assert isolation.interrupt_requested()
    assert call_isolated(isolation.interrupt_requested, forward_signals=True) is False
    assert call_isolated(isolation.interrupt_requested) is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_child_dies_with_its_parent() -> None:
    """``kill -9`` of the ``faier`` process must not leave its work running."""
    script = "import time; from faier.mechanisms.isolation import call_isolated; "
    script += "call_isolated(time.sleep, 120)"
    parent = subprocess.Popen([sys.executable, "-c", script], env=os.environ.copy())
    children = Path(f"/proc/{parent.pid}/task/{parent.pid}/children")
    deadline = time.monotonic() + 60
    found: list[str] = []
    while not found and time.monotonic() < deadline:
        found = children.read_text().split() if children.exists() else []
        time.sleep(0.05)
    parent.kill()
    parent.wait()
    assert len(found) == 1
    stat = Path(f"/proc/{found[0]}/stat")

    def dead() -> bool:  # gone, or a zombie waiting for its new parent to reap it
        try:
            return stat.read_text().split()[2] in ("Z", "X")
        except FileNotFoundError:
            return True

    while not dead() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert dead()


def _ctrl_c_to_both() -> bool:
    """A terminal's Ctrl-C as the child sees it: the parent has it too, maybe not yet marked."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # the forwarded copy waits
    os.kill(os.getppid(), signal.SIGINT)
    return isolation.interrupt_requested()


def test_a_ctrl_c_that_reached_the_parent_too_is_the_users_even_before_it_is_marked() -> None:
    assert call_isolated(_ctrl_c_to_both, forward_signals=True) is True


def _sigint_held_here() -> tuple[bool, bool]:
    before = isolation._pending(os.getpid(), signal.SIGINT)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    os.kill(os.getpid(), signal.SIGINT)
    return before, isolation._pending(os.getpid(), signal.SIGINT)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigint_waiting_in_a_process_is_seen_from_outside() -> None:
    assert call_isolated(_sigint_held_here) == (False, True)
