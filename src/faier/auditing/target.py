"""The audited function: ``FILE.py:FUNCTION``, ``module:function`` or a Python callable."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faier.errors import MechanismError, SpecError


def load(target: str) -> Callable[..., Any]:
    """The function a target names (a file's function, or an installed module's)."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise SpecError(
            f"cannot read the target {target!r}",
            where="TARGET",
            fix="write FILE.py:FUNCTION or module:function",
        )
    if where.endswith(".py"):
        from faier.mechanisms.loader import load_module

        module = load_module(Path(where))
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise MechanismError(
                f"cannot import {where!r}: {exc}", where=target, fix="check the module name"
            ) from None
    found: Any = module
    for part in name.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise MechanismError(
                f"{where} has no {name!r}", where=target, fix="name a function defined there"
            )
    if not callable(found):
        raise MechanismError(f"{name!r} is not a function", where=target, fix="name a function")
    return found  # type: ignore[no-any-return]


def read_arguments(raw: list[str] | tuple[str, ...] | dict[str, Any] | None) -> dict[str, Any]:
    """``--arg NAME=VALUE`` (VALUE a Python literal, else text) or a mapping."""
    import ast

    if raw is None:
        return {}
    if isinstance(raw, dict):
        return dict(raw)
    found: dict[str, Any] = {}
    for text in raw:
        name, sep, value = str(text).partition("=")
        if not sep or not name.strip().isidentifier():
            raise SpecError(
                f"cannot read {text!r}",
                where="--arg",
                fix="write NAME=VALUE, e.g. --arg epsilon=1.0",
            )
        try:
            found[name.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            found[name.strip()] = value.strip()
    return found
