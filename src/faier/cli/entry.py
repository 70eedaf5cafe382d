"""The ``faier`` console script: a plain ``faier check`` runs without typer, the rest with it.

``faier check MODEL -f FORMULA --json`` is what scripts and benchmarks run,
over and over, on models Storm checks in a few hundredths of a second; typer,
its vendored click, pydantic (typer builds an adapter per parameter) and rich
cost more than that to import.  :func:`request_of` recognises a command line
that is plainly such a check — ``check``, one MODEL, ``-f/--formula``, and
``--json``, ``--set``, ``--const``, ``--state`` (repeatable),
``--neighbors/--neighbours``, ``--timeout``, ``--max-words`` in any order, each
``--long VALUE`` or ``--long=VALUE`` — and builds the
:class:`~faier.cli.checking.CheckRequest` that the typer command builds from
it; :func:`main` then runs :func:`~faier.cli.checking.run_check` in the same
forked child (:func:`~faier.cli.exits.run_command`) as the typer commands.

Anything else (``--help``, ``--report``, ``--debug``, ``--version``, an unknown
or repeated option, ``--``, a value that starts with ``-``, a number that is not
plain decimal digits, another command) goes to the typer command line
unchanged (:func:`faier.cli.main.main`): typer stays the one definition of the
usage and of its errors, and this door never prints one.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Sequence

from faier.cli import checking, exits
from faier.cli.checking import CheckRequest

_VALUED = {
    "-f": "formula",
    "--formula": "formula",
    "--neighbors": "neighbors",
    "--neighbours": "neighbors",
    "--state": "state",
    "--set": "settings",
    "--const": "const",
    "--timeout": "timeout",
    "--max-words": "max_words",
}
"""The options taking a value, by spelling: the names of ``faier check``'s parameters."""
_REPEATABLE = frozenset({"state", "settings", "const"})
_PLAIN_SECONDS = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
_PLAIN_COUNT = re.compile(r"0|[1-9][0-9]{0,17}")
"""Numbers read alike by ``float``/``int`` and by typer; anything else is typer's to read."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry: every way out is one of the documented exit codes."""
    request = request_of(sys.argv[1:] if argv is None else argv)
    if request is None:
        from faier.cli.main import main as typer_main

        typer_main(argv)
        return
    sys.exit(exits.run_command(_run, request))


def request_of(argv: Sequence[str]) -> CheckRequest | None:
    """The request a plain ``check`` command line asks for; None: typer's to read (and
    click's shell completion, asked through a ``_FAIER_COMPLETE`` variable)."""
    if not argv or argv[0] != "check" or any(_completion(name) for name in os.environ):
        return None
    given: dict[str, list[str]] = {}
    models: list[str] = []
    as_json = False
    words = iter(argv[1:])
    for word in words:
        if not _plain_text(word):
            return None
        if not word.startswith("-"):
            models.append(word)
            continue
        if word == "--json":
            if as_json:
                return None
            as_json = True
            continue
        spelling, inline, value = word.partition("=")
        name = _VALUED.get(spelling)
        if name is None or (inline and not spelling.startswith("--")):
            return None
        if not inline:
            value = next(words, "-")  # a missing value: typer's error
        if value.startswith("-") or not _plain_text(value):
            return None
        if name in given and name not in _REPEATABLE:
            return None
        given.setdefault(name, []).append(value)
    if len(models) != 1 or "formula" not in given:
        return None
    return _request(models[0], given, as_json)


def _request(model: str, given: dict[str, list[str]], as_json: bool) -> CheckRequest | None:
    timeout = given.get("timeout", [None])[0]
    max_words = given.get("max_words", [None])[0]
    if timeout is not None and not _PLAIN_SECONDS.fullmatch(timeout):
        return None
    if max_words is not None and not _PLAIN_COUNT.fullmatch(max_words):
        return None
    return CheckRequest(
        model=model,
        formula=given["formula"][0],
        neighbors=given.get("neighbors", [None])[0],
        state=tuple(given.get("state", ())),
        settings=tuple(given.get("settings", ())),
        const=tuple(given.get("const", ())),
        as_json=as_json,
        max_words=None if max_words is None else int(max_words),
        timeout=None if timeout is None else float(timeout),
    )


def _completion(variable: str) -> bool:
    return variable.startswith("_") and variable.endswith("_COMPLETE")


def _plain_text(word: str) -> bool:
    """Text typer reads as it is: UTF-8 (an argument in another encoding keeps its bytes as
    lone surrogates, which typer's validation refuses)."""
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _run(request: CheckRequest) -> int:
    """The check's exit code, in the child (:func:`faier.cli.exits.exit_code_of`)."""
    return exits.exit_code_of(_check, request)


def _check(request: CheckRequest) -> None:
    """:func:`~faier.cli.checking.run_check` as typer's standalone mode runs a command:
    end of input aborts (exit 1, after typer's line), a closed output pipe exits 1."""
    try:
        checking.run_check(request)
    except EOFError:
        _aborted()
    except OSError as failure:
        if failure.errno != errno.EPIPE:
            raise
        raise SystemExit(1) from None


def _aborted() -> None:
    from typer import rich_utils

    print(file=sys.stderr)
    rich_utils.rich_abort_error()
    raise SystemExit(1)
