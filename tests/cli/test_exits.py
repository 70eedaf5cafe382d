"""How the ``faier`` command ends (``faier.cli.exits``), shared by the typer commands and the
front door: one stderr line per error, bad input exit 2, a text exit code 1, a crash 4."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from faier.cli import exits
from faier.errors import SpecError


def test_an_error_is_one_line_and_brackets_stay_text(capsys: pytest.CaptureFixture[str]) -> None:
    exits.error_line("a [bold]b[/bold]\nc")
    assert capsys.readouterr().err == "error: a [bold]b[/bold] c\n"


def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done, exits.bad_input_exits():
        raise SpecError("needs NAME=VALUE, got 'x'", where="--set", fix="e.g. --set n=5")
    assert done.value.code == 2
    assert capsys.readouterr().err == "error: --set: needs NAME=VALUE, got 'x' (e.g. --set n=5)\n"


def test_a_missing_library_is_bad_input_where_asked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done, exits.bad_input_exits(ImportError):
        raise ImportError("No module named 'stormpy'")
    assert done.value.code == 2
    assert capsys.readouterr().err == "error: No module named 'stormpy'\n"


def _exits_with(code: object) -> None:
    raise SystemExit(code)


@pytest.mark.parametrize(("code", "expected"), [(None, 0), (3, 3), ("stopped", 1)])
def test_the_exit_code_of_a_command(
    code: object, expected: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert exits.exit_code_of(_exits_with, code) == expected
    assert capsys.readouterr().err == ("stopped\n" if code == "stopped" else "")


def _interrupted(_: None) -> None:
    raise KeyboardInterrupt


def test_ctrl_c_is_130() -> None:
    assert exits.exit_code_of(_interrupted, None) == 130


def test_a_command_with_captured_streams_runs_in_this_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """pytest's captured streams are not files: nothing to fork for."""
    ran: list[int] = []

    def command(n: int) -> int:
        ran.append(n)
        return 5

    assert exits.run_command(command, 7) == 5
    assert ran == [7]


def test_the_console_script_is_the_front_door() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["faier"] == "faier.cli.entry:main"
