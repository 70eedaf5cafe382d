"""Problems with parameters: which are unknown, ``--param`` settings, fixing a point.

Parameters live in two places: an HMM's probabilities (model files) and a
Pufferfish prior (:class:`ParametricPufferfish`).  Engines see them through
these functions, so "is anything still unknown?" has one answer for both:
the exact engine needs every parameter fixed, the SMT engine does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction

from faier.core.problem import Problem
from faier.errors import InputError, SpecError
from faier.model.constraints import Constraint, ParameterOption
from faier.model.hmm import HMM
from faier.model.parameters import Parameter
from faier.privacy.symbolic import ParametricPufferfish


def declared(problem: Problem) -> tuple[Parameter, ...]:
    """Every parameter of the mechanism and the prior, each once."""
    found: dict[str, Parameter] = {}
    sources: list[Parameter] = []
    if isinstance(problem.mechanism, HMM):
        sources.extend(problem.mechanism.parameters)
    if isinstance(problem.privacy, ParametricPufferfish):
        sources.extend(problem.privacy.parameters)
    for parameter in sources:
        seen = found.get(parameter.name)
        if seen is not None and seen != parameter:
            raise SpecError(
                f"parameter {parameter.name!r} is declared twice, as {seen} and {parameter}",
                fix="declare it once, in the model or in the prior",
            )
        found[parameter.name] = parameter
    return tuple(found.values())


def constraints(problem: Problem) -> tuple[Constraint, ...]:
    if isinstance(problem.privacy, ParametricPufferfish):
        return problem.privacy.constraints
    return ()


def unknowns(problem: Problem) -> tuple[Parameter, ...]:
    """Parameters without a value: what the SMT engine has to reason about."""
    return tuple(p for p in declared(problem) if p.value is None)


def fixed_values(problem: Problem) -> dict[str, Fraction]:
    return {p.name: p.value for p in declared(problem) if p.value is not None}


def _replace_parameters(
    problem: Problem, parameters: Mapping[str, Parameter], extra: tuple[Constraint, ...]
) -> Problem:
    mechanism = problem.mechanism
    if isinstance(mechanism, HMM) and mechanism.parameters:
        mechanism = replace(
            mechanism, parameters=tuple(parameters[p.name] for p in mechanism.parameters)
        )
    privacy = problem.privacy
    if isinstance(privacy, ParametricPufferfish):
        privacy = privacy.with_parameters(
            tuple(parameters[p.name] for p in privacy.parameters), (*privacy.constraints, *extra)
        )
    elif extra:
        raise SpecError(
            f"{problem.name} has no parametric prior to constrain",
            where=f"--param {extra[0].text}",
            fix="constraints apply to the parameters of a Pufferfish prior or a model file",
        )
    return Problem(problem.name, mechanism, privacy, problem.horizon, problem.title)


def apply_parameters(problem: Problem, options: Sequence[str | ParameterOption]) -> Problem:
    """Fix values, set domains and add constraints given as ``--param`` options."""
    if not options:
        return problem
    parameters = {p.name: p for p in declared(problem)}
    extra: list[Constraint] = []
    for raw in options:
        option = raw if isinstance(raw, ParameterOption) else ParameterOption.parse(raw)
        where = f"--param {option.text}"
        if option.is_constraint:
            extra.append(Constraint.parse(option.text, parameters, where=where))
            continue
        assert option.name is not None
        current = parameters.get(option.name)
        if current is None:
            raise SpecError(
                f"{problem.name} has no parameter {option.name!r}",
                where=where,
                fix=f"its parameters are {', '.join(parameters) or 'none'}",
            )
        if option.domain is not None:
            parameters[option.name] = Parameter(option.name, option.domain)
        else:
            try:
                parameters[option.name] = Parameter(option.name, current.domain, option.value)
            except InputError as exc:
                raise exc.located(where) from None
    return _replace_parameters(problem, parameters, tuple(extra))


def at_point(problem: Problem, point: Mapping[str, Fraction]) -> Problem:
    """The rational problem with the fixed values and ``point`` substituted."""
    values = {**fixed_values(problem), **point}
    missing = [p.name for p in declared(problem) if p.name not in values]
    if missing:
        raise SpecError(
            f"parameters {', '.join(missing)} have no value",
            fix="fix them with --param NAME=VALUE (e.g. --param p=1/3), or use --engine smt",
        )
    for constraint in constraints(problem):
        if not constraint.holds_at(values):
            raise SpecError(
                f"the parameter values violate the constraint {constraint.text!r}",
                fix="choose values that satisfy every constraint",
            )
    mechanism = problem.mechanism
    if isinstance(mechanism, HMM) and mechanism.parameters:
        mechanism = mechanism.instantiate(
            {p.name: values[p.name] for p in mechanism.parameters if p.name in values}
        )
    privacy = problem.privacy
    if isinstance(privacy, ParametricPufferfish):
        privacy = privacy.instantiate(values)
    return Problem(problem.name, mechanism, privacy, problem.horizon, problem.title)
