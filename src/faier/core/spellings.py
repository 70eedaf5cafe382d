"""An option that has more than one spelling, given at most once.

The API accepts an option under its own name and under another spelling
(``epsilon``/``eps``/``claimed``, ``neighbours``/``neighbors``,
``inputs``/``pairs``): one value under either is that option; values under two
are a mistake, not a choice, and are refused with one message.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

from faier.errors import SpecError


def given_once(option: str, spellings: Mapping[str, Any], *, where: str | None = None) -> Any:
    """The value given under one of ``option``'s spellings (None: under none of them).

    ``spellings`` maps each spelling to what was passed under it (None: not
    passed); ``where`` names the place in the error (default: the second
    spelling given).
    """
    given = [(spelling, value) for spelling, value in spellings.items() if value is not None]
    if len(given) > 1:
        (first, one), (second, other) = given[:2]
        raise SpecError(
            f"{option} is given twice, as {first}={reprlib.repr(one)}"
            f" and {second}={reprlib.repr(other)}",
            where=second if where is None else where,
            fix=f"pass it once, as {first}= or as {second}=: they are two spellings of one option",
        )
    return given[0][1] if given else None
