"""A crash is never read as a verdict: faier's own failures exit 4, with the traceback logged."""

from __future__ import annotations

from pathlib import Path

import pytest

from faier.cli.main import main
from faier.core import engine as registry
from faier.errors import InternalError
from faier.results import ExitCode


def fail_with(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(registry.get("exact"), "epsilon", broken)


@pytest.mark.parametrize(
    "error", [RuntimeError("boom"), InternalError("a witness did not recompute")]
)
def test_an_internal_failure_exits_4_with_a_log_file(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: Exception
) -> None:
    fail_with(monkeypatch, error)
    with pytest.raises(SystemExit) as caught:
        main(["epsilon", "geometric"])
    assert caught.value.code == ExitCode.INTERNAL_ERROR == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    message = captured.err.strip()
    assert len(message.splitlines()) == 1 and "Traceback" not in message
    assert "internal error" in message and "this is not a verdict" in message
    log = Path(message.split(" in ")[-1].split(" (or rerun")[0])
    try:
        assert str(error) in log.read_text(encoding="utf-8")
        assert "Traceback" in log.read_text(encoding="utf-8")
    finally:
        log.unlink()


def test_debug_prints_the_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fail_with(monkeypatch, RuntimeError("boom"))
    with pytest.raises(SystemExit) as caught:
        main(["--debug", "epsilon", "geometric"])
    assert caught.value.code == 4
    err = capsys.readouterr().err
    assert "Traceback" in err and "RuntimeError: boom" in err
    Path(err.strip().splitlines()[-1].split(" in ")[-1].split(" (or rerun")[0]).unlink()


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["verify", "geometric", "-e", "ln(2)"], 0),
        (["verify", "geometric", "-e", "0.5"], 1),
        (["verify", "geometric", "-e", "x"], 2),
        (["verify", "geometric", "-e", "ln(2)", "--no-such-option"], 2),
        (["verify", "above-threshold", "-e", "10", "--max-states", "1"], 3),
    ],
)
def test_the_exit_codes_of_main(argv: list[str], code: int) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == code
