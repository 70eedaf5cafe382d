"""OpenDP measurements called by audited code: read as a noise primitive about their input.

A measurement built by ``make_laplace``/``make_geometric`` (continuous or
integer domain) or ``make_gaussian`` is a location family at its ``scale``
(read from ``__opendp_dict__``), centred on the argument; its claim is the
privacy map.  Any other measurement is a ``library`` primitive whose claim is
its privacy map at the measured input distance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from faier.auditing.primitives import LibraryClaim, Reading

_FAMILIES = {"make_laplace": "laplace", "make_geometric": "laplace", "make_gaussian": "gaussian"}


def reading(measurement: Any, arg: Any) -> Reading:
    """Family, centre and scale of one call of an OpenDP measurement."""
    described = getattr(measurement, "__opendp_dict__", None) or {}
    function = described.get("__function__", "")
    kwargs = described.get("__kwargs__", {})
    claim = LibraryClaim("opendp", None, _zero(), None)
    family = _FAMILIES.get(function)
    if family is None or "scale" not in kwargs:
        return Reading("library", arg, None, claim=claim, handle=measurement)
    domain = str(kwargs.get("input_domain", ""))
    if family == "laplace" and ("T=i" in domain or "T=u" in domain):
        family = "discrete-laplace"
    return Reading(family, arg, float(kwargs["scale"]), claim=claim)


def stated(measurement: Any, before: Any, after: Any) -> tuple[Fraction, str] | None:
    """OpenDP's privacy map at the distance between two inputs in the measurement's input
    metric (pure ε measures only), and the distance as text; None where it cannot be read."""
    metric = str(measurement.input_metric)
    if "MaxDivergence" not in str(measurement.output_measure):
        return None
    try:
        if "SymmetricDistance" in metric or "InsertDeleteDistance" in metric:
            left, right = Counter(map(repr, before)), Counter(map(repr, after))
            distance: Any = sum(((left - right) + (right - left)).values())
        elif "ChangeOneDistance" in metric or "HammingDistance" in metric:
            distance = sum(1 for x, y in zip(before, after, strict=True) if repr(x) != repr(y))
        elif "AbsoluteDistance" in metric:
            distance = abs(after - before)
        elif "L1Distance" in metric:
            distance = sum(abs(y - x) for x, y in zip(before, after, strict=True))
        else:
            return None
        value = float(measurement.map(distance))
    except Exception:  # a distance OpenDP does not take for this metric
        return None
    return Fraction(value), f"d_in = {distance}"


def _zero() -> Any:
    from fractions import Fraction

    return Fraction(0)


def wrap(original: Callable[..., Any]) -> Callable[..., Any]:
    """``Measurement.__call__`` as a primitive while a session is active."""
    from faier.auditing.intercept import active

    def call(self: Any, arg: Any) -> Any:
        session = active()
        if session is None:
            return original(self, arg)
        return session.primitive(
            "opendp.Measurement", reading(self, arg), lambda: original(self, arg), 1
        )

    call.__name__ = "__call__"
    return call
