"""The built-in engines' names and entry modules, as the package declares them.

Kept apart from the registry (:mod:`faier.core.engine`): ``import faier`` declares
the engines here, and loads the registry, its protocol and its data classes only
when an engine is asked for (``faier check`` answering in Storm never is).
"""

from __future__ import annotations

DECLARED: dict[str, str] = {}
"""Built-in engines in the order ``auto`` asks them: name → module defining ``ENGINE``;
filled by :func:`declare_builtin` alone."""


def declare_builtin(name: str, module: str) -> None:
    """Add a built-in engine, after those declared before it, by the module that defines
    its ``ENGINE``: imported on first use, so asking one engine never loads another."""
    if name in DECLARED or name == "auto":
        raise ValueError(f"an engine named {name!r} is already declared")
    DECLARED[name] = module


def builtin() -> dict[str, str]:
    """The built-in engines' names and modules, in ``auto``'s order."""
    return dict(DECLARED)
