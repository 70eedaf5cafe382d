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
from faier.auditing.report import AuditReport
from faier.auditing.runner import run
from faier.errors import MechanismError

Progress = Callable[[int, int], None]


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


def search(plan: Plan, progress: Progress | None = None) -> AuditReport:
    """Evaluate up to ``budget`` pairs; the report of what was found."""
    started = time.perf_counter()
    reasons, primitives, seeded_sites = _check_base(plan)
    seeded = [s.show() for s in seeded_sites]
    undecided: list[PairOutcome] = []
    skipped: list[PairOutcome] = []
    unrecognised: list[str] = []
    largest: PairOutcome | None = None
    witness: PairOutcome | None = None
    best_candidate: nb.Neighbour | None = None
    count = 0
    pairs = _pairs(plan)
    evaluator = Evaluator(plan.function, plan.args, plan.claim, plan.seed)
    if seeded_sites:
        witness = _seeded(plan, seeded_sites)
    adversarial_count = sum(1 for _ in nb.adversarial(plan.dataset, plan.bounds, plan.relation))
    while witness is None and count < plan.budget:
        if count >= adversarial_count and best_candidate is not None and count % 4 == 3:
            pushed = nb.pushed(best_candidate, plan.bounds, 2.0)
            candidate = pushed if pushed is not None else next(pairs)
        else:
            candidate = next(pairs)
        outcome = evaluator.evaluate(candidate.left, candidate.right, candidate.change)
        count += 1
        if progress is not None:
            progress(count, plan.budget)
        for text in outcome.unrecognised:
            if text not in unrecognised:
                unrecognised.append(text)
        if outcome.skipped is not None:
            skipped.append(outcome)
            continue
        if outcome.violated:
            witness = outcome
            break
        if outcome.undecided is not None:
            undecided.append(outcome)
        if outcome.loss is not None and (largest is None or outcome.ratio > largest.ratio):
            largest, best_candidate = outcome, candidate
    return AuditReport(
        target=plan.target,
        claim=plan.claim,
        relation=plan.relation,
        pairs=count,
        bounds=plan.bounds.show(plan.dataset),
        seed=plan.seed,
        seconds=time.perf_counter() - started,
        witness=witness,
        largest=largest,
        undecided=tuple(undecided),
        skipped=tuple(skipped),
        unrecognised=tuple(unrecognised),
        seeded=tuple(seeded),
        reasons=tuple(reasons),
        primitives=tuple(primitives),
    )
