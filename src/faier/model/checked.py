"""Marks for rows and choices their builder has already checked in bulk.

Kept apart from :mod:`faier.model.chains`: a Storm-built model's rows derive from
these marks, and a question Storm answers itself never builds a chain or an MDP.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction


class CheckedRows(Mapping[str, Mapping[str, Fraction]]):
    """Rows whose every distribution its builder has already checked in bulk.

    A model of hundreds of thousands of states built by Storm is checked by
    Storm's own exact arithmetic and converted row by row only where a row is
    read; :class:`~faier.model.chains.MarkovChain` then skips its per-row check.
    """


class CheckedChoices(Mapping[str, Mapping[str, Mapping[str, Fraction]]]):
    """An MDP's actions whose every distribution its builder has already checked in bulk."""
