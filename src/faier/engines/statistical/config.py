"""Settings of a statistical test, checked once with messages that name the option."""

from __future__ import annotations

import math
from dataclasses import dataclass

from faier.cluster.address import ClusterAddress
from faier.errors import SpecError

MAX_POINTS = 1000
DEFAULT_GRID = "0:2.2:0.1"


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise SpecError(
            f"cannot read {text!r} as a number",
            where=where,
            fix="write e.g. 0:2.2:0.1 or 0.5,1,1.5",
        ) from None
    if not math.isfinite(value):
        raise SpecError(f"{text!r} is not finite", where=where, fix="ε values are finite numbers")
    return value


def parse_epsilons(text: str, where: str = "--epsilons") -> tuple[float, ...]:
    """``START:STOP:STEP`` (STOP included) or a comma list ``0.5,1,1.5``."""
    raw = text.strip()
    if not raw:
        raise SpecError("no ε values given", where=where, fix="write e.g. 0:2.2:0.1")
    if ":" in raw:
        parts = raw.split(":")
        if len(parts) != 3:
            raise SpecError(
                f"{raw!r} is not START:STOP:STEP", where=where, fix="write e.g. 0:2.2:0.1"
            )
        start, stop, step = (_number(p, where) for p in parts)
        if not step > 0 or stop < start:
            raise SpecError(
                f"{raw!r} is an empty range", where=where, fix="STEP > 0 and STOP ≥ START"
            )
        count = math.floor((stop - start) / step + 1e-9) + 1
        if count > MAX_POINTS:
            raise SpecError(
                f"{raw!r} has {count} points", where=where, fix=f"at most {MAX_POINTS} points"
            )
        values = tuple(round(start + k * step, 10) for k in range(count))
    else:
        values = tuple(_number(p, where) for p in raw.split(","))
    for v in values:
        if v < 0:
            raise SpecError(f"ε = {v:g} is negative", where=where, fix="ε values are ≥ 0")
    if len(values) > MAX_POINTS:
        raise SpecError(f"{len(values)} ε values", where=where, fix=f"at most {MAX_POINTS}")
    return values


@dataclass(frozen=True)
class Config:
    """Sample sizes (StatDP §5.4: 500 000 / 100 000), thinnings, α, seed and workers."""

    claimed: float | None
    epsilons: tuple[float, ...] = parse_epsilons(DEFAULT_GRID)
    samples: int = 500_000
    selection_samples: int = 100_000
    thinnings: int = 200
    alpha: float = 0.05
    seed: int | None = None
    workers: int = 1
    claim: str = ""
    """How the claim was written (``ln(3)``); its value is ``claimed``."""
    cluster: ClusterAddress | None = None
    """Run the units on this Dask cluster instead of the local pool (same units, same seeds)."""

    def __post_init__(self) -> None:
        checks = (
            ("--samples", self.samples, "e.g. --samples 500000"),
            ("--selection-samples", self.selection_samples, "e.g. --selection-samples 100000"),
            ("--thinnings", self.thinnings, "e.g. --thinnings 200"),
            ("--workers", self.workers, "e.g. --workers 2"),
        )
        for where, value, fix in checks:
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise SpecError(
                    f"must be a positive whole number, got {value!r}", where=where, fix=fix
                )
        if self.selection_samples < 2:
            raise SpecError(
                "event selection needs at least 2 samples (it checks its pick on two halves)",
                where="--selection-samples",
                fix="e.g. --selection-samples 100000",
            )
        if not 0 < self.alpha < 1:
            raise SpecError(
                f"α must lie strictly between 0 and 1, got {self.alpha:g}",
                where="--alpha",
                fix="e.g. --alpha 0.05",
            )
        if self.seed is not None and self.seed < 0:
            raise SpecError(f"the seed must be ≥ 0, got {self.seed}", where="--seed")
        if self.claimed is not None and (not math.isfinite(self.claimed) or self.claimed < 0):
            raise SpecError(
                f"the claimed ε₀ must be a finite number ≥ 0, got {self.claimed:g}",
                where="--claimed",
            )
        if not self.epsilons:
            raise SpecError("no ε values to test", where="--epsilons", fix="e.g. 0:2.2:0.1")
        for point in self.epsilons:
            if not math.isfinite(point) or point < 0:
                raise SpecError(
                    f"ε = {point} is not a finite number ≥ 0", where="--epsilons", fix="e.g. 0.5,1"
                )
