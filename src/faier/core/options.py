"""Every run setting in one frozen object, declared once for the CLI and the Python API.

Each option is declared in :data:`SPECS`: its CLI flags, its help text and
the function that reads it (from CLI text or a Python value) with the error
message a user sees.  ``faier.epsilon(target, horizon=4)`` and ``faier
epsilon TARGET --horizon 4`` both end in :meth:`Options.parse`, so an option
is read, checked and reported the same way through either door.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from faier.cluster.address import ClusterAddress, read_cluster
from faier.core.assignments import read_settings
from faier.core.spellings import given_once
from faier.errors import InputError, SpecError
from faier.model.constraints import ParameterOption
from faier.model.hmm import MAX_HORIZON
from faier.model.probability import parse_number
from faier.privacy.budget import Epsilon, parse_delta
from faier.privacy.neighbours import NeighbourRelation, parse_neighbours

ARITHMETICS = ("float", "exact")
SOLVERS = ("portfolio", "z3", "cvc5")
ENCODINGS = ("fast", "faithful")


@dataclass(frozen=True)
class OptionSpec:
    """One option: how the CLI spells it, what it means, and how it is read."""

    name: str
    flags: tuple[str, ...]
    help: str
    read: Callable[[Any], Any]

    @property
    def flag(self) -> str:
        return self.flags[0]


def _whole(minimum: int, example: str, maximum: int | None = None) -> Callable[[Any], int]:
    def read(raw: Any) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise SpecError(f"{raw!r} is not a whole number", fix=f"e.g. {example}")
        try:
            value = int(raw)
        except ValueError:
            raise SpecError(f"{raw!r} is not a whole number", fix=f"e.g. {example}") from None
        if value < minimum:
            raise SpecError(f"must be at least {minimum}, got {value}", fix=f"e.g. {example}")
        if maximum is not None and value > maximum:
            raise SpecError(f"must be at most {maximum}, got {value}", fix=f"e.g. {example}")
        return value

    return read


def _positive_seconds(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise SpecError(f"{raw!r} is not a number of seconds", fix="e.g. --timeout 60") from None
    if not value > 0 or not math.isfinite(value):
        raise SpecError(
            f"the timeout must be positive, got {value:g}",
            fix="give seconds, e.g. --timeout 60, or leave it out for no limit",
        )
    return value


def _choice(what: str, choices: tuple[str, ...]) -> Callable[[Any], str]:
    def read(raw: Any) -> str:
        text = str(raw).strip()
        if text not in choices:
            raise SpecError(f"unknown {what} {text!r}", fix=f"choose one of {', '.join(choices)}")
        return text

    return read


def _positive_fraction(raw: Any) -> Fraction:
    try:
        value = parse_number(raw)[0] if isinstance(raw, str) else Fraction(raw)
    except (TypeError, ValueError):
        raise SpecError(f"{raw!r} is not a number", fix="e.g. --precision 1e-4") from None
    if not value > 0:
        raise SpecError(f"must be positive, got {value}", fix="e.g. --precision 1e-4")
    return value


def _probability(raw: Any) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise SpecError(f"{raw!r} is not a number", fix="e.g. --alpha 0.05") from None
    if not 0 < value < 1:
        raise SpecError(f"must lie strictly between 0 and 1, got {value:g}", fix="e.g. 0.05")
    return value


def _params(raw: Iterable[str | ParameterOption]) -> tuple[ParameterOption, ...]:
    return tuple(r if isinstance(r, ParameterOption) else ParameterOption.parse(r) for r in raw)


def _text(raw: Any) -> str:
    return str(raw)


def _flag(raw: Any) -> bool:
    return bool(raw)


def _epsilon_grid(raw: Any) -> str:
    """``0:2.2:0.1`` or ``0.5,1`` (read by the tester), or numbers from Python, checked here."""
    if isinstance(raw, str):
        return raw
    values = [raw] if isinstance(raw, int | float) else list(raw)
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise SpecError(f"{value!r} is not a number", fix="e.g. [0.5, 1.0]") from None
        if not math.isfinite(value) or value < 0:
            raise SpecError(f"ε = {value} is not a finite number ≥ 0", fix="e.g. [0.5, 1.0]")
    if not values:
        raise SpecError("no ε values given", fix="e.g. [0.5, 1.0]")
    return ",".join(repr(float(v)) for v in values)


def _positive_epsilon(raw: Any) -> float:
    value = Epsilon.parse(raw).value
    if not 0 < value < math.inf:
        raise SpecError(f"must be a finite ε > 0, got {value:g}", fix="e.g. 1.0 or 'ln(3)'")
    return value


def _neighbours(raw: str | NeighbourRelation) -> NeighbourRelation:
    return raw if not isinstance(raw, str) else parse_neighbours(raw)


SPECS: dict[str, OptionSpec] = {
    spec.name: spec
    for spec in (
        OptionSpec("settings", ("--set",), "example or model parameter NAME=VALUE", read_settings),
        OptionSpec(
            "horizon",
            ("--horizon",),
            "length of observation sequences / number of queries",
            _whole(1, "--horizon 4", MAX_HORIZON),
        ),
        OptionSpec(
            "neighbours",
            ("--neighbors", "--neighbours"),
            "every-query[:Δ], one-query[:Δ] or add-remove",
            _neighbours,
        ),
        OptionSpec("delta", ("--delta",), "δ for (ε, δ)-DP", parse_delta),
        OptionSpec(
            "timeout", ("--timeout",), "seconds before answering 'unknown'", _positive_seconds
        ),
        OptionSpec(
            "max_states",
            ("--max-states",),
            "state budget before answering 'unknown'",
            _whole(1, "--max-states 100000"),
        ),
        OptionSpec(
            "arithmetic",
            ("--arithmetic",),
            "sequence search: 'float' (float64 frontier, exact at the margin) or 'exact'",
            _choice("arithmetic", ARITHMETICS),
        ),
        OptionSpec("name", ("--name",), "which mechanism of a Python file", _text),
        OptionSpec(
            "engine",
            ("--engine",),
            "auto (the first engine that accepts the problem) or an engine of 'faier engines'",
            _text,
        ),
        OptionSpec(
            "params",
            ("--param",),
            "parameter: fix 'p=0.3', range 'p in (0, 1)', or constrain 'pA <= pB'",
            _params,
        ),
        OptionSpec(
            "solver",
            ("--solver",),
            "SMT solver: z3, cvc5 or portfolio (both)",
            _choice("solver", SOLVERS),
        ),
        OptionSpec(
            "encoding",
            ("--encoding",),
            "fast (per-outcome polynomials) or faithful (FAIER journal Algorithm 1)",
            _choice("encoding", ENCODINGS),
        ),
        OptionSpec("emit_smt2", ("--emit-smt2",), "write every SMT query to this directory", Path),
        OptionSpec(
            "precision",
            ("--precision",),
            "SMT engine: ε* over a parameter domain to this precision",
            _positive_fraction,
        ),
        OptionSpec("seed", ("--seed",), "seed for a reproducible run", _whole(0, "--seed 1")),
        OptionSpec(
            "workers",
            ("--workers",),
            "worker processes (default: all cores)",
            _whole(1, "--workers 2"),
        ),
        OptionSpec(
            "cluster",
            ("--cluster",),
            "run on Dask: local, local:N (worker processes) or tcp://HOST:PORT (a scheduler)",
            read_cluster,
        ),
        OptionSpec(
            "samples", ("--samples",), "runs per input for the test", _whole(1, "--samples 500000")
        ),
        OptionSpec(
            "selection_samples",
            ("--selection-samples",),
            "runs per input for event selection",
            _whole(2, "--selection-samples 100000"),
        ),
        OptionSpec("alpha", ("--alpha",), "significance level α", _probability),
        OptionSpec(
            "thinnings",
            ("--thinnings",),
            "thinnings averaged per p-value",
            _whole(1, "--thinnings 200"),
        ),
        OptionSpec(
            "epsilons",
            ("--epsilons",),
            "test ε grid: START:STOP:STEP or a comma list",
            _epsilon_grid,
        ),
        OptionSpec(
            "mechanism_epsilon",
            ("--mechanism-epsilon",),
            "the ε₀ a sampled mechanism runs with (sets its noise); default: the claim",
            _positive_epsilon,
        ),
        OptionSpec(
            "per_sample",
            ("--per-sample",),
            "one run per sample (no tables, no vectorising)",
            _flag,
        ),
        OptionSpec(
            "all_pairs",
            ("--all-pairs",),
            "every neighbour pair of a small input space",
            _flag,
        ),
    )
}


ALIASES = {"neighbors": "neighbours"}
"""Other spellings of an option's Python name (as the CLI takes ``--neighbors`` and
``--neighbours``)."""


def _spelled(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The options under their own names; an option given under two spellings is refused."""
    spellings: dict[str, dict[str, Any]] = {}
    for key, value in raw.items():
        spellings.setdefault(ALIASES.get(key, key), {})[key] = value
    return {
        own: given_once(own, given, where=SPECS[own].flag if own in SPECS else None)
        for own, given in spellings.items()
    }


@dataclass(frozen=True)
class Options:
    """How to run: every setting a command or an API call can take, already checked.

    ``None`` means "not given": the engine's own default applies (no time
    limit, every core, a fresh random seed, ...).
    """

    settings: Mapping[str, str] = field(default_factory=dict)
    horizon: int | None = None
    neighbours: NeighbourRelation | None = None
    delta: Fraction | None = None
    timeout: float | None = None
    max_states: int | None = None
    arithmetic: str = "float"
    name: str | None = None
    engine: str = "auto"
    params: tuple[ParameterOption, ...] = ()
    solver: str | None = None
    encoding: str | None = None
    emit_smt2: Path | None = None
    precision: Fraction | None = None
    seed: int | None = None
    workers: int | None = None
    cluster: ClusterAddress | None = None
    samples: int = 500_000
    selection_samples: int = 100_000
    alpha: float = 0.05
    thinnings: int = 200
    epsilons: str = "0:2.2:0.1"
    mechanism_epsilon: float | None = None
    per_sample: bool = False
    all_pairs: bool = False

    @classmethod
    def parse(cls, base: Options | None = None, **raw: Any) -> Options:
        """Read options given as CLI text or Python values; ``None`` leaves one unset.

        An unknown name is a ``TypeError`` (as for any Python keyword); a bad
        value is a :class:`SpecError` that names the option's CLI flag.
        """
        values: dict[str, Any] = {}
        for key, value in _spelled(raw).items():
            spec = SPECS.get(key)
            if spec is None:
                known = ", ".join(sorted(SPECS))
                raise TypeError(f"unknown option {key!r} (options: {known})")
            if value is None:
                continue
            try:
                values[key] = spec.read(value)
            except InputError as exc:  # placed at the flag, once
                placed = exc.where is not None and exc.where.startswith(spec.flag)
                raise (exc if placed else exc.located(spec.flag)) from None
        return replace(base or cls(), **values)

    @property
    def smt_asked(self) -> bool:
        """Options that only the SMT engine reads were given."""
        return self.solver is not None or self.encoding is not None or self.emit_smt2 is not None

    @property
    def cores(self) -> int:
        """Worker processes to use: ``workers`` or every core."""
        return self.workers if self.workers is not None else (os.cpu_count() or 1)

    def given(self) -> dict[str, Any]:
        """The options that differ from their defaults (for messages and JSON)."""
        default = Options()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }
