"""``faier pld``'s result: the exact PLD of a pair (k-fold), δ(ε) both ways, the accountant's δ."""

from __future__ import annotations

import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.accounting.build import comparison_of, pld_of
from faier.accounting.pld import MAX_ATOMS, HockeyStick, PrivacyLossDistribution
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.errors import SpecError
from faier.privacy.budget import Epsilon
from faier.privacy.specs import Comparison
from faier.results import ExitCode, Loss, ShownAsHtml, Verdict

MAX_COMPOSITIONS = 10_000


@dataclass(frozen=True)
class DeltaRow:
    """δ(ε) of the k-fold PLD in both orders, and dp_accounting's (pessimistic) δ if asked."""

    forward: HockeyStick
    backward: HockeyStick
    accountant: float | None = None

    @property
    def worst(self) -> HockeyStick:
        return self.forward if self.forward.value >= self.backward.value else self.backward

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilon": str(self.forward.epsilon),
            "delta": self.worst.to_json(),
            "forward": self.forward.to_json(),
            "backward": self.backward.to_json(),
        }
        if self.accountant is not None:
            out["dp_accounting"] = self.accountant
        return out


@dataclass(frozen=True)
class PLDReport(ShownAsHtml):
    """The exact PLD of one comparison (``distribution``: after ``compositions`` runs)."""

    target: str
    privacy: str
    single: PrivacyLossDistribution
    distribution: PrivacyLossDistribution
    pair_source: str
    deltas: tuple[DeltaRow, ...] = ()
    delta: Fraction | None = None
    epsilon_for_delta: tuple[Loss, Loss] | None = None
    accountant_version: str | None = None
    seconds: float = 0.0

    @property
    def verdict(self) -> Verdict | None:
        return None

    @property
    def exit_code(self) -> int:
        return int(ExitCode.HOLDS)

    @property
    def method(self) -> str:
        k = self.distribution.compositions
        text = "exact: both output distributions enumerated in rationals"
        if k > 1:
            text += f"; {k}-fold composition by multiplying ratios (square and multiply)"
        if self.accountant_version:
            text += f"; dp_accounting {self.accountant_version} δ(ε) from the exported PLD"
        return text

    @property
    def epsilon_star(self) -> Loss:
        """The pure ε of the k-fold pair: the larger loss of the two orders."""
        a, b = self.distribution.epsilon, self.distribution.reversed().epsilon
        return a if a.exceeds(b) else b

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "target": self.target,
            "privacy": self.privacy,
            "pair": {
                "left": self.single.left,
                "right": self.single.right,
                "inputs": None
                if self.single.left_value is None
                else [self.single.left_value, self.single.right_value],
                "source": self.pair_source,
            },
            "compositions": self.distribution.compositions,
            "epsilon_star": self.epsilon_star.to_json(),
            "pld": self.distribution.to_json(),
            "reverse": self.distribution.reversed().to_json(),
        }
        if self.deltas:
            out["deltas"] = [row.to_json() for row in self.deltas]
        if self.epsilon_for_delta is not None:
            forward, backward = self.epsilon_for_delta
            worst = forward if forward.exceeds(backward) else backward
            out["epsilon_for_delta"] = {
                "delta": str(self.delta),
                **worst.to_json(),
                "forward": forward.to_json(),
                "backward": backward.to_json(),
            }
        if self.accountant_version:
            out["dp_accounting"] = self.accountant_version
        out["method"] = self.method
        out["seconds"] = round(self.seconds, 6)
        return out


def build(
    problem: Problem,
    comparison: Comparison[Hashable] | None,
    *,
    pair: str | tuple[Any, Any] | None,
    pair_source: str,
    compositions: int = 1,
    epsilons: Sequence[str | float | Epsilon] = (),
    delta: Fraction | None = None,
    accountant: bool = False,
    budget: Budget | None = None,
) -> PLDReport:
    """Compute the PLD of the named (or given) comparison, compose it and evaluate δ(ε)."""
    started = time.perf_counter()
    if not 1 <= compositions <= MAX_COMPOSITIONS:
        raise SpecError(
            f"cannot compose {compositions} times",
            where="--compose",
            fix=f"give 1 ≤ k ≤ {MAX_COMPOSITIONS}",
        )
    if comparison is None:
        if pair is None:
            raise SpecError("no pair to compare", where="--pair", fix="give --pair 'D1;D2'")
        comparison = comparison_of(problem, pair)
    single = pld_of(problem, comparison, budget)
    composed = single.compose(compositions)
    claims = [e if isinstance(e, Epsilon) else _claim(e) for e in epsilons]
    exported = None
    version = None
    if accountant and claims:
        from faier.accounting.export import to_dp_accounting

        exported = to_dp_accounting(single).self_compose(compositions)
        version = _accountant_version()
    rows = []
    for claim in claims:
        value = None
        if exported is not None:
            value = float(exported.get_delta_for_epsilon(claim.value))
        rows.append(DeltaRow(composed.delta(claim), composed.reversed().delta(claim), value))
    for_delta = None
    if delta is not None:
        for_delta = (
            composed.epsilon_for_delta(delta),
            composed.reversed().epsilon_for_delta(delta),
        )
    return PLDReport(
        target=problem.name,
        privacy=problem.privacy.describe(),
        single=single,
        distribution=composed,
        pair_source=pair_source,
        deltas=tuple(rows),
        delta=delta,
        epsilon_for_delta=for_delta,
        accountant_version=version,
        seconds=time.perf_counter() - started,
    )


def _claim(text: str | float) -> Epsilon:
    try:
        return Epsilon.parse(text)
    except SpecError as exc:
        raise exc.located("--epsilon") from None


def _accountant_version() -> str:
    from importlib.metadata import version

    return version("dp-accounting")


__all__ = ["MAX_ATOMS", "DeltaRow", "PLDReport", "build"]
