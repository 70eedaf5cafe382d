"""faier's pytest plugin (entry point ``pytest11``): a fixture, replayable seeds, time limits.

``faier.assert_private(...)`` in a test (or the same on the ``faier_checks``
fixture; ``faier`` is its older name, which shadows the package inside a
test that takes it) runs statistical checks with ``--faier-samples N`` runs
per input, ``--faier-seed S`` (one seed for every statistical check, to
replay a failure) and ``--faier-timeout SECONDS`` (default
:data:`DEFAULT_TIMEOUT`; 0 for none) unless the call gives its own
``samples``/``seed``/``timeout``.  A check that runs longer than a few
seconds reports its progress on the terminal.  Without ``--faier-seed``
each statistical check draws a fresh seed; when one fails, its seed is
printed under the failure and in the summary, as the ``--faier-seed`` that
replays it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from faier import assertions

DEFAULT_TIMEOUT = 600.0
"""Seconds a statistical check may run under pytest unless told otherwise: a check ends
(failing with "did not finish") rather than hanging a test suite."""


class Faier:
    """The ``faier_checks`` fixture: :func:`faier.assert_private` (the options apply to both)."""

    def __init__(self, session: assertions.Session) -> None:
        self.samples = session.samples
        self.seed = session.seed

    def assert_private(self, mechanism: Any, epsilon: Any = None, **keywords: Any) -> Any:
        """:func:`faier.assert_private`, ``samples``/``seed``/``timeout`` defaulting to the
        options."""
        __tracebackhide__ = True
        return assertions.assert_private(mechanism, epsilon, **keywords)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("faier", "faier privacy assertions")
    group.addoption(
        "--faier-samples",
        type=int,
        default=None,
        help="runs per input for statistical faier.assert_private checks (default 50000)",
    )
    group.addoption(
        "--faier-seed",
        type=int,
        default=None,
        help="seed of every statistical faier check (replays a failure it printed)",
    )
    group.addoption(
        "--faier-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds a statistical faier check may run (default {DEFAULT_TIMEOUT:g}; 0: none)",
    )


def pytest_configure(config: pytest.Config) -> None:
    samples = config.getoption("--faier-samples", None)
    seed = config.getoption("--faier-seed", None)
    if samples is not None and samples < 2:
        raise pytest.UsageError("--faier-samples must be at least 2")
    if seed is not None and seed < 0:
        raise pytest.UsageError("--faier-seed must be at least 0")
    timeout = config.getoption("--faier-timeout", DEFAULT_TIMEOUT)
    if timeout is None or timeout < 0 or timeout != timeout:
        raise pytest.UsageError("--faier-timeout must be a number of seconds ≥ 0 (0: no limit)")
    config.stash[PREVIOUS] = assertions.session
    assertions.session = assertions.Session(
        samples, seed, timeout or None, progress=_terminal_lines(config)
    )


def _terminal_lines(config: pytest.Config) -> Any:
    """Writes a line on pytest's terminal (past its output capture), if it has one."""

    def write(line: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)

    return write


def pytest_unconfigure(config: pytest.Config) -> None:
    if PREVIOUS in config.stash:
        assertions.session = config.stash[PREVIOUS]


PREVIOUS = pytest.StashKey[assertions.Session]()


@pytest.fixture
def faier_checks() -> Faier:
    """faier.assert_private under --faier-samples, --faier-seed and --faier-timeout."""
    return Faier(assertions.session)


@pytest.fixture
def faier() -> Faier:
    """The older name of ``faier_checks``: inside a test that takes it, ``faier`` is this
    fixture, not the package (prefer ``faier_checks``, or ``import faier`` alone)."""
    return Faier(assertions.session)


FAILED = pytest.StashKey[list[assertions.Failure]]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    before, passed = len(assertions.failures), len(assertions.passes)
    yield
    item.stash[FAILED] = assertions.failures[before:]
    lines = [f"{item.nodeid}: {_evidence(a)}" for a in assertions.passes[passed:]]
    item.config.stash.setdefault(EVIDENCE, []).extend(lines)


EVIDENCE = pytest.StashKey[list[str]]()


def _evidence(passed: assertions.Assurance) -> str:
    return (
        f"{passed.target} at ε = {passed.epsilon}: no evidence against "
        f"(p = {passed.p_value:.3g}, seed {passed.seed}), not a proof"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    report = outcome.get_result()
    failed = item.stash.get(FAILED, [])
    if report.when == "call" and report.failed and failed:
        lines = [_replay(f) for f in failed]
        report.sections.append(("faier", "\n".join(lines)))
        item.config.stash.setdefault(SUMMARY, []).extend(f"{item.nodeid}: {line}" for line in lines)


SUMMARY = pytest.StashKey[list[str]]()


def _replay(failure: assertions.Failure) -> str:
    text = (
        f"statistical check of {failure.target} failed with seed {failure.seed} "
        f"(p = {failure.p_value:.3g}); replay: pytest --faier-seed {failure.seed}"
    )
    if not failure.reproducible:
        text += " (the mechanism has its own random source: the random seed cannot replay it)"
    return text


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    evidence = config.stash.get(EVIDENCE, [])
    if evidence and config.getoption("verbose") > 0:
        terminalreporter.section("faier statistical checks")
        for line in evidence:
            terminalreporter.write_line(line)
    elif evidence:
        terminalreporter.write_line(
            f"faier: {len(evidence)} check(s) passed statistically (evidence, not proofs; "
            "-v lists them)"
        )
    lines = config.stash.get(SUMMARY, [])
    if lines:
        terminalreporter.section("faier seeds")
        for line in lines:
            terminalreporter.write_line(line)
