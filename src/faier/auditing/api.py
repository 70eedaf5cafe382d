"""``faier.audit``: one entry for the CLI and for Python, from already-read values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import partial
from typing import Any

from faier.auditing import data as datasets
from faier.auditing import neighbours as nb
from faier.auditing.pair import Claim
from faier.auditing.report import AuditReport
from faier.auditing.search import Plan, Progress, search
from faier.core.options import Options
from faier.errors import SpecError
from faier.mechanisms import isolation
from faier.privacy.budget import Epsilon, parse_delta

DEFAULT_BUDGET = 100


def audit(
    function: Callable[..., Any] | str,
    data: Any,
    *,
    epsilon: str | float | Epsilon,
    delta: str | float | Fraction | None = None,
    neighbours: str = "add-remove",
    args: Mapping[str, Any] | None = None,
    seed: int | None = None,
    budget: int | None = None,
    bounds: Mapping[str, Any] | list[str] | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    cluster: Any = None,
    timeout: float | None = None,
    test_samples: int | None = None,
) -> AuditReport:
    """Audit ``function(data, **args)`` against (ε, δ)-DP under ``neighbours``.

    The audit runs in a child process (:func:`faier.mechanisms.isolation.api_call`),
    so a function that ends its process raises here; ``progress`` is called in
    this process, in order, while the child waits.  On Dask (a ``Client`` or an
    address) the child is forked by the fork server, an interpreter without
    threads, and connects to the cluster itself.
    """
    arguments = dict(locals())
    del arguments["progress"]
    dask = Options.parse(cluster=cluster).cluster is not None  # cannot cross a fork
    work = partial(_relayed_audit, arguments)
    return isolation.api_call(isolation.named(function), work, progress=progress, fresh=dask)


def _relayed_audit(arguments: dict[str, Any], progress: Progress | None) -> AuditReport:
    return _audit(**arguments, progress=progress)


def _audit(
    function: Callable[..., Any] | str,
    data: Any,
    *,
    epsilon: str | float | Epsilon,
    delta: str | float | Fraction | None,
    neighbours: str,
    args: Mapping[str, Any] | None,
    seed: int | None,
    budget: int | None,
    bounds: Mapping[str, Any] | list[str] | None,
    progress: Progress | None,
    workers: int | None,
    cluster: Any,
    timeout: float | None,
    test_samples: int | None,
) -> AuditReport:
    """:func:`audit`'s work (in the isolated child)."""
    from faier.auditing.target import load

    name = (
        function if isinstance(function, str) else getattr(function, "__qualname__", repr(function))
    )
    called = load(function) if isinstance(function, str) else function
    dataset = datasets.load(data) if _is_path(data) else datasets.from_value(data)
    eps = epsilon if isinstance(epsilon, Epsilon) else Epsilon.parse(epsilon)
    claim = Claim(eps, parse_delta(delta) if delta is not None else Fraction(0))
    relation = nb.read_relation(neighbours)
    options = Options.parse(workers=workers, cluster=cluster, timeout=timeout)
    if test_samples is not None and test_samples < 100:
        raise SpecError(
            f"{test_samples} samples are too few to test", where="--test-samples", fix="e.g. 20000"
        )
    if budget is not None and budget < 1:
        raise SpecError(f"budget {budget} is below 1", where="--budget", fix="e.g. --budget 200")
    plan = Plan(
        function=called,
        target=name,
        dataset=dataset,
        args=dict(args or {}),
        claim=claim,
        relation=relation,
        bounds=nb.read_bounds(
            nb.parse_bounds(bounds if not isinstance(bounds, Mapping) else dict(bounds)), dataset
        ),
        seed=0 if seed is None else seed,
        budget=budget or DEFAULT_BUDGET,
        workers=options.workers,
        cluster=options.cluster,
        timeout=options.timeout,
        test_samples=test_samples,
    )
    return search(plan, progress)


def _is_path(data: Any) -> bool:
    from pathlib import Path

    return isinstance(data, str | Path)
