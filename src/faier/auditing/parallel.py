"""Pairs evaluated in parallel: forked worker processes (``--workers N``) or Dask
(``--cluster``), in batches, in the search's own order.

Each process keeps one :class:`~faier.auditing.pair.Evaluator` (so D's recording and probes
are made once per process); the function travels by fork locally and by value to a cluster
(a function loaded from a user's file is pickled with its module).  Parallel searches try the
adversarial and seeded random pairs without the sequential climbing.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from faier.auditing.pair import Claim, Evaluator, PairOutcome
from faier.cluster.address import ClusterAddress

Shared = tuple[Callable[..., Any], Mapping[str, Any], Claim, int]
Unit = tuple[Any, Any, str]
"""(D, D′, what changed)."""

_evaluators: dict[int, Evaluator] = {}


def _evaluator(shared: Shared) -> Evaluator:
    key = id(shared)
    if key not in _evaluators:
        _evaluators.clear()
        function, args, claim, seed = shared
        _evaluators[key] = Evaluator(function, args, claim, seed)
    return _evaluators[key]


def evaluate_unit(shared: Shared, unit: Unit) -> PairOutcome:
    """One pair on whichever process runs it."""
    left, right, change = unit
    return _evaluator(shared).evaluate(left, right, change)


_local: dict[str, Shared] = {}


def _local_unit(unit: Unit) -> PairOutcome:
    return evaluate_unit(_local["shared"], unit)


Batches = Callable[[Sequence[Unit]], list[PairOutcome]]


@contextmanager
def batches(
    shared: Shared, workers: int | None, cluster: ClusterAddress | None
) -> Iterator[Batches]:
    """A function evaluating a batch of pairs in order, on processes or a cluster."""
    if cluster is not None:
        from faier.cluster.executor import UnitMap
        from faier.cluster.session import open_client

        home = _by_value(shared[0])
        with open_client(cluster) as client:
            units: UnitMap[Unit, PairOutcome] = UnitMap(
                client, evaluate_unit, shared, "the audited function"
            )
            try:
                yield lambda batch: [_resited(o, home) for o in units.run(batch, lambda _: None)]
            finally:
                units.close()
        return
    _local["shared"] = shared
    context = multiprocessing.get_context("fork")
    with context.Pool(workers) as pool:
        yield lambda batch: pool.map(_local_unit, batch)
    _local.clear()


def _by_value(function: Callable[..., Any]) -> str | None:
    """A function from a user's file (a module no worker can import) travels by value; the
    file's name, which its code loses on the way (``<dynamic-code>`` there)."""
    import cloudpickle  # type: ignore[import-untyped]

    name = getattr(function, "__module__", "") or ""
    module = sys.modules.get(name)
    if module is not None and name.startswith("faier_user_"):
        cloudpickle.register_pickle_by_value(module)
    code = getattr(function, "__code__", None)
    return code.co_filename if code is not None and module is None else None


def _resited(outcome: PairOutcome, home: str | None) -> PairOutcome:
    """Call sites in code sent by value, named by the file it came from."""
    if home is None or outcome.loss is None:
        return outcome
    terms = tuple(replace(t, site=home) if t.site == DYNAMIC else t for t in outcome.loss.terms)
    return replace(outcome, loss=replace(outcome.loss, terms=terms))


DYNAMIC = "<dynamic-code>"
