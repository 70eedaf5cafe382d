"""How users write mechanisms: one definition, exact enumeration and sampling.

* :func:`program` turns ``body(x, ctx)`` into a one-shot :class:`Program`.
* :class:`StepProgram` merges equal program states (polynomial Noisy Max).
* ``symmetry=permute_queries(...)`` declares a symmetry in the queries.
* :class:`Interactive` reads adversary-chosen query answers step by step.
* ``faier.mechanisms.library`` holds the built-in mechanisms.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from faier.lazy import loader

if TYPE_CHECKING:
    from faier.mechanisms.handlers import (
        Context,
        SamplingContext,
        distribution_of,
        enumerate_paths,
    )
    from faier.mechanisms.inputs import InputSpace, grid, scalars
    from faier.mechanisms.interactive import END, HALTED, Interactive
    from faier.mechanisms.program import Done, Program, StepProgram, program
    from faier.mechanisms.symmetry import PermuteQueries, permute_queries

_HOMES: dict[str, tuple[str, ...]] = {
    "handlers": ("Context", "SamplingContext", "distribution_of", "enumerate_paths"),
    "inputs": ("InputSpace", "grid", "scalars"),
    "interactive": ("END", "HALTED", "Interactive"),
    "program": ("Done", "Program", "StepProgram", "program"),
    "symmetry": ("PermuteQueries", "permute_queries"),
}
"""Where each name lives, imported on first use (PEP 562): the package's light modules
(``isolation``) load without numpy and the interpreters."""
__getattr__ = loader("faier.mechanisms", _HOMES)


class _Package(types.ModuleType):
    """This package, keeping the decorator :func:`program` under its name: importing the
    submodule ``faier.mechanisms.program`` later would otherwise rebind it to the module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "program" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "END",
    "HALTED",
    "Context",
    "Done",
    "InputSpace",
    "Interactive",
    "PermuteQueries",
    "Program",
    "SamplingContext",
    "StepProgram",
    "distribution_of",
    "enumerate_paths",
    "grid",
    "permute_queries",
    "program",
    "scalars",
]
