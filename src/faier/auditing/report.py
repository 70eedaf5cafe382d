"""The audit's answer: violated with a witness, unknown with reasons, holds with a proof, or
no violation found.

A search never says "holds": when no pair broke the claim the verdict is
None (the envelope's ``verdict`` is null) and ``outcome`` says "no violation
found in N pairs" with the largest shift-to-scale ratio seen; exit code 0.
Only a structural proof (:mod:`faier.auditing.proof`) beside a search that
found nothing gives "holds".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faier.auditing.pair import Claim, PairOutcome
from faier.auditing.proof import Proof
from faier.results import ExitCode, Verdict


@dataclass(frozen=True)
class AuditReport:
    """What ``faier audit`` found."""

    target: str
    claim: Claim
    relation: str
    pairs: int
    bounds: str
    seed: int
    seconds: float
    witness: PairOutcome | None = None
    largest: PairOutcome | None = None
    undecided: tuple[PairOutcome, ...] = ()
    skipped: tuple[PairOutcome, ...] = ()
    unrecognised: tuple[str, ...] = ()
    seeded: tuple[str, ...] = ()
    reasons: tuple[str, ...] = field(default_factory=tuple)
    """Why the answer is unknown, beyond undecided pairs (nondeterminism, …)."""
    primitives: tuple[str, ...] = ()
    """The primitives the function called on the original data."""
    evidence: tuple[Any, ...] = ()
    """The tester's p-values on undecided pairs (``--test-samples``): evidence, not verdicts."""
    proof: Proof | None = None
    """A proof for every neighbouring pair, within ε (then, and only then, "holds")."""
    no_proof: str = ""
    """Why there is no proof, when there is none."""

    @property
    def verdict(self) -> Verdict | None:
        if self.witness is not None:
            return Verdict.VIOLATED
        if self.undecided or self.unrecognised or self.reasons:
            return Verdict.UNKNOWN
        if self.proof is not None:
            return Verdict.HOLDS
        return None

    @property
    def outcome(self) -> str:
        verdict = self.verdict
        if verdict is Verdict.VIOLATED:
            return "violated"
        largest = (
            ""
            if self.largest is None
            else f"; largest shift-to-scale ratio {self.largest.ratio:.6g}"
        )
        if verdict is Verdict.UNKNOWN:
            return (
                f"unknown: no violation found in {self.pairs} pairs, "
                f"but some could not be decided{largest}"
            )
        if verdict is Verdict.HOLDS:
            assert self.proof is not None
            return (
                f"holds for every {self.relation} neighbouring pair (proved: loss ≤ "
                f"{self.proof.loss}); no violation found in {self.pairs} pairs{largest}"
            )
        return f"no violation found in {self.pairs} pairs{largest}"

    @property
    def exit_code(self) -> int:
        verdict = self.verdict
        if verdict is None:
            return int(ExitCode.HOLDS)
        return int(verdict.exit_code)

    @property
    def method(self) -> str:
        return (
            f"record on D, replay on D′ matched by call site and order, probed for released draws, "
            f"per-primitive losses composed exactly; {self.pairs} {self.relation} pairs "
            f"(adversarial, then seeded random from seed {self.seed})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "outcome": self.outcome,
            "epsilon": str(self.claim.epsilon),
            "delta": str(self.claim.delta),
            "neighbours": self.relation,
            "pairs": self.pairs,
            "bounds": self.bounds,
            "seed": self.seed,
            "method": self.method,
            "primitives": list(self.primitives),
            "witness": None if self.witness is None else self.witness.to_json(),
            "largest": None if self.largest is None else self.largest.to_json(),
            "undecided": [p.to_json() for p in self.undecided[:5]],
            "undecided_count": len(self.undecided),
            "skipped": [p.to_json() for p in self.skipped[:5]],
            "skipped_count": len(self.skipped),
            "unrecognised": list(self.unrecognised),
            "seeded": list(self.seeded),
            "reasons": list(self.reasons),
            "tested": [e.to_json() for e in self.evidence],
            "proof": None if self.proof is None else self.proof.to_json(),
            "no_proof": None if self.proof is not None else self.no_proof,
        }
