"""How input values are written for people: ``[1, 1, 2]`` or ``2``."""

from __future__ import annotations

from collections.abc import Hashable


def show_input(x: Hashable) -> str:
    """Inputs as users write them: ``[1, 1, 2]`` or ``2``."""
    if isinstance(x, tuple):
        return "[" + ", ".join(show_input(v) for v in x) + "]"
    return str(x)
