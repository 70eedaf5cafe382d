"""The differential fuzzer (benchmarks/soundness.py), short: every kind, fixed seed, 0 disagreements."""

from __future__ import annotations

import importlib.util
import sys
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import mpmath
import pytest

from faier.results import Enclosure

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "soundness.py"


@pytest.fixture(scope="module")
def soundness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("soundness_fuzzer", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_150_cases_across_kinds_agree(soundness: ModuleType) -> None:
    noise = ("continuous", "gaussian", "discrete", "misbehave")  # their own tests below
    kinds = tuple(k for k in soundness.KINDS if k not in noise)
    jobs = soundness.schedule(kinds, 150, seed=2024)
    rates = soundness.Rates(smt=0.3, smt_free=0.2, cli=0.1, subprocess=0.0, tester=0.05)
    reports, _ = soundness.run_all(jobs, rates, workers=1, seconds=None)
    assert len(reports) == 150
    assert {r.kind for r in reports} == set(kinds)
    engines = {e for r in reports for e in r.engines}
    assert {"exact-float", "exact-rational", "brute-force", "storm", "smt-z3", "cli"} <= engines
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 2024)


def test_continuous_cases_agree_with_numeric_integration(soundness: ModuleType) -> None:
    """Two cases of every shape (Noisy Max index and value, Sparse Vector with and without
    a cutoff, iSVT 1, the count of ⊤, the histogram), each with certified events."""
    import random

    seeds: dict[str, list[int]] = {shape: [] for shape in soundness.SHAPES}
    for seed in range(2024 * 1_000_003, 2024 * 1_000_003 + 400):
        shape = soundness.random_continuous(random.Random(seed)).shape
        if len(seeds[shape]) < 2:
            seeds[shape].append(seed)
    jobs = [("continuous", seed) for chosen in seeds.values() for seed in chosen]
    assert len(jobs) == 2 * len(soundness.SHAPES)
    rates = soundness.Rates(certify=1.0, samples=0.0)
    reports, _ = soundness.run_all(jobs, rates, workers=1, seconds=None)
    engines = {e for r in reports for e in r.engines}
    assert engines >= {
        "numeric-integration",
        "certified",
        "certify-events",
        "numeric-differentiation",
    }
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 2024)


def test_gaussian_and_integer_noise_cases_agree_with_references(soundness: ModuleType) -> None:
    """One case of every Gaussian shape (Noisy Max, Sparse Vector with and without a cutoff
    against quad; the Gaussian mechanism's δ(ε) against scipy's closed form) and of every
    integer-noise shape (clamped counts, thresholds, argmax against window sums)."""
    import random

    jobs: list[tuple[str, int]] = []
    for kind, generate in (
        ("gaussian", soundness.random_gaussian),
        ("discrete", soundness.random_discrete),
    ):
        seen: set[tuple[str, str]] = set()
        for seed in range(2024 * 1_000_003, 2024 * 1_000_003 + 400):
            case = generate(random.Random(seed))
            key = (case.shape, getattr(case, "noise", "gaussian"))
            if key not in seen:
                seen.add(key)
                jobs.append((kind, seed))
    assert len(jobs) == len(soundness.GAUSS_SHAPES) + 2 * len(soundness.DISCRETE_SHAPES)
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    engines = {e for r in reports for e in r.engines}
    assert engines >= {"certified", "numeric-integration", "closed-form", "brute-force-window"}
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 2024)


def test_gaussian_and_integer_noise_judges_catch_planted_errors(soundness: ModuleType) -> None:
    """A wrong certified answer must count: the Gaussian mechanism said to hold at a pure ε,
    its witness's density off by 1%, a finite ε* for it; a discrete case's ε* interval
    moved off the window sums, its verdict flipped, its witness probability off by 1%."""
    import dataclasses
    import random
    from fractions import Fraction

    import faier
    from faier.results import Enclosure, Verdict

    def disagreements(judge: object, *args: object) -> list[str]:
        check = soundness.Checker(soundness.CaseReport("planted", 0))
        judge(check, *args)  # type: ignore[operator]
        return list(check.report.disagreements)

    gauss = soundness.GaussianCase(
        "mechanism", 2, Fraction(2), Fraction(1), Fraction(0), Fraction(1), Fraction(1, 100)
    )
    problem = soundness.gaussian_problem(gauss)
    star, verdict = faier.epsilon(problem), faier.verify(problem, "1")
    judge_unbounded = soundness.judge_unbounded
    assert not disagreements(judge_unbounded, gauss, star, verdict)
    witness = verdict.certified_witness
    assert verdict.verdict is Verdict.VIOLATED and witness is not None
    off = dataclasses.replace(witness, p=Enclosure(witness.p.lower * 1.01, witness.p.upper * 1.01))
    finite = dataclasses.replace(star, enclosure=Enclosure(3.0, 3.1))
    for planted in (
        (star, dataclasses.replace(verdict, verdict=Verdict.HOLDS, certified_witness=None)),
        (star, dataclasses.replace(verdict, certified_witness=off)),
        (finite, verdict),
    ):
        assert disagreements(judge_unbounded, gauss, *planted)

    seed = next(
        s for s in range(1, 500) if soundness.random_discrete(random.Random(s)).shape == "threshold"
    )
    case = soundness.random_discrete(random.Random(seed))
    problem = soundness.discrete_problem(case)
    reference, table = soundness._table_epsilon(
        lambda x: soundness.discrete_reference(case, x), case.n, case.m
    )
    case = dataclasses.replace(case, claim=Fraction(str(round(reference * 0.9, 4))))
    star, verdict = faier.epsilon(problem), faier.verify(problem, str(case.claim))
    judge = soundness.judge_continuous
    assert not disagreements(judge, case, star, verdict, reference, table)
    witness = verdict.certified_witness
    assert verdict.verdict is Verdict.VIOLATED and witness is not None and star.enclosure
    moved = Enclosure(star.enclosure.lower + 1e-4, star.enclosure.upper + 1e-4)
    off = dataclasses.replace(witness, q=Enclosure(witness.q.lower * 1.01, witness.q.upper * 1.01))
    for planted in (
        (dataclasses.replace(star, enclosure=moved), verdict),
        (star, dataclasses.replace(verdict, verdict=Verdict.HOLDS, certified_witness=None)),
        (star, dataclasses.replace(verdict, certified_witness=off)),
    ):
        assert disagreements(judge, case, *planted, reference, table)


def test_certified_events_agree_with_samples(soundness: ModuleType) -> None:
    import random

    seed = next(
        s
        for s in range(7, 10_000)
        if soundness.random_continuous(random.Random(s)).shape == "svt-cutoff"
    )
    report = soundness.run_case("continuous", seed, soundness.Rates(certify=1.0, samples=1.0))
    assert "sampling" in report.engines and not report.disagreements, report.disagreements


def test_a_case_replays_identically(soundness: ModuleType) -> None:
    first = soundness.run_case("hmm", 77, soundness.Rates())
    again = soundness.run_case("hmm", 77, soundness.Rates())
    assert first.description == again.description and not first.disagreements


def test_boundary_claims_bracket_the_ratio(soundness: ModuleType) -> None:
    from fractions import Fraction

    from faier.results import Verdict

    claims = dict(soundness.boundary_claims(Fraction(3)))
    assert claims["ln(3)"] is Verdict.HOLDS
    assert claims["ln(2999997/1000000)"] is Verdict.VIOLATED
    assert claims["ln(3000003/1000000)"] is Verdict.HOLDS
    assert [c for c, v in claims.items() if "ln" not in c and v is Verdict.VIOLATED]


def test_prism_jani_and_plain_storm_agree_on_overlapping_synchronised_commands(
    soundness: ModuleType,
) -> None:
    """Kind ``models``: 20 random MDPs, faier on PRISM and on JANI against stormpy alone."""
    jobs = [("models", seed) for seed in range(20)]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert len(reports) == 20
    engines = {e for r in reports for e in r.engines}
    assert {"storm", "faier-prism", "faier-jani"} <= engines
    assert {"storm-rewards", "faier-prism-rewards-answered-in-storm"} <= engines
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)


def test_faier_and_storm_read_random_properties_alike(soundness: ModuleType) -> None:
    """Kind ``properties``: 300 random property strings, faier's parser against Storm's."""
    pytest.importorskip("stormpy")
    jobs = [("properties", seed) for seed in range(300)]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert {"faier-parser", "storm-parser"} <= {e for r in reports for e in r.engines}
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)


def test_misbehaving_mechanisms_never_get_a_verdict(soundness: ModuleType) -> None:
    """Kind ``misbehave``: one case of every misbehaviour (exit, kill, segfault, sys.exit,
    recursion, allocation, SIGINT, print, fork) through verify, epsilon, test and batch.

    Nine whole command runs (a forked child each, a batch job's child too): about 1 s
    each on a quiet machine."""
    seeds = (1, 2, 4, 7, 11, 13, 14, 24, 29)
    jobs = [("misbehave", seed) for seed in seeds]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    cases = [soundness.soundness_misbehave.generate(seed) for seed in seeds]
    assert {c.action for c in cases} == set(soundness.soundness_misbehave.ACTIONS)
    assert {c.command for c in cases} == set(soundness.soundness_misbehave.COMMANDS)
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)


def test_misbehaving_mechanisms_through_the_api_and_from_the_background(
    soundness: ModuleType,
) -> None:
    """The same judges with the Python API as caller (a progress callback given) and with
    the CLI started as a shell starts a background job (SIGINT ignored): os._exit, a
    segmentation fault, a fork, and SIGINT, which such a caller once let pass as exit 0.
    Six whole runs, about 1 s each."""
    seeds = (43, 110, 292, 34, 25, 41)
    cases = [soundness.soundness_misbehave.generate(seed) for seed in seeds]
    assert {c.caller for c in cases} == {"api", "background"}
    assert {c.action for c in cases} == {"exit-hard", "interrupt", "segfault", "fork"}
    jobs = [("misbehave", seed) for seed in seeds]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)


def test_misbehaving_mechanisms_through_the_api_beside_another_thread(
    soundness: ModuleType,
) -> None:
    """The API called while another thread runs (as in a Jupyter kernel): each child is
    forked by the fork server.  Six whole runs, about 1 s each."""
    seeds = (215, 308, 61, 66, 302, 596)
    cases = [soundness.soundness_misbehave.generate(seed) for seed in seeds]
    assert all(c.caller == "api" and c.threaded for c in cases)
    assert {c.action for c in cases} == {
        "exit-hard",
        "segfault",
        "print",
        "kill",
        "fork",
        "interrupt",
    }
    jobs = [("misbehave", seed) for seed in seeds]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)


def test_extreme_scale_cases_agree_with_mpmath(soundness: ModuleType) -> None:
    """One case of every shape of kind ``scales`` (noise scales 10⁻³..10³, closed forms
    in mpmath): ε* intervals, verdicts at ε*·(1 ∓ 10⁻⁶) and witnesses."""
    import soundness_scales

    seeds: dict[str, int] = {}
    for seed in range(2024 * 1_000_003, 2024 * 1_000_003 + 200):
        seeds.setdefault(soundness_scales.generate(seed).shape, seed)
    assert set(seeds) == set(soundness_scales.SHAPES)
    jobs = [("scales", seed) for seed in seeds.values()]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert {"certified", "mpmath-closed-forms"} <= {e for r in reports for e in r.engines}
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 2024)


def test_extreme_scale_judges_catch_planted_errors() -> None:
    """A certified interval moved off the mpmath reference, or a flipped verdict, counts."""
    import soundness_scales

    case = soundness_scales.ScaleCase(
        "threshold", "gaussian", Fraction(1, 100), 1, False, (Fraction(1, 2),)
    )
    with mpmath.workdps(soundness_scales.DIGITS):
        reference = soundness_scales.reference_epsilon(case)
    assert abs(float(reference) - 1254.8313611394) < 1e-9  # ln(Φ(50)/Φ(−50))
    assert soundness_scales._inside(Enclosure(1254.83136113, 1254.83136114), reference)
    assert not soundness_scales._inside(Enclosure(0.0, 0.0), reference)


def test_library_objects_are_decided_only_when_honest(
    soundness: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kind ``library``: 60 diffprivlib objects, honest or tampered with; and the judge
    catches an adapter that decides from parameters without the own-code check."""
    pytest.importorskip("diffprivlib")
    pytest.importorskip("flint")
    jobs = [("library", seed) for seed in range(60)]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert {"adapters", "certified"} <= {e for r in reports for e in r.engines}
    assert any(r.description.startswith("OpenDP") for r in reports)
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 0)
    from faier.adapters import diffprivlib_program, own_code

    trusting = own_code.OwnCode(object, ("randomise",))  # "own" whatever the object does
    monkeypatch.setattr(diffprivlib_program, "own_code", lambda mechanism: trusting)
    monkeypatch.setattr(diffprivlib_program, "state_departure", lambda mechanism: None)
    planted, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert any("decided is True, expected False" in d for r in planted for d in r.disagreements)
