"""The differential fuzzer (benchmarks/soundness.py), short: every kind, fixed seed, 0 disagreements."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

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
    kinds = tuple(k for k in soundness.KINDS if k != "continuous")  # its own test below
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
    jobs = [("continuous", 2024 * 1_000_003 + i) for i in range(5)]
    reports, _ = soundness.run_all(jobs, soundness.Rates(), workers=1, seconds=None)
    assert {e for r in reports for e in r.engines} >= {"numeric-integration", "certified"}
    bad = [r for r in reports if r.disagreements]
    assert not bad, soundness.summary(reports, 1.0, 2024)


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
