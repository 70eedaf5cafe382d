"""Time and state budgets: running out ends in 'unknown', never in a hang."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from faier.errors import BudgetExceeded


@dataclass
class Budget:
    """A deadline and a cap on explored states, checked cheaply in hot loops."""

    timeout: float | None = None
    max_states: int | None = None
    started: float = field(default_factory=time.perf_counter)
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
