"""The Python API runs user code where its exit cannot become a verdict (issue: os._exit)."""

from __future__ import annotations

import os
import pickle
from fractions import Fraction
from typing import Any

import pytest

import faier
from faier.errors import MechanismError, SpecError
from faier.mechanisms import isolation
from faier.results import Verdict

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
        return here, isolation.api_call("inner", os.getpid), isolation.in_isolated_child()

    child, inner, isolated = isolation.call_isolated(pids)
    assert isolated and inner == child != os.getpid()
    assert not isolation.in_isolated_child()
