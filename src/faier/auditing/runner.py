"""One run of the audited function on one dataset, under a recording or replaying session.

The output is flattened into numbers (each with a label such as ``[1]`` or
``['mean']``) and a *form*: its structure and every non-numeric leaf, so two
runs can be compared coordinate by coordinate, and a change of form (another
length, another key, another category) is seen as such.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from faier.auditing import intercept
from faier.auditing.data import Dataset
from faier.auditing.intercept import Draw, Mismatch, Session, Unrecognised
from faier.auditing.primitives import Site
from faier.errors import BudgetExceeded


@dataclass(frozen=True, eq=False)
class Run:
    """What one run did: its output (flattened), its primitive calls, and what else it touched."""

    output: Any
    values: np.ndarray
    labels: tuple[str, ...]
    form: str
    draws: tuple[Draw, ...]
    mismatch: Mismatch | None
    unrecognised: tuple[Unrecognised, ...]
    seeded: tuple[Site, ...]
    error: str | None = None

    def structure(self) -> tuple[tuple[Any, ...], ...]:
        """The calls' keys (site, source, family, shape): equal structures can be replayed."""
        return tuple(d.key() for d in self.draws)


def _number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def flatten(output: Any) -> tuple[np.ndarray, tuple[str, ...], str]:
    """(numbers, their labels, the form) of an output."""
    values: list[float] = []
    labels: list[str] = []
    form: list[str] = []

    def walk(value: Any, label: str) -> None:
        if _number(value):
            values.append(float(value))
            labels.append(label)
            form.append(f"{label}:n")
        elif isinstance(value, np.ndarray):
            if np.issubdtype(value.dtype, np.number) and not np.issubdtype(value.dtype, np.bool_):
                form.append(f"{label}:array{value.shape}")
                for index, item in np.ndenumerate(value):
                    values.append(float(item))
                    labels.append(label + "[" + ",".join(map(str, index)) + "]")
            else:
                form.append(f"{label}={value.tolist()!r}")
        elif isinstance(value, Mapping):
            form.append(f"{label}:keys{sorted(map(repr, value))}")
            for key in sorted(value, key=repr):
                walk(value[key], f"{label}[{key!r}]")
        elif isinstance(value, list | tuple):
            form.append(f"{label}:{type(value).__name__}{len(value)}")
            for i, item in enumerate(value):
                walk(item, f"{label}[{i}]")
        elif value is None or isinstance(value, str | bool | np.bool_):
            form.append(f"{label}={value!r}")
        else:
            form.append(f"{label}:{type(value).__name__}")

    walk(output, "")
    return np.array(values, dtype=np.float64), tuple(labels or ()), ";".join(form)


@contextmanager
def _wrapped_generators(function: Callable[..., Any]) -> Iterator[None]:
    """Generators the function holds in its globals, swapped for recording ones meanwhile."""
    namespace: dict[str, Any] = getattr(function, "__globals__", {})
    swapped: dict[str, Any] = {}
    for name, value in list(namespace.items()):
        if type(value) is np.random.Generator:
            swapped[name] = value
            namespace[name] = intercept.RecordingGenerator(value.bit_generator)
        elif type(value) is np.random.RandomState:
            swapped[name] = value
            namespace[name] = intercept.RecordingRandomState(value._bit_generator)
    try:
        yield
    finally:
        namespace.update(swapped)


def _call(function: Callable[..., Any], data: Any, args: Mapping[str, Any]) -> Any:
    return function(data, **args)


intercept._BOUNDARY.code = _call.__code__


def run(
    function: Callable[..., Any],
    dataset: Dataset,
    args: Mapping[str, Any],
    session: Session,
) -> Run:
    """Call ``function(data, **args)`` under ``session``; a crash is kept as the run's error."""
    data = dataset.materialise()
    error: str | None = None
    output: Any = None
    with _wrapped_generators(function), intercept.intercepting(session):
        try:
            output = _call(function, data, args)
        except BudgetExceeded:
            raise
        except Exception as exc:  # the user's code: its crash is a fact about this dataset
            frames = traceback.extract_tb(exc.__traceback__)
            where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
            error = f"{type(exc).__name__}: {exc}{where}"
    session.finish()
    values, labels, form = flatten(output) if error is None else (np.zeros(0), (), "")
    return Run(
        output,
        values,
        labels,
        form,
        tuple(session.draws),
        session.mismatch,
        tuple(session.unrecognised),
        tuple(session.seeded),
        error,
    )
