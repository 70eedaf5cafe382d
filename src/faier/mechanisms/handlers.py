"""Interpreters for ``draw``: one mechanism definition, several meanings.

A mechanism body receives a context and calls ``ctx.draw(distribution)``.
:func:`enumerate_paths` runs the body once per combination of choices and
returns exact path probabilities; :class:`SamplingContext` draws at random.
Bodies must be deterministic apart from their draws.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Protocol, TypeVar

import numpy as np

from faier.errors import BudgetExceeded, InternalError, MechanismError, Unanswerable
from faier.mechanisms import isolation
from faier.mechanisms.continuous import Continuous
from faier.mechanisms.decisions import Choices, advance
from faier.model.distribution import Distribution

T = TypeVar("T", bound=Hashable)
R = TypeVar("R")


class Nondeterministic(MechanismError):
    """A body gave different draws or results for the same choices (it uses other randomness).

    ``returned_at`` is (file, line) of the user's return statement when the
    results differed, since no traceback leads there.
    """

    def __init__(
        self,
        message: str,
        *,
        where: str | None = None,
        fix: str | None = None,
        returned_at: tuple[str, int] | None = None,
    ) -> None:
        self.returned_at = returned_at
        super().__init__(message, where=where, fix=fix)


def guarded(name: str, call: Callable[..., R], *args: object) -> R:
    """``call(*args)`` on user code; its crash becomes a MechanismError naming the mechanism.

    faier's own refusals (a budget running out, a MechanismError, an engine's
    :class:`~faier.errors.Unanswerable`, an internal error) pass through.
    """
    try:
        return call(*args)
    except Nondeterministic as exc:
        if exc.message.startswith("mechanism "):
            raise
        raise Nondeterministic(
            f"mechanism {name!r} {exc.message}", fix=exc.fix, returned_at=exc.returned_at
        ) from exc
    except (BudgetExceeded, MechanismError, InternalError, Unanswerable):
        raise
    except KeyboardInterrupt as exc:
        if isolation.interrupt_requested():
            raise
        raise MechanismError(  # raised or signalled by the mechanism itself, not Ctrl-C
            f"mechanism {name!r} raised KeyboardInterrupt (no Ctrl-C was pressed)",
            fix="fix the mechanism so it runs on every input it is given",
        ) from exc
    except BaseException as exc:  # user code may raise (or exit) anything
        raise MechanismError(
            f"mechanism {name!r} raised {type(exc).__name__}: {exc}",
            fix="fix the mechanism so it runs on every input it is given",
        ) from exc


class Context(Protocol):
    """What a mechanism body may do besides computing: draw from a distribution."""

    def draw(self, dist: Distribution[T]) -> T:
        """One random choice."""
        ...


NONDETERMINISTIC_FIX = (
    "make every random choice with ctx.draw (not random, numpy.random, time or a "
    "global counter): faier reruns the body once per combination of draws"
)


@dataclass
class _Replay(Choices):
    """Replays a prefix of choice indices and extends it with first choices.

    ``drawn`` holds the distribution met at each position of the prefix the
    first time; a rerun with the same earlier choices must meet the same one,
    else the body is not deterministic apart from its draws.
    """

    drawn: list[tuple[tuple[Hashable, Fraction], ...]] = field(default_factory=list)
    probability: Fraction = Fraction(1)

    def draw(self, dist: Distribution[T]) -> T:
        if isinstance(dist, Continuous):
            raise MechanismError(
                f"the mechanism draws continuous noise ({dist.describe()}): exact "
                "enumeration needs finite distributions",
                fix="use --engine certified (or auto)",
            )
        if not isinstance(dist, Distribution):
            raise TypeError(f"draw() needs a faier Distribution, got {type(dist).__name__}")
        if self.position < len(self.drawn):
            if self.drawn[self.position] != dist.items:
                raise Nondeterministic(
                    f"is not deterministic apart from ctx.draw: draw number {self.position + 1} "
                    "met a different distribution on a rerun with the same earlier choices",
                    fix=NONDETERMINISTIC_FIX,
                )
        else:
            self.drawn.append(dist.items)
        first = self.position == 0
        outcome, p = dist.items[self.choose(len(dist.items))]
        first = first and type(p) is Fraction  # 1 · p without a Fraction product
        self.probability = p if first else self.probability * p
        return outcome


def enumerate_paths(
    body: Callable[[Context], R], *, max_paths: int | None = None
) -> Iterator[tuple[R, Fraction]]:
    """Every execution of ``body`` with its exact probability (depth-first).

    The body must be deterministic apart from its draws: each rerun is
    checked to meet the same distributions along the replayed choices, and
    the first execution is run twice and must give the same result, else a
    MechanismError says so (instead of wrong probabilities).
    """
    prefix: list[int] = []
    drawn: list[tuple[tuple[Hashable, Fraction], ...]] = []
    count = 0
    while True:
        ctx = _Replay(prefix=prefix, drawn=drawn)
        result = body(ctx)
        if count == 0:
            _check_rerun(body, list(prefix[: ctx.position]), list(drawn), result)
        yield result, ctx.probability
        count += 1
        if max_paths is not None and count >= max_paths:
            raise BudgetExceeded(f"more than {max_paths} execution paths")
        more = advance(prefix, ctx)
        del drawn[len(prefix) :]
        if not more:
            return


def _check_rerun(
    body: Callable[[Context], R],
    choices: list[int],
    drawn: list[tuple[tuple[Hashable, Fraction], ...]],
    result: R,
) -> None:
    """Run the first execution again: the same choices must give the same result."""
    again = _Replay(prefix=choices, drawn=drawn)
    repeated = body(again)
    try:
        same = bool(repeated == result) and again.position == len(choices)
    except Exception:  # results without a truth value (arrays): nothing to compare
        return
    if not same:
        raise Nondeterministic(
            f"is not deterministic apart from ctx.draw: the same draws gave {result!r} and then "
            f"{repeated!r}",
            fix=NONDETERMINISTIC_FIX,
            returned_at=_return_place(body, choices, drawn),
        )


_FAIER_ROOT = str(Path(__file__).resolve().parents[1])


def _return_place(
    body: Callable[[Context], R],
    choices: list[int],
    drawn: list[tuple[tuple[Hashable, Fraction], ...]],
) -> tuple[str, int] | None:
    """(file, line) where the user's code returned on one more rerun: its last return outside faier.

    Only called once a body has been caught giving two results, to point at the line.
    """
    places: list[tuple[str, int]] = []

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        filename = frame.f_code.co_filename
        if event == "return" and not filename.startswith((_FAIER_ROOT, "<")):
            places.append((filename, frame.f_lineno))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        body(_Replay(prefix=list(choices), drawn=list(drawn)))
    except Exception:  # the rerun only looks for a line; the error is reported already
        return None
    finally:
        sys.setprofile(previous)
    return places[-1] if places else None


def distribution_of(
    body: Callable[[Context], T], *, max_paths: int | None = None
) -> Distribution[T]:
    """The exact output distribution of a body, by path enumeration."""
    return Distribution.from_pairs(enumerate_paths(body, max_paths=max_paths))


class SamplingContext:
    """Draws at random with a numpy generator (floats: for testing, never for proofs)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def draw(self, dist: Distribution[T]) -> T:
        if isinstance(dist, Continuous):
            return dist.sample(self.rng)  # type: ignore[return-value]
        u = self.rng.random()
        acc = 0.0
        for outcome, p in dist.items:
            acc += float(p)
            if u < acc:
                return outcome
        return dist.items[-1][0]
