"""From what a user names on the command line to a :class:`LogicModel`.

A target is a built-in example (``survey``, ``above-threshold``, ...), a
PRISM file (``.pm``, ``.prism``, ``.nm``, ``.sm``) or a faier chain/MDP file
(``.yaml``, ``.yml``, ``.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from faier.errors import ModelError, SpecError
from faier.logic import prism

if TYPE_CHECKING:
    from faier.logic.models import LogicModel
    from faier.logic.neighbours import NeighbourSpec
    from faier.logic.syntax import Formula


def load_model(
    target: str,
    settings: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
) -> LogicModel:
    """The model a target names; ``settings`` are example parameters or PRISM constants.

    ``overrides`` (``--const``) may replace constants a PRISM file defines.
    ``question``: a PRISM file is built for this formula alone where Storm
    can explore only what it needs (see :func:`faier.logic.prism.load_prism`):
    the model then answers it in its initial states and nothing else.
    """
    given = dict(settings or {})
    suffix = Path(target).suffix.lower()
    if overrides and suffix not in (*prism.SUFFIXES, *prism.JANI_SUFFIXES):
        raise SpecError(
            f"--const {next(iter(overrides))}: only PRISM files have constants",
            fix="use --set for a built-in example's parameters",
        )
    from faier.logic.examples import LOGIC_EXAMPLES, build_example

    if target in LOGIC_EXAMPLES:
        return build_example(target, given)
    build = build_file(target, given, overrides, question)
    if build is not None:
        return build.model()
    from faier.logic import files

    if suffix in files.SUFFIXES:
        if given:
            raise SpecError(
                f"--set {next(iter(given))}: a model file has no parameters",
                fix="remove --set, or edit the file",
            )
        return files.load_logic_file(target)
    raise ModelError(
        f"{target!r} is neither a built-in example nor a model file",
        fix=f"built-in examples: {', '.join(LOGIC_EXAMPLES)}; files: *.pm, *.prism, *.nm, *.sm, "
        "*.jani, *.yaml, *.yml, *.json",
    )


def build_file(
    target: str,
    settings: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    question: Formula | None = None,
    *,
    for_answer: bool = False,
) -> prism.Build | None:
    """Storm's build of a PRISM or JANI file (for ``question`` where Storm can direct it),
    not yet read into a model; None for a built-in example (whose name has no file suffix)
    or a faier model file.  ``for_answer``: a PRISM build directed at ``question`` serves
    Storm's answer alone (:attr:`~faier.logic.prism.Build.for_answer`)."""
    suffix = Path(target).suffix.lower()
    if suffix in prism.SUFFIXES:
        return prism.build_prism(target, settings, overrides, question, for_answer=for_answer)
    if suffix in prism.JANI_SUFFIXES:
        return prism.build_jani(target, settings, overrides, question)
    return None


def load_neighbours(text: str) -> NeighbourSpec:
    """``--neighbors``: a YAML/JSON file of pairs, or pairs written inline (``a~b; @in0~@in1``)."""
    from faier.logic import files
    from faier.logic.neighbours import neighbour_spec_from_data, parse_neighbour_spec
    from faier.model.documents import read_document_file

    path = Path(text)
    if path.suffix.lower() in files.SUFFIXES or _is_file(path):
        data = read_document_file(path, text, error=SpecError)
        return neighbour_spec_from_data(data, source=text)
    return parse_neighbour_spec(text)


def _is_file(path: Path) -> bool:
    """Whether ``path`` names a file; text no file can be called (too long, a NUL) is none."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False
