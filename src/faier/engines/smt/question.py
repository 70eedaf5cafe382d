"""What the SMT engine reasons about: a mechanism, comparisons and a parameter space.

A :class:`Problem` is normalised once: fixed parameter values are
substituted, the unknown ones keep their domains and constraints, every
comparison becomes a :class:`SymbolicComparison` (DP and rational Pufferfish
pairs are constant ones), and the mechanism is either an HMM (possibly with
parametric probabilities) or a one-shot program whose exact output
distributions the fast encoding reads directly.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core import parametric
from faier.core.problem import Problem
from faier.errors import ModelError, SpecError
from faier.mechanisms.interactive import Interactive
from faier.mechanisms.program import Program, StepProgram
from faier.model.constraints import Constraint
from faier.model.hmm import HMM
from faier.model.parameters import Parameter
from faier.privacy.specs import DifferentialPrivacy, Pufferfish
from faier.privacy.symbolic import ParametricPufferfish, SymbolicComparison, SymbolicDistribution

OneShot = Program[Any] | StepProgram[Any, Any]


@dataclass(frozen=True)
class Space:
    """The unknown parameters, their domains and the constraints between them."""

    parameters: tuple[Parameter, ...]
    constraints: tuple[Constraint, ...]

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def describe(self) -> str:
        parts = [f"{p.name} ∈ {p.domain}" for p in self.parameters]
        parts.extend(c.text for c in self.constraints)
        return ", ".join(parts) or "no unknown parameters"

    def contains(self, point: dict[str, Fraction]) -> bool:
        """Whether a rational point lies in the domain and meets every constraint."""
        inside = all(p.domain.contains(point[p.name]) for p in self.parameters)
        return inside and all(c.holds_at(point) for c in self.constraints)


@dataclass(frozen=True)
class Question:
    """A normalised problem: the SMT engine's input."""

    problem: Problem
    space: Space
    fixed: dict[str, Fraction]
    comparisons: tuple[SymbolicComparison, ...]
    horizon: int
    hmm: HMM | None = None
    program: OneShot | None = None

    @property
    def variables(self) -> tuple[str, ...]:
        return self.space.variables


def _comparisons(problem: Problem, inputs: tuple[Hashable, ...]) -> list[SymbolicComparison]:
    privacy = problem.privacy
    if isinstance(privacy, ParametricPufferfish):
        return privacy.symbolic_comparisons(inputs)
    if isinstance(privacy, DifferentialPrivacy | Pufferfish):
        return [
            SymbolicComparison(
                SymbolicDistribution.exact(c.left),
                SymbolicDistribution.exact(c.right),
                c.left_name,
                c.right_name,
                c.kind,
            )
            for c in privacy.comparisons(inputs)
        ]
    raise SpecError(f"{problem.name}: the SMT engine does not handle {privacy.describe()}")


def _hmm_names(hmm: HMM) -> set[str]:
    rows = (*hmm.transition, *hmm.emission, *hmm.initial.values())
    return {
        str(s) for row in rows for p in row if not isinstance(p, Fraction) for s in p.free_symbols
    }


def build(problem: Problem) -> Question:
    """Normalise a problem; undeclared parameters and unsupported mechanisms are errors."""
    mechanism = problem.mechanism
    if isinstance(mechanism, Interactive):
        raise SpecError(
            f"{problem.name} is interactive: the SMT engine handles HMMs and one-shot mechanisms",
            where="--engine smt",
            fix="use --engine exact for interactive mechanisms",
        )
    declared = parametric.declared(problem)
    names = {p.name for p in declared}
    fixed = parametric.fixed_values(problem)
    space = Space(tuple(p for p in declared if p.value is None), parametric.constraints(problem))
    if isinstance(mechanism, HMM):
        undeclared = _hmm_names(mechanism) - names
        if undeclared:
            raise ModelError(
                f"the model uses parameters {', '.join(sorted(undeclared))} that are not declared",
                fix="declare them under 'parameters' (or in the HMM's parameters)",
            )
        hmm = mechanism
        own = {p.name: fixed[p.name] for p in hmm.parameters if p.name in fixed}
        if own:
            hmm = hmm.instantiate(own)
        if problem.horizon is None:
            raise SpecError(
                f"{problem.name} needs a horizon (the length of observation sequences)",
                fix="pass --horizon K or write 'horizon: K' in the model file",
            )
        comparisons = _comparisons(problem, hmm.states)
        return Question(problem, space, fixed, tuple(comparisons), problem.horizon, hmm=hmm)
    comparisons = _comparisons(problem, tuple(mechanism.inputs.values))
    return Question(problem, space, fixed, tuple(comparisons), 1, program=mechanism)
