"""An OpenDP measurement as a black box: its input, neighbours and ε read from the object.

The input domain says what the tester passes (``AtomDomain``: one number,
``VectorDomain``: a vector), its carrier type whether as ints or floats; the
input metric gives the neighbours (absolute distance on one number and
ℓ∞ distance: every query ±d_in; ℓ1 distance: one query ±d_in, a subset of the
ℓ1 ball, so any violation found is one); the stated ε is the privacy map at
``d_in``.  Only ``max_divergence`` (pure ε) measurements are tested: the
tester checks P(M(D1) ∈ E) ≤ e^ε·P(M(D2) ∈ E).  OpenDP samples from its own
random source, so runs are not reproducible from a seed (the tester says so).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from faier.adapters.common import Query, batched, plain, relation, whole_sensitivity
from faier.errors import SpecError
from faier.mechanisms.sampled import Sampled

METRICS = {
    "AbsoluteDistance": "every-query",
    "LInfDistance": "every-query",
    "L1Distance": "one-query",
}
"""OpenDP input metrics on numbers and the neighbour relation the tester uses for each."""


def _convert(carrier: str) -> type:
    """Python's type for an OpenDP carrier or distance type (``f64``, ``i32``, ``Vec<f64>``)."""
    return float if "f" in carrier.removeprefix("Vec<") else int


def wrap_measurement(
    measurement: Any,
    *,
    d_in: float = 1,
    query: Query | None = None,
    neighbours: str | None = None,
    lengths: tuple[int, ...] | None = None,
    name: str | None = None,
) -> Sampled:
    """See :func:`faier.adapters.from_opendp`."""
    import opendp.prelude as dp

    if not isinstance(measurement, dp.Measurement):
        raise SpecError(
            f"{type(measurement).__name__} is not an OpenDP Measurement",
            fix="pass the result of a dp.m.make_* constructor (or a chain ending in one)",
        )
    measure = str(measurement.output_measure)
    if not measure.startswith("MaxDivergence"):
        raise SpecError(
            f"the measurement states its privacy as {measure}",
            fix="the tester checks pure ε-DP: pass a measurement with output measure "
            "dp.max_divergence()",
        )
    domain = str(measurement.input_domain)
    metric = str(measurement.input_metric).split("(")[0]
    scalar = domain.startswith("AtomDomain")
    if not (scalar or domain.startswith("VectorDomain(AtomDomain")) and query is None:
        raise SpecError(
            f"the measurement reads {domain}: the tester runs on numbers and vectors of numbers",
            fix="wrap the measurement that follows the query (e.g. then_laplace after "
            "make_count), or pass query= mapping a vector of answers to its input",
        )
    if metric not in METRICS and neighbours is None:
        raise SpecError(
            f"input metric {metric}: the tester knows absolute, ℓ1 and ℓ∞ distances",
            fix="pass neighbours='every-query:Δ' or 'one-query:Δ' for the data you test",
        )
    distance = _convert(str(measurement.input_metric.distance_type))(d_in)
    try:
        stated = float(measurement.map(distance))  # type: ignore[no-untyped-call]
    except Exception as exc:
        raise SpecError(
            f"OpenDP's privacy map at d_in = {d_in} failed: {exc}", fix="check d_in"
        ) from None
    delta = whole_sensitivity(float(d_in), "d_in")
    kind = (
        relation(neighbours, METRICS.get(metric, "every-query"), delta)
        if query is None
        else relation(neighbours, "every-query", 1)
    )
    convert = _convert(str(measurement.input_carrier_type))

    def runner(value: list[Any], rng: np.random.Generator) -> Any:
        if scalar:
            if len(value) != 1:
                raise SpecError(
                    f"the measurement takes one number, got {len(value)}",
                    fix="test it with lengths=(1,), or pass query= reducing the data to one number",
                )
            argument: Any = convert(value[0])
        else:
            argument = [convert(v) for v in value]
        return lambda: plain(measurement(argument))

    return batched(
        name or f"opendp {metric} measurement",
        runner,
        neighbours=kind,
        stated=stated,
        lengths=lengths if lengths is not None else ((1,) if scalar and query is None else None),
        doc=f"OpenDP measurement on {domain} ({metric}, d_in = {d_in}), states ε = {stated:g}",
        query=query,
    )
