"""Standing differential fuzzer: every engine against independent brute force (issue 11).

Random small cases of each kind are answered by every engine that accepts
them and by brute force written without faier's engines (``tests/reference.py``,
``tests/logic/dpctl_reference.py`` and the path sums below).  Any difference in
ε*, in a verdict at ε* (``ln(p/q)``: holds), just below (violated) or just
above (holds), in log form or as a decimal, or in a CLI exit code is a
disagreement; 0 is the only acceptable number.

Kinds and what is cross-checked:

- ``hmm``: random HMMs, Pufferfish comparisons of initial distributions or
  states: exact float frontier, exact rationals, path-sum brute force; a
  sample through a model file and the CLI (in process, a few by subprocess).
- ``program``: ``faier.Program`` over a small grid with random two-stage
  draws, every-query/one-query/explicit neighbours or Pufferfish priors over
  inputs (grid search, distribution mode) against enumerated distributions;
  a sample through the statistical tester's lower bound (a sanity check only).
- ``interactive``: random ``Interactive`` mechanisms that may halt, ε*(k)
  against enumeration of every answer-pair sequence.
- ``parametric``: model files with a parameter ``p`` fixed at a random
  rational: exact engine vs brute force vs the SMT engine (z3) on a sample;
  with ``p`` left free, an SMT 'holds' is checked at random points and an SMT
  'violated' at its synthesized point by the exact engine.
- ``dpctl``: random Markov chains and bounded path formulas: Storm's
  probabilities and D{ε, δ} verdicts (at the tightest ε, just below, just
  above) against the dpCTL* brute force.
- ``continuous``: random programs drawing ``faier.laplace``/``faier.exponential``
  noise with exact scales over {0..m}ⁿ (m ≤ 2, n ≤ 4): Noisy Max's index and
  its released value, Sparse Vector comparisons with a shared threshold noise
  (without cutoff, with a cutoff c ≥ 1, iSVT 1 without query noise, iSVT 4
  releasing the first noisy answer above the threshold), the count of ⊤, a
  histogram; the certified engine's ε* interval and its verdict at a
  random claim against probabilities from numerical integration (scipy quad)
  and brute force over the pairs, within ``QUAD_TOL`` (the released value: the
  density ratio's supremum over a dense grid with every kink and scipy's
  bounded search, its witness densities and the density at random points
  against numeric differentiation of the CDF Π F(t − xᵢ); iSVT 4: the largest
  log ratio of densities and masses by quad on a grid with every kink never
  above the certified ε*, and a violation's witness recomputed by quad); ``faier certify``'s
  event probabilities on random events of the tester's kinds against the
  same references under the tester's own event semantics, and on a sample of
  them against 200 000 numpy draws; unknown answers are counted, not
  disagreements.  A disagreement is rechecked with the references integrated
  by mpmath at 40 digits before it counts (scipy's quad loses relative
  accuracy on probabilities near e^(−30), which once looked like 15 of 2000
  certified intervals being off by 10⁻⁶).
- ``gaussian``: programs drawing ``faier.gaussian`` with exact σ over {0..m}ⁿ:
  Noisy Max's index (quad of ∫ φ(t − xᵢ) Π_{j≠i} Φ(t − x_j) dt), Sparse
  Vector with one shared Gaussian threshold noise, with and without a cutoff
  (quad over the threshold noise of products of Φ), and the Gaussian
  mechanism (every answer plus noise; Balle and Wang's δ(ε) =
  Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) by mpmath at 40 digits, μ = √n/σ): the
  certified ε* and verdict at a random ε, a verdict at (ε, δ) below ε* against
  δ(ε) = max over pairs of Σ max(0, P_x − e^ε P_y), and on a sample the least
  ε for that δ; mpmath rechecks a disagreement as above.  The Gaussian
  mechanism's pure ε* must be ∞ and its pure claims violated, each witness's
  densities recomputed by scipy's normal pdf.
- ``discrete``: programs drawing ``faier.discrete_laplace`` or
  ``faier.discrete_gaussian`` (clamped noisy counts, ⊤/⊥ against a
  threshold, the argmax of noisy counts) against float sums over the window
  |k| ≤ W (W = 80t + 20 for the discrete Laplace, 14σ + 20 for the discrete
  Gaussian).  Every event of these grids is decided by noise values |k| ≤ 7,
  so the mass outside the window is below e^(−80) times the smallest
  probability it could change: negligible at float precision.
- ``models``: random MDPs with synchronising commands whose guards overlap,
  as PRISM text and as JANI (``soundness_models.py``): faier on each and
  stormpy alone give the same exact ``Pmin``/``Pmax``, and faier's state and
  choice counts are Storm's; the PRISM text's random reward structures give
  one exact ``Rmin``/``Rmax`` (``∞`` included) whole, built for the question,
  answered in Storm and from stormpy alone.
- ``properties``: random PRISM property strings (``soundness_properties.py``)
  read by faier and by Storm's parser to the tree they were written from, or
  both refuse a damaged one; Storm's documented departures from PRISM's
  grammar (docs/DISCREPANCIES.md) are notes, not disagreements.
- ``misbehave``: mechanisms that end the process, print, fork, signal,
  recurse or allocate, through ``faier verify``/``epsilon``/``test``/``batch``
  (``soundness_misbehave.py``): never a verdict exit code from a run that
  misbehaved, the right answer from one that only printed or forked, and
  stdout empty or one JSON document.
- ``scales``: programs drawing Laplace, Gaussian, exponential or discrete
  Laplace noise of scale 10⁻³ to 10³ (thresholds, noisy thresholds, intervals, ``abs()``, an
  argmax, released numbers, noise located at the value, a scale depending on
  the input) against closed forms in mpmath at 60 digits
  (``soundness_scales.py``): the certified ε* interval, verdicts at
  ε*·(1 ∓ 10⁻⁶), and each violation's witness probabilities.
- ``library``: diffprivlib geometric objects, honest or tampered with (a
  replaced ``randomise``, an overriding subclass, ε changed after
  construction, a random source of their own; ``soundness_library.py``):
  honest ones are decided at exactly d·ε/Δ, tampered ones never, and the
  tester runs the object itself.

    .venv/bin/python benchmarks/soundness.py                   # default: 10 000 cases
    .venv/bin/python benchmarks/soundness.py --cases 500 --kinds hmm program
    .venv/bin/python benchmarks/soundness.py --kinds hmm --replay 1234   # one case again
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import functools
import io
import itertools
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _extra in (ROOT / "tests", ROOT / "tests" / "logic", ROOT / "benchmarks"):
    if str(_extra) not in sys.path:
        sys.path.append(str(_extra))

import soundness_library  # noqa: E402  (kind "library": library objects decided or run)
import soundness_misbehave  # noqa: E402  (kind "misbehave": user code that ends the process)
import soundness_models  # noqa: E402  (kind "models": PRISM vs JANI vs plain Storm)
import soundness_properties  # noqa: E402  (kind "properties": faier's vs Storm's parser)
import soundness_scales  # noqa: E402  (kind "scales": noise scales 10⁻³..10³ against mpmath)

import faier  # noqa: E402
import reference as ref  # noqa: E402  (tests/reference.py: brute force, no faier import)
from faier.core.problem import Problem  # noqa: E402
from faier.mechanisms.inputs import grid  # noqa: E402
from faier.mechanisms.interactive import HALTED, Interactive  # noqa: E402
from faier.model.distribution import Distribution  # noqa: E402
from faier.model.hmm import HMM  # noqa: E402
from faier.privacy.neighbours import EveryQuery, ExplicitPairs, OneQuery  # noqa: E402
from faier.privacy.specs import (  # noqa: E402
    Comparison,
    DifferentialPrivacy,
    InteractiveDP,
    Pufferfish,
)
from faier.results import Enclosure, Result, Verdict  # noqa: E402

F = Fraction
KINDS = (
    "hmm",
    "program",
    "interactive",
    "parametric",
    "dpctl",
    "continuous",
    "gaussian",
    "discrete",
    "models",
    "properties",
    "misbehave",
    "scales",
    "library",
)
WEIGHTS = {
    "hmm": 3,
    "program": 3,
    "interactive": 2,
    "parametric": 1,
    "dpctl": 2,
    "continuous": 1,
    "gaussian": 1,
    "discrete": 1,
    "models": 1,
    "properties": 1,
    "misbehave": 1,
    "scales": 1,
    "library": 1,
}
"""Share of each kind in a run (cheap kinds more often)."""
TINY = F(1, 10**6)
"""Relative step of the rational 'just below/above' claims: e^ε* · (1 ∓ 10⁻⁶)."""
INFINITE_CLAIM = "ln(1000000000)"


@dataclass(frozen=True)
class Rates:
    """How often the slow engines run (fractions of a kind's cases)."""

    smt: float = 0.3
    smt_free: float = 0.1
    cli: float = 0.1
    subprocess: float = 0.002
    tester: float = 0.02
    certify: float = 0.5
    """Continuous cases whose random events are certified (``faier certify``'s probabilities)."""
    samples: float = 0.05
    """Certified events also checked against 200 000 numpy samples."""


@dataclass
class CaseReport:
    """One case: what ran, how long, and every disagreement with a reproducer."""

    kind: str
    seed: int
    seconds: float = 0.0
    engines: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    description: str = ""


class Checker:
    """Collects disagreements for one case; a check never raises past it."""

    def __init__(self, report: CaseReport) -> None:
        self.report = report

    def used(self, engine: str) -> None:
        if engine not in self.report.engines:
            self.report.engines.append(engine)

    def expect(self, ok: bool, message: str) -> None:
        if not ok:
            self.report.disagreements.append(message)

    def crash(self, where: str, exc: BaseException) -> None:
        tail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        self.report.disagreements.append(f"{where} raised {tail}")


def weights(rng: random.Random, size: int, zeros: bool = True) -> tuple[Fraction, ...]:
    """A random rational distribution with small denominators (zeros allowed)."""
    raw = [F(rng.randint(0 if zeros and rng.random() < 0.5 else 1, 4)) for _ in range(size)]
    if rng.random() < 0.05:
        raw[rng.randrange(size)] = F(1, 10 ** rng.randint(3, 12))
    if sum(raw) == 0:
        raw[rng.randrange(size)] = F(1)
    total = sum(raw)
    return tuple(w / total for w in raw)


def dist_of(names: Sequence[Hashable], vector: Sequence[Fraction]) -> Distribution[Hashable]:
    return Distribution.of({n: p for n, p in zip(names, vector, strict=True) if p})


def ratio_text(ratio: Fraction | None) -> str:
    return "∞" if ratio is None else str(ratio)


def boundary_claims(ratio: Fraction | None) -> list[tuple[str, Verdict]]:
    """Claims around ε* and the verdict each must get: at ε* holds, below violated, above holds."""
    if ratio is None:
        return [(INFINITE_CLAIM, Verdict.VIOLATED), ("20.5", Verdict.VIOLATED)]
    claims = [(f"ln({ratio})", Verdict.HOLDS), (f"ln({ratio * (1 + TINY)})", Verdict.HOLDS)]
    below = ratio * (1 - TINY)
    if below >= 1:
        claims.append((f"ln({below})", Verdict.VIOLATED))
    elif ratio > 1:
        claims.append(("0", Verdict.VIOLATED))
    value = math.log(ratio)
    claims.append((repr(value + 1e-6), Verdict.HOLDS))
    if value > 1e-5:
        claims.append((repr(value - 1e-6), Verdict.VIOLATED))
    return claims


def check_boundaries(
    check: Checker,
    engine: str,
    ratio: Fraction | None,
    decide: Callable[[str], Verdict | None],
    claims: list[tuple[str, Verdict]] | None = None,
) -> None:
    """Every boundary claim decided by ``decide`` (an engine's verify) as it must be."""
    check.used(engine)
    for claim, expected in claims if claims is not None else boundary_claims(ratio):
        try:
            got = decide(claim)
        except Exception as exc:
            check.crash(f"{engine} verify at ε = {claim}", exc)
            continue
        check.expect(
            got is expected,
            f"{engine}: verify at ε = {claim} gave {got and got.value}, expected "
            f"{expected.value} (brute-force ε* = ln({ratio_text(ratio)}))",
        )


def check_epsilon(
    check: Checker, engine: str, ratio: Fraction | None, run: Callable[[], Result]
) -> Result | None:
    """An engine's ε* against the brute-force ratio; its witness must attain it."""
    check.used(engine)
    try:
        result = run()
    except Exception as exc:
        check.crash(f"{engine} epsilon", exc)
        return None
    star = result.exact_loss
    if star is None:
        check.expect(
            False, f"{engine}: ε* unknown ({result.reason}), brute force ln({ratio_text(ratio)})"
        )
        return None
    check.expect(
        star.ratio == ratio,
        f"{engine}: ε* = ln({ratio_text(star.ratio)}), brute force ln({ratio_text(ratio)})",
    )
    witness = result.witness
    if witness is not None and star.ratio is not None:
        check.expect(
            witness.q != 0 and witness.p / witness.q == star.ratio,
            f"{engine}: witness p/q = {witness.p}/{witness.q} is not ε* = {star.ratio}",
        )
    return result


def verdict_of(result: Result) -> Verdict | None:
    return result.verdict


def exact_engine_checks(check: Checker, problem: Problem, ratio: Fraction | None) -> Result | None:
    """Float frontier and rationals: ε*, and the float engine's verdicts at the boundaries."""
    result = check_epsilon(check, "exact-float", ratio, lambda: faier.epsilon(problem))
    check_epsilon(
        check, "exact-rational", ratio, lambda: faier.epsilon(problem, arithmetic="exact")
    )
    check_boundaries(check, "exact-float", ratio, lambda e: faier.verify(problem, e).verdict)
    claims = boundary_claims(ratio)[:1]
    check_boundaries(
        check,
        "exact-rational",
        ratio,
        lambda e: faier.verify(problem, e, arithmetic="exact").verdict,
        claims,
    )
    return result


# ---------------------------------------------------------------- HMMs


@dataclass(frozen=True)
class HMMCase:
    """A random HMM, its comparisons (named initial vectors) and a horizon."""

    states: tuple[str, ...]
    observations: tuple[str, ...]
    transition: tuple[tuple[Fraction, ...], ...]
    emission: tuple[tuple[Fraction, ...], ...]
    initial: dict[str, tuple[Fraction, ...]]
    pairs: tuple[tuple[str, str], ...]
    horizon: int


def random_hmm(rng: random.Random, max_states: int = 5) -> HMMCase:
    n = rng.randint(2, max_states)
    m = rng.randint(2, 3)
    k = rng.randint(1, (5 if n <= 3 else 4) if m == 2 else 3)
    states = tuple(f"s{i}" for i in range(n))
    observations = tuple(f"o{i}" for i in range(m))
    transition = tuple(weights(rng, n) for _ in range(n))
    emission = tuple(weights(rng, m) for _ in range(n))
    initial: dict[str, tuple[Fraction, ...]] = {}
    pairs = []
    for c in range(rng.randint(1, 2)):
        if rng.random() < 0.3:
            a, b = rng.sample(range(n), 2)
            left = tuple(F(int(i == a)) for i in range(n))
            right = tuple(F(int(i == b)) for i in range(n))
        else:
            left, right = weights(rng, n), weights(rng, n, zeros=rng.random() < 0.5)
        initial[f"pi{c}"], initial[f"tau{c}"] = left, right
        pairs.append((f"pi{c}", f"tau{c}"))
    return HMMCase(states, observations, transition, emission, initial, tuple(pairs), k)


def sequence_probability(case: HMMCase, start: Sequence[Fraction], seq: Sequence[int]) -> Fraction:
    """Pr(seq | start): FAIER papers eq. (1) by path sums when small, else a forward pass."""
    n = len(case.states)
    if n ** len(seq) <= 27:
        total = F(0)
        for path in itertools.product(range(n), repeat=len(seq)):
            p = start[path[0]] * case.emission[path[0]][seq[0]]
            for t in range(1, len(seq)):
                if not p:
                    break
                p *= case.transition[path[t - 1]][path[t]] * case.emission[path[t]][seq[t]]
            total += p
        return total
    alpha = [start[s] * case.emission[s][seq[0]] for s in range(n)]
    for w in seq[1:]:
        alpha = [
            sum((alpha[s] * case.transition[s][u] for s in range(n)), F(0)) * case.emission[u][w]
            for u in range(n)
        ]
    return sum(alpha, F(0))


def hmm_brute_ratio(case: HMMCase) -> Fraction | None:
    """Max over comparisons (both orders) and length-k sequences of Pr ratio; None = ∞."""
    ratios: list[Fraction | None] = []
    for a, b in case.pairs:
        for left, right in ((a, b), (b, a)):
            for seq in itertools.product(range(len(case.observations)), repeat=case.horizon):
                p = sequence_probability(case, case.initial[left], seq)
                q = sequence_probability(case, case.initial[right], seq)
                ratios.append(ref.max_ratio({0: p}, {0: q}))
    return ref._max_or_none(ratios)


def hmm_problem(case: HMMCase) -> Problem:
    hmm = HMM(case.states, case.observations, case.transition, case.emission)
    comparisons = tuple(
        Comparison(
            dist_of(case.states, case.initial[a]),
            dist_of(case.states, case.initial[b]),
            a,
            b,
            "initial",
        )
        for a, b in case.pairs
    )
    return Problem("fuzz-hmm", hmm, Pufferfish(comparisons, "fuzz pairs"), case.horizon)


def hmm_yaml(case: HMMCase, rows: dict[str, dict[str, str]] | None = None) -> str:
    """The case as a model file (docs/MODEL_FILES.md); ``rows`` overrides some entries."""

    def row(names: Sequence[str], vector: Sequence[Fraction]) -> dict[str, str]:
        return {n: str(p) for n, p in zip(names, vector, strict=True) if p}

    data: dict[str, Any] = {
        "name": "fuzz",
        "states": list(case.states),
        "observations": list(case.observations),
        "transitions": {
            s: row(case.states, r) for s, r in zip(case.states, case.transition, strict=True)
        },
        "emissions": {
            s: row(case.observations, r) for s, r in zip(case.states, case.emission, strict=True)
        },
        "initial": {name: row(case.states, v) for name, v in case.initial.items()},
        "pairs": [list(p) for p in case.pairs],
        "horizon": case.horizon,
    }
    for key, value in (rows or {}).items():
        section, _, state = key.partition(".")
        data[section][state] = value
    return json.dumps(data, indent=1)


def run_cli(argv: list[str]) -> tuple[int, str]:
    """faier's CLI in process: (exit code, stdout)."""
    from faier.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    return code, out.getvalue() + err.getvalue()


def cli_checks(
    check: Checker, path: str, ratio: Fraction | None, rng: random.Random, rates: Rates
) -> None:
    """Exit codes of ``faier verify`` around ε* and the JSON ε* of ``faier epsilon``."""
    expected_code = {Verdict.HOLDS: 0, Verdict.VIOLATED: 1}
    check.used("cli")
    for claim, verdict in boundary_claims(ratio):
        code, text = run_cli(["verify", path, "--epsilon", claim])
        check.expect(
            code == expected_code[verdict],
            f"cli: faier verify --epsilon {claim} exited {code}, expected "
            f"{expected_code[verdict]} ({text.strip()[-200:]})",
        )
    code, text = run_cli(["epsilon", path, "--json"])
    try:
        star = json.loads(text)["epsilon_star"]["ratio"]
    except (ValueError, KeyError, TypeError):
        star = f"unreadable: {text[-200:]}"
    check.expect(
        code == 0 and star == ("inf" if ratio is None else str(ratio)),
        f"cli: faier epsilon --json exited {code} with ε* ratio {star}, "
        f"expected {ratio_text(ratio)}",
    )
    if rng.random() < rates.subprocess / max(rates.cli, 1e-9):
        check.used("cli-subprocess")
        claim, verdict = boundary_claims(ratio)[0]
        exe = Path(sys.executable).with_name("faier")
        argv = [str(exe)] if exe.exists() else [sys.executable, "-m", "faier.cli.main"]
        proc = subprocess.run(
            [*argv, "verify", path, "--epsilon", claim], capture_output=True, text=True, timeout=300
        )
        check.expect(
            proc.returncode == expected_code[verdict],
            f"cli subprocess: verify --epsilon {claim} exited {proc.returncode}: "
            f"{proc.stderr[-200:]}",
        )


def case_hmm(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_hmm(rng)
    ratio = hmm_brute_ratio(case)
    check.used("brute-force")
    problem = hmm_problem(case)
    result = exact_engine_checks(check, problem, ratio)
    if result is not None and result.witness is not None and result.epsilon_star is not None:
        witness = result.witness
        seq = [case.observations.index(o) for o in witness.output]
        p = sequence_probability(case, case.initial[witness.left], seq)
        q = sequence_probability(case, case.initial[witness.right], seq)
        check.expect(
            (p, q) == (witness.p, witness.q),
            f"exact-float: witness {witness.output} p, q = {witness.p}, {witness.q}; "
            f"brute force {p}, {q}",
        )
    if rng.random() < rates.cli:
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "fuzz.json")
            Path(path).write_text(hmm_yaml(case))
            cli_checks(check, path, ratio, rng, rates)
    return f"{case!r}; brute ε* = ln({ratio_text(ratio)})"


# ---------------------------------------------------------------- one-shot programs


@dataclass(frozen=True)
class ProgramCase:
    """x ↦ z1 ~ first[x]; z2 ~ second[(x[0], z1)] (if two-stage); output label[(z1, z2)]."""

    length: int
    top: int
    first: dict[tuple[int, ...], tuple[Fraction, ...]]
    second: dict[tuple[int, int], tuple[Fraction, ...]] | None
    label: dict[tuple[int, int], str]
    privacy: str
    delta: int
    pairs: tuple[tuple[Any, Any], ...]


GRIDS = ((1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (4, 1), (4, 2))
"""(queries, top answer): up to 81 inputs, past the 64 whose columns grid search checks all."""


def random_program(rng: random.Random) -> ProgramCase:
    length, top = rng.choice(GRIDS)
    inputs = list(itertools.product(range(top + 1), repeat=length))
    r1, r2 = rng.randint(2, 3), rng.randint(1, 3)
    first = {x: weights(rng, r1) for x in inputs}
    second = None
    if rng.random() < 0.5:
        second = {(a, z): weights(rng, r2) for a in range(top + 1) for z in range(r1)}
    outputs = [f"w{i}" for i in range(rng.randint(2, 4))]
    label = {(z1, z2): rng.choice(outputs) for z1 in range(r1) for z2 in range(r2)}
    privacy = rng.choice(["every", "one", "explicit", "pufferfish"])
    delta = rng.randint(1, 2)
    pairs: list[tuple[Any, Any]] = []
    if privacy == "explicit":
        for _ in range(rng.randint(1, 3)):
            left, right = rng.sample(inputs, 2)
            pairs.append((left, right))
    elif privacy == "pufferfish":
        for _ in range(rng.randint(1, 2)):
            pairs.append((weights(rng, len(inputs)), weights(rng, len(inputs))))
    return ProgramCase(length, top, first, second, label, privacy, delta, tuple(pairs))


def program_distribution(case: ProgramCase, x: tuple[int, ...]) -> dict[str, Fraction]:
    """The exact output distribution by enumerating both draws."""
    out: dict[str, Fraction] = {}
    for z1, p1 in enumerate(case.first[x]):
        if case.second is None:
            ref._add(out, case.label[(z1, 0)], p1)
            continue
        for z2, p2 in enumerate(case.second[(x[0], z1)]):
            ref._add(out, case.label[(z1, z2)], p1 * p2)
    return {w: p for w, p in out.items() if p}


def program_brute_ratio(case: ProgramCase) -> Fraction | None:
    inputs = list(itertools.product(range(case.top + 1), repeat=case.length))

    def mechanism(x: object) -> dict[str, Fraction]:
        assert isinstance(x, tuple)
        return program_distribution(case, x)

    if case.privacy == "pufferfish":
        ratios = []
        for left, right in case.pairs:
            prior_l = {x: p for x, p in zip(inputs, left, strict=True) if p}
            prior_r = {x: p for x, p in zip(inputs, right, strict=True) if p}
            ratios.append(ref.pufferfish_ratio(mechanism, prior_l, prior_r))
        return ref._max_or_none(ratios)
    if case.privacy == "every":
        related = ref.every_query_neighbours(case.delta)
    elif case.privacy == "one":
        related = ref.one_query_neighbours(case.delta)
    else:
        chosen = {frozenset(p) for p in case.pairs}

        def related(x: tuple[int, ...], y: tuple[int, ...]) -> bool:
            return frozenset((x, y)) in chosen and x != y

    def neighbours(x: object, y: object) -> bool:
        assert isinstance(x, tuple) and isinstance(y, tuple)
        return related(x, y)

    return ref.dp_epsilon_ratio(mechanism, inputs, neighbours)


def program_problem(case: ProgramCase) -> Problem:
    first = {x: dist_of(range(len(v)), v) for x, v in case.first.items()}
    second = (
        None
        if case.second is None
        else {k: dist_of(range(len(v)), v) for k, v in case.second.items()}
    )

    def body(x: tuple[int, ...], ctx: Any) -> str:
        z1 = ctx.draw(first[x])
        z2 = 0 if second is None else ctx.draw(second[(x[0], z1)])
        return case.label[(z1, z2)]

    space = grid(case.length, case.top)
    program = faier.Program("fuzz-program", body, space)
    inputs = list(space)
    privacy: Any
    if case.privacy == "every":
        privacy = DifferentialPrivacy(EveryQuery(case.delta))
    elif case.privacy == "one":
        privacy = DifferentialPrivacy(OneQuery(case.delta))
    elif case.privacy == "explicit":
        privacy = DifferentialPrivacy(ExplicitPairs(case.pairs))
    else:
        privacy = Pufferfish(
            tuple(
                Comparison(
                    dist_of(inputs, a), dist_of(inputs, b), f"prior{i}", f"other{i}", "prior"
                )
                for i, (a, b) in enumerate(case.pairs)
            ),
            "fuzz priors",
        )
    return Problem("fuzz-program", program, privacy)


def case_program(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_program(rng)
    ratio = program_brute_ratio(case)
    check.used("brute-force")
    problem = program_problem(case)
    exact_engine_checks(check, problem, ratio)
    if case.privacy in ("every", "one") and rng.random() < rates.tester:
        tester_check(check, case, ratio, seed)
    return f"{case!r}; brute ε* = ln({ratio_text(ratio)})"


# ---------------------------------------------------------------- interactive mechanisms


@dataclass(frozen=True)
class InteractiveCase:
    """step(state, answer) ~ table[(state, answer)] over (next state or HALTED, observation)."""

    letters: int
    states: int
    starts: dict[str, int]
    outcomes: tuple[tuple[Any, str], ...]
    table: dict[tuple[int, int], tuple[Fraction, ...]]
    horizon: int


def random_interactive(rng: random.Random) -> InteractiveCase:
    letters = rng.randint(1, 2)
    states = rng.randint(1, 3)
    observations = ["a", "b", "c"][: rng.randint(1, 3)]
    nexts: list[Any] = [*range(states), HALTED]
    outcomes = tuple((n, o) for n in nexts for o in observations)
    table = {}
    for s in range(states):
        for x in range(letters + 1):
            vector = [F(0)] * len(outcomes)
            support = rng.sample(range(len(outcomes)), rng.randint(1, min(3, len(outcomes))))
            for i, w in zip(support, weights(rng, len(support), zeros=False), strict=True):
                vector[i] = w
            table[(s, x)] = tuple(vector)
    starts = {f"start {s}": s for s in rng.sample(range(states), rng.randint(1, states))}
    horizon = rng.randint(1, 3 if letters == 1 else 2)
    return InteractiveCase(letters + 1, states, starts, outcomes, table, horizon)


def interactive_brute_ratio(case: InteractiveCase) -> Fraction | None:
    """Max over starts, ±1 answer-pair sequences of length k and transcripts (■ after halting)."""
    pairs = [(x, y) for x in range(case.letters) for y in range(case.letters) if abs(x - y) <= 1]

    def transcripts(start: int, answers: Sequence[int]) -> dict[tuple[str, ...], Fraction]:
        layer: dict[tuple[tuple[str, ...], Any], Fraction] = {((), start): F(1)}
        for x in answers:
            nxt: dict[tuple[tuple[str, ...], Any], Fraction] = {}
            for (seen, state), p in layer.items():
                if state is HALTED:
                    ref._add(nxt, ((*seen, "■"), HALTED), p)
                    continue
                for (after, obs), q in zip(case.outcomes, case.table[(state, x)], strict=True):
                    if q:
                        ref._add(nxt, ((*seen, obs), after), p * q)
            layer = nxt
        out: dict[tuple[str, ...], Fraction] = {}
        for (seen, _), p in layer.items():
            ref._add(out, seen, p)
        return out

    ratios = []
    for start in case.starts.values():
        for seq in itertools.product(pairs, repeat=case.horizon):
            left = transcripts(start, [x for x, _ in seq])
            right = transcripts(start, [y for _, y in seq])
            ratios.append(ref.max_ratio(left, right))
    return ref._max_or_none(ratios)


def interactive_problem(case: InteractiveCase) -> Problem:
    table = {k: dist_of(range(len(case.outcomes)), v) for k, v in case.table.items()}

    def step(state: int, answer: int, ctx: Any) -> tuple[Any, str]:
        return case.outcomes[ctx.draw(table[(state, answer)])]

    mechanism = Interactive("fuzz-interactive", tuple(range(case.letters)), dict(case.starts), step)
    return Problem("fuzz-interactive", mechanism, InteractiveDP(1), case.horizon)


def case_interactive(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_interactive(rng)
    ratio = interactive_brute_ratio(case)
    check.used("brute-force")
    exact_engine_checks(check, interactive_problem(case), ratio)
    return f"{case!r}; brute ε* = ln({ratio_text(ratio)})"


# ---------------------------------------------------------------- parametric model files (SMT)


def parametric_case(
    rng: random.Random,
) -> tuple[HMMCase, dict[str, dict[str, str]], Callable[[Fraction], HMMCase]]:
    """An HMM whose first emission row (and maybe one initial vector) depend on ``p``.

    Returns the case at a placeholder value, the model-file rows written with
    ``p``, and the function giving the rational case at a value of ``p``.
    """
    base = random_hmm(rng, max_states=3)
    base = HMMCase(
        base.states,
        base.observations,
        base.transition,
        base.emission,
        base.initial,
        base.pairs,
        min(base.horizon, 3),
    )
    m = len(base.observations)
    row = rng.randrange(len(base.states))
    texts = ["p", "1-p"] if m == 2 else ["p/2", "p/2", "1-p"]
    rows = {f"emissions.{base.states[row]}": dict(zip(base.observations, texts, strict=True))}
    parametric_initial = rng.random() < 0.5
    if parametric_initial:
        rows[f"initial.{base.pairs[0][0]}"] = {base.states[0]: "p", base.states[1]: "1-p"}

    def at(value: Fraction) -> HMMCase:
        emission = list(base.emission)
        emission[row] = (value, 1 - value) if m == 2 else (value / 2, value / 2, 1 - value)
        initial = dict(base.initial)
        if parametric_initial:
            n = len(base.states)
            initial[base.pairs[0][0]] = (value, 1 - value, *([F(0)] * (n - 2)))
        return HMMCase(
            base.states,
            base.observations,
            base.transition,
            tuple(emission),
            initial,
            base.pairs,
            base.horizon,
        )

    return base, rows, at


def with_parameter(text: str, value: Fraction | None) -> str:
    data = json.loads(text)
    data["parameters"] = {
        "p": {"domain": "(0, 1)"} if value is None else {"domain": "(0, 1)", "value": str(value)}
    }
    return json.dumps(data, indent=1)


def case_parametric(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    base, rows, at = parametric_case(rng)
    value = F(rng.randint(1, 9), 10) if rng.random() < 0.5 else F(rng.randint(1, 6), 7)
    case = at(value)
    ratio = hmm_brute_ratio(case)
    check.used("brute-force")
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "fuzz.json")
        Path(path).write_text(with_parameter(hmm_yaml(base, rows), value))
        check_epsilon(check, "exact-float", ratio, lambda: faier.epsilon(path))
        check_epsilon(
            check, "exact-rational", ratio, lambda: faier.epsilon(path, arithmetic="exact")
        )
        check_boundaries(check, "exact-float", ratio, lambda e: faier.verify(path, e).verdict)
        if rng.random() < rates.smt:
            check_boundaries(
                check,
                "smt-z3",
                ratio,
                lambda e: faier.verify(path, e, engine="smt", solver="z3", timeout=60).verdict,
            )
            check_epsilon(
                check,
                "smt-z3",
                ratio,
                lambda: faier.epsilon(path, engine="smt", solver="z3", timeout=60),
            )
        if rng.random() < rates.cli:
            cli_checks(check, path, ratio, rng, rates)
        if rng.random() < rates.smt_free:
            free = str(Path(tmp) / "free.json")
            Path(free).write_text(with_parameter(hmm_yaml(base, rows), None))
            free_parameter_checks(check, free, at, rng)
    return f"{case!r} with p = {value} in rows {rows}; brute ε* = ln({ratio_text(ratio)})"


def free_parameter_checks(
    check: Checker, path: str, at: Callable[[Fraction], HMMCase], rng: random.Random
) -> None:
    """SMT over p ∈ (0, 1): 'holds' must hold at sampled points, 'violated' at its own point."""
    check.used("smt-z3-free")
    claim = rng.choice(["ln(2)", "ln(3)", "ln(3/2)", "1.5"])
    bound = {"ln(2)": F(2), "ln(3)": F(3), "ln(3/2)": F(3, 2)}.get(claim)
    try:
        result = faier.verify(path, claim, engine="smt", solver="z3", timeout=60)
    except Exception as exc:
        check.crash(f"smt-z3 free p, verify {claim}", exc)
        return
    points = [F(i, 13) for i in range(1, 13)]
    if result.verdict is Verdict.HOLDS:
        for point in points:
            worst = hmm_brute_ratio(at(point))
            fails = worst is None or (
                worst > bound if bound is not None else math.log(worst) > 1.5 + 1e-12
            )
            check.expect(
                not fails,
                f"smt-z3: holds for all p at ε = {claim}, "
                f"but at p = {point} ε* = ln({ratio_text(worst)})",
            )
    elif result.verdict is Verdict.VIOLATED:
        assert result.parametric is not None
        (chosen,) = result.parametric.point
        worst = hmm_brute_ratio(at(chosen.value))
        holds = worst is not None and (
            worst <= bound if bound is not None else math.log(worst) < 1.5 - 1e-12
        )
        check.expect(
            not holds,
            f"smt-z3: violated at p = {chosen.value} for ε = {claim}, "
            f"but there ε* = ln({ratio_text(worst)})",
        )
    else:
        check.report.notes.append(f"smt free p: unknown ({result.reason})")


# ---------------------------------------------------------------- dpCTL* on Markov chains


def random_state_formula(rng: random.Random, leaves: int) -> Any:
    from faier.logic.syntax import And, Atom, Const, Not

    if leaves <= 1 or rng.random() < 0.5:
        return rng.choice([Atom("a"), Atom("b"), Const(True)])
    if rng.random() < 0.4:
        return Not(random_state_formula(rng, leaves - 1))
    return And(
        random_state_formula(rng, leaves // 2), random_state_formula(rng, leaves - leaves // 2)
    )


def random_path_formula(rng: random.Random, leaves: int) -> Any:
    from faier.logic.syntax import And, Finally, Globally, Next, Not, Or, Until

    if leaves <= 1 or rng.random() < 0.25:
        return random_state_formula(rng, 2)
    choice = rng.randrange(7)

    def sub(n: int) -> Any:
        return random_path_formula(rng, n)

    steps = rng.randint(0, 2)
    if choice == 0:
        return Next(sub(leaves - 1))
    if choice == 1:
        return Until(sub(leaves // 2), sub(leaves - leaves // 2), steps)
    if choice == 2:
        return Finally(sub(leaves - 1), steps)
    if choice == 3:
        return Globally(sub(leaves - 1), steps)
    if choice == 4:
        return Not(sub(leaves - 1))
    if choice == 5:
        return And(sub(leaves // 2), sub(leaves - leaves // 2))
    return Or(sub(leaves // 2), sub(leaves - leaves // 2))


def shown(verdicts: dict[str, Verdict]) -> dict[str, str]:
    return {s: v.value for s, v in verdicts.items()}


def exp_bound(decimal_text: str) -> Fraction:
    """e^ε for a decimal ε, to 60 digits: no probability ratio here is that close to it."""
    import decimal

    with decimal.localcontext() as context:
        context.prec = 60
        return F(decimal.Decimal(decimal_text).exp())


def case_dpctl(seed: int, rates: Rates, check: Checker) -> str:
    import dpctl_reference as dref

    from faier.logic import check as dpctl_check
    from faier.logic import logic_model, markov_chain, probabilities
    from faier.logic.neighbours import NeighbourRelation
    from faier.logic.printer import format_formula

    rng = random.Random(seed)
    states = [f"s{i}" for i in range(rng.randint(2, 4))]
    table = {}
    for s in states:
        support = rng.sample(states, rng.randint(1, min(3, len(states))))
        table[s] = dict(zip(support, weights(rng, len(support), zeros=False), strict=True))
    labels = {name: rng.sample(states, rng.randint(0, len(states))) for name in ("a", "b")}
    path = random_path_formula(rng, 4)
    while dref.depth(path) > 5:
        path = random_path_formula(rng, 3)
    chain = markov_chain(table, states=states, labels=labels)
    pairs = list(itertools.pairwise(states))
    relation = NeighbourRelation.from_pairs(states, pairs)
    model = logic_model("random", chain, neighbours=relation, labels=("a", "b"))
    lab = {s: chain.label(s) for s in chain.states}
    values = {s: dref.bounded_probability(chain.transitions, lab, path, s) for s in states}
    text = format_formula(path)
    description = f"chain {table}, labels {labels}, path formula {text}"
    check.used("brute-force")
    check.used("storm")
    try:
        storm = probabilities(model, path)
    except Exception as exc:
        check.crash(f"storm probabilities of {text}", exc)
        return description
    for s in states:
        check.expect(
            storm[s] == values[s], f"storm: Pr({s}, {text}) = {storm[s]}, brute force {values[s]}"
        )
    ratios = [
        ref.max_ratio({0: values[x]}, {0: values[y]}) for a, b in pairs for x, y in ((a, b), (b, a))
    ]
    tight = ref._max_or_none(ratios)
    if tight is not None:
        tight = max(tight, F(1))

    def per_state(claim: str, delta: str) -> dict[str, Verdict]:
        result = dpctl_check(model, f"D{{{claim}, {delta}}}[{text}]")
        return dict(result.states)

    def expected(c: Fraction | float, d: Fraction) -> dict[str, Verdict]:
        out = {}
        for s in states:
            ok = all(
                values[s] <= c * values[t] + d and values[t] <= c * values[s] + d
                for t in relation.neighbours(s)
            )
            out[s] = Verdict.HOLDS if ok else Verdict.VIOLATED
        return out

    delta = rng.choice([F(0), F(0), F(1, 10)])
    claims: list[tuple[str, Fraction | float]] = []
    if tight is None:
        claims.append(("ln(1000)", F(1000)))
    else:
        claims += [(f"ln({tight})", tight), (f"ln({tight * (1 + TINY)})", tight * (1 + TINY))]
        if tight * (1 - TINY) >= 1:
            claims.append((f"ln({tight * (1 - TINY)})", tight * (1 - TINY)))
        value = math.log(tight)
        above, below = f"{value + 1e-6:.15f}", f"{value - 1e-6:.15f}"
        claims.append((above, float(above)))
        if value > 1e-5:
            claims.append((below, float(below)))
    for claim, c in claims:
        try:
            got = per_state(claim, str(delta))
        except Exception as exc:
            check.crash(f"dpctl check D{{{claim}, {delta}}}[{text}]", exc)
            continue
        want = expected(c if isinstance(c, Fraction) else exp_bound(claim), delta)
        check.expect(
            got == want,
            f"dpctl: D{{{claim}, {delta}}}[{text}] per state {shown(got)}, "
            f"brute force {shown(want)}",
        )
    return description


# ---------------------------------------------------------------- the statistical tester


TESTER_SLACK = 0.5
"""A tester's rejected ε above ε* by more than this is no longer noise at α = 0.05."""


def program_source(case: ProgramCase) -> str:
    """The case as a user's Python file (``@faier.program``), for the tester."""
    return (
        "from fractions import Fraction\n"
        "import faier\n\n"
        f"FIRST = {case.first!r}\nSECOND = {case.second!r}\nLABEL = {case.label!r}\n\n\n"
        f"@faier.program(inputs=faier.grid({case.length}, {case.top}))\n"
        "def fuzz(x, ctx):\n"
        "    z1 = ctx.draw(faier.Distribution.of({i: p for i, p in enumerate(FIRST[x]) if p}))\n"
        "    z2 = 0\n"
        "    if SECOND is not None:\n"
        "        row = SECOND[(x[0], z1)]\n"
        "        z2 = ctx.draw(faier.Distribution.of({i: p for i, p in enumerate(row) if p}))\n"
        "    return LABEL[(z1, z2)]\n"
    )


def tester_check(check: Checker, case: ProgramCase, ratio: Fraction | None, seed: int) -> None:
    """The tester's lower bound may not exceed ε* by far (a sanity check, never a verdict).

    ``faier bound`` also recomputes ε* exactly from the file: that part must
    equal the brute force exactly.
    """
    from faier import testing

    check.used("tester")
    relation = f"{'every' if case.privacy == 'every' else 'one'}-query:{case.delta}"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz_program.py"
        path.write_text(program_source(case))
        try:
            report = testing.bound(
                str(path),
                samples=20_000,
                selection_samples=5_000,
                seed=seed % 2**31,
                workers=1,
                neighbours=relation,
            )
        except Exception as exc:
            check.crash("tester bound", exc)
            return
    star = None if report.exact is None else report.exact.exact_loss
    check.expect(
        star is not None and star.ratio == ratio,
        f"tester: exact ε* of the file is {star}, brute force ln({ratio_text(ratio)})",
    )
    if report.rejected is not None and ratio is not None:
        check.expect(
            report.rejected <= math.log(ratio) + TESTER_SLACK,
            f"tester: rejected ε = {report.rejected} far above ε* = {math.log(ratio):.6f}",
        )
        if report.rejected > math.log(ratio):
            check.report.notes.append(f"tester rejected {report.rejected} > ε* (within noise)")


# ---------------------------------------------------------------- continuous noise

QUAD_TOL = 1e-6
"""Tolerance on log-ratios from numerical integration: nearer the claim is not a disagreement."""
PROB_TOL = 1e-9
"""Absolute tolerance on probabilities from scipy quad and closed forms in floats."""
SAMPLE_LEVEL = 1e-7
"""Two-sided level of the Clopper–Pearson check of certified probabilities against samples."""
SHAPES = ("max", "svt", "count", "histogram", "svt-cutoff", "isvt1", "max-value", "isvt4")


@dataclass(frozen=True)
class ContinuousCase:
    """A small program with Laplace/exponential noise over {0..m}ⁿ, every-query ±1 neighbours.

    ``shape``: ``max`` (Noisy Max index), ``max-value`` (Noisy Max releasing the
    largest noisy value), ``svt`` (each query against a threshold with one
    shared threshold noise, ⊤/⊥ per query), ``svt-cutoff`` (the same, halting
    after ``cutoff`` ⊤ answers), ``isvt1`` (no query noise: StatDP's iSVT 1),
    ``count`` (the number of ⊤ of the svt comparisons), ``histogram`` (every
    answer plus Lap noise) or ``isvt4`` (StatDP's iSVT 4 with cutoff 1: ⊥ per
    query below the threshold, then the first noisy answer above it).
    """

    shape: str
    n: int
    noise: str
    scale: Fraction
    threshold_scale: Fraction
    threshold: Fraction
    claim: Fraction
    m: int = 1
    cutoff: int | None = None


def random_continuous(rng: random.Random) -> ContinuousCase:
    shape = rng.choice(SHAPES)
    noise = "exponential" if shape in ("max", "max-value") and rng.random() < 0.4 else "laplace"
    wide = shape in ("max-value", "histogram")
    m = 2 if rng.random() < 0.3 and shape != "isvt4" else 1
    n = rng.randint(1, 2 if shape == "isvt4" else 3 if wide or m == 2 else 4)
    return ContinuousCase(
        shape,
        n,
        noise,
        F(rng.randint(1, 12), rng.randint(1, 6)),
        F(rng.randint(1, 12), rng.randint(1, 6)),
        F(rng.randint(-4, 8), rng.randint(1, 4)),
        F(rng.randint(1, 40), 10),
        m,
        rng.randint(1, n) if shape == "svt-cutoff" else None,
    )


PRECISE = [False]
"""Set while a disagreement is rechecked: the references integrate with mpmath at 40 digits
(scipy's quad loses relative accuracy on probabilities near e^(−30))."""


def _exp(t: float) -> float:
    """e^t: while rechecking an mpmath number at 40 digits, which stands in for a float."""
    if PRECISE[0]:
        import mpmath

        precise: float = mpmath.exp(t)
        return precise
    return math.exp(t)


def _pdf(noise: str, b: float, t: float) -> float:
    if noise == "laplace":
        return _exp(-abs(t) / b) / (2 * b)
    return _exp(-t / b) / b if t >= 0 else 0.0


def _cdf(noise: str, b: float, t: float) -> float:
    if noise == "laplace":
        return 0.5 * _exp(t / b) if t < 0 else 1 - 0.5 * _exp(-t / b)
    return 1 - _exp(-t / b) if t >= 0 else 0.0


def _mp_quad(f: Callable[[float], float], points: Sequence[float]) -> float:
    import mpmath

    with mpmath.workdps(40):
        return float(mpmath.quad(f, [mpmath.mpf(p) for p in points]))


def _quad(f: Callable[[float], float], breaks: Sequence[float]) -> float:
    """∫_ℝ f split at its kinks (scipy quad, tails to ±∞; mpmath when rechecking)."""
    from scipy import integrate

    edges = [-math.inf, *sorted(set(breaks)), math.inf]
    if PRECISE[0]:
        return _mp_quad(f, edges)
    with warnings.catch_warnings():  # a relative tolerance on a zero piece warns; disagreements
        warnings.simplefilter("ignore")  # are rechecked with mpmath anyway
        return float(
            sum(
                integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-12, limit=200)[0]
                for a, b in itertools.pairwise(edges)
            )
        )


def _truncate(pattern: tuple[bool, ...], cutoff: int | None) -> tuple[bool, ...]:
    """The answers a sparse vector run shows: it halts after ``cutoff`` ⊤."""
    if cutoff is None:
        return pattern
    out: list[bool] = []
    for top in pattern:
        out.append(top)
        if sum(out) >= cutoff:
            break
    return tuple(out)


def continuous_reference(case: ContinuousCase, x: tuple[int, ...]) -> dict[Hashable, float]:
    """Output probabilities by numerical integration of the textbook formulas (no faier)."""
    b, bt, big_t = float(case.scale), float(case.threshold_scale), float(case.threshold)
    if case.shape == "max":
        out: dict[Hashable, float] = {}
        for i in range(case.n):

            def star(t: float, i: int = i) -> float:
                value = _pdf(case.noise, b, t - x[i])
                for j in range(case.n):
                    if j != i:
                        value *= _cdf(case.noise, b, t - x[j])
                return value

            out[i + 1] = _quad(star, [float(q) for q in x])
        return out
    out = {}
    for pattern in itertools.product((True, False), repeat=case.n):
        if case.shape == "isvt1":
            # ⊤ at i iff x_i ≥ T + ρ: the pattern is an interval of ρ
            cuts = [(float(q) - big_t, top) for q, top in zip(x, pattern, strict=True)]
            low = max([c for c, top in cuts if not top], default=-math.inf)
            high = min([c for c, top in cuts if top], default=math.inf)
            p = _cdf("laplace", bt, high) - _cdf("laplace", bt, low) if low < high else 0.0
        else:
            # ⊤ at i iff x_i + ν_i ≥ T + ρ: given ρ = r, Pr = 1 − F(T + r − x_i)
            def given(r: float, pattern: tuple[bool, ...] = pattern) -> float:
                value = _pdf("laplace", bt, r)
                for q, top in zip(x, pattern, strict=True):
                    below = _cdf("laplace", b, big_t + r - q)
                    value *= (1 - below) if top else below
                return value

            p = _quad(given, [0.0, *(float(q) - big_t for q in x)])
        key: Hashable = sum(pattern) if case.shape == "count" else _truncate(pattern, case.cutoff)
        out[key] = out.get(key, 0.0) + p
    return out


def _show_continuous(output: Any) -> str:
    if isinstance(output, tuple):
        return "[" + ", ".join(_show_continuous(o) for o in output) + "]"
    return "⊤" if output is True else "⊥" if output is False else str(output)


def continuous_problem(case: ContinuousCase) -> Problem:
    def noise() -> Any:
        if case.noise == "laplace":
            return faier.laplace(0, case.scale)
        return faier.exponential(case.scale)

    def body(x: tuple[int, ...], ctx: Any) -> Any:
        if case.shape in ("max", "max-value"):
            noisy = [q + ctx.draw(noise()) for q in x]
            best = 0
            for i in range(1, len(noisy)):
                if noisy[i] > noisy[best]:
                    best = i
            return best + 1 if case.shape == "max" else noisy[best]
        if case.shape == "histogram":
            return tuple(q + ctx.draw(noise()) for q in x)
        rho = ctx.draw(faier.laplace(0, case.threshold_scale))
        if case.shape == "isvt1":
            return tuple(q >= case.threshold + rho for q in x)
        if case.shape == "isvt4":
            shown: list[Any] = []
            for q in x:
                noisy = q + ctx.draw(noise())
                if noisy >= case.threshold + rho:
                    shown.append(noisy)
                    break
                shown.append(False)
            return tuple(shown)
        tops: list[bool] = []
        for q in x:
            tops.append(q + ctx.draw(noise()) >= case.threshold + rho)
            if case.cutoff is not None and sum(tops) >= case.cutoff:
                break
        return sum(tops) if case.shape == "count" else tuple(tops)

    program = faier.Program(
        "fuzz-continuous", body, grid(case.n, case.m), output_name=_show_continuous
    )
    return Problem("fuzz-continuous", program, DifferentialPrivacy(EveryQuery(1)))


def continuous_inputs(case: ContinuousCase) -> list[tuple[int, ...]]:
    return list(itertools.product(range(case.m + 1), repeat=case.n))


def continuous_pairs(case: ContinuousCase) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every ordered pair of distinct inputs whose answers all differ by at most 1."""
    inputs = continuous_inputs(case)
    return [
        (x, y)
        for x, y in itertools.permutations(inputs, 2)
        if max(abs(a - c) for a, c in zip(x, y, strict=True)) <= 1
    ]


def _log_value_density(case: ContinuousCase, x: tuple[int, ...], t: Any) -> Any:
    """log of the density of max_i (x_i + noise_i) at t (numpy arrays, log space)."""
    import numpy as np
    from scipy import special

    b = float(case.scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        if case.noise == "laplace":
            pdfs = [-np.abs(t - q) / b - math.log(2 * b) for q in x]
            cdfs = [
                np.where(t < q, (t - q) / b - math.log(2), np.log1p(-0.5 * np.exp(-(t - q) / b)))
                for q in x
            ]
        else:
            pdfs = [np.where(t >= q, -(t - q) / b - math.log(b), -np.inf) for q in x]
            cdfs = [
                np.where(t > q, np.log(-np.expm1(-np.maximum(t - q, 1e-300) / b)), -np.inf)
                for q in x
            ]
    terms = [pdfs[i] + sum(cdfs[j] for j in range(len(x)) if j != i) for i in range(len(x))]
    return special.logsumexp(np.array(terms), axis=0)


def _value_cdf(case: ContinuousCase, x: tuple[int, ...], t: float) -> float:
    """Pr[max_i (x_i + noise_i) < t] = Π_i F(t − x_i)."""
    return math.prod(_cdf(case.noise, float(case.scale), t - q) for q in x)


def _negative_log_ratio(
    case: ContinuousCase, x: tuple[int, ...], y: tuple[int, ...], t: float
) -> float:
    import numpy as np

    point = np.array([t])
    return -float(_log_value_density(case, x, point)[0] - _log_value_density(case, y, point)[0])


def value_reference_epsilon(case: ContinuousCase) -> tuple[float, str]:
    """sup over neighbour pairs and outputs t of ln(f_x(t)/f_y(t)): a dense grid with every
    kink (the answers 0..m), tails at 400 scales, then scipy's bounded search around the
    best points."""
    import numpy as np
    from scipy import optimize

    b = float(case.scale)
    kinks = np.arange(case.m + 1, dtype=float)
    ts = np.unique(
        np.concatenate(
            [
                np.linspace(-30 * b, case.m + 30 * b, 6001),
                kinks,
                kinks + 1e-12,
                kinks - 1e-12,
                [-400 * b, case.m + 400 * b],
            ]
        )
    )
    logs = {x: _log_value_density(case, x, ts) for x in continuous_inputs(case)}
    candidates: list[tuple[float, tuple[int, ...], tuple[int, ...], int]] = []
    for x, y in continuous_pairs(case):
        if case.noise == "exponential" and max(x) != max(y):
            if max(x) < max(y):  # outputs in (max x, max y) are possible under x only
                return math.inf, f"{x} vs {y}: support"
            continue
        valid = ts > max(x) if case.noise == "exponential" else np.ones(ts.shape, dtype=bool)
        ratio = np.where(valid, logs[x] - logs[y], -np.inf)
        k = int(np.argmax(ratio))
        candidates.append((float(ratio[k]), x, y, k))
    candidates.sort(reverse=True)
    best, where = 0.0, ""
    for value, x, y, k in candidates[:5]:
        lo, hi = ts[max(k - 1, 0)], ts[min(k + 1, len(ts) - 1)]
        if hi > lo:
            found = optimize.minimize_scalar(
                functools.partial(_negative_log_ratio, case, x, y),
                bounds=(lo, hi),
                method="bounded",
                options={"xatol": 1e-12},
            )
            value = max(value, -float(found.fun))
        if value > best:
            best, where = value, f"{x} vs {y} near t = {ts[k]:.6g}"
    return best, where


def _isvt4_inner(case: ContinuousCase, x: tuple[int, ...], k: int, top: float) -> float:
    """∫_{−∞}^{top} pdf_ρ(r) Π_{i<k} F(T + r − x_i) dr: the first k queries stay below."""
    from scipy import integrate

    b, bt, big_t = float(case.scale), float(case.threshold_scale), float(case.threshold)

    def f(r: float) -> float:
        value = _pdf("laplace", bt, r)
        for q in x[:k]:
            value *= _cdf("laplace", b, big_t + r - q)
        return value

    edges = sorted({v for v in (0.0, *(float(q) - big_t for q in x[:k])) if v < top})
    points = [-math.inf, *edges, top]
    if PRECISE[0]:
        return _mp_quad(f, points)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(
            sum(
                integrate.quad(f, a, c, epsabs=0.0, epsrel=1e-12, limit=200)[0]
                for a, c in itertools.pairwise(points)
                if c > a
            )
        )


def isvt4_mass(case: ContinuousCase, x: tuple[int, ...], output: tuple[Any, ...]) -> float:
    """The density of (⊥^k, v) at v, or the probability of (⊥, …, ⊥) (no number)."""
    if all(o is False for o in output):
        return _isvt4_inner(case, x, len(x), math.inf)
    k = len(output) - 1
    v = float(output[-1])
    b, big_t = float(case.scale), float(case.threshold)
    return _pdf("laplace", b, v - x[k]) * _isvt4_inner(case, x, k, v - big_t)


def isvt4_reference_epsilon(case: ContinuousCase) -> float:
    """The largest log ratio over neighbour pairs, skeletons and a grid of released values
    with every kink and tails at 60 scales (a lower bound of ε*)."""
    b = float(max(case.scale, case.threshold_scale))
    kinks = [*range(case.m + 1), float(case.threshold)]
    grid_v = sorted(
        {
            *kinks,
            *(k + d for k in kinks for d in (-1e-9, 1e-9)),
            *(-15 * b + (case.m + 30 * b) * i / 60 for i in range(61)),
            -60 * b,
            case.m + 60 * b,
        }
    )
    outputs: list[tuple[Any, ...]] = [tuple([False] * case.n)]
    for k in range(case.n):
        outputs += [(*([False] * k), v) for v in grid_v]
    table = {x: [isvt4_mass(case, x, o) for o in outputs] for x in continuous_inputs(case)}
    best = 0.0
    for x, y in continuous_pairs(case):
        for p, q in zip(table[x], table[y], strict=True):
            if 0 < p < sys.float_info.min or 0 < q < sys.float_info.min:
                continue  # subnormal: too few digits for a ratio (a far tail point)
            if p > 0:
                best = max(best, math.inf if q <= 0 else math.log(p / q))
    return best


def _parse_output(text: str) -> tuple[Any, ...]:
    """``[⊥, 7/4]`` back to (False, Fraction(7, 4))."""
    items = [s.strip() for s in text.strip("[]").split(",") if s.strip()]
    return tuple(False if s == "⊥" else True if s == "⊤" else Fraction(s) for s in items)


def judge_isvt4(
    check: Checker, case: ContinuousCase, result: Result, verdict: Result, reference: float
) -> None:
    """The certified ε* and verdict against the grid's largest log ratio and the masses."""
    near = max(QUAD_TOL, QUAD_TOL * reference)
    enclosure = result.enclosure
    if enclosure is None:
        check.report.notes.append(f"unknown ε* ({result.reason})")
    else:
        check.expect(
            reference <= enclosure.upper + near,
            f"certified ε* ≤ {enclosure.upper!r}, but a grid point's log ratio is {reference!r}",
        )
        check.expect(
            enclosure.lower <= reference + max(1e-3, 1e-3 * reference),
            f"certified ε* ≥ {enclosure.lower!r}, largest log ratio on the grid {reference!r}",
        )
    claim = float(case.claim)
    if verdict.verdict is Verdict.UNKNOWN or verdict.verdict is None:
        check.report.notes.append(f"unknown at ε={case.claim} ({verdict.reason})")
    elif verdict.verdict is Verdict.HOLDS:
        check.expect(
            reference < claim + near, f"holds at ε={case.claim}, a grid log ratio {reference!r}"
        )
    else:
        witness = verdict.certified_witness
        check.expect(witness is not None, f"violated at ε={case.claim} without a witness")
        if witness is not None and not math.isinf(witness.ratio.lower):
            output = _parse_output(witness.output)
            p = isvt4_mass(case, tuple(witness.left_value), output)
            q = isvt4_mass(case, tuple(witness.right_value), output)
            check.expect(
                math.isclose(witness.p.middle, p, rel_tol=1e-8, abs_tol=1e-300)
                and math.isclose(witness.q.middle, q, rel_tol=1e-8, abs_tol=1e-300)
                and p > math.exp(claim) * q * (1 - 1e-8),
                f"witness {witness.left_value} vs {witness.right_value} → {witness.output}: "
                f"certified {witness.p.middle!r}, {witness.q.middle!r}; quad {p!r}, {q!r}",
            )


def case_isvt4(case: ContinuousCase, rng: random.Random, rates: Rates, check: Checker) -> str:
    """iSVT 4: densities and masses of the released outputs by quad; ε* bracketed."""
    reference = isvt4_reference_epsilon(case)
    check.used("numeric-integration")
    problem = continuous_problem(case)
    result = faier.epsilon(problem)
    check.used("certified")
    verdict = faier.verify(problem, str(case.claim))
    first = Checker(CaseReport(check.report.kind, check.report.seed))
    judge_isvt4(first, case, result, verdict, reference)
    if first.report.disagreements:
        PRECISE[0] = True
        try:
            reference = isvt4_reference_epsilon(case)
            check.used("mpmath")
            first = Checker(CaseReport(check.report.kind, check.report.seed))
            judge_isvt4(first, case, result, verdict, reference)
        finally:
            PRECISE[0] = False
    check.report.disagreements += first.report.disagreements
    check.report.notes += first.report.notes
    if rng.random() < rates.certify:
        isvt4_event_checks(check, case, rng, rates)
    return f"{case!r}; grid ε* ≥ {reference!r}"


def isvt4_event_checks(
    check: Checker, case: ContinuousCase, rng: random.Random, rates: Rates
) -> None:
    """Pr[k ⊥ then a released value in [a, c)] (the tester's count × interval events)."""
    from scipy import integrate

    from faier.engines.certified.integrate import Unsupported
    from faier.engines.statistical import events as ev
    from faier.engines.statistical.certified_events import EventMeasurer

    mechanism = continuous_problem(case).mechanism
    assert isinstance(mechanism, faier.Program)
    measurer = EventMeasurer(mechanism)
    check.used("certify-events")
    x = rng.choice(continuous_inputs(case))
    k = rng.randrange(case.n)
    a = rng.randint(-6, 4) / 2
    c = a + rng.randint(1, 8) / 2
    event = ev.Event(
        (
            ev.Condition(ev.Feature(ev.COUNT, category=False), k, k, True),
            ev.Condition(ev.Feature(rng.choice([ev.MAX, ev.MIN, ev.AVG])), a, c),
        )
    )
    try:
        enclosure = measurer.measure(x, event).enclosure()
    except Unsupported as exc:
        check.report.notes.append(f"unknown event probability ({exc})")
        return
    expected = integrate.quad(
        lambda v: isvt4_mass(case, x, (*([False] * k), v)), a, c, epsabs=1e-13, limit=200
    )[0]
    _expect_enclosed(check, event, x, enclosure, expected, "quad")
    if rng.random() < rates.samples:
        import numpy as np

        check.used("sampling")
        size = 200_000
        gen = np.random.default_rng(rng.randrange(2**32))
        noisy = np.array(x, float) + gen.laplace(scale=float(case.scale), size=(size, case.n))
        above = (
            noisy
            >= float(case.threshold)
            + gen.laplace(scale=float(case.threshold_scale), size=size)[:, None]
        )
        drawn: list[Any] = []
        for row, hits in zip(noisy.tolist(), above.tolist(), strict=True):
            first = hits.index(True) if True in hits else None
            drawn.append(
                tuple([False] * case.n) if first is None else (*([False] * first), row[first])
            )
        _expect_sampled(check, event, x, enclosure, drawn)


def continuous_reference_epsilon(
    case: ContinuousCase,
) -> tuple[float, dict[tuple[int, ...], dict[Hashable, float]]]:
    """Brute-force ε* over every neighbour pair of the grid."""
    if case.shape == "histogram":
        # the density ratio's supremum: Π e^{|x_i − y_i|/b}, largest when every answer moves
        return case.n / float(case.scale), {}
    if case.shape == "max-value":
        return value_reference_epsilon(case)[0], {}
    table = {x: continuous_reference(case, x) for x in continuous_inputs(case)}
    best = 0.0
    for x, y in continuous_pairs(case):
        for o, p in table[x].items():
            q = table[y].get(o, 0.0)
            if p > 0:
                best = max(best, math.inf if q <= 0 else math.log(p / q))
    return best, table


def _random_event(rng: random.Random, case: ContinuousCase) -> Any:
    """An event of the kinds the tester selects for this output type."""
    from faier.engines.statistical import events as ev

    if case.shape == "max":
        k = float(rng.randint(1, case.n))
        return ev.Event((ev.Condition(ev.Feature(ev.VALUE, 0, scalar=True), k, k, True),))
    if case.shape == "count":
        k = float(rng.randint(0, case.n))
        return ev.Event((ev.Condition(ev.Feature(ev.VALUE, 0, scalar=True), k, k, True),))
    if case.shape in ("max-value", "histogram"):
        a = rng.choice([-math.inf, rng.randint(-8, 6) / 2])
        c = rng.choice([math.inf, (a if math.isfinite(a) else -4) + rng.randint(1, 10) / 2])
        if case.shape == "max-value":
            feature = ev.Feature(ev.VALUE, 0, scalar=True)
        else:
            feature = rng.choice(
                [
                    ev.Feature(ev.VALUE, rng.randrange(case.n)),
                    ev.Feature(ev.MIN),
                    ev.Feature(ev.MAX),
                ]
            )
        return ev.Event((ev.Condition(feature, a, c),))
    kind = rng.choice(["count", "length", "hamming"])
    if kind == "count":
        k = float(rng.randint(0, case.n))
        return ev.Event(
            (ev.Condition(ev.Feature(ev.COUNT, category=rng.random() < 0.5), k, k, True),)
        )
    if kind == "length":
        k = float(rng.randint(1, case.n))
        return ev.Event((ev.Condition(ev.Feature(ev.LENGTH), k, k, True),))
    reference = tuple(rng.random() < 0.5 for _ in range(case.n))
    k = float(rng.randint(0, case.n))
    return ev.Event(
        (ev.Condition(ev.Feature(ev.HAMMING, reference=ev.Reference(reference)), k, k, True),)
    )


def _event_reference(case: ContinuousCase, x: tuple[int, ...], event: Any, table: Any) -> float:
    """Pr[M(x) ∈ E]: the tester's own event semantics on the reference outputs, or CDFs."""
    from faier.engines.statistical import events as ev
    from faier.mechanisms.sampled import Outputs

    if case.shape == "max-value":
        (condition,) = event.conditions
        return _value_cdf(case, x, condition.high) - _value_cdf(case, x, condition.low)
    if case.shape == "histogram":
        (condition,) = event.conditions
        b, f = float(case.scale), condition.feature

        def cdf(q: int, t: float) -> float:
            return _cdf(case.noise, b, t - q)

        a, c = condition.low, condition.high
        if f.kind == ev.VALUE:
            q = x[f.index]
            return cdf(q, c) - cdf(q, a)
        if f.kind == ev.MIN:
            return math.prod(1 - cdf(q, a) for q in x) - math.prod(1 - cdf(q, c) for q in x)
        return math.prod(cdf(q, c) for q in x) - math.prod(cdf(q, a) for q in x)
    outputs = list(table[x])
    hits = event.mask(Outputs.from_values(outputs))
    return float(sum(table[x][o] for o, hit in zip(outputs, hits, strict=True) if hit))


def _sample_outputs(case: ContinuousCase, x: tuple[int, ...], size: int, seed: int) -> list[Any]:
    """Outputs drawn by numpy, written apart from the program (a third reference)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    b, bt = float(case.scale), float(case.threshold_scale)
    q = np.array(x, dtype=float)
    if case.shape in ("max", "max-value", "histogram"):
        draw = rng.laplace if case.noise == "laplace" else rng.exponential
        noisy = q + (
            draw(scale=b, size=(size, case.n))
            if case.noise == "laplace"
            else draw(b, (size, case.n))
        )
        if case.shape == "max":
            return list((noisy.argmax(axis=1) + 1).tolist())
        if case.shape == "max-value":
            return list(noisy.max(axis=1).tolist())
        return [tuple(row) for row in noisy.tolist()]
    rho = float(case.threshold) + rng.laplace(scale=bt, size=size)
    if case.shape == "isvt1":
        tops = q[None, :] >= rho[:, None]
    else:
        tops = q[None, :] + rng.laplace(scale=b, size=(size, case.n)) >= rho[:, None]
    rows = [tuple(bool(v) for v in row) for row in tops]
    if case.shape == "count":
        return [sum(row) for row in rows]
    return [_truncate(row, case.cutoff) for row in rows]


def certify_checks(
    check: Checker, case: ContinuousCase, rng: random.Random, rates: Rates, table: Any
) -> None:
    """``faier certify``'s event probabilities on random pairs and events against references."""
    from faier.engines.certified.integrate import Unsupported
    from faier.engines.statistical.certified_events import EventMeasurer

    program = continuous_problem(case).mechanism
    assert isinstance(program, faier.Program)
    measurer = EventMeasurer(program)
    check.used("certify-events")
    for _ in range(3):
        x = rng.choice(continuous_inputs(case))
        event = _random_event(rng, case)
        try:
            measure = measurer.measure(x, event)
        except Unsupported as exc:
            check.report.notes.append(f"unknown event probability ({exc})")
            continue
        enclosure = measure.enclosure()
        expected = _event_reference(case, x, event, table)
        _expect_enclosed(check, event, x, enclosure, expected, "reference")
        if rng.random() < rates.samples:
            check.used("sampling")
            drawn = _sample_outputs(case, x, 200_000, rng.randrange(2**32))
            _expect_sampled(check, event, x, enclosure, drawn)


def _expect_enclosed(
    check: Checker, event: Any, x: Any, enclosure: Enclosure, expected: float, source: str
) -> None:
    """A certified event probability contains the reference's value (within PROB_TOL)."""
    check.expect(
        enclosure.lower - PROB_TOL <= expected <= enclosure.upper + PROB_TOL,
        f"Pr[{event.describe()} | {x}] certified [{enclosure.lower!r}, {enclosure.upper!r}], "
        f"{source} {expected!r}",
    )


def _expect_sampled(
    check: Checker, event: Any, x: Any, enclosure: Enclosure, drawn: list[Any]
) -> None:
    """A certified event probability meets the Clopper–Pearson interval of the draws' hits."""
    from faier.engines.statistical.significance import clopper_pearson
    from faier.mechanisms.sampled import Outputs

    size = len(drawn)
    hits = int(event.mask(Outputs.from_values(drawn)).sum())
    low, high = clopper_pearson(hits, size, 1 - SAMPLE_LEVEL)
    check.expect(
        low <= enclosure.upper and enclosure.lower <= high,
        f"Pr[{event.describe()} | {x}] certified [{enclosure.lower!r}, "
        f"{enclosure.upper!r}], {hits}/{size} samples (interval [{low}, {high}])",
    )


def value_density_checks(check: Checker, case: ContinuousCase, rng: random.Random) -> None:
    """The released maximum's exact density against numeric differentiation of its CDF."""
    from faier.engines.certified import balls, densities
    from faier.engines.certified.exppoly import Piecewise
    from faier.engines.certified.symbolic import paths

    program = continuous_problem(case).mechanism
    assert isinstance(program, faier.Program)
    check.used("numeric-differentiation")
    b = float(case.scale)
    for _ in range(2):
        x = rng.choice(continuous_inputs(case))
        run = list(paths(functools.partial(program.body, x)))
        (curve,) = densities.line_densities(run).values()
        assert isinstance(curve, Piecewise), "the maximum of noisy values has a density"
        t = F(rng.randint(-40, 40), 8)
        if any(abs(float(t) - q) < 1e-3 for q in x):
            t += F(1, 16)
        h = 1e-5 * b
        numeric = (_value_cdf(case, x, float(t) + h) - _value_cdf(case, x, float(t) - h)) / (2 * h)
        value = balls.enclose(curve.at(t))
        check.expect(
            math.isclose(value.middle, numeric, rel_tol=1e-5, abs_tol=1e-9),
            f"density of the maximum on {x} at {t}: certified {value.show()}, "
            f"numeric derivative {numeric!r}",
        )


def judge_continuous(
    check: Checker,
    case: ContinuousCase | GaussianCase | DiscreteCase,
    result: Result,
    verdict: Result,
    reference: float,
    table: dict[tuple[int, ...], dict[Hashable, float]],
) -> None:
    """The certified ε* and verdict against the numeric reference ε* and its table."""
    near = max(QUAD_TOL, QUAD_TOL * reference)
    enclosure = result.enclosure
    if enclosure is None:
        check.report.notes.append(f"unknown ε* ({result.reason})")
    elif math.isinf(reference) or math.isinf(enclosure.lower):
        check.expect(
            math.isinf(reference) == math.isinf(enclosure.lower),
            f"certified ε* in [{enclosure.lower!r}, {enclosure.upper!r}], "
            f"numeric reference {reference!r}",
        )
    else:
        check.expect(
            enclosure.lower - near <= reference <= enclosure.upper + near,
            f"certified ε* in [{enclosure.lower!r}, {enclosure.upper!r}], "
            f"numeric reference {reference!r}",
        )
    claim = float(case.claim)
    if verdict.verdict is Verdict.UNKNOWN or verdict.verdict is None:
        check.report.notes.append(f"unknown at ε={case.claim} ({verdict.reason})")
    elif abs(reference - claim) <= near:
        check.report.notes.append(f"boundary: ε={case.claim}, reference {reference!r}")
    elif verdict.verdict is Verdict.HOLDS:
        check.expect(reference < claim, f"holds at ε={case.claim}, reference ε* {reference!r}")
    else:
        check.expect(reference > claim, f"violated at ε={case.claim}, reference ε* {reference!r}")
        witness = verdict.certified_witness
        check.expect(witness is not None, f"violated at ε={case.claim} without a witness")
        if witness is not None and table:
            left = table.get(tuple(witness.left_value), {})
            right = table.get(tuple(witness.right_value), {})
            shown = {_show_continuous(o): o for o in (*left, *right)}
            o = shown.get(witness.output)
            p, q = left.get(o), right.get(o)
            check.expect(
                p is not None
                and q is not None
                and math.isclose(witness.p.middle, p, rel_tol=QUAD_TOL, abs_tol=1e-300)
                and math.isclose(witness.q.middle, q, rel_tol=QUAD_TOL, abs_tol=1e-300),
                f"witness {witness.left_value} vs {witness.right_value} → {witness.output}: "
                f"certified p={witness.p.middle!r}, q={witness.q.middle!r}; reference {p!r}, {q!r}",
            )
        if (
            witness is not None
            and isinstance(case, ContinuousCase)
            and case.shape == "max-value"
            and witness.measure == "density"
        ):
            import numpy as np

            t = float(Fraction(witness.output))
            lp = float(_log_value_density(case, tuple(witness.left_value), np.array([t]))[0])
            lq = float(_log_value_density(case, tuple(witness.right_value), np.array([t]))[0])
            check.expect(
                math.isclose(witness.p.middle, math.exp(lp), rel_tol=1e-9, abs_tol=1e-300)
                and math.isclose(witness.q.middle, math.exp(lq), rel_tol=1e-9, abs_tol=1e-300),
                f"witness densities at {t}: certified {witness.p.middle!r}, "
                f"{witness.q.middle!r}; reference {math.exp(lp)!r}, {math.exp(lq)!r}",
            )


def case_continuous(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_continuous(rng)
    if case.shape == "isvt4":
        return case_isvt4(case, rng, rates, check)
    reference, table = continuous_reference_epsilon(case)
    if rng.random() < 0.5 and math.isfinite(reference):
        # claims near ε* exercise the verdicts where they are hardest
        case = dataclasses.replace(
            case, claim=F(str(round(reference * rng.uniform(0.95, 1.05), 4)))
        )
    check.used("numeric-integration")
    problem = continuous_problem(case)
    result = faier.epsilon(problem)
    check.used("certified")
    verdict = faier.verify(problem, str(case.claim))
    first = Checker(CaseReport(check.report.kind, check.report.seed))
    judge_continuous(first, case, result, verdict, reference, table)
    if first.report.disagreements and case.shape != "max-value":
        PRECISE[0] = True
        try:
            reference, table = continuous_reference_epsilon(case)
        finally:
            PRECISE[0] = False
        check.used("mpmath")
        first = Checker(CaseReport(check.report.kind, check.report.seed))
        judge_continuous(first, case, result, verdict, reference, table)
    check.report.disagreements += first.report.disagreements
    check.report.notes += first.report.notes
    if case.shape == "max-value":
        value_density_checks(check, case, rng)
    if rng.random() < rates.certify:
        certify_checks(check, case, rng, rates, table)
    return f"{case!r}; numeric ε* = {reference!r}"


# ---------------------------------------------------------------- Gaussian and integer noise

GAUSS_SHAPES = ("max", "svt", "svt-cutoff", "mechanism")
DISCRETE_SHAPES = ("clamp", "threshold", "argmax")
DELTA_TOL = 1e-7
"""Relative tolerance on δ from quad and closed forms: nearer the claimed δ is a boundary."""


@dataclass(frozen=True)
class GaussianCase:
    """A program with Gaussian noise over {0..m}ⁿ, every-query ±1 neighbours.

    ``shape``: ``max`` (Noisy Max index), ``svt`` / ``svt-cutoff`` (each query
    plus N(0, σ²) against a threshold plus one shared N(0, σ_T²)), ``mechanism``
    (every answer plus N(0, σ²), judged only at (ε, δ): its pure ε* is ∞).
    ``delta``: the δ of the (ε, δ) claim checked beside the pure one.
    """

    shape: str
    n: int
    sigma: Fraction
    threshold_sigma: Fraction
    threshold: Fraction
    claim: Fraction
    delta: Fraction
    m: int = 1
    cutoff: int | None = None


@dataclass(frozen=True)
class DiscreteCase:
    """A program with discrete Laplace or discrete Gaussian noise over {0..m}ⁿ.

    ``shape``: ``clamp`` (every answer plus noise, clamped to [low, high]),
    ``threshold`` (⊤/⊥ per query: answer plus noise ≥ threshold) or ``argmax``
    (the first index of the largest noisy answer, 1-based).
    """

    shape: str
    n: int
    noise: str
    scale: Fraction
    threshold: int
    claim: Fraction
    m: int = 1
    low: int = 0
    high: int = 1


def random_gaussian(rng: random.Random) -> GaussianCase:
    shape = rng.choice(GAUSS_SHAPES)
    m = 2 if rng.random() < 0.3 else 1
    n = rng.randint(1, 2) if shape == "mechanism" else rng.randint(1, 2 if m == 2 else 3)
    if shape == "max":
        n = max(n, 2)
    return GaussianCase(
        shape,
        n,
        F(rng.randint(2, 12), rng.randint(1, 4)),
        F(rng.randint(2, 12), rng.randint(1, 4)),
        F(rng.randint(-4, 8), rng.randint(1, 4)),
        F(rng.randint(1, 40), 10),
        F(rng.randint(1, 999), 10 ** rng.randint(3, 7)),
        m,
        rng.randint(1, n) if shape == "svt-cutoff" else None,
    )


def random_discrete(rng: random.Random) -> DiscreteCase:
    shape = rng.choice(DISCRETE_SHAPES)
    noise = rng.choice(["discrete_laplace", "discrete_gaussian"])
    m = 2 if rng.random() < 0.3 else 1
    n = rng.randint(2 if shape == "argmax" else 1, 2 if shape == "clamp" or m == 2 else 3)
    low = rng.randint(-1, 1)
    return DiscreteCase(
        shape,
        n,
        noise,
        F(rng.randint(1, 12), rng.randint(1, 4)),
        rng.randint(-2, m + 2),
        F(rng.randint(1, 40), 10),
        m,
        low,
        low + rng.randint(0, m + 2),
    )


def _phi(z: float) -> float:
    """The standard normal density (mpmath while rechecking)."""
    return _exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _ncdf(z: float) -> float:
    """Φ(z) with full relative accuracy in both tails (scipy's ndtr; mpmath's ncdf)."""
    if PRECISE[0]:
        import mpmath

        precise: float = mpmath.ncdf(z)  # an mpmath number, standing in for a float
        return precise
    from scipy.special import ndtr

    return float(ndtr(z))


def gaussian_reference(case: GaussianCase, x: tuple[int, ...]) -> dict[Hashable, float]:
    """Output probabilities by quad of the textbook integrals (no faier): Noisy Max
    ∫ φ_σ(t − x_i) Π_{j≠i} Φ_σ(t − x_j) dt; Sparse Vector, over the threshold noise r,
    ∫ φ_T(r) Π (1 − Φ_σ(T + r − x_i)) or Φ_σ(…) dr (the query noises are independent given r)."""
    s, st, big_t = float(case.sigma), float(case.threshold_sigma), float(case.threshold)
    out: dict[Hashable, float] = {}
    if case.shape == "max":
        for i in range(case.n):

            def star(t: float, i: int = i) -> float:
                value = _phi((t - x[i]) / s) / s
                for j in range(case.n):
                    if j != i:
                        value *= _ncdf((t - x[j]) / s)
                return value

            out[i + 1] = _quad(star, [float(q) for q in x])
        return out
    for pattern in itertools.product((True, False), repeat=case.n):

        def given(r: float, pattern: tuple[bool, ...] = pattern) -> float:
            value = _phi(r / st) / st
            for q, top in zip(x, pattern, strict=True):
                z = (big_t + r - q) / s
                value *= _ncdf(-z) if top else _ncdf(z)
            return value

        p = _quad(given, [0.0, *(float(q) - big_t for q in x)])
        key = _truncate(pattern, case.cutoff)
        out[key] = out.get(key, 0.0) + p
    return out


def _delta_of_table(
    table: dict[tuple[int, ...], dict[Hashable, float]],
    pairs: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    eps: float,
) -> float:
    """δ(ε) = max over pairs of Σ_o max(0, P_x(o) − e^ε P_y(o)) (outputs are finite)."""
    return max(
        (
            float(
                sum(max(0.0, p - math.exp(eps) * table[y].get(o, 0.0)) for o, p in table[x].items())
            )
            for x, y in pairs
        ),
        default=0.0,
    )


def gaussian_mechanism_delta(case: GaussianCase, eps: float) -> float:
    """Balle and Wang 2018, Thm 8, by mpmath at 40 digits: δ(ε) = Φ(μ/2 − ε/μ) −
    e^ε Φ(−μ/2 − ε/μ) at the largest L2 shift of a neighbour pair, μ = √n / σ (every answer
    moves by 1).  At 40 digits the difference keeps its relative accuracy when δ(ε) is far
    below both terms, so a claimed δ of 10⁻¹¹ is judged, not left within a float tolerance."""
    import mpmath

    with mpmath.workdps(40):
        mu = mpmath.sqrt(case.n) * case.sigma.denominator / case.sigma.numerator
        e = mpmath.mpf(eps)
        return float(mpmath.ncdf(mu / 2 - e / mu) - mpmath.exp(e) * mpmath.ncdf(-mu / 2 - e / mu))


def gaussian_problem(case: GaussianCase) -> Problem:
    def body(x: tuple[int, ...], ctx: Any) -> Any:
        if case.shape == "mechanism":
            return tuple(q + ctx.draw(faier.gaussian(0, case.sigma)) for q in x)
        if case.shape == "max":
            noisy = [q + ctx.draw(faier.gaussian(0, case.sigma)) for q in x]
            best = 0
            for i in range(1, len(noisy)):
                if noisy[i] > noisy[best]:
                    best = i
            return best + 1
        rho = ctx.draw(faier.gaussian(0, case.threshold_sigma))
        tops: list[bool] = []
        for q in x:
            tops.append(q + ctx.draw(faier.gaussian(0, case.sigma)) >= case.threshold + rho)
            if case.cutoff is not None and sum(tops) >= case.cutoff:
                break
        return tuple(tops)

    program = faier.Program(
        "fuzz-gaussian", body, grid(case.n, case.m), output_name=_show_continuous
    )
    return Problem("fuzz-gaussian", program, DifferentialPrivacy(EveryQuery(1)))


def _window(noise: str, scale: float) -> int:
    """Half-width W of the brute-force sum.  The events of these grids depend on noise values
    |k| ≤ 7 only (answers ≤ 2, thresholds and clamp bounds ≤ 5), so the mass beyond W is below
    e^(−80) (discrete Laplace: e^(−W/t) against e^(−7/t)) or e^(−98) (discrete Gaussian, W ≥
    14σ + 20) times the smallest probability it could change: negligible at float precision."""
    return math.ceil((80 if noise == "discrete_laplace" else 14) * scale) + 20


def discrete_pmf(noise: str, scale: Fraction) -> tuple[int, list[float]]:
    """The noise's probabilities on [−W, W] by a float sum normalised over the window."""
    t = float(scale)
    w = _window(noise, t)
    if noise == "discrete_laplace":
        weights = [_exp(-abs(k) / t) for k in range(-w, w + 1)]
    else:
        weights = [_exp(-k * k / (2 * t * t)) for k in range(-w, w + 1)]
    total = sum(weights)
    return w, [v / total for v in weights]


def discrete_reference(case: DiscreteCase, x: tuple[int, ...]) -> dict[Hashable, float]:
    """Output probabilities by brute-force sums over the noise window (no faier)."""
    w, pmf = discrete_pmf(case.noise, case.scale)
    support = range(-w, w + 1)
    out: dict[Hashable, float] = {}
    if case.shape == "clamp":
        per: list[dict[int, float]] = []
        for q in x:
            d: dict[int, float] = {}
            for z, p in zip(support, pmf, strict=True):
                v = min(max(q + z, case.low), case.high)
                d[v] = d.get(v, 0.0) + p
            per.append(d)
        for combo in itertools.product(*(sorted(d.items()) for d in per)):
            key = tuple(v for v, _ in combo)
            out[key] = math.prod(p for _, p in combo)
        return out
    if case.shape == "threshold":
        above = [
            sum(p for z, p in zip(support, pmf, strict=True) if q + z >= case.threshold) for q in x
        ]
        below = [
            sum(p for z, p in zip(support, pmf, strict=True) if q + z < case.threshold) for q in x
        ]
        for pattern in itertools.product((True, False), repeat=case.n):
            out[pattern] = math.prod(
                a if top else b for a, b, top in zip(above, below, pattern, strict=True)
            )
        return out
    # argmax, first index wins ties: noisy_j < v before i, noisy_j ≤ v after i;
    # at_most[k] = Pr[Z ≤ k − w] by a running sum over the window
    at_most = list(itertools.accumulate(pmf))

    def at_most_bound(bound: int) -> float:
        """Pr[Z ≤ bound] (0 under the window, 1 over it)."""
        k = bound + w
        return 0.0 if k < 0 else 1.0 if k >= len(at_most) else at_most[k]

    for i in range(case.n):
        total = 0.0
        for z, p in zip(support, pmf, strict=True):
            v = x[i] + z
            value = p
            for j in range(case.n):
                if j != i:
                    value *= at_most_bound(v - x[j] - 1) if j < i else at_most_bound(v - x[j])
            total += value
        out[i + 1] = total
    return out


def discrete_problem(case: DiscreteCase) -> Problem:
    def noise() -> Any:
        if case.noise == "discrete_laplace":
            return faier.discrete_laplace(0, case.scale)
        return faier.discrete_gaussian(0, case.scale)

    def body(x: tuple[int, ...], ctx: Any) -> Any:
        noisy = [q + ctx.draw(noise()) for q in x]
        if case.shape == "clamp":
            return tuple(min(max(v, case.low), case.high) for v in noisy)
        if case.shape == "threshold":
            return tuple(v >= case.threshold for v in noisy)
        best = 0
        for i in range(1, len(noisy)):
            if noisy[i] > noisy[best]:
                best = i
        return best + 1

    program = faier.Program(
        "fuzz-discrete", body, grid(case.n, case.m), output_name=_show_continuous
    )
    return Problem("fuzz-discrete", program, DifferentialPrivacy(EveryQuery(1)))


def _grid_pairs(n: int, m: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    inputs = list(itertools.product(range(m + 1), repeat=n))
    return [
        (x, y)
        for x, y in itertools.permutations(inputs, 2)
        if max(abs(a - c) for a, c in zip(x, y, strict=True)) <= 1
    ]


def _table_epsilon(
    reference: Callable[[tuple[int, ...]], dict[Hashable, float]], n: int, m: int
) -> tuple[float, dict[tuple[int, ...], dict[Hashable, float]]]:
    table = {x: reference(x) for x in itertools.product(range(m + 1), repeat=n)}
    best = 0.0
    for x, y in _grid_pairs(n, m):
        for o, p in table[x].items():
            q = table[y].get(o, 0.0)
            if p > 0:
                best = max(best, math.inf if q <= 0 else math.log(p / q))
    return float(best), table


def judge_delta(
    check: Checker,
    claim: Fraction,
    delta: Fraction,
    verdict: Result,
    reference_delta: Callable[[float], float],
    absolute: float = PROB_TOL,
) -> None:
    """A verdict at (ε, δ) against δ(ε) of the reference; a near tie is a boundary
    (``absolute``: the reference's absolute error, 0 for the closed form at 40 digits)."""
    eps = float(claim)
    truth = reference_delta(eps)
    if verdict.verdict is Verdict.UNKNOWN or verdict.verdict is None:
        check.report.notes.append(f"unknown at ε={claim}, δ={delta} ({verdict.reason})")
    elif abs(truth - float(delta)) <= DELTA_TOL * max(truth, float(delta)) + absolute:
        check.report.notes.append(f"boundary: ε={claim}, δ={delta}, reference δ(ε) {truth!r}")
    elif verdict.verdict is Verdict.HOLDS:
        check.expect(
            truth < float(delta), f"holds at ε={claim}, δ={delta}; reference δ(ε) {truth!r}"
        )
    else:
        check.expect(
            truth > float(delta), f"violated at ε={claim}, δ={delta}; reference δ(ε) {truth!r}"
        )


def judge_least_epsilon(
    check: Checker,
    delta: Fraction,
    result: Result,
    reference_delta: Callable[[float], float],
    absolute: float = PROB_TOL,
) -> None:
    """The certified least ε with δ(ε) ≤ δ: δ just below its interval exceeds δ, just above
    it does not (δ(ε) decreases in ε)."""
    e = result.enclosure
    if e is None:
        check.report.notes.append(f"unknown least ε at δ={delta} ({result.reason})")
        return
    d = float(delta)
    slack = DELTA_TOL * d + absolute
    if e.upper < math.inf:
        above = reference_delta(e.upper + QUAD_TOL)
        check.expect(
            above <= d + slack,
            f"least ε at δ={delta} in [{e.lower!r}, {e.upper!r}]; "
            f"reference δ({e.upper + QUAD_TOL!r}) = {above!r}",
        )
    if e.lower > QUAD_TOL:
        below = reference_delta(e.lower - QUAD_TOL)
        check.expect(
            below >= d - slack,
            f"least ε at δ={delta} in [{e.lower!r}, {e.upper!r}]; "
            f"reference δ({e.lower - QUAD_TOL!r}) = {below!r}",
        )


def _near_claim(rng: random.Random, case: Any, reference: float) -> Any:
    if rng.random() < 0.5 and math.isfinite(reference):
        # claims near ε* exercise the verdicts where they are hardest
        return dataclasses.replace(
            case, claim=F(str(round(reference * rng.uniform(0.95, 1.05), 4)))
        )
    return case


def _judged_with_recheck(
    check: Checker,
    case: Any,
    reference_epsilon: Callable[[], tuple[float, dict[tuple[int, ...], dict[Hashable, float]]]],
    judge: Callable[[Checker, float, dict[tuple[int, ...], dict[Hashable, float]]], None],
    first_reference: tuple[float, dict[tuple[int, ...], dict[Hashable, float]]],
) -> None:
    """Judge against the float references; a disagreement counts only if it survives the
    references recomputed with mpmath at 40 digits."""
    reference, table = first_reference
    first = Checker(CaseReport(check.report.kind, check.report.seed))
    judge(first, reference, table)
    if first.report.disagreements:
        import mpmath

        PRECISE[0] = True
        try:
            with mpmath.workdps(40):
                reference, table = reference_epsilon()
        finally:
            PRECISE[0] = False
        table = {x: {o: float(p) for o, p in d.items()} for x, d in table.items()}
        check.used("mpmath")
        first = Checker(CaseReport(check.report.kind, check.report.seed))
        judge(first, float(reference), table)
    check.report.disagreements += first.report.disagreements
    check.report.notes += first.report.notes


def judge_unbounded(check: Checker, case: GaussianCase, result: Result, verdict: Result) -> None:
    """The Gaussian mechanism has no finite pure ε: ε* must be ∞ and a claim never holds; a
    violation's witness densities are recomputed as products of scipy's normal densities and
    their ratio must exceed e^ε."""
    from scipy import stats

    enclosure = result.enclosure
    if enclosure is None:
        check.report.notes.append(f"unknown ε* ({result.reason})")
    else:
        check.expect(
            math.isinf(enclosure.lower),
            f"certified ε* in [{enclosure.lower!r}, {enclosure.upper!r}]; the Gaussian "
            "mechanism has no finite ε",
        )
    if verdict.verdict is Verdict.UNKNOWN or verdict.verdict is None:
        check.report.notes.append(f"unknown at ε={case.claim} ({verdict.reason})")
        return
    check.expect(
        verdict.verdict is Verdict.VIOLATED,
        f"holds at ε={case.claim}; the Gaussian mechanism has no finite ε",
    )
    witness = verdict.certified_witness
    if verdict.verdict is not Verdict.VIOLATED:
        return
    check.expect(witness is not None, f"violated at ε={case.claim} without a witness")
    if witness is None:
        return
    x, y = tuple(witness.left_value), tuple(witness.right_value)
    t = [float(v) for v in _parse_output(witness.output)]
    sigma = float(case.sigma)

    def log_density(at: tuple[int, ...]) -> float:
        return sum(float(stats.norm.logpdf(v, q, sigma)) for v, q in zip(t, at, strict=True))

    # far-out witnesses underflow (σ = 9 needs outputs ~36σ out to exceed e^4): logs decide
    lp, lq = log_density(x), log_density(y)
    check.expect(
        (x, y) in _grid_pairs(case.n, case.m)
        and math.isclose(witness.p.middle, math.exp(lp), rel_tol=1e-9, abs_tol=1e-300)
        and math.isclose(witness.q.middle, math.exp(lq), rel_tol=1e-9, abs_tol=1e-300)
        and math.isclose(math.log(witness.ratio.middle), lp - lq, rel_tol=1e-9, abs_tol=1e-9)
        and lp - lq > float(case.claim) + QUAD_TOL,
        f"witness {x} vs {y} → {witness.output}: certified densities {witness.p.middle!r}, "
        f"{witness.q.middle!r}, ratio {witness.ratio.middle!r}; scipy log densities {lp!r}, "
        f"{lq!r} (claim ε={case.claim})",
    )


def case_gaussian(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_gaussian(rng)
    problem = gaussian_problem(case)
    check.used("certified")
    if case.shape == "mechanism":
        check.used("closed-form")

        def closed(eps: float) -> float:
            return gaussian_mechanism_delta(case, eps)

        truth = closed(float(case.claim))
        if rng.random() < 0.5 and truth > 1e-12:
            case = dataclasses.replace(case, delta=F(f"{truth * rng.uniform(0.9, 1.1):.6g}"))
        verdict = faier.verify(problem, str(case.claim), delta=str(case.delta))
        judge_delta(check, case.claim, case.delta, verdict, closed, absolute=0.0)
        least = faier.epsilon(problem, delta=str(case.delta))
        judge_least_epsilon(check, case.delta, least, closed, absolute=0.0)
        judge_unbounded(check, case, faier.epsilon(problem), faier.verify(problem, str(case.claim)))
        return f"{case!r}; closed-form δ(ε) = {truth!r}"
    check.used("numeric-integration")

    def reference_epsilon() -> tuple[float, dict[tuple[int, ...], dict[Hashable, float]]]:
        return _table_epsilon(lambda x: gaussian_reference(case, x), case.n, case.m)

    reference, table = reference_epsilon()
    case = _near_claim(rng, case, reference)
    pairs = _grid_pairs(case.n, case.m)
    # the (ε, δ) claim sits below ε*, where δ(ε) > 0
    eps_d = F(str(round(reference * rng.uniform(0.1, 0.9), 4))) if reference > 0 else case.claim
    truth = _delta_of_table(table, pairs, float(eps_d))
    if rng.random() < 0.5 and truth > 1e-12:
        case = dataclasses.replace(case, delta=F(f"{truth * rng.uniform(0.9, 1.1):.6g}"))
    result = faier.epsilon(problem)
    verdict = faier.verify(problem, str(case.claim))
    approx = faier.verify(problem, str(eps_d), delta=str(case.delta))
    sampled_least = faier.epsilon(problem, delta=str(case.delta)) if rng.random() < 0.3 else None

    def judge(
        c: Checker, ref_eps: float, tab: dict[tuple[int, ...], dict[Hashable, float]]
    ) -> None:
        judge_continuous(c, case, result, verdict, ref_eps, tab)

        def by_table(eps: float) -> float:
            return _delta_of_table(tab, pairs, eps)

        judge_delta(c, eps_d, case.delta, approx, by_table)
        if sampled_least is not None:
            judge_least_epsilon(c, case.delta, sampled_least, by_table)

    _judged_with_recheck(check, case, reference_epsilon, judge, (reference, table))
    return f"{case!r}; numeric ε* = {reference!r}, δ({eps_d}) = {truth!r}"


def case_discrete(seed: int, rates: Rates, check: Checker) -> str:
    rng = random.Random(seed)
    case = random_discrete(rng)
    problem = discrete_problem(case)
    check.used("certified")
    check.used("brute-force-window")

    def reference_epsilon() -> tuple[float, dict[tuple[int, ...], dict[Hashable, float]]]:
        return _table_epsilon(lambda x: discrete_reference(case, x), case.n, case.m)

    reference, table = reference_epsilon()
    case = _near_claim(rng, case, reference)
    result = faier.epsilon(problem)
    verdict = faier.verify(problem, str(case.claim))

    def judge(
        c: Checker, ref_eps: float, tab: dict[tuple[int, ...], dict[Hashable, float]]
    ) -> None:
        judge_continuous(c, case, result, verdict, ref_eps, tab)

    _judged_with_recheck(check, case, reference_epsilon, judge, (reference, table))
    return f"{case!r}; brute-force ε* = {reference!r}"


# ---------------------------------------------------------------- driver

RUNNERS: dict[str, Callable[[int, Rates, Checker], str]] = {
    "hmm": case_hmm,
    "program": case_program,
    "interactive": case_interactive,
    "parametric": case_parametric,
    "dpctl": case_dpctl,
    "continuous": case_continuous,
    "gaussian": case_gaussian,
    "discrete": case_discrete,
    "models": lambda seed, _rates, check: soundness_models.case_models(seed, check),
    "properties": lambda seed, _rates, check: soundness_properties.case_properties(
        seed, check, check.report.notes
    ),
    "misbehave": lambda seed, _rates, check: soundness_misbehave.case_misbehave(seed, check),
    "scales": lambda seed, _rates, check: soundness_scales.case_scales(seed, check),
    "library": lambda seed, _rates, check: soundness_library.case_library(
        seed, check, check.report.notes
    ),
}


def run_case(kind: str, seed: int, rates: Rates) -> CaseReport:
    """One case in this process; a crash of the case itself is a disagreement too."""
    report = CaseReport(kind, seed)
    check = Checker(report)
    started = time.perf_counter()
    try:
        report.description = RUNNERS[kind](seed, rates, check)
    except Exception as exc:
        check.crash(f"{kind} case", exc)
        report.notes.append(traceback.format_exc())
    report.seconds = time.perf_counter() - started
    if report.disagreements and not report.description:
        report.description = "(generation failed; replay the seed)"
    return report


def run_batch(jobs: Sequence[tuple[str, int]], rates: Rates) -> list[CaseReport]:
    return [run_case(kind, seed, rates) for kind, seed in jobs]


def schedule(kinds: Sequence[str], cases: int, seed: int) -> list[tuple[str, int]]:
    """Case (kind, seed) pairs interleaved by weight; each case seed is reproducible alone."""
    total = sum(WEIGHTS[k] for k in kinds)
    counts = {k: max(1, cases * WEIGHTS[k] // total) for k in kinds}
    while sum(counts.values()) < cases:
        counts[kinds[sum(counts.values()) % len(kinds)]] += 1
    jobs = [(k, seed * 1_000_003 + i) for k in kinds for i in range(counts[k])]
    random.Random(seed).shuffle(jobs)
    return jobs[:cases] if len(jobs) > cases else jobs


def run_all(
    jobs: Sequence[tuple[str, int]], rates: Rates, workers: int, seconds: float | None
) -> tuple[list[CaseReport], float]:
    """Every job, in ``workers`` processes (1: in this one), stopping after ``seconds``."""
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds
    reports: list[CaseReport] = []
    batches = [jobs[i : i + 8] for i in range(0, len(jobs), 8)]
    if workers <= 1:
        for batch in batches:
            if deadline is not None and time.perf_counter() > deadline:
                break
            reports += run_batch(batch, rates)
        return reports, time.perf_counter() - started
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: set[Future[list[CaseReport]]] = set()
        queue = iter(batches)
        while True:
            while len(pending) < 2 * workers and (
                deadline is None or time.perf_counter() < deadline
            ):
                chunk = next(queue, None)
                if chunk is None:
                    break
                pending.add(pool.submit(run_batch, chunk, rates))
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                reports += future.result()
    return reports, time.perf_counter() - started


def unknown_reasons(notes: Sequence[str]) -> list[tuple[str, int]]:
    """Unknown answers grouped by what was asked and why, the claim's numbers left out."""
    shapes = re.compile(r"(ε|δ)=[^ ,()]+|\b\d+(\.\d+)?(e-?\d+)?\b")

    def general(match: re.Match[str]) -> str:
        return f"{match.group(1)}=#" if match.group(1) else "#"

    counts = collections.Counter(shapes.sub(general, n)[:160] for n in notes)
    return counts.most_common()


def summary(reports: Sequence[CaseReport], seconds: float, seed: int, slowest: int = 5) -> str:
    """The table: cases, disagreements and engines per kind, then each disagreement, the slowest."""
    lines = [f"{'kind':<12} {'cases':>6} {'disagree':>9} {'s/case':>8}  engines"]
    for kind in KINDS:
        mine = [r for r in reports if r.kind == kind]
        if not mine:
            continue
        bad = sum(1 for r in mine if r.disagreements)
        engines = sorted({e for r in mine for e in r.engines})
        mean = sum(r.seconds for r in mine) / len(mine)
        lines.append(f"{kind:<12} {len(mine):>6} {bad:>9} {mean:>8.3f}  {', '.join(engines)}")
    bad_reports = [r for r in reports if r.disagreements]
    rate = len(reports) / seconds if seconds else 0.0
    lines.append(
        f"total: {len(reports)} cases, {len(bad_reports)} with disagreements, "
        f"{seconds:.1f} s wall ({rate:.2f} cases/s), seed {seed}"
    )
    unknown = [n for r in reports for n in r.notes if n.startswith("unknown")]
    if unknown:
        lines.append(f"unknown answers (counted, not disagreements): {len(unknown)}")
        lines += [f"  {count:>5}  {why}" for why, count in unknown_reasons(unknown)]
    boundary = sum(1 for r in reports for n in r.notes if n.startswith("boundary"))
    if boundary:
        lines.append(f"claims within the references' tolerance of ε* or δ (not judged): {boundary}")
    for r in bad_reports:
        lines.append(f"\nDISAGREEMENT kind={r.kind} case seed={r.seed}")
        lines.append(
            "  reproduce: .venv/bin/python benchmarks/soundness.py "
            f"--kinds {r.kind} --replay {r.seed}"
        )
        lines += [f"  - {d}" for d in r.disagreements]
        lines.append(f"  case: {r.description}")
    lines.append("\nslowest cases:")
    for r in sorted(reports, key=lambda r: r.seconds, reverse=True)[:slowest]:
        lines.append(
            f"  {r.seconds:7.3f} s  {r.kind:<12} seed {r.seed}  engines: {', '.join(r.engines)}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="number of cases (default 10000)")
    parser.add_argument("--seed", type=int, default=11, help="run seed (default 11)")
    parser.add_argument(
        "--seconds", type=float, default=None, help="stop starting cases after this"
    )
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--replay", type=int, default=None, help="run one case seed of --kinds")
    parser.add_argument("--smt-rate", type=float, default=Rates.smt)
    parser.add_argument("--cli-rate", type=float, default=Rates.cli)
    args = parser.parse_args(argv)
    rates = Rates(smt=args.smt_rate, cli=args.cli_rate)
    if args.replay is not None:
        reports = [run_case(k, args.replay, Rates(1, 1, 1, 1, 1, 1, 1)) for k in args.kinds]
        for r in reports:
            print(f"{r.kind} seed {r.seed}: {r.description}")
            print("\n".join(f"  - {d}" for d in r.disagreements) or "  no disagreement")
            print("\n".join(r.notes))
        return 1 if any(r.disagreements for r in reports) else 0
    jobs = schedule(args.kinds, args.cases, args.seed)
    reports, seconds = run_all(jobs, rates, args.workers, args.seconds)
    print(summary(reports, seconds, args.seed))
    return 1 if any(r.disagreements for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
