"""A package's public names loaded on first use (PEP 562), so that importing it does no work.

``faier``, ``faier.mechanisms`` and ``faier.logic`` each keep a table of where
their names live and import a name's module only when the name is first read
(``import faier`` then loads neither numpy nor the engines).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def loader(
    package: str, homes: Mapping[str, tuple[str, ...]], *, within: str | None = None
) -> Callable[[str], Any]:
    """The package's ``__getattr__``: a name listed under a submodule in ``homes`` is imported
    from ``package.submodule`` on first use and kept in the package (read once).

    ``within``: the package the submodules belong to, when ``package`` is a module that
    re-exports a sibling's names (``faier.results`` those of ``faier.engine_results``)."""
    home = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{within or package}.{module}"), name)
        vars(sys.modules[package])[name] = value  # not setattr: faier.mechanisms refuses some
        return value

    return __getattr__
