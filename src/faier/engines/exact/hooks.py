"""Where another back end takes over the merged sequence search (the Dask cluster's, for one).

``engine`` asks :data:`SEQUENCE_SEARCH` for the search to run and falls back
to ``branch_and_bound.merged_search``; a replacement takes the same
arguments, fills the same ``SearchState`` with exact records only, and must
give the same ε*(k) for every k (``faier.engines.exact.cluster_search`` splits the
frontier by prefix and runs the engine's own search on each part).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from faier.engines.exact.pruning import SearchCounts

SearchFunction = Callable[..., SearchCounts]

SEQUENCE_SEARCH: ContextVar[SearchFunction | None] = ContextVar(
    "faier_sequence_search", default=None
)


@contextmanager
def sequence_search(search: SearchFunction) -> Iterator[None]:
    """Run the merged sequence searches inside the block with ``search``."""
    token = SEQUENCE_SEARCH.set(search)
    try:
        yield
    finally:
        SEQUENCE_SEARCH.reset(token)
