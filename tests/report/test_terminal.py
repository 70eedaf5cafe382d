"""The terminal's per-horizon figures: a rich table when short, aligned lines when long."""

from __future__ import annotations

import math

import pytest

from faier.cli.main import main


def _per_horizon_lines(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("ε*(k) per horizon"))
    return lines[start + 1 :]


def test_a_long_run_prints_one_aligned_line_per_horizon(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["epsilon", "above-threshold", "--horizon", "120"])
    assert caught.value.code == 0
    lines = _per_horizon_lines(capsys.readouterr().out)
    assert lines[0].split() == ["k", "e^ε*", "ε*", "witness", "output"]
    rows = [line.split() for line in lines[1:121]]
    assert [int(row[0]) for row in rows] == list(range(1, 121))
    # Above Threshold's e^ε*(k) = 2^k (FAIER journal's discrete Above Threshold).
    for k in (1, 2, 3, 10):
        assert rows[k - 1][1] == str(2**k)
    assert lines[-1] == "long values shortened: --json gives every one in full"
    # Right-aligned columns: every row's ε* ends where the heading's does.
    end = lines[0].rindex("ε*  ") + 2
    for k, line in enumerate(lines[1:121], start=1):
        assert float(line[:end].split()[-1]) == pytest.approx(k * math.log(2), abs=5e-5)


def test_a_short_run_keeps_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["epsilon", "above-threshold", "--horizon", "5"])
    lines = _per_horizon_lines(capsys.readouterr().out)
    assert any("│" in line or "┃" in line for line in lines)
