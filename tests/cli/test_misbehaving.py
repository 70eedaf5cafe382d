"""A mechanism that ends the process, prints, forks or signals never produces a verdict.

``faier`` runs each command in a forked child whose exit code is passed back
(``mechanisms/isolation.py``): these run ``main`` in this process with the
output captured at the file descriptors, as a terminal would see it.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from faier.cli.main import main
from faier.mechanisms import isolation

pytestmark = pytest.mark.skipif(not isolation.can_isolate(), reason="needs os.fork")

MECHANISMS = Path(__file__).parent / "data" / "misbehaves.py"
VERDICTS = (0, 1, 3)


def run(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as caught:
        main(list(argv))
    captured = capfd.readouterr()
    assert isinstance(caught.value.code, int)
    return caught.value.code, captured.out, captured.err


COMMANDS = [
    ("verify", "-e", "1"),
    ("epsilon",),
    ("test", "--claimed", "1", "--samples", "2000", "--seed", "1"),
]


@pytest.mark.parametrize(
    ("command", "name", "how"),
    [
        (COMMANDS[0], "exits_hard", "exit status 0"),
        (COMMANDS[1], "exits_hard", "exit status 0"),
        (COMMANDS[2], "exits_hard", "exit status 0"),
        (COMMANDS[0], "kills_itself", "killed by signal 9 (SIGKILL)"),
        (COMMANDS[1], "terminates", "killed by signal 15 (SIGTERM)"),
    ],
    ids=lambda v: v[0] if isinstance(v, tuple) else None,
)
def test_a_mechanism_that_ends_the_process_is_exit_4_naming_it(
    capfd: pytest.CaptureFixture[str], command: tuple[str, ...], name: str, how: str
) -> None:
    code, out, err = run(capfd, command[0], str(MECHANISMS), *command[1:], "--name", name, "--json")
    assert code == 4
    assert out == ""
    assert f"mechanism {name!r} in {MECHANISMS}" in err and how in err
    assert "this is not a verdict" in err


@pytest.mark.parametrize("command", COMMANDS[:1], ids=lambda c: c[0])
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("exits", "raised SystemExit"),
        ("recurses", "raised RecursionError"),
        ("allocates", "raised MemoryError"),
        ("interrupts", "raised KeyboardInterrupt (no Ctrl-C was pressed)"),
    ],
)
def test_exit_recursion_and_allocation_are_bad_input(
    capfd: pytest.CaptureFixture[str], command: tuple[str, ...], name: str, message: str
) -> None:
    code, out, err = run(capfd, command[0], str(MECHANISMS), *command[1:], "--name", name, "--json")
    assert code == 2 and out == ""
    assert f"mechanism {name!r} {message}" in err


@pytest.mark.parametrize("name", ["prints", "forks"])
def test_printing_and_forking_leave_the_json_clean(
    capfd: pytest.CaptureFixture[str], name: str
) -> None:
    """Randomized response (ε* = ln 2) with a print or a fork in its body: the same answer."""
    code, out, err = run(capfd, "epsilon", str(MECHANISMS), "--name", name, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["exit_code"] == 0 and data["epsilon_star"]["ratio"] == "2"
    if name == "prints":
        assert "noise from the mechanism" in err and "raw noise from the mechanism" in err
    code, out, _ = run(capfd, "verify", str(MECHANISMS), "-e", "0.5", "--name", name, "--json")
    assert code == 1 and json.loads(out)["verdict"] == "violated"


def test_a_file_that_ends_the_process_while_loading_is_exit_4(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "ends.py"
    path.write_text("import os\nos._exit(0)\n", encoding="utf-8")
    code, out, err = run(capfd, "verify", str(path), "-e", "1")
    assert code == 4 and out == ""
    assert f"the file {path}" in err and "exit status 0" in err


def test_a_crash_outside_user_code_is_exit_4_asking_for_a_report(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library faier calls that takes the process down (Storm once did) is exit 4, not 139."""
    import os
    import signal

    from faier.core import engine as registry

    def crashes(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGSEGV)

    monkeypatch.setattr(registry.get("exact"), "epsilon", crashes)
    code, out, err = run(capfd, "epsilon", "geometric")
    assert code == 4 and out == ""
    assert "running the command ended without a result (killed by signal 11 (SIGSEGV))" in err
    assert "Please report it" in err


def test_a_mechanisms_own_sigint_is_its_error_even_when_faier_ignores_sigint(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A shell starts background jobs with SIGINT ignored; the child inherited that, so the
    mechanism's own SIGINT did nothing and its run read as a verdict (exit 0)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        code, out, err = run(
            capfd, "verify", str(MECHANISMS), "-e", "1", "--name", "interrupts", "--json"
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    assert code == 2 and out == ""
    assert "raised KeyboardInterrupt (no Ctrl-C was pressed)" in err
