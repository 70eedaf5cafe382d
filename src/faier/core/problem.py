"""A privacy question: which mechanism, which comparisons, which horizon."""

from __future__ import annotations

from dataclasses import dataclass, replace

from faier.errors import SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.program import Program, StepProgram
from faier.model.hmm import HMM
from faier.privacy.specs import DifferentialPrivacy, InteractiveDP, PrivacySpec, Pufferfish
from faier.privacy.symbolic import ParametricPufferfish

Mechanism = Program | StepProgram | Interactive | HMM  # type: ignore[type-arg]


@dataclass(frozen=True)
class Problem:
    """A mechanism together with the privacy notion it is checked against."""

    name: str
    mechanism: Mechanism
    privacy: PrivacySpec | ParametricPufferfish
    horizon: int | None = None
    title: str = ""
    assumptions: tuple[str, ...] = ()
    """What an answer about this problem rests on besides its proof (e.g. that a library
    object runs the library's own code); :func:`faier.verify` and :func:`faier.epsilon`
    add them to the result's ``assumptions``."""

    def __post_init__(self) -> None:
        if self.horizon is not None and self.horizon < 1:
            raise SpecError(
                f"horizon must be at least 1, got {self.horizon}", fix="pass --horizon 1 or more"
            )
        if isinstance(self.mechanism, Interactive) and not isinstance(self.privacy, InteractiveDP):
            raise SpecError(
                f"{self.name} is interactive: only adaptive DP over query answers is supported",
            )
        if isinstance(self.mechanism, HMM) and not isinstance(
            self.privacy, Pufferfish | DifferentialPrivacy | ParametricPufferfish
        ):
            raise SpecError(f"{self.name}: an HMM is compared by pairs of initial distributions")

    @property
    def is_sequential(self) -> bool:
        """HMMs and interactive mechanisms emit sequences; one-shot programs one output."""
        return isinstance(self.mechanism, HMM | Interactive)

    def with_horizon(self, horizon: int | None) -> Problem:
        """The same problem at another horizon (None keeps the current one)."""
        if horizon is None:
            return self
        return replace(self, horizon=horizon)
