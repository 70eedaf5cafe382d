"""One exception root for faier, and the few kinds a user can act on.

Every error that comes from what a user wrote (a model file, a mechanism file,
an ε, a CLI option) is an :class:`InputError`: it names *where* the problem is
and *how to fix it*, and the CLI turns it into one message and exit code 2.
"""

from __future__ import annotations

from typing import Any


class FaierError(Exception):
    """Root of every error faier raises on purpose."""


class InputError(FaierError):
    """Bad input from the user: names the place and the fix."""

    def __init__(self, message: str, *, where: str | None = None, fix: str | None = None) -> None:
        self.message = message
        self.where = where
        self.fix = fix
        super().__init__(self.render())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its place and fix (passed back from an isolated child whole)."""
        return (_rebuilt, (type(self), self.message, self.where, self.fix), self.__dict__)

    def render(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.fix:
            text += f" ({self.fix})"
        return text

    def located(self, where: str) -> InputError:
        """The same error, prefixed with an outer location (e.g. the file name)."""
        inner = f"{where}: {self.where}" if self.where else where
        return type(self)(self.message, where=inner, fix=self.fix)


class ModelError(InputError):
    """A model (HMM, Markov chain, MDP, model file) is malformed."""


class SpecError(InputError):
    """A privacy specification, ε, δ, neighbour relation or parameter is malformed."""


class MechanismError(InputError):
    """A mechanism definition is missing, malformed, or raised while running."""


def _rebuilt(
    kind: type[InputError], message: str, where: str | None, fix: str | None
) -> InputError:
    return kind(message, where=where, fix=fix)


class BudgetExceeded(FaierError):
    """A time or state budget ran out; engines turn this into an 'unknown' verdict."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Unanswerable(FaierError):
    """An engine runs the mechanism but cannot decide this part of it (the reason is the
    message); engines answer "unknown".  Raised while a mechanism runs under an engine's
    own context, it passes :func:`~faier.mechanisms.handlers.guarded` untouched: it is
    not the mechanism's fault."""


class InternalError(FaierError):
    """faier itself went wrong (a witness that does not recompute, a broken invariant).

    Never a verdict and never bad input: the CLI exits with code 4 and asks
    for a report.
    """
