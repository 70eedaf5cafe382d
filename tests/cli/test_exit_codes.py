"""A crash is never read as a verdict: faier's own failures exit 4, with the traceback logged."""

from __future__ import annotations

import json
import time
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


DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize(
    ("file", "where"),
    [("uses_random.py", "uses_random.py:13:"), ("draws_at_random.py", "draws_at_random.py:14:")],
)
def test_a_mechanism_using_other_randomness_is_bad_input(
    capsys: pytest.CaptureFixture[str], file: str, where: str
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["verify", str(DATA / file), "-e", "1"])
    assert caught.value.code == 2
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1 and where in message
    assert "is not deterministic apart from ctx.draw" in message and "ctx.draw" in message


@pytest.mark.parametrize("command", ["verify", "epsilon"])
def test_a_mechanism_that_never_returns_ends_at_the_timeout(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    started = time.perf_counter()
    args = [command, str(DATA / "never_returns.py"), "--timeout", "1", "--json"]
    if command == "verify":
        args += ["-e", "1"]
    with pytest.raises(SystemExit) as caught:
        main(args)
    assert caught.value.code == 3
    assert time.perf_counter() - started < 60  # a hang guard, not a benchmark
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 3 and "timeout of 1 s" in data["reason"]


def test_the_tester_ends_at_the_timeout_on_a_mechanism_that_never_returns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    started = time.perf_counter()
    with pytest.raises(SystemExit) as caught:
        main(["test", str(DATA / "never_returns.py"), "--claimed", "1", "--timeout", "1"])
    assert caught.value.code == 3
    assert time.perf_counter() - started < 60  # a hang guard, not a benchmark
    assert "timeout of 1 s" in capsys.readouterr().err


def test_version_prints_the_package_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    from faier.version import VERSION

    with pytest.raises(SystemExit) as caught:
        main(["--version"])
    assert caught.value.code == 0
    assert capsys.readouterr().out.strip() == f"faier {VERSION}"
