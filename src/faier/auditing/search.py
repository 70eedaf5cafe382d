"""The search for a bad neighbour: adversarial pairs, then seeded random ones, then climbing.

Every pair is evaluated by :class:`faier.auditing.pair.Evaluator`; the search
stops at the first pair that violates the claim exactly, and otherwise
keeps the pair with the largest shift-to-scale ratio, pushing its changed
record further out while that ratio grows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from faier.auditing import neighbours as nb
from faier.auditing.data import Dataset
from faier.auditing.intercept import Session
from faier.auditing.pair import Claim, Evaluator, PairOutcome
from faier.auditing.primitives import Site
from faier.auditing.proof import Proof, prove
from faier.auditing.report import AuditReport
from faier.auditing.runner import run
from faier.cluster.address import ClusterAddress
from faier.core.budget import hard_deadline
from faier.errors import BudgetExceeded, InternalError, MechanismError

Progress = Callable[[int, int], None]

TESTED_PAIRS = 3
"""Undecided pairs handed to the statistical tester, at most."""


@dataclass(frozen=True)
class Plan:
    """What to search: the function, its arguments, the data, the claim and the limits."""

    function: Callable[..., Any]
    target: str
    dataset: Dataset
    args: Mapping[str, Any]
    claim: Claim
    relation: str
    bounds: nb.Bounds
    seed: int
    budget: int
    workers: int | None = None
    cluster: ClusterAddress | None = None
    timeout: float | None = None
    test_samples: int | None = None
    """Run the statistical tester on the first undecided pairs with this many samples."""


def _pairs(plan: Plan) -> Iterator[nb.Neighbour]:
    yield from nb.adversarial(plan.dataset, plan.bounds, plan.relation)
    rng = np.random.default_rng([plan.seed, 1])
    while True:
        yield nb.random_neighbour(plan.dataset, plan.bounds, plan.relation, rng)


def _warm_up(plan: Plan) -> None:
    """One plain call first: modules the function imports on first use are imported outside
    the audit (their import-time randomness is not the function's)."""
    try:
        plan.function(plan.dataset.materialise(), **plan.args)
    except Exception:  # the audited run below reports it
        return


def _check_base(plan: Plan) -> tuple[list[str], list[str], list[Site]]:
    """The original data runs and replays to itself; the primitives and seeding calls it made."""
    _warm_up(plan)
    base = run(plan.function, plan.dataset, plan.args, Session(plan.seed))
    if base.error is not None:
        raise MechanismError(
            f"the function raised on the given data: {base.error}",
            where=plan.target,
            fix="check the --data file and the --arg values",
        )
    again = run(plan.function, plan.dataset, plan.args, Session(plan.seed, tape=base.draws))
    reasons = []
    same = again.form == base.form and np.array_equal(again.values, base.values, equal_nan=True)
    if again.mismatch is not None or not same:
        reasons.append(
            "the function is not a function of its recognised draws: replaying its own draws "
            "on the same data gave another output (unrecognised randomness, or state kept "
            "between calls)"
        )
    primitives = sorted({d.describe() for d in base.draws})
    return reasons, primitives, list(dict.fromkeys(base.seeded))


def _seeded_witness(plan: Plan, candidate: nb.Neighbour) -> PairOutcome | None:
    """With a generator seeded inside the function, its real output is a function of the data."""
    first = plan.function(candidate.left.materialise(), **plan.args)
    second = plan.function(candidate.left.materialise(), **plan.args)
    other = plan.function(candidate.right.materialise(), **plan.args)
    from faier.auditing.runner import flatten

    a, b, c = flatten(first), flatten(second), flatten(other)
    if a[2] != b[2] or not np.array_equal(a[0], b[0], equal_nan=True):
        return None
    if a[2] == c[2] and np.array_equal(a[0], c[0], equal_nan=True):
        return None
    return PairOutcome(candidate.left, candidate.right, candidate.change)


def _seeded(plan: Plan, sites: list[Site]) -> PairOutcome | None:
    """A generator seeded inside the function: the first adversarial pair whose plain outputs
    differ is a witness of infinite loss (one output per dataset)."""
    from faier.auditing.loss import Decision, Term, compose

    site = sites[0]
    why = (
        f"the noise is seeded with a constant at {site.show()}: each dataset has one "
        "output, and D's and D′'s differ"
    )
    for candidate in list(nb.adversarial(plan.dataset, plan.bounds, plan.relation))[:8]:
        try:
            found = _seeded_witness(plan, candidate)
        except Exception:
            continue
        if found is not None:
            loss = compose([Term("seeded", site.file, site.line, None, None, infinite=why)])
            return PairOutcome(
                found.left, found.right, found.change, loss, Decision(True, detail=why)
            )
    return None


class _Found:
    """What the pairs showed so far."""

    def __init__(self) -> None:
        self.undecided: list[PairOutcome] = []
        self.skipped: list[PairOutcome] = []
        self.unrecognised: list[str] = []
        self.largest: PairOutcome | None = None
        self.witness: PairOutcome | None = None
        self.count = 0

    def add(self, outcome: PairOutcome) -> bool:
        """Take one pair's outcome; True when it is the witness (the search stops)."""
        for text in outcome.unrecognised:
            if text not in self.unrecognised:
                self.unrecognised.append(text)
        if outcome.skipped is not None:
            self.skipped.append(outcome)
            return False
        if outcome.violated:
            self.witness = outcome
            return True
        if outcome.undecided is not None:
            self.undecided.append(outcome)
        if outcome.loss is not None and (
            self.largest is None or outcome.ratio > self.largest.ratio
        ):
            self.largest = outcome
        return False


def _sequential(
    plan: Plan,
    pairs: Iterator[nb.Neighbour],
    evaluator: Evaluator,
    found: _Found,
    progress: Progress | None,
) -> int:
    """Pairs one by one; past the adversarial ones, every fourth pushes the best pair out."""
    adversarial_count = sum(1 for _ in nb.adversarial(plan.dataset, plan.bounds, plan.relation))
    best: nb.Neighbour | None = None
    count = 0
    ends = None if plan.timeout is None else time.perf_counter() + plan.timeout
    while count < plan.budget:
        if ends is not None and time.perf_counter() > ends:
            raise BudgetExceeded(f"timeout of {plan.timeout:g} s reached")
        candidate = next(pairs)
        if count >= adversarial_count and best is not None and count % 4 == 3:
            candidate = nb.pushed(best, plan.bounds, 2.0) or candidate
        outcome = evaluator.evaluate(candidate.left, candidate.right, candidate.change)
        count += 1
        if progress is not None:
            progress(count, plan.budget)
        previous = found.largest
        if found.add(outcome):
            break
        if found.largest is not previous:
            best = candidate
    return count


def _parallel(
    plan: Plan, pairs: Iterator[nb.Neighbour], found: _Found, progress: Progress | None
) -> int:
    """Pairs in batches on worker processes or a cluster, read in the search's order."""
    from faier.auditing.parallel import batches

    shared = (plan.function, plan.args, plan.claim, plan.seed)
    size = 4 * max(plan.workers or 1, 2)
    count = 0
    with batches(shared, plan.workers, plan.cluster) as run_batch:
        while count < plan.budget:
            units = [
                (c.left, c.right, c.change)
                for c in (next(pairs) for _ in range(min(size, plan.budget - count)))
            ]
            for outcome in run_batch(units):
                count += 1
                if found.add(outcome):
                    return count
            if progress is not None:
                progress(count, plan.budget)
    return count


def search(plan: Plan, progress: Progress | None = None) -> AuditReport:
    """Evaluate up to ``budget`` pairs; the report of what was found (unknown at the timeout)."""
    started = time.perf_counter()
    reasons: list[str] = []
    primitives: list[str] = []
    seeded: list[str] = []
    witness: PairOutcome | None = None
    found = _Found()
    parallel = (plan.workers or 1) > 1 or plan.cluster is not None

    def counted(done: int, total: int) -> None:
        found.count = done
        if progress is not None:
            progress(done, total)

    try:
        with hard_deadline(plan.timeout):
            reasons, primitives, seeded_sites = _check_base(plan)
            seeded = [s.show() for s in seeded_sites]
            pairs = _pairs(plan)
            if seeded_sites:
                witness = _seeded(plan, seeded_sites)
            if witness is None and parallel:
                found.count = _parallel(plan, pairs, found, counted)
            elif witness is None:
                evaluator = Evaluator(plan.function, plan.args, plan.claim, plan.seed)
                found.count = _sequential(plan, pairs, evaluator, found, counted)
    except BudgetExceeded as stop:
        reasons.append(f"stopped after {found.count} pairs: {stop.reason}")
    evidence = []
    if plan.test_samples and witness is None and found.witness is None:
        from faier.auditing.tester import test_pair

        for outcome in found.undecided[:TESTED_PAIRS]:
            evidence.append(
                test_pair(
                    plan.function, plan.args, outcome, plan.claim, plan.test_samples, plan.seed
                )
            )
    proof, no_proof = _proof(plan)
    if proof is not None and (witness or found.witness) is not None:
        raise InternalError(
            f"{plan.target} was proved private ({proof.loss} ≤ {plan.claim.epsilon}) "
            "and violated by a witness; please report this"
        )
    return AuditReport(
        target=plan.target,
        claim=plan.claim,
        relation=plan.relation,
        pairs=found.count,
        bounds=plan.bounds.show(plan.dataset),
        seed=plan.seed,
        seconds=time.perf_counter() - started,
        witness=witness or found.witness,
        largest=found.largest,
        undecided=tuple(found.undecided),
        skipped=tuple(found.skipped),
        unrecognised=tuple(found.unrecognised),
        seeded=tuple(seeded),
        reasons=tuple(reasons),
        primitives=tuple(primitives),
        evidence=tuple(evidence),
        proof=proof,
        no_proof=no_proof,
    )


def _proof(plan: Plan) -> tuple[Proof | None, str]:
    """The structural proof (docs/AUDIT.md, "When faier says holds"), kept only within ε."""
    bound = plan.claim.epsilon.rational
    if bound is None:
        return None, "ε is not a rational number"
    proof, why = prove(plan.function, plan.dataset, plan.args, plan.relation)
    if proof is not None and proof.loss > bound:
        return None, f"the proved bound {proof.loss} exceeds ε"
    return proof, why
