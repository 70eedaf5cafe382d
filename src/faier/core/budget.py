"""Time and state budgets: running out ends in 'unknown', never in a hang."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from faier.errors import BudgetExceeded

_RUN_STARTED: ContextVar[float | None] = ContextVar("faier_run_started", default=None)


def _run_clock() -> float:
    """When the budget's time starts: the run's start inside :func:`counted_from`, else now."""
    started = _RUN_STARTED.get()
    return time.perf_counter() if started is None else started


@contextmanager
def counted_from(started: float) -> Iterator[None]:
    """Budgets made inside count their timeout from ``started`` (a ``perf_counter`` time):
    the API counts loading a target inside ``--timeout`` this way, and the reason still
    names the timeout the user gave."""
    token = _RUN_STARTED.set(started)
    try:
        yield
    finally:
        _RUN_STARTED.reset(token)


@dataclass
class Budget:
    """A deadline and a cap on explored states, checked cheaply in hot loops."""

    timeout: float | None = None
    max_states: int | None = None
    started: float = field(default_factory=_run_clock)
    explored: int = 0
    progress: Callable[[Any], None] | None = None
    """Called by long searches with their counts (for a progress display)."""

    def spend(self, states: int = 1) -> None:
        """Count explored states; raise BudgetExceeded past either limit."""
        self.explored += states
        if self.max_states is not None and self.explored > self.max_states:
            raise BudgetExceeded(f"state budget of {self.max_states} exhausted")
        self.check_time()

    def check_time(self) -> None:
        """Raise BudgetExceeded once the deadline has passed."""
        if self.timeout is not None and self.elapsed() > self.timeout:
            raise BudgetExceeded(f"timeout of {self.timeout:g} s reached")

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


GRACE = 0.5
"""Seconds past a timeout before the hard deadline interrupts: cooperative checks go first."""
REPEAT = 0.25
"""Seconds between further interruptions once the hard deadline has passed."""


@contextmanager
def hard_deadline(timeout: float | None) -> Iterator[None]:
    """Interrupt whatever runs (user mechanism code included) once ``timeout`` is past.

    Engines check their budget between steps; a mechanism that never returns
    never reaches such a check.  An interval timer raises
    :class:`BudgetExceeded` in the main thread a little after the timeout, so
    the run still ends in "unknown".  Off the main thread, or where there is
    no ``SIGALRM``, only the cooperative checks apply.
    """
    usable = (
        timeout is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    assert timeout is not None
    delay = timeout + GRACE + 0.05 * timeout
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    if 0 < outer <= delay:
        # An enclosing deadline fires first and ends this run too.
        yield
        return
    entered = time.perf_counter()

    def expire(signum: int, frame: object) -> None:
        # Again and again until the run ends: a fallback that catches one
        # BudgetExceeded (and tries a slower way) must not run on forever.
        signal.setitimer(signal.ITIMER_REAL, REPEAT)
        raise BudgetExceeded(f"timeout of {timeout:g} s reached (inside the mechanism's code)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, delay)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:
            # Nested inside a longer deadline: give the enclosing one back what is left.
            left = outer - (time.perf_counter() - entered)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))
