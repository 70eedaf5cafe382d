"""The layer table of docs/ARCHITECTURE.md, checked against every import in ``src/faier``.

A module imports only from its own layer and the layers below it: at the top of
the file, inside a function, under ``TYPE_CHECKING`` or through
``importlib.import_module`` with a literal name alike.  The table is read from
the document, so the rule and its description cannot drift apart, and every
module must sit in exactly one row.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "faier"
TABLE_HEADER = "| layer | modules | holds |"
BOTTOM = ("faier.errors", "faier.lazy")
"""Below every row: the one exception root and the packages' lazy name loader, which import
nothing of faier."""


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int


def layer_table(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each row's name and the modules or packages it holds, top row first."""
    lines = text[text.index(TABLE_HEADER) :].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        name, modules = (cell.strip() for cell in line.split("|")[1:3])
        owned: set[str] = set()
        inside = False  # after `cli/main.py`, a bare `common.py` is cli/common.py
        for item in re.findall(r"`([^`]+)`", modules):
            first = item.split("/")[0]
            if "/" in item and (PACKAGE / first).is_dir():
                owned.add(f"faier.{first}")
                inside = True
            elif not inside and (PACKAGE / item).is_file():
                owned.add(f"faier.{item.removesuffix('.py')}")
        rows.append((name.strip("`"), tuple(sorted(owned))))
    return rows


ROWS = layer_table((ROOT / "docs" / "ARCHITECTURE.md").read_text())


def rank(module: str) -> int:
    """The row of a module: 0 the top; the package itself above every row."""
    if module == "faier":
        return -1
    if module in BOTTOM:
        return len(ROWS)
    for index, (_, owned) in enumerate(ROWS):
        if any(module == o or module.startswith(o + ".") for o in owned):
            return index
    raise AssertionError(f"{module} is in no row of the layer table (docs/ARCHITECTURE.md)")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[Import]:
    """Every faier module ``path`` imports, wherever the import stands."""
    return imports_of_text(path.read_text(), path)


def imports_of_text(source: str, path: Path) -> list[Import]:
    importer = module_name(path)
    package = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source, str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from faier import api`` imports the module faier.api, not the package alone
            names = [f"{base}.{a.name}" if base == "faier" else base for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        found += [
            Import(importer, name, node.lineno)
            for name in names
            if name == "faier" or name.startswith("faier.")
        ]
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_sits_in_one_row() -> None:
    for path in SOURCES:
        module = module_name(path)
        if module == "faier":
            continue
        owners = [
            name
            for name, owned in ROWS
            if any(module == o or module.startswith(o + ".") for o in owned)
        ]
        assert len(owners) <= 1, f"{module} is in the rows {owners}"
        rank(module)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{path.relative_to(ROOT)}:{found.line}: {found.importer} "
        f"({ROWS[rank(found.importer)][0] if rank(found.importer) >= 0 else 'faier'}) imports "
        f"{found.imported} ({ROWS[rank(found.imported)][0]})"
        for path in SOURCES
        for found in imports_of(path)
        if 0 <= rank(found.imported) < rank(found.importer)
    ]
    assert upward == [], "imports that go up the layer table:\n" + "\n".join(upward)


def test_the_package_declares_engine_entry_modules_only() -> None:
    """The registry in ``core`` loads each built-in engine by the module name the package
    declares (docs/ARCHITECTURE.md, "Layers"); those names are engines' entry modules."""
    from faier.core import engine

    assert list(engine.builtin()) == [
        "certified",
        "exact",
        "smt",
        "statistical",
        "alignment",
        "dpctl",
    ]
    for module in engine.builtin().values():
        assert module.endswith(".entry") and ROWS[rank(module)][0] in {"engines", "logic"}, module


@pytest.mark.parametrize(
    ("source", "importer", "expected"),
    [
        ("from faier.cli import main", "faier.model.hmm", ["faier.cli"]),
        ("def f():\n    from faier import api", "faier.model.hmm", ["faier.api"]),
        ("from .. import results", "faier.model.hmm", ["faier.results"]),
        ("from . import hmm", "faier.model.__init__", ["faier.model"]),
        ("from ..results import Result", "faier.model.hmm", ["faier.results"]),
        ("import importlib\nimportlib.import_module('faier.report.html')", "faier.x", None),
    ],
)
def test_the_checker_resolves_every_kind_of_import(
    source: str, importer: str, expected: list[str] | None
) -> None:
    """Guards the guard: imports inside functions, relative and by literal name are seen."""
    path = PACKAGE / Path(*importer.split(".")[1:]).with_suffix(".py")
    found = [i.imported for i in imports_of_text(source, path)]
    assert found == (expected if expected is not None else ["faier.report.html"])
