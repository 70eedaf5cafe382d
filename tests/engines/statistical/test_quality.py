"""StatDP's qualitative results (§5, Figs. 2–4) at ε₀ ∈ {0.2, 0.7, 1.5}, as quality tests.

Each claim says at which test ε the p-value must fall to α or below
(evidence of a violation) and at which it must stay above α.  Correct
mechanisms: rejected below ε₀, not rejected above it (Noisy Max and the
histogram within 0.1–0.2 of ε₀; SVT, whose test has less power, at about
half of ε₀).  Incorrect ones: rejected at and well beyond ε₀.  iSVT 3 is
rejected at ε₀ and not at 0.45 > 1.75·ε₀ (its true (1+6N)/4·ε₀ for
ε₀ = 0.2).  iSVT 1 is rejected over the whole range; iSVT 2 up to 0.3 at
ε₀ = 0.2 and to 1.8 at 0.7 (StatDP Fig. 4c: 0.5 and 2.1) and
everywhere at 1.5.  iSVT 4 at ε₀ = 0.2 needs more samples than a test run
affords (its violations are rare), so it is claimed at 0.7 and 1.5 only.

The sample counts are far below StatDP's 500 000 / 100 000 (§5.4) to keep the
suite fast (the sparse vector family gets more: its test has less power);
the fixed seed makes every run reproducible, and the failure budget allows
for the claims that sit close to the edge of the test's power at these
counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from faier.engines.statistical.config import Config
from faier.engines.statistical.subjects import from_sampled
from faier.engines.statistical.tester import run
from faier.mechanisms.library.continuous import SUITE

SAMPLES = {"noisy-max": 60_000, "histogram": 60_000, "svt": 100_000}
SELECTION = {"noisy-max": 12_000, "histogram": 12_000, "svt": 20_000}
SEED = 2018
ALPHA = 0.05
FAILURE_BUDGET = 3
"""At most this many of the 93 checks below may fail."""


@dataclass(frozen=True)
class Claim:
    mechanism: str
    claimed: float
    rejected: tuple[float, ...]
    kept: tuple[float, ...] = ()


def correct(name: str) -> list[Claim]:
    """Rejected below ε₀, not rejected just above it."""
    return [
        Claim(name, 0.2, (0.0, 0.1), (0.3, 0.5)),
        Claim(name, 0.7, (0.3, 0.5), (0.8, 1.0)),
        Claim(name, 1.5, (0.8, 1.3), (1.6, 1.8)),
    ]


SVT = [
    Claim("svt-laplace", 0.2, (0.0,), (0.3, 0.5)),
    Claim("svt-laplace", 0.7, (0.3, 0.4), (0.8, 1.0)),
    Claim("svt-laplace", 1.5, (0.8, 1.0), (1.6, 1.8)),
]


CLAIMS = [
    *correct("noisy-max-laplace"),
    *correct("noisy-max-exponential"),
    *correct("histogram-laplace"),
    *SVT,
    Claim("noisy-max-laplace-value", 0.2, (0.2, 0.4)),
    Claim("noisy-max-laplace-value", 0.7, (0.7, 1.4)),
    Claim("noisy-max-laplace-value", 1.5, (1.5, 2.2)),
    Claim("noisy-max-exponential-value", 0.2, (0.2, 0.4)),
    Claim("noisy-max-exponential-value", 0.7, (0.7, 1.4)),
    Claim("noisy-max-exponential-value", 1.5, (1.5, 2.2)),
    Claim("histogram-laplace-wrong-scale", 0.2, (0.2, 2.2)),
    Claim("histogram-laplace-wrong-scale", 0.7, (0.7, 1.3), (1.6,)),
    Claim("histogram-laplace-wrong-scale", 1.5, (0.5,), (0.8, 1.5)),
    Claim("isvt1-laplace", 0.2, (0.2, 1.0, 2.2)),
    Claim("isvt1-laplace", 0.7, (0.7, 1.5, 2.2)),
    Claim("isvt1-laplace", 1.5, (1.5, 2.2)),
    Claim("isvt2-laplace", 0.2, (0.2, 0.3)),
    Claim("isvt2-laplace", 0.7, (0.7, 1.4, 1.8)),
    Claim("isvt2-laplace", 1.5, (1.5, 2.2)),
    Claim("isvt3-laplace", 0.2, (0.2,), (0.45,)),
    Claim("isvt3-laplace", 0.7, (0.7, 1.0), (1.4,)),
    Claim("isvt3-laplace", 1.5, (1.5, 2.2)),
    Claim("isvt4-laplace", 0.7, (0.7, 0.9)),
    Claim("isvt4-laplace", 1.5, (1.5, 2.2)),
]


def group(name: str) -> str:
    return next(g for g in SAMPLES if g in name)


def failures(claim: Claim) -> list[str]:
    grid = tuple(sorted({*claim.rejected, *claim.kept}))
    subject = from_sampled(SUITE[claim.mechanism], claim.claimed)
    family = group(claim.mechanism)
    config = Config(
        claim.claimed,
        grid,
        samples=SAMPLES[family],
        selection_samples=SELECTION[family],
        seed=SEED,
        alpha=ALPHA,
    )
    report = run(subject, config)
    found = []
    for point in report.points:
        expect_rejected = point.epsilon in claim.rejected
        if point.rejected(ALPHA) != expect_rejected:
            verb = "rejected" if expect_rejected else "kept"
            found.append(
                f"{claim.mechanism} ε₀={claim.claimed}: expected {verb} at ε={point.epsilon}, "
                f"p={point.p_value:.3g}"
            )
    return found


def checks(claims: list[Claim]) -> int:
    return sum(len(c.rejected) + len(c.kept) for c in claims)


def test_every_suite_mechanism_is_claimed() -> None:
    assert {c.mechanism for c in CLAIMS} == set(SUITE)
    assert checks(CLAIMS) == 93


@pytest.mark.parametrize("family", list(SAMPLES))
def test_statdp_results_within_failure_budget(family: str) -> None:
    """Each family may use its share of the budget (at least one failure)."""
    chosen = [c for c in CLAIMS if group(c.mechanism) == family]
    failed = [f for c in chosen for f in failures(c)]
    share = max(1, round(FAILURE_BUDGET * checks(chosen) / checks(CLAIMS)))
    assert len(failed) <= share, "\n".join(failed)
