"""The suite file: jobs (target, claim, settings, engine, horizon, …) and their defaults.

```yaml
timeout: 120                 # seconds per job (default 600); a job past it is 'unknown'
defaults: {engine: auto}     # options every job starts from
jobs:
  - target: noisy-max
    settings: {n: 5, ties: uniform}
    claim: 1.372             # a claim: verify it (command verify)
  - target: geometric        # no claim: compute ε* (command epsilon)
    grid: {p: [1/2, 1/3]}    # one job per combination of these settings
  - target: noisy-max-laplace
    command: test            # test, certify or bound: the statistical commands
    claim: 0.7
    samples: 100000
    seed: 1
```

Every option of the CLI is a job key under its option name or its long flag
(``max_states`` or ``max-states``) and is read by the option's own reader, so
a bad value fails here, at its job, with the same message as on the command
line.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from faier.core.options import SPECS, Options
from faier.errors import SpecError
from faier.examples.registry import EXAMPLES, find_example
from faier.mechanisms.library.continuous import SUITE
from faier.privacy.budget import Epsilon

COMMANDS = ("verify", "epsilon", "test", "certify", "bound")
STATISTICAL = ("test", "certify", "bound")
DEFAULT_TIMEOUT = 600.0
MAX_JOBS = 100_000
JOB_KEYS = ("id", "command", "target", "claim", "epsilon", "grid", "lengths", "pairs", "bisect")
NOT_PER_JOB = ("cluster", "emit_smt2")
"""Options a job cannot take: the batch places jobs itself and writes one file."""
_FLAGS = {flag.lstrip("-").replace("-", "_"): name for name, s in SPECS.items() for flag in s.flags}
_FLAGS.update({"set": "settings", "param": "params", "neighbors": "neighbours"})


@dataclass(frozen=True)
class Job:
    """One run: a command on a target with its options, as the suite file gave them."""

    id: str
    command: str
    target: str
    claim: str | None
    options: Mapping[str, Any]
    """Option name → value as written (YAML), already checked by :meth:`Options.parse`."""
    lengths: Any = None
    pairs: tuple[Any, ...] = ()
    bisect: bool = False
    timeout: float = DEFAULT_TIMEOUT

    @property
    def digest(self) -> str:
        """What the job asks, hashed: a recorded result counts only for the same question."""
        text = json.dumps(
            [
                self.command,
                self.target,
                self.claim,
                dict(self.options),
                self.lengths,
                list(self.pairs),
                self.bisect,
                self.timeout,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def parsed(self) -> Options:
        """The job's options: its timeout as faier's own (the engines answer 'unknown'), and
        one worker process unless it asks for more (the batch already runs jobs side by side)."""
        return Options.parse(**{"workers": 1, "timeout": self.timeout, **self.options})


@dataclass(frozen=True)
class Suite:
    """The jobs of a suite file, in file order (grids expanded)."""

    path: Path
    jobs: tuple[Job, ...]
    timeout: float = DEFAULT_TIMEOUT
    output: Path | None = None
    workers: int | None = None
    retries: int = field(default=0)


def _fail(path: Path, where: str, message: str, fix: str) -> SpecError:
    return SpecError(message, where=f"{path}: {where}" if where else str(path), fix=fix)


def _timeout(path: Path, where: str, raw: object) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 < raw < 1e9:
        raise _fail(
            path, where, f"timeout {raw!r} is not a positive number of seconds", "e.g. timeout: 120"
        )
    return float(raw)


def _options(path: Path, where: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Option keys under their option names, each value checked by its reader."""
    found: dict[str, Any] = {}
    for key, value in raw.items():
        name = _FLAGS.get(str(key).replace("-", "_"), str(key).replace("-", "_"))
        if name in NOT_PER_JOB:
            raise _fail(
                path,
                where,
                f"{key!r} cannot be set per job",
                f"give --{name.replace('_', '-')} to faier batch, or leave it out",
            )
        if name not in SPECS:
            known = ", ".join(sorted({*JOB_KEYS, *SPECS} - set(NOT_PER_JOB)))
            raise _fail(path, where, f"unknown key {key!r}", f"job keys are {known}")
        if name in found:
            raise _fail(path, where, f"{key!r} is given twice", "give each option once")
        found[name] = value
    try:
        Options.parse(**found)
    except SpecError as exc:
        raise exc.located(f"{path}: {where}") from None
    return found


def _claim(path: Path, where: str, entry: Mapping[str, Any]) -> str | None:
    given = [k for k in ("claim", "epsilon") if entry.get(k) is not None]
    if len(given) == 2:
        raise _fail(
            path,
            where,
            "both 'claim' and 'epsilon' are given",
            "give the claimed ε once, as claim:",
        )
    if not given:
        return None
    value = entry[given[0]]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _fail(
            path, where, f"the claim {value!r} is not an ε", "e.g. claim: ln(2) or claim: 1.372"
        )
    try:  # read as --epsilon and --claimed read it, so a bad claim stops the suite here
        Epsilon.parse(str(value))
    except SpecError as exc:
        raise exc.located(f"{path}: {where}: {given[0]}") from None
    return str(value)


def _grid(path: Path, where: str, raw: object, room: int) -> list[dict[str, str]]:
    """Each combination of the grid's settings (one job each), in the file's order.

    ``room``: how many more jobs the suite may have; a larger grid is refused
    from its size, before a single combination is listed.
    """
    if raw is None:
        return [{}]
    if not isinstance(raw, Mapping) or not raw:
        raise _fail(
            path,
            where,
            "grid must map setting names to lists of values",
            "e.g. grid: {n: [3, 4, 5]}",
        )
    names, values = [], []
    for name, options in raw.items():
        listed = options if isinstance(options, list) else [options]
        if not listed:
            raise _fail(
                path, where, f"grid value list of {name!r} is empty", "give at least one value"
            )
        names.append(str(name))
        values.append([str(v) for v in listed])
    size = math.prod(len(v) for v in values)
    if size > room:
        raise _fail(
            path,
            where,
            f"the grid makes {size} jobs: the suite would have more than {MAX_JOBS}",
            "use fewer grid values, or split the suite",
        )
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def _default_id(command: str, target: str, claim: str | None, options: Mapping[str, Any]) -> str:
    settings = options.get("settings") or {}
    shown = (
        ",".join(f"{k}={v}" for k, v in settings.items())
        if isinstance(settings, Mapping)
        else str(settings)
    )
    parts = (
        [command, target] + ([f"[{shown}]"] if shown else []) + ([f"ε={claim}"] if claim else [])
    )
    if options.get("horizon") is not None:
        parts.append(f"horizon={options['horizon']}")
    return " ".join(parts)


def _target(path: Path, where: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise _fail(
            path,
            where,
            "no target",
            "e.g. target: noisy-max (an example, a model or mechanism file)",
        )
    text = raw.strip()
    beside = path.parent / text
    if not Path(text).is_absolute() and Path(text).suffix and beside.exists():
        return str(beside)  # files are named relative to the suite file
    if find_example(text) is None and text not in SUITE and not Path(text).is_file():
        known = ", ".join(e.name for e in EXAMPLES)
        raise _fail(
            path,
            where,
            f"unknown target {text!r}",
            f"a built-in example ({known}), a continuous suite name ({', '.join(SUITE)}), or a "
            "model or mechanism file (relative to the suite file)",
        )
    return text


def _jobs(
    path: Path,
    entry: Mapping[str, Any],
    index: int,
    defaults: Mapping[str, Any],
    timeout: float,
    room: int,
) -> list[Job]:
    where = f"jobs[{index}]" + (f" ({entry['id']})" if isinstance(entry.get("id"), str) else "")
    target = _target(path, where, entry.get("target"))
    claim = _claim(path, where, entry)
    command = entry.get("command", "verify" if claim is not None else "epsilon")
    if command not in COMMANDS:
        raise _fail(path, where, f"unknown command {command!r}", f"one of {', '.join(COMMANDS)}")
    if command == "verify" and claim is None:
        raise _fail(path, where, "verify needs a claim", "add claim: ln(2), or command: epsilon")
    if command == "certify" and claim is None:
        raise _fail(path, where, "certify needs a claim", "add claim: 0.7")
    if command == "epsilon" and claim is not None:
        raise _fail(
            path,
            where,
            "epsilon computes ε*; it takes no claim",
            "leave claim out, or command: verify",
        )
    if command not in STATISTICAL and any(
        entry.get(k) is not None for k in ("lengths", "pairs", "bisect")
    ):
        raise _fail(
            path,
            where,
            "lengths, pairs and bisect belong to the statistical commands",
            "command: test, certify or bound",
        )
    extra = {k: v for k, v in entry.items() if k not in JOB_KEYS}
    options = _options(path, where, {**defaults, **extra})
    if "timeout" in options:
        timeout = _timeout(path, where, options["timeout"])
    if command not in STATISTICAL:
        statistical = sorted(
            set(options)
            & {
                "samples",
                "selection_samples",
                "thinnings",
                "alpha",
                "epsilons",
                "mechanism_epsilon",
                "per_sample",
                "all_pairs",
            }
        )
        explicit = [k for k in statistical if k in extra]
        if explicit:
            raise _fail(
                path,
                where,
                f"{', '.join(explicit)} only apply to test, certify and bound",
                "set command: test, or leave them out",
            )
        options = {k: v for k, v in options.items() if k not in statistical}
    pairs = entry.get("pairs") or ()
    if not isinstance(pairs, list | tuple):
        raise _fail(path, where, "pairs must be a list", "e.g. pairs: ['1,1;0,2']")
    combos = _grid(path, where, entry.get("grid"), room)
    found = []
    for combo in combos:
        settings = (
            {**(options.get("settings") or {}), **combo} if combo else options.get("settings")
        )
        given = {**options, **({"settings": settings} if settings else {})}
        if combo:
            _options(path, where, {"settings": settings})
        name = entry.get("id")
        if name is not None and not isinstance(name, str | int):
            raise _fail(path, where, f"id {name!r} is not text", "e.g. id: noisy-max-5")
        shown = str(name) if name is not None else _default_id(command, target, claim, given)
        if name is not None and combo:
            shown += " [" + ",".join(f"{k}={v}" for k, v in combo.items()) + "]"
        found.append(
            Job(
                shown,
                command,
                target,
                claim,
                given,
                entry.get("lengths"),
                tuple(pairs),
                bool(entry.get("bisect", False)),
                timeout,
            )
        )
    return found


def parse_suite(text: str, path: Path) -> Suite:
    """Read a suite from its text; ``path`` names it in messages and anchors relative files."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}" if mark is not None else ""
        raise _fail(
            path,
            place,
            f"not valid YAML ({getattr(exc, 'problem', None) or exc})",
            "check the indentation and quoting",
        ) from None
    if isinstance(data, list):
        data = {"jobs": data}
    if not isinstance(data, Mapping) or not isinstance(data.get("jobs"), list) or not data["jobs"]:
        raise _fail(
            path,
            "",
            "no jobs",
            "a suite file has a list 'jobs:' of at least one job (see docs/CLUSTER.md)",
        )
    unknown = set(data) - {"jobs", "defaults", "timeout", "output", "workers"}
    if unknown:
        raise _fail(
            path,
            "",
            f"unknown key {sorted(unknown)[0]!r}",
            "top-level keys are jobs, defaults, timeout, output, workers",
        )
    timeout = _timeout(path, "timeout", data["timeout"]) if "timeout" in data else DEFAULT_TIMEOUT
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        raise _fail(
            path,
            "defaults",
            "defaults must map options to values",
            "e.g. defaults: {engine: exact}",
        )
    _options(path, "defaults", {k: v for k, v in defaults.items() if k not in ("settings", "set")})
    jobs: list[Job] = []
    for index, entry in enumerate(data["jobs"]):
        if not isinstance(entry, Mapping):
            raise _fail(
                path,
                f"jobs[{index}]",
                "a job must be a mapping",
                "e.g. - {target: noisy-max, claim: ln(2)}",
            )
        jobs += _jobs(path, entry, index, defaults, timeout, MAX_JOBS - len(jobs))
        if len(jobs) > MAX_JOBS:
            raise _fail(path, f"jobs[{index}]", f"more than {MAX_JOBS} jobs", "split the suite")
    seen: dict[str, int] = {}
    for index, job in enumerate(jobs):
        if job.id in seen:
            raise _fail(
                path,
                f"job {job.id!r}",
                "two jobs have this id",
                "give the jobs distinct id: values",
            )
        seen[job.id] = index
    output = data.get("output")
    workers = data.get("workers")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise _fail(
            path, "workers", f"{workers!r} is not a positive whole number", "e.g. workers: 4"
        )
    return Suite(
        path, tuple(jobs), timeout, None if output is None else path.parent / str(output), workers
    )


def load_suite(path: str | Path) -> Suite:
    """Read and check a suite file; every mistake is a :class:`SpecError` naming the job."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("file not found", where=str(where), fix="check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(
            f"cannot be read ({exc})", where=str(where), fix="give a UTF-8 YAML file"
        ) from None
    return parse_suite(text, where)
