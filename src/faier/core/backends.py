"""Which libraries are installed, read from package metadata without importing them."""

from __future__ import annotations

from importlib import metadata

from faier.core.engine import Backend


def installed(*distributions: str) -> tuple[Backend, ...]:
    """The installed version of each distribution (None when it is missing)."""
    found = []
    for name in distributions:
        try:
            version: str | None = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = None
        found.append(Backend(name, version))
    return tuple(found)
