"""Typed example parameters set from the command line with ``--set NAME=VALUE``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.errors import SpecError
from faier.model.parameters import PROBABILITY_DOMAIN, Interval, Parameter
from faier.model.probability import parse_number


@dataclass(frozen=True)
class ParameterSpec:
    """One parameter of a built-in example: its type, default and meaning."""

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int = 1000
    """Sizes past this are refused at once: building the example is not under --timeout."""

    def parse(self, text: str) -> Any:
        """Read a value of this parameter's kind, with an error that names it."""
        where = f"--set {self.name}={text}"
        example = f"e.g. --set {self.name}={self.show_default()}"
        if self.kind == "choice":
            if text not in self.choices:
                raise SpecError(
                    f"{text!r} is not a choice",
                    where=where,
                    fix=f"choose one of {', '.join(self.choices)}",
                )
            return text
        if self.kind == "int":
            try:
                value = int(text)
            except ValueError:
                raise SpecError("expected an integer", where=where, fix=example) from None
            if self.minimum is not None and value < self.minimum:
                raise SpecError(
                    f"must be at least {self.minimum}",
                    where=where,
                    fix=f"e.g. --set {self.name}={max(self.minimum, self.default)}",
                )
            if value > self.maximum:
                raise SpecError(
                    f"must be at most {self.maximum}",
                    where=where,
                    fix=f"e.g. --set {self.name}={self.default}",
                )
            return value
        if self.kind == "fraction":
            try:
                return parse_number(text)[0]
            except ValueError:
                raise SpecError(
                    "expected a number such as 1/2 or 0.25", where=where, fix=example
                ) from None
        if self.kind == "optional-int":
            if text in {"all", "any", "none"}:
                return None
            try:
                number = int(text)
            except ValueError:
                raise SpecError(
                    "expected an integer or 'all'",
                    where=where,
                    fix=f"e.g. --set {self.name}=1 or --set {self.name}=all",
                ) from None
            if not 0 <= number <= self.maximum:
                raise SpecError(
                    f"must lie in 0..{self.maximum}",
                    where=where,
                    fix=f"e.g. --set {self.name}=1 or --set {self.name}=all",
                )
            return number
        raise SpecError(f"internal: unknown parameter kind {self.kind}")

    def show_default(self) -> str:
        if self.default is None:
            return "all"
        return str(self.default)


def resolve(
    specs: tuple[ParameterSpec, ...], settings: Mapping[str, str], example: str
) -> dict[str, Any]:
    """Defaults overridden by ``--set`` values; unknown names are errors."""
    known = {s.name: s for s in specs}
    values = {s.name: s.default for s in specs}
    for name, text in settings.items():
        if name not in known:
            raise SpecError(
                f"example {example!r} has no parameter {name!r}",
                where=f"--set {name}={text}",
                fix=f"its parameters are {', '.join(known) or 'none'} (see 'faier examples')",
            )
        values[name] = known[name].parse(text)
    return values


def fraction(value: Any) -> Fraction:
    """Narrow a parameter value to a Fraction."""
    return Fraction(value)


@dataclass(frozen=True)
class Unknown:
    """A prior probability an example leaves unknown (or fixes by default).

    ``--param NAME=VALUE`` fixes it, ``--param 'NAME in (a, b)'`` sets its domain.
    """

    name: str
    help: str
    domain: Interval = PROBABILITY_DOMAIN
    value: Fraction | None = None

    @property
    def parameter(self) -> Parameter:
        return Parameter(self.name, self.domain, self.value)

    def show_default(self) -> str:
        return f"{self.value} (fixed)" if self.value is not None else f"unknown in {self.domain}"
