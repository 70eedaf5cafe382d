"""Declared parameters of a model: names with a domain (an interval).

The exact engine needs every parameter fixed; the SMT engine reasons about
whole domains.  Keeping the domain here lets both read the same declaration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import ModelError
from faier.model.probability import parse_number

_INTERVAL = re.compile(r"^\s*([\[(])\s*([^,]+?)\s*,\s*([^,]+?)\s*([\])])\s*$")


@dataclass(frozen=True)
class Interval:
    """A real interval with open or closed ends."""

    lower: Fraction
    upper: Fraction
    lower_open: bool = True
    upper_open: bool = True

    def __post_init__(self) -> None:
        if self.lower > self.upper or (
            self.lower == self.upper and (self.lower_open or self.upper_open)
        ):
            raise ModelError(f"empty interval {self}", fix="write the lower end first, e.g. (0, 1)")

    def contains(self, x: Fraction) -> bool:
        """Membership, respecting open ends."""
        above = x > self.lower if self.lower_open else x >= self.lower
        below = x < self.upper if self.upper_open else x <= self.upper
        return above and below

    def __str__(self) -> str:
        left = "(" if self.lower_open else "["
        right = ")" if self.upper_open else "]"
        return f"{left}{self.lower}, {self.upper}{right}"

    @classmethod
    def parse(cls, text: str, *, where: str = "") -> Interval:
        """Read ``(0, 1)``, ``[0, 1/2]``, ``(0.1, 1]``."""
        match = _INTERVAL.match(text)
        if not match:
            raise ModelError(
                f"{text!r} is not an interval", where=where, fix="write e.g. (0, 1) or [0, 1/2]"
            )
        try:
            lower = parse_number(match.group(2))[0]
            upper = parse_number(match.group(3))[0]
        except ValueError as exc:
            raise ModelError(
                f"bad interval end in {text!r}", where=where, fix="write e.g. (0, 1) or [0, 1/2]"
            ) from exc
        try:
            return cls(lower, upper, match.group(1) == "(", match.group(4) == ")")
        except ModelError as exc:  # an empty interval, at the place it is written
            raise (exc.located(where) if where else exc) from None


PROBABILITY_DOMAIN = Interval(Fraction(0), Fraction(1), True, True)


@dataclass(frozen=True)
class Parameter:
    """An unknown of a model: a name, its domain, and optionally a fixed value."""

    name: str
    domain: Interval = PROBABILITY_DOMAIN
    value: Fraction | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.name):
            raise ModelError(
                f"parameter name {self.name!r} is not an identifier",
                fix="use letters, digits and _ (e.g. pA)",
            )
        if self.value is not None and not self.domain.contains(self.value):
            raise ModelError(
                f"value {self.value} of parameter {self.name!r} lies outside its domain "
                f"{self.domain}",
                fix="choose a value inside the domain or widen the domain",
            )
