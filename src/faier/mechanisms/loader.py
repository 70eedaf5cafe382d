"""Load a mechanism written by a user in a Python file.

The file defines, at module level, a mechanism (``Program``, ``StepProgram``,
``Interactive``), usually through the :func:`faier.program` decorator, or a
complete ``Problem``.  Exactly one is expected unless a name is given.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Any

from faier.errors import MechanismError
from faier.mechanisms import isolation
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.program import Program, StepProgram

MECHANISM_TYPES = (Program, StepProgram, Interactive)


class _LoadsItself(MechanismError):
    """A file that runs faier on itself while it is being loaded (no main guard)."""


_loading: set[Path] = set()
"""Files being executed right now: loading one again would recurse without end."""

helper_modules: dict[str, Path] = {}
"""Modules a loaded file imported from its own folder, by name: a cluster's workers
cannot import them, so their code must travel by value (:mod:`faier.cluster.executor`)."""


def load_module(path: Path) -> Any:
    """Execute the file as a fresh module; its crash becomes a MechanismError."""
    if not path.is_file():
        raise MechanismError("file not found", where=str(path), fix="check the path")
    resolved = path.resolve()
    if resolved in _loading:
        raise _LoadsItself(
            "the file runs faier on itself while it is being loaded",
            where=str(path),
            fix="put the call under 'if __name__ == \"__main__\":', or pass the mechanism "
            "object instead of the file",
        )
    spec = importlib.util.spec_from_file_location(f"faier_user_{abs(hash(str(path)))}", path)
    if spec is None or spec.loader is None:
        raise MechanismError("cannot be imported as a Python module", where=str(path))
    module = importlib.util.module_from_spec(spec)
    isolation.note(f"the file {path}")
    sys.modules[spec.name] = module
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)  # a mechanism file may import helpers next to it
    _loading.add(resolved)
    before = set(sys.modules)
    try:
        spec.loader.exec_module(module)
        _note_helpers(set(sys.modules) - before, Path(folder))
    except _LoadsItself:
        raise
    except KeyboardInterrupt as exc:
        if isolation.interrupt_requested():
            raise
        raise MechanismError(
            "raised KeyboardInterrupt while loading (no Ctrl-C was pressed)",
            where=place_in_file(exc, path),
            fix="fix the error in the file",
        ) from exc
    except BaseException as exc:  # sys.exit(1) (or any BaseException) must not pass for a verdict
        detail = f": {exc}" if str(exc) else ""
        raise MechanismError(
            f"raised {type(exc).__name__} while loading{detail}",
            where=place_in_file(exc, path),
            fix="fix the error in the file",
        ) from exc
    finally:
        _loading.discard(resolved)
        sys.modules.pop(spec.name, None)
        if folder in sys.path:
            sys.path.remove(folder)
    return module


def _note_helpers(names: set[str], folder: Path) -> None:
    """Remember the newly imported modules whose files lie in the mechanism's folder."""
    for name in names:
        found = getattr(sys.modules.get(name), "__file__", None)
        if found is not None and Path(found).resolve().is_relative_to(folder):
            helper_modules[name] = Path(found)


def place_in_file(exc: BaseException, path: Path) -> str:
    """``path:line`` of the innermost line of ``path`` that ``exc`` passed through, else ``path``.

    Paths are compared resolved: Python records the absolute path of a file
    loaded from a relative one.
    """
    target = path.resolve()

    def same(filename: str | None) -> bool:
        return filename is not None and Path(filename).resolve() == target

    line: int | None = None
    if isinstance(exc, SyntaxError) and same(exc.filename):
        line = exc.lineno
    else:
        frames = traceback.extract_tb(exc.__traceback__)
        line = next((f.lineno for f in reversed(frames) if same(f.filename)), None)
    return f"{path}:{line}" if line else str(path)


def find_definitions(module: Any, kinds: tuple[type, ...]) -> dict[str, Any]:
    """Module-level objects of the given kinds, by name (imports from faier excluded)."""
    return {
        name: value
        for name, value in vars(module).items()
        if not name.startswith("_") and isinstance(value, kinds)
    }


def pick(found: dict[str, Any], path: Path, name: str | None, what: str) -> Any:
    """The one definition asked for, or the only one there is."""
    if name is not None:
        if name not in found:
            raise MechanismError(
                f"no {what} named {name!r}",
                where=str(path),
                fix=f"defined: {', '.join(found) or 'none'}",
            )
        isolation.note(f"{what} {name!r} in {path}")
        return found[name]
    if len(found) == 1:
        isolation.note(f"{what} {next(iter(found))!r} in {path}")
        return next(iter(found.values()))
    raise MechanismError(
        f"defines {len(found)} {what}s ({', '.join(found)})",
        where=str(path),
        fix="choose one with --name NAME",
    )
