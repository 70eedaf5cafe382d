"""Whether a library object samples with the library's own code: the check behind a decision.

faier decides a library object from its parameters (``epsilon``, ``scale``)
only when what the object runs is what those parameters describe: every
method its sampling path resolves to must be the library class's own, with
no attribute of the instance shadowing it and no subclass redefining it.  A
subclass that redefines nothing on the path is decided like the library
class it extends; anything else is run (``faier.adapters.wrap``) and tested,
never decided.  :class:`OwnCode` says which, and its :meth:`OwnCode.checked`
is the sentence the verdict and the JSON ``assumptions`` carry.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

HOOKS = ("__getattribute__", "__getattr__")
"""Methods that can redirect any attribute lookup: always part of the path."""


@dataclass(frozen=True)
class OwnCode:
    """The outcome of checking an object's sampling path against its library class."""

    library_class: type | None
    """The first class of the object's MRO that belongs to the library (None: none does)."""
    path: tuple[str, ...]
    overridden: tuple[str, ...] = ()
    """Where the object departs from the library: ``instance.randomise``, ``Leaky.randomise``."""

    @property
    def own(self) -> bool:
        return self.library_class is not None and not self.overridden

    @property
    def library_name(self) -> str:
        kind = self.library_class
        return "?" if kind is None else f"{kind.__module__.split('.')[0]} {kind.__name__}"

    def checked(self) -> str:
        """The check as the verdict states it (for a passing check)."""
        return (
            f"checked: the object runs {self.library_name}'s own code on its sampling path "
            f"({', '.join(self.path)}): no instance attribute or subclass overrides them, "
            "so its parameters define what it samples"
        )

    def why_not(self) -> str:
        """Why the object is run rather than decided (for a failing check)."""
        if self.library_class is None:
            return "it is not a class of the library"
        return (
            f"it overrides {self.library_name}'s sampling path ({', '.join(self.overridden)}), "
            "so its parameters do not say what it samples"
        )


def library_class(obj: Any, library: str) -> type | None:
    """The first class of ``type(obj)``'s MRO defined in the package ``library``."""
    for kind in type(obj).__mro__:
        if kind.__module__.split(".")[0] == library:
            return kind
    return None


def check_own_code(obj: Any, library: str, path: Iterable[str]) -> OwnCode:
    """Check that each name of ``path`` resolves on ``obj`` exactly as on its library class."""
    names = tuple(path)
    base = library_class(obj, library)
    if base is None:
        return OwnCode(None, names)
    instance = _instance_attributes(obj)
    overridden: list[str] = []
    for name in (*names, *HOOKS):
        if name in instance:
            overridden.append(f"instance.{name}")
            continue
        mine = inspect.getattr_static(type(obj), name, _MISSING)
        theirs = inspect.getattr_static(base, name, _MISSING)
        if theirs is _MISSING and name not in HOOKS:
            overridden.append(f"{base.__name__}.{name} (not in this library version)")
        elif mine is not theirs:
            overridden.append(f"{_owner(type(obj), name)}.{name}")
    return OwnCode(base, names, tuple(overridden))


_MISSING = object()


def _instance_attributes(obj: Any) -> dict[str, Any]:
    try:
        found = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return {}
    return dict(found) if isinstance(found, dict) else {}


def _owner(kind: type, name: str) -> str:
    for klass in kind.__mro__:
        if name in vars(klass):
            return klass.__name__
    return kind.__name__
