"""What every report shares: verdicts, exit codes, the JSON envelope, logarithms of
exact ratios.

``Result``, the one result type every engine returns, and its parts (exact
losses, witnesses, enclosures, proofs) live in :mod:`faier.engine_results` and
are loaded from here on first use (PEP 562): ``faier check``'s report on a
question Storm answers needs only this module.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from enum import Enum, IntEnum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from faier.lazy import loader
from faier.version import VERSION

if TYPE_CHECKING:
    from faier.engine_results import CertifiedWitness as CertifiedWitness
    from faier.engine_results import Enclosure as Enclosure
    from faier.engine_results import HorizonRow as HorizonRow
    from faier.engine_results import Loss as Loss
    from faier.engine_results import ParameterValue as ParameterValue
    from faier.engine_results import ParametricReport as ParametricReport
    from faier.engine_results import Proof as Proof
    from faier.engine_results import Result as Result
    from faier.engine_results import Statistics as Statistics
    from faier.engine_results import UnboundedLoss as UnboundedLoss
    from faier.engine_results import Witness as Witness
    from faier.engine_results import loss_of as loss_of
    from faier.engine_results import show_point as show_point


class ExitCode(IntEnum):
    """What the ``faier`` command's exit status means, for CI pipelines (the one mapping)."""

    HOLDS = 0
    """The claim holds, or the asked figure (ε*, p-values, a dpCTL* query) was computed."""
    VIOLATED = 1
    BAD_INPUT = 2
    UNKNOWN = 3
    INTERNAL_ERROR = 4
    """faier itself failed: never a verdict; please report it."""
    INTERRUPTED = 130


class Verdict(Enum):
    """The answer to 'is the mechanism ε-private?'."""

    HOLDS = "holds"
    VIOLATED = "violated"
    UNKNOWN = "unknown"

    @property
    def exit_code(self) -> int:
        """0 holds, 1 violated, 3 unknown (2 is bad input, 4 an internal error)."""
        return {
            "holds": ExitCode.HOLDS,
            "violated": ExitCode.VIOLATED,
            "unknown": ExitCode.UNKNOWN,
        }[self.value]


@runtime_checkable
class Report(Protocol):
    """What every command's result shares: the verdict, the exit code, time and method.

    ``Result`` (epsilon, verify), the dpCTL* ``CheckResult`` and the tester's
    reports all follow it; :func:`envelope` wraps any of them for ``--json``.
    """

    @property
    def verdict(self) -> Verdict | None:
        """holds / violated / unknown; None when the command computes a figure."""
        ...

    @property
    def exit_code(self) -> int: ...

    @property
    def seconds(self) -> float: ...

    @property
    def method(self) -> str:
        """What decided it (exact search, solver unsat, sampling with a p-value, Storm)."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The command's own fields."""
        ...


_html_renderer: list[Callable[[Any], str]] = []
"""The report layer's HTML renderer, installed by the package (``faier.report.html``)."""


def use_html_renderer(fragment: Callable[[Any], str]) -> None:
    """Draw every report's HTML with ``fragment``: the results sit below the report layer,
    so the package installs its renderer here instead of the results importing it."""
    _html_renderer[:] = [fragment]


class ShownAsHtml:
    """A report Jupyter shows as its HTML report (``_repr_html_``)."""

    __slots__ = ()

    def _repr_html_(self) -> str | None:
        """The HTML report; None (Jupyter then shows the text) before a renderer is installed."""
        return _html_renderer[0](self) if _html_renderer else None


ENVELOPE_KEYS = ("command", "verdict", "exit_code", "seconds", "faier_version")


def envelope(report: Report, command: str) -> dict[str, Any]:
    """The JSON every ``--json`` output carries: the envelope keys first, then the body.

    Keys the body has too (``verdict``, ``seconds``) keep the envelope's place
    and value, so the envelope means the same for every command.
    """
    verdict = report.verdict
    head: dict[str, Any] = {
        "command": command,
        "verdict": None if verdict is None else verdict.value,
        "exit_code": int(report.exit_code),
        "seconds": round(report.seconds, 6),
        "faier_version": VERSION,
    }
    return {**head, **report.to_json(), **head}


def natural_log(ratio: Fraction) -> float:
    """ln of a positive exact ratio to float precision, however large or small the ratio.

    The ratio itself is never turned into a float (10⁴⁰⁰ overflows, 10⁻⁴⁰⁰
    underflows): ratio = 2^k·r with r in (1/2, 2) taken from the bit lengths,
    so ln(ratio) = k·ln 2 + log1p(r − 1), and r − 1 is rounded once from its
    exact value (a ratio 1 + 10⁻²⁰ keeps its ε ≈ 10⁻²⁰ rather than 0).
    """
    p, q = ratio.numerator, ratio.denominator
    if p <= 0:
        return -math.inf
    shift = p.bit_length() - q.bit_length()
    scaled = Fraction(p, q << shift) if shift >= 0 else Fraction(p << -shift, q)
    return shift * math.log(2) + math.log1p(float(scaled - 1))


def approximately(value: Fraction, digits: int = 6) -> str:
    """An exact rational to ``digits`` significant digits (``5e+399``, ``1e-400``), through
    decimal arithmetic: a float would overflow or underflow where the value does not."""
    if value == 0 or Fraction(1, 10**300) < abs(value) < 10**300:
        return format(float(value), f".{digits}g")
    with localcontext() as context:
        context.prec = digits
        context.Emax, context.Emin = MAX_EMAX, MIN_EMIN
        shown = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
    return format(shown, f".{digits}g")


def saturated(value: Fraction) -> float:
    """A float for plotting: ±inf past the float range (never an OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


__getattr__ = loader(
    "faier.results",
    {
        "engine_results": (
            "CertifiedWitness",
            "Enclosure",
            "HorizonRow",
            "Loss",
            "ParameterValue",
            "ParametricReport",
            "Proof",
            "Result",
            "Statistics",
            "UnboundedLoss",
            "Witness",
            "loss_of",
            "show_point",
        )
    },
    within="faier",
)
"""``Result`` and its parts (``Loss`` among them), from :mod:`faier.engine_results` on
first use."""
