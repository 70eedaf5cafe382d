"""Fuzzer kind ``misbehave``: mechanisms that exit, print, fork, signal, recurse or allocate.

A random case writes a mechanism file: randomized response, truthful with a
random probability p > 1/2 (ε* = ln(p/(1 − p)) exactly), whose body (or the
file as it loads) misbehaves on a random trigger, and runs one of ``faier
verify``, ``epsilon``, ``test`` or ``batch`` on it through the CLI's own
``main`` (in this process; the command forks its child as the console
script does), with stdout and stderr captured at the file descriptors.
A quarter of the cases run the CLI with SIGINT ignored, as a shell starts a
background job; a quarter run ``verify``/``epsilon`` through the Python API
with a progress callback instead (a ``MechanismError`` for a process that
ended counts as exit 4, any other bad input as 2), half of those with a
live thread beside the caller's, as in a Jupyter kernel (the work then runs
in a child of the fork server).

What must hold (each failure is a disagreement):

- a run whose mechanism ends the process (``os._exit``, a signal, a
  segmentation fault) exits 4; one that calls ``sys.exit``, recurses
  without end, fails to allocate or interrupts itself (SIGINT that no
  Ctrl-C sent) exits 2 — never a verdict code (0, 1, 3);
- a mechanism that only prints or forks gets the right answer: ``epsilon``
  the exact ratio, ``verify`` holds exactly when the claim covers it,
  ``test`` exit 0;
- stdout is empty or exactly one JSON document whose ``exit_code`` is the
  process's, and every line ``batch`` appends to its results file parses.

Allocation is a request the allocator refuses at once (``[0] * 2**60``):
an allocation that really grew would take the machine's memory with it.
Used by ``benchmarks/soundness.py`` (kind ``misbehave``).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

ENDS = "ends the process"
REFUSED = "refused as the mechanism's error"
INTERRUPTS = "interrupts itself"
BENIGN = "benign"

ACTIONS: dict[str, tuple[str, str]] = {
    "exit-hard": ("os._exit({code})", ENDS),
    "kill": ("os.kill(os.getpid(), signal.{signal})", ENDS),
    "segfault": ("import ctypes; ctypes.string_at(0)", ENDS),
    "sys-exit": ("sys.exit({code})", REFUSED),
    "recurse": ("_recurse()", REFUSED),
    "allocate": ("_state.append([0] * 2**60)", REFUSED),
    "interrupt": ("os.kill(os.getpid(), signal.SIGINT)", INTERRUPTS),
    "print": ("_print()", BENIGN),
    "fork": ("_fork_once()", BENIGN),
}
"""What the mechanism does, and how a run of it must end."""

SIGNALS = ("SIGKILL", "SIGTERM", "SIGUSR1", "SIGABRT")
COMMANDS = ("verify", "epsilon", "test", "batch")
CALLERS = ("cli", "cli", "background", "api")
TRIGGERS = ("load", "always", "second input", "after runs")

TEMPLATE = '''"""A fuzzer case: randomized response that misbehaves ({action}, {trigger})."""

import os
import signal
import sys

import faier

_state = []
_runs = []


def _recurse():
    return _recurse()


def _print():
    print("printed by the mechanism")
    sys.stdout.write("written by the mechanism\\n")
    sys.stdout.flush()
    os.write(1, b"written to fd 1 by the mechanism\\n")


def _fork_once():
    if not _state:
        _state.append(os.fork())


def _misbehave():
    {code}


{at_load}


@faier.program(inputs=[0, 1])
def mechanism(x, ctx):
    """Truthful with probability {p}."""
    _runs.append(x)
    if {condition}:
        _misbehave()
    return x if ctx.draw(faier.bernoulli("{p}")) else 1 - x
'''


class Check(Protocol):
    """What the fuzzer's Checker offers a case."""

    def used(self, engine: str) -> None: ...
    def expect(self, ok: bool, message: str) -> None: ...
    def crash(self, where: str, exc: BaseException) -> None: ...


@dataclass(frozen=True)
class Case:
    """One misbehaving mechanism and the command run on it."""

    action: str
    code: str
    trigger: str
    p: Fraction
    command: str
    claim_ratio: Fraction
    """The claim is ln(claim_ratio); it holds exactly when claim_ratio ≥ p/(1 − p)."""
    caller: str = "cli"
    """``cli``; ``background``: the CLI from a process that ignores SIGINT, as a shell starts
    a background job; ``api``: ``faier.verify``/``faier.epsilon`` in this process, with a
    progress callback (other commands go through the CLI)."""
    threaded: bool = False
    """``api`` only: another thread runs in the caller meanwhile (a child of the fork server)."""

    @property
    def ratio(self) -> Fraction:
        return self.p / (1 - self.p)

    @property
    def expected(self) -> str:
        """How the run must end (a batch job ignores SIGINT: its runner decides on Ctrl-C)."""
        ending = ACTIONS[self.action][1]
        return BENIGN if ending == INTERRUPTS and self.command == "batch" else ending

    def source(self) -> str:
        condition = {
            "load": "False",
            "always": "True",
            "second input": "x == 1",
            "after runs": "len(_runs) >= 2",
        }[self.trigger]
        return TEMPLATE.format(
            action=self.action,
            trigger=self.trigger,
            code=self.code,
            at_load="_misbehave()" if self.trigger == "load" else "",
            p=self.p,
            condition=condition,
        )


def generate(seed: int) -> Case:
    rng = random.Random(seed)
    action = rng.choice(tuple(ACTIONS))
    template = ACTIONS[action][0]
    code = template.format(code=rng.choice((0, 1, 2, 3)), signal=rng.choice(SIGNALS))
    trigger = rng.choice(TRIGGERS)
    if action == "fork" and trigger == "load":
        trigger = "always"  # a fork at load runs the whole command twice: allowed, but slow
    whole = rng.randint(3, 20)
    p = Fraction(rng.randint(whole // 2 + 1, whole - 1), whole)  # 1/2 < p < 1
    ratio = p / (1 - p)
    claim_ratio = rng.choice((ratio, ratio * Fraction(999_999, 10**6), ratio * 2))
    command = rng.choice(COMMANDS)
    caller = rng.choice(CALLERS)
    return Case(action, code, trigger, p, command, claim_ratio, caller, rng.random() < 0.5)


@contextlib.contextmanager
def captured() -> Iterator[tuple[Any, Any]]:
    """File descriptors 1 and 2 (and sys.stdout/err on them) into two temporary files."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        saved = (os.dup(1), os.dup(2))
        old = (sys.stdout, sys.stderr)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        try:
            yield out, err
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            sys.stdout, sys.stderr = old
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``faier ARGV`` through the console script's ``main``: exit code, stdout, stderr."""
    from faier.cli.main import main

    code: object = 0
    with captured() as (out, err):
        try:
            main(argv)
        except SystemExit as done:
            code = done.code
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            text = [os.pread(f.fileno(), 1 << 24, 0) for f in (out, err)]
    shown = [t.decode("utf-8", "replace") for t in text]
    return (code if isinstance(code, int) else -1), shown[0], shown[1]


def argv_for(case: Case, mechanism: Path, folder: Path) -> list[str]:
    claim = f"ln({case.claim_ratio})"
    if case.command == "verify":
        return ["verify", str(mechanism), "-e", claim, "--json", "--timeout", "60"]
    if case.command == "epsilon":
        return ["epsilon", str(mechanism), "--json", "--timeout", "60"]
    if case.command == "test":
        return [
            "test",
            str(mechanism),
            "--claimed",
            "1",
            "--samples",
            "400",
            "--selection-samples",
            "100",
            "--epsilons",
            "1",
            "--thinnings",
            "1",
            "--seed",
            "1",
            "--workers",
            "1",
            "--timeout",
            "60",
            "--json",
        ]
    suite = folder / "suite.yaml"
    suite.write_text(
        f"timeout: 60\njobs:\n  - {{id: fuzz, target: {mechanism}, claim: '{claim}'}}\n",
        encoding="utf-8",
    )
    return ["batch", str(suite), "--json", "--workers", "1"]


def judge(case: Case, check: Check, code: int, out: str, folder: Path) -> None:
    """Every rule of the module docstring, on one run."""
    what = f"{case.command} on a mechanism that {case.action} ({case.trigger}): exit {code}"
    document: Any = None
    if out.strip():
        try:
            document = json.loads(out)
        except ValueError:
            check.expect(False, f"{what}, stdout is not one JSON document: {out[:200]!r}")
        else:
            found = document.get("exit_code") if isinstance(document, dict) else None
            check.expect(found == code, f"{what}, but the JSON says exit_code {found}")
    if case.command == "batch":
        results = folder / "suite.results.jsonl"
        lines = results.read_text(encoding="utf-8").splitlines() if results.exists() else []
        for line in lines:
            try:
                json.loads(line)
            except ValueError:
                check.expect(False, f"{what}, a results line is not JSON: {line[:200]!r}")
    expected = case.expected
    if expected != BENIGN:
        check.expect(code not in (0, 1, 3), f"{what}: a verdict from a misbehaving run")
        wanted = {ENDS: 4, REFUSED: 2, INTERRUPTS: 2}[expected]
        check.expect(code == wanted, f"{what}, expected {wanted} ({expected})")
        return
    if case.command == "test":
        check.expect(code == 0 and document is not None, f"{what}, expected 0 with JSON")
        return
    if case.command == "epsilon":
        star = (document or {}).get("epsilon_star") or {}
        check.expect(
            code == 0 and star.get("ratio") == str(case.ratio),
            f"{what}, ε* {star.get('ratio')}, expected e^ε* = {case.ratio}",
        )
        return
    wanted = 0 if case.claim_ratio >= case.ratio else 1
    check.expect(code == wanted, f"{what}, expected {wanted} (e^ε* = {case.ratio})")


def case_misbehave(seed: int, check: Check) -> str:
    """One misbehaving mechanism through one command: never a verdict it did not earn."""
    case = generate(seed)
    check.used("cli")
    check.used(f"misbehave-{case.command}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        mechanism = folder / "mechanism.py"
        mechanism.write_text(case.source(), encoding="utf-8")
        if case.caller == "api" and case.command in ("verify", "epsilon"):
            check.used("misbehave-api")
            code, out = run_api(case, mechanism)
        else:
            with sigint_ignored(case.caller == "background"):
                code, out, _ = run_cli(argv_for(case, mechanism, folder))
        judge(case, check, code, out, folder)
    return (
        f"{case.command} ({case.caller}{', threaded' if case.threaded else ''}):"
        f" {case.action} `{case.code}` on trigger"
        f" {case.trigger}, p = {case.p}"
    )


@contextlib.contextmanager
def sigint_ignored(ignored: bool) -> Iterator[None]:
    """SIGINT ignored in this process, as in a job a shell started in the background."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if ignored else None
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def run_api(case: Case, mechanism: Path) -> tuple[int, str]:
    """The Python API in this process (which runs the work in a child): the exit code the
    CLI would give (a MechanismError for a process that ended: 4, for the rest: 2) and the
    result as the CLI's JSON."""
    import faier
    from faier.errors import InputError

    calls: list[object] = []
    stop = threading.Event()
    beside = threading.Thread(target=stop.wait, daemon=True)
    if case.threaded:
        beside.start()
    try:
        with captured():  # what the mechanism prints in the child
            if case.command == "verify":
                claim = f"ln({case.claim_ratio})"
                result = faier.verify(str(mechanism), claim, timeout=60, progress=calls.append)
            else:
                result = faier.epsilon(str(mechanism), timeout=60, progress=calls.append)
    except InputError as error:
        return (4 if "ended the process without a result" in str(error) else 2), ""
    finally:
        stop.set()
    return result.exit_code, json.dumps({**result.to_json(), "exit_code": result.exit_code})
