"""Every execution of a body, depth first, by replaying a prefix of choices.

Exact enumeration of finite draws, the certified engine's symbolic and
lattice runs and the tester's batches all run a mechanism's body once per
path: a run replays a prefix of choice indices, takes the first option of
every choice past it, and records how many options each choice had; the
next prefix bumps the deepest choice that still has an untried option.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Choices:
    """One run's choices: the prefix it replays and the options met at each choice."""

    prefix: list[int]
    branching: list[int] = field(default_factory=list)
    position: int = 0

    def choose(self, options: int) -> int:
        """The index of the next choice among ``options``: the prefix's, else the first."""
        if self.position >= len(self.prefix):
            self.prefix.append(0)
        index = self.prefix[self.position]
        self.branching.append(options)
        self.position += 1
        return index


def advance(prefix: list[int], run: Choices) -> bool:
    """Make ``prefix`` the next path's after ``run``; False once every path has been run."""
    del prefix[run.position :]
    while prefix and prefix[-1] + 1 >= run.branching[len(prefix) - 1]:
        prefix.pop()
    if not prefix:
        return False
    prefix[-1] += 1
    return True
