"""The pytest plugin, run as a library author runs it: a test file in a temporary directory."""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest

pytest_plugins = ["pytester"]
# Each run is a fresh pytest process that loads the plugin from its entry point, as a
# library's CI does (in-process runs would import numpy's extension modules twice).

MECHANISM = '''
from fractions import Fraction
import faier

@faier.program(inputs=faier.grid(2, 2))
def noisy_sum(x, ctx):
    """The sum of two counts with truncated 1/2-geometric noise: ε* = ln 4."""
    return ctx.draw(faier.truncated_geometric(Fraction(1, 2), 4, x[0] + x[1]))
'''

SAMPLED = '''
from faier.mechanisms.sampled import vectorised

@vectorised(neighbours="one-query")
def noisy_first(queries, epsilon, n, rng):
    """The first count with Laplace noise of scale 1/ε₀: ε* = ε₀."""
    return queries[0] + rng.laplace(scale=1 / epsilon, size=n)
'''


def test_the_plugin_is_registered_as_pytest11() -> None:
    assert "faier.pytest_plugin" in {e.value for e in entry_points(group="pytest11")}


def test_a_suite_using_assert_private_and_the_fixture(pytester: pytest.Pytester) -> None:
    """Exact: a correct claim passes, a wrong one fails with the witness.  Statistical:
    the options reach the fixture, a passing check is listed, a failing one names its seed."""
    pytester.makepyfile(
        test_private=MECHANISM
        + """
def test_correct_claim():
    assert faier.assert_private(noisy_sum, epsilon="ln(4)").verdict == "holds"

def test_wrong_claim():
    faier.assert_private(noisy_sum, epsilon="ln(2)")
""",
        test_sampled=SAMPLED
        + """
def test_claim_held(faier_checks):
    assurance = faier_checks.assert_private(noisy_first, epsilon=0.5)
    assert assurance.method == "statistical" and assurance.seed == 7

def test_half_of_it(faier):  # the fixture's older name, still accepted
    faier.assert_private(noisy_first, epsilon=0.25, mechanism_epsilon=0.5)
""",
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-v", "--faier-samples", "4000", "--faier-seed", "7"
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: noisy_sum is not ε = ln(2) private: violated (exact)*",
            "*ε*ln(4) ≈ 1.3863*",
            "*witness*inputs: [[]0, 0[]]  vs  [[]1, 1[]]*",
            "*output: 0*",
            "*Pr[[]output | [[]0, 0[]][]] = 2/3*",
            "*Pr[[]output | [[]1, 1[]][]] = 1/6*",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*noisy_first is not ε = 0.25 private: statistical evidence, p = * ≤ α/2 = 0.005*",
            "*4000 runs per input*",
            "*seed*7 (replay: seed=7, or pytest --faier-seed 7)*",
            "*statistical check of noisy_first failed with seed 7*replay: pytest --faier-seed 7*",
        ]
    )
    assert "faier/assertions.py" not in result.stdout.str()  # __tracebackhide__
    result.stdout.fnmatch_lines(
        [
            "*faier statistical checks*",
            "*test_claim_held: noisy_first at ε = 0.5: no evidence against (p = *, seed 7), "
            "not a proof",
        ]
    )


def test_without_a_seed_the_failing_seed_is_printed_and_replays(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_sampled=SAMPLED
        + """
import faier

def test_half_of_it():
    faier.assert_private(noisy_first, epsilon=0.25, mechanism_epsilon=0.5, samples=4000)
"""
    )
    first = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    first.assert_outcomes(failed=1)
    line = next(s for s in first.outlines if "replay: pytest --faier-seed" in s)
    seed = line.rsplit("--faier-seed ", 1)[1].split()[0]
    assert "faier seeds" in first.stdout.str()
    again = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--faier-seed", seed)
    again.assert_outcomes(failed=1)
    p_first = line.split("(p = ")[1].split(")")[0]
    assert f"(p = {p_first})" in again.stdout.str()


def test_a_statistical_check_that_runs_too_long_fails_at_the_time_limit(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_slow="""
import time

import faier
from faier.mechanisms.sampled import blackbox

@blackbox(neighbours="one-query")
def slow(queries, epsilon, rng):
    time.sleep(0.05)
    return queries[0] + rng.laplace(scale=1 / epsilon)

def test_slow():
    faier.assert_private(slow, epsilon=1, samples=4000, seed=1)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--faier-timeout", "1")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*did not finish within its time limit of 1 s*--faier-timeout SECONDS*"]
    )


def test_long_checks_report_their_progress_in_a_few_lines() -> None:
    from faier.assertions import LineProgress

    lines: list[str] = []
    progress = LineProgress(lines.append, "noisy_first", after=0)
    progress.stage("selecting events", 8)
    for _ in range(8):
        progress.advance()
    assert lines == [
        "faier: noisy_first: selecting events (0/8)",
        "faier: noisy_first: selecting events (2/8)",
        "faier: noisy_first: selecting events (4/8)",
        "faier: noisy_first: selecting events (6/8)",
        "faier: noisy_first: selecting events (8/8)",
    ]
    quiet: list[str] = []
    LineProgress(quiet.append, "quick", after=3600).stage("testing", 1)
    assert quiet == []
