"""The search progress bar: shown on terminals only, with the search's counts."""

from __future__ import annotations

import io

from rich.console import Console

from faier import api
from faier.cli.common import SearchProgress


def test_progress_bar_shows_length_and_counts_on_a_terminal() -> None:
    screen = io.StringIO()
    bar = SearchProgress(Console(file=screen, force_terminal=True, width=160))
    bar.start()
    seen = []

    def record(counts: object) -> None:
        seen.append(counts)
        bar(counts)
        assert bar.bar is not None
        bar.bar.refresh()

    api.epsilon("above-threshold", horizon=8, progress=record)
    bar.stop()
    assert seen and seen[-1].horizon == 8
    shown = screen.getvalue()
    assert "explored" in shown and "pruned" in shown and "merged" in shown
    assert "/8" in shown


def test_no_progress_bar_off_a_terminal() -> None:
    screen = io.StringIO()
    bar = SearchProgress(Console(file=screen, force_terminal=False))
    bar.start()
    api.epsilon("above-threshold", horizon=4, progress=bar)
    bar.stop()
    assert bar.bar is None and screen.getvalue() == ""
