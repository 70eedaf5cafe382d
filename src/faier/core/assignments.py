"""``--set``/``--const`` text: ``NAME=VALUE`` pairs and PRISM's ``A=1,B=2`` lists.

Apart from :mod:`faier.core.options` (which declares ``--set`` with this reader)
so that ``faier check`` reads its constants without loading every option's reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from faier.errors import SpecError


def read_settings(raw: Mapping[str, object] | Iterable[str]) -> dict[str, str]:
    """``--set n=5`` pairs, ``A=1,B=2`` lists (CLI) or a mapping (API)."""
    if isinstance(raw, Mapping):
        return {str(k): str(v) for k, v in raw.items()}
    settings: dict[str, str] = {}
    for given in raw:
        for pair in _ASSIGNMENTS.split(str(given)):
            name, sep, value = pair.partition("=")
            if not sep or not name.strip():
                raise SpecError(f"needs NAME=VALUE, got {pair!r}", fix="e.g. --set n=5")
            if name.strip() in settings:
                raise SpecError(f"{name.strip()} is set twice", fix="give each value once")
            if _RANGE.match(value):
                raise SpecError(
                    f"{name.strip()}={value.strip()} is a range (PRISM's experiments)",
                    fix="give one value; run faier once per value",
                )
            settings[name.strip()] = value.strip()
    return settings


_ASSIGNMENTS = re.compile(r",(?=\s*[A-Za-z_][A-Za-z0-9_]*\s*=)")
"""Where ``A=1,B=2`` splits: a comma followed by the next ``NAME=`` (PRISM's -const lists)."""
_RANGE = re.compile(r"^\s*-?[\d./]+\s*:\s*-?[\d./]+\s*(:\s*-?[\d./]+\s*)?$")
