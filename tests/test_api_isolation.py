"""The Python API runs user code where its exit cannot become a verdict (issue: os._exit)."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from fractions import Fraction
from typing import Any

import pytest

import faier
from faier import testing
from faier.errors import MechanismError, SpecError
from faier.mechanisms import isolation
from faier.results import Verdict
from threads import another_thread

pytest_plugins = ["pytester"]


@faier.program(inputs=faier.scalars(1))
def quits(x: Any, ctx: Any) -> Any:
    """Ends its process with status 0: the status must never read as 'holds'."""
    os._exit(0)


@faier.program(inputs=faier.scalars(2))
def coin(x: Any, ctx: Any) -> Any:
    """Randomized response with probability 3/4 of the truth: ε* = ln 3."""
    keep = ctx.draw(faier.bernoulli(Fraction(3, 4)))
    return (x > 0) if keep else not (x > 0)


pytestmark = pytest.mark.skipif(not isolation.can_isolate(), reason="no fork here")


def test_verify_and_epsilon_raise_when_the_mechanism_ends_the_process() -> None:
    for call in (lambda: faier.verify(quits, "1"), lambda: faier.epsilon(quits)):
        with pytest.raises(MechanismError, match="ended the process without a result") as ended:
            call()
        assert ended.value.where == "quits" and "exit status 0" in str(ended.value)
        assert ended.value.fix is not None and "os._exit" in ended.value.fix


def test_assert_private_raises_rather_than_exiting() -> None:
    with pytest.raises(MechanismError, match="quits: the mechanism ended the process"):
        faier.assert_private(quits, "1")


def test_a_result_comes_back_with_its_witness_intact() -> None:
    result = faier.verify(coin, "0.5")
    assert result.verdict is Verdict.VIOLATED and result.witness is not None
    assert {result.witness.p, result.witness.q} == {Fraction(3, 4), Fraction(1, 4)}
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 3
    assert faier.verify(coin, "ln(3)").verdict is Verdict.HOLDS


def test_errors_keep_their_type_place_and_fix_and_assertions_their_message() -> None:
    with pytest.raises(SpecError) as bad:
        faier.epsilon(coin, horizon="x")  # refused in the child, passed back pickled
    assert (bad.value.where, bad.value.fix) == ("--horizon", "e.g. --horizon 4")
    again = pickle.loads(pickle.dumps(bad.value))
    assert type(again) is type(bad.value) and str(again) == str(bad.value)
    assert (again.where, again.fix, again.message) == (
        bad.value.where,
        bad.value.fix,
        bad.value.message,
    )
    with pytest.raises(AssertionError, match=r"coin is not ε = 0\.5 private: violated"):
        faier.assert_private(coin, "0.5")


def test_a_pytest_run_hitting_such_a_mechanism_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_quits="""
import os
import faier
from faier import testing

@faier.program(inputs=faier.scalars(1))
def quits(x, ctx):
    os._exit(0)

def test_quits():
    faier.assert_private(quits, "1")

def test_after():
    pass
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*MechanismError: quits: the mechanism ended the process*"])


def test_inside_an_isolated_child_the_api_does_not_fork_again() -> None:
    def pids() -> tuple[int, int, bool]:
        here = os.getpid()
        return (
            here,
            isolation.api_call("inner", lambda _: os.getpid()),
            isolation.in_isolated_child(),
        )

    child, inner, isolated = isolation.call_isolated(pids)
    assert isolated and inner == child != os.getpid()
    assert not isolation.in_isolated_child()


@faier.program(inputs=faier.scalars(1))
def crashes(x: Any, ctx: Any) -> Any:
    """Segmentation fault: reading address 0."""
    import ctypes

    return ctypes.string_at(0)


def test_progress_is_called_here_in_order_and_a_crash_with_it_still_raises() -> None:
    def in_process() -> list[str]:  # inside an isolated child the API does not fork again
        calls: list[str] = []
        faier.epsilon("above-threshold", horizon=3, progress=lambda c: calls.append(repr(c)))
        return calls

    seen: list[str] = []
    result = faier.epsilon("above-threshold", horizon=3, progress=lambda c: seen.append(repr(c)))
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 8
    assert seen and seen == isolation.call_isolated(in_process)  # each call as it was made
    with pytest.raises(MechanismError, match="ended the process without a result"):
        faier.epsilon(quits, progress=seen.append)


class Enough(Exception):
    """Raised by a caller's callback to stop the search."""


def test_what_the_callback_raises_comes_out_of_the_call_as_the_same_object() -> None:
    raised: list[Enough] = []

    def stop(counts: Any) -> None:
        raised.append(Enough(f"stopped after {counts.explored} steps"))
        raise raised[-1]

    with pytest.raises(Enough) as stopped:
        faier.verify("above-threshold", "ln(2)", horizon=3, progress=stop)
    assert raised == [stopped.value]


class Recorder:
    """A progress object of the tester's protocol: stage, advance, point."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def stage(self, description: str, total: int) -> None:
        self.calls.append(f"stage {total}")

    def advance(self) -> None:
        self.calls.append("advance")

    def point(self, point: Any) -> None:
        self.calls.append(f"point {point.epsilon:g}")


def test_a_progress_object_has_each_method_called_here() -> None:
    recorder = Recorder()
    run = {"samples": 500, "selection_samples": 200, "epsilons": "0.5,1", "seed": 1}
    testing.statistical_test("noisy-max-laplace", claimed="0.7", progress=recorder, **run)
    assert recorder.calls[0].startswith("stage ") and "advance" in recorder.calls
    assert [c for c in recorder.calls if c.startswith("point")] == ["point 0.5", "point 1"]


def test_calls_larger_than_a_pipe_buffer_arrive_whole_and_in_order() -> None:
    sizes: list[int] = []

    def work(progress: Any) -> int:
        for n in range(40):
            progress(bytes(200_000 + n))
        return 7

    assert isolation.api_call("work", work, progress=lambda data: sizes.append(len(data))) == 7
    assert sizes == [200_000 + n for n in range(40)]


def test_with_other_threads_here_the_child_is_a_new_interpreter() -> None:
    """A fork would copy the locks the other thread holds: a new interpreter runs the work
    (one that has not imported pytest), and its end is still the mechanism's error."""
    with another_thread():
        seen: list[bool] = []
        isolation.api_call(
            "new", lambda report: report("pytest" in sys.modules), progress=seen.append
        )
        with pytest.raises(MechanismError, match="ends: the mechanism ended the process"):
            isolation.api_call("ends", lambda _: os._exit(0))
    assert seen == [False] and isolation.api_call("forked", lambda _: "pytest" in sys.modules)


def test_a_crash_in_the_child_prints_no_fault_dump(capfd: pytest.CaptureFixture[str]) -> None:
    """pytest enables faulthandler; the child's crash is reported by the parent instead."""
    with pytest.raises(MechanismError, match="SIGSEGV"):
        faier.verify(crashes, "1")
    assert "Fatal Python error" not in capfd.readouterr().err


@faier.program(inputs=faier.scalars(1))
def interrupts(x: Any, ctx: Any) -> Any:
    """Sends itself SIGINT, then answers: never a verdict."""
    os.kill(os.getpid(), signal.SIGINT)
    return x


@pytest.mark.parametrize("threads", [1, 2], ids=["forked", "new interpreter"])
def test_a_mechanisms_own_sigint_is_its_error_even_if_the_caller_ignores_sigint(
    threads: int,
) -> None:
    """Started in the background by a shell, the caller ignores SIGINT, and so did the child."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with (
            another_thread() if threads == 2 else contextlib.nullcontext(),
            pytest.raises(MechanismError, match=r"KeyboardInterrupt \(no Ctrl-C was pressed\)"),
        ):
            faier.verify(interrupts, "1")
    finally:
        signal.signal(signal.SIGINT, previous)
