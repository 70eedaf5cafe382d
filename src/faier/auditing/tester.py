"""The statistical tester on the function's real outputs, for a pair the runs could not decide.

When a pair's loss is only bounded (a release the probes cannot read, calls that follow the
noise), the tester (StatDP's hypothesis test, docs/TESTING.md) samples the function as it is,
uninstrumented, on D and on D′ and gives a p-value at the claimed ε: evidence, never a
verdict (the audit stays unknown either way).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from faier.auditing.pair import Claim, PairOutcome
from faier.auditing.runner import flatten


@dataclass(frozen=True)
class Evidence:
    """The tester's answer on one pair."""

    change: str
    p_value: float | None
    samples: int
    note: str

    def to_json(self) -> dict[str, Any]:
        return {
            "change": self.change,
            "p_value": self.p_value,
            "samples": self.samples,
            "note": self.note,
        }


def test_pair(
    function: Callable[..., Any],
    args: Mapping[str, Any],
    outcome: PairOutcome,
    claim: Claim,
    samples: int,
    seed: int,
) -> Evidence:
    """p-value of 'Pr[M(D) ∈ E] ≤ e^ε·Pr[M(D′) ∈ E]' for the event the tester selects."""
    from faier.engines.statistical import subjects, tester
    from faier.engines.statistical.config import Config, parse_epsilons
    from faier.mechanisms.sampled import blackbox
    from faier.privacy.budget import Epsilon

    data = (outcome.left.materialise(), outcome.right.materialise())

    @blackbox(name="the audited function on D (0) or D′ (1)")
    def pair(queries: Any, epsilon: float, rng: Any) -> Any:
        output = function(data[int(queries[0])], **args)
        values, _, form = flatten(output)
        return [*values.tolist(), form] if len(values) != 1 else float(values[0])

    eps = float(claim.epsilon.value)
    try:  # StatDP's test of D = (0) against D′ = (1), at ε alone
        tested = Epsilon.parse(eps)
        config = Config(
            claimed=tested.value,
            epsilons=parse_epsilons(repr(eps)),
            samples=samples,
            selection_samples=max(2, samples // 5),
            seed=seed,
            claim=tested.text,
        )
        subject = subjects.from_sampled(pair, tested.value, pairs=[((0,), (1,))])
        report = tester.run(subject, config, None)
    except Exception as failure:  # the tester refused this output: say so, decide nothing
        return Evidence(outcome.change, None, samples, f"not tested: {failure}")
    point = report.point_at(eps)
    if point is None:
        return Evidence(outcome.change, None, samples, "the tester gave no p-value at ε")
    verdict = "evidence of a violation" if point.p_value <= 0.05 else "no evidence of a violation"
    return Evidence(outcome.change, point.p_value, samples, f"{verdict} (p = {point.p_value:.3g})")
