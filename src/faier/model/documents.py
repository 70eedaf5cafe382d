"""YAML and JSON documents read from text or files, every mistake a located error.

Shared by the HMM model files (:mod:`faier.model.files`), dpCTL*'s chain files, JANI
files and ``--neighbors`` files.  Kept apart from the HMM schema so that reading a
PRISM or JANI file loads neither the HMM classes nor their parameters.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faier.errors import InputError, ModelError

if TYPE_CHECKING:
    import yaml


@functools.cache
def _strict_loader() -> type[yaml.SafeLoader]:
    """A safe YAML loader that rejects a repeated key instead of keeping the last one.

    libyaml's scanner and parser where PyYAML was built with it (a 7 MB model file: 28 s
    instead of 180 s), with PyYAML's own safe constructor either way.  Made on first use:
    PyYAML is imported only where a YAML file is read or written.
    """
    import yaml

    base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[valid-type,misc]
        def construct_mapping(
            self, node: yaml.MappingNode, deep: bool = False
        ) -> dict[Hashable, Any]:
            seen: set[Hashable] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, Hashable):
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {key!r} appears twice", key_node.start_mark
                        )
                    seen.add(key)
            mapping: dict[Hashable, Any] = super().construct_mapping(node, deep)
            return mapping

    return StrictLoader


def _parse_yaml(text: str, source: str) -> object:
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}: line {mark.line + 1}" if mark is not None else source
        problem = exc.problem or exc.context or "syntax error"
        if "nesting depth" in problem:  # libyaml's own limit (1000 levels)
            raise _too_deep(source, "YAML", "deeper than its reader can follow") from None
        twice = problem.endswith("appears twice")
        raise ModelError(
            f"not valid YAML: {problem}",
            where=where,
            fix="keep one of them" if twice else "check the indentation and quoting on that line",
        ) from None
    except yaml.reader.ReaderError as exc:  # a control character, e.g. NUL
        code = exc.character if isinstance(exc.character, int) else ord(exc.character)
        raise ModelError(
            f"not valid YAML: the control character U+{code:04X} is not allowed",
            where=f"{source}: line {text.count(chr(10), 0, exc.position) + 1}",
            fix="remove it, or write it as an escape such as \\x00 inside double quotes",
        ) from None
    except yaml.YAMLError as exc:
        raise ModelError(
            f"not valid YAML: {exc}", where=source, fix="check the file's syntax"
        ) from None
    except ValueError as exc:  # a value PyYAML cannot build: a date 2001-13-45, a huge integer
        raise _unreadable_value(exc, source, "YAML") from None


def _unreadable_value(exc: ValueError, source: str, kind: str) -> ModelError:
    if "integer string conversion" in str(exc):
        return ModelError(
            f"not valid {kind}: a whole number has more than 4300 digits",
            where=source,
            fix="write it as a fraction or a decimal, e.g. 1e-9",
        )
    return ModelError(
        f"not valid {kind}: cannot read a value ({exc})",
        where=source,
        fix="quote text that looks like a date or a number",
    )


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in pairs:
        if key in out:
            raise ModelError(f"the key {key!r} appears twice", fix="keep one of them")
        out[key] = value
    return out


def _parse_json(text: str, source: str) -> object:
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise ModelError(
            f"not valid JSON: {exc.msg} (column {exc.colno})",
            where=f"{source}: line {exc.lineno}",
            fix="check commas, brackets and quotes on that line",
        ) from None
    except ModelError as exc:
        raise exc.located(source) from None
    except ValueError as exc:  # an integer past Python's 4300-digit limit
        raise _unreadable_value(exc, source, "JSON") from None


def read_document_file(file: Path, source: str, *, error: type[InputError] = ModelError) -> object:
    """A `.json` (else YAML) file's parsed content; a missing or unreadable file is `error`."""
    text = read_text_file(file, source, error=error)
    return read_document(text, source, json_format=file.suffix.lower() == ".json")


def read_text_file(file: Path, source: str, *, error: type[InputError] = ModelError) -> str:
    """A file's UTF-8 text; a missing, unreadable or non-UTF-8 file is `error`."""
    if not file.exists():
        raise error("file not found", where=source, fix="check the path and the file name")
    if not file.is_file():
        raise error("not a file", where=source, fix="give the path of a file, not a folder")
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"not UTF-8 text (byte {exc.start})", where=source, fix="save the file as UTF-8"
        ) from None
    except OSError as exc:
        raise error(
            f"cannot read the file: {exc.strerror}", where=source, fix="check its permissions"
        ) from None
    return text


MAX_NESTING = 100
"""Deepest nesting of lists and mappings a document may have (a model file needs 3, a
``data:`` section a few more); deeper is bad input, not a crash of the reader."""


def read_document(text: str, source: str, *, json_format: bool) -> object:
    """Parsed YAML or JSON text: repeated keys and syntax errors name the line and the fix."""
    kind = "JSON" if json_format else "YAML"
    try:
        document = _parse_json(text, source) if json_format else _parse_yaml(text, source)
    except RecursionError:  # both readers recurse once per level
        raise _too_deep(source, kind, "deeper than its reader can follow") from None
    depth = _nesting(document)
    if depth > MAX_NESTING:
        raise _too_deep(source, kind, f"{depth} levels deep")
    return document


def _too_deep(source: str, kind: str, depth: str) -> ModelError:
    return ModelError(
        f"not readable {kind}: lists and mappings nested {depth} (at most {MAX_NESTING} levels)",
        where=source,
        fix="check the brackets; a model file nests 'section: {name: {entry: value}}'",
    )


def _nesting(document: object) -> int:
    """How deeply lists and mappings nest, without recursion (a scalar is depth 0)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(document, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, Mapping):
            children: Sequence[object] = [*value.keys(), *value.values()]
        elif isinstance(value, list | tuple):
            children = value
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_NESTING:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest
