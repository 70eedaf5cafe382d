"""faier's pytest plugin (entry point ``pytest11``): a ``faier`` fixture and replayable seeds.

``faier.assert_private(...)`` in a test (or the same on the ``faier``
fixture) runs statistical checks with ``--faier-samples N`` runs per input
and ``--faier-seed S`` (one seed for every statistical check, to replay a
failure) unless the call gives its own ``samples``/``seed``.  Without
``--faier-seed`` each statistical check draws a fresh seed; when one fails,
its seed is printed under the failure and in the summary, as the
``--faier-seed`` that replays it.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from faier import assertions


class Faier:
    """The ``faier`` fixture: :func:`faier.assert_private` (the options apply to both)."""

    def __init__(self, session: assertions.Session) -> None:
        self.samples = session.samples
        self.seed = session.seed

    def assert_private(self, mechanism: Any, epsilon: Any = None, **keywords: Any) -> Any:
        """:func:`faier.assert_private`, ``samples``/``seed`` defaulting to the options."""
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


def pytest_configure(config: pytest.Config) -> None:
    samples = config.getoption("--faier-samples", None)
    seed = config.getoption("--faier-seed", None)
    if samples is not None and samples < 2:
        raise pytest.UsageError("--faier-samples must be at least 2")
    if seed is not None and seed < 0:
        raise pytest.UsageError("--faier-seed must be at least 0")
    config.stash[PREVIOUS] = assertions.session
    assertions.session = assertions.Session(samples, seed)


def pytest_unconfigure(config: pytest.Config) -> None:
    if PREVIOUS in config.stash:
        assertions.session = config.stash[PREVIOUS]


PREVIOUS = pytest.StashKey[assertions.Session]()


@pytest.fixture
def faier() -> Faier:
    """faier.assert_private under --faier-samples and --faier-seed."""
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
