"""Argument choice by concolic execution and z3's optimiser (MaxSMT): StatDP §4.4.2.

For one input pair: run the scalar definition on D1 and on D2 with the
arguments symbolic and every draw 0 (:mod:`.symbolic`); fix the noise
arguments at the least total noise scale (then their least value); make as
many branch pairs diverge as possible (one soft constraint per pair); take
the solution with the largest margin to every chosen branch outcome; repeat
while the new values change the path and improve the divergence.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import z3

from faier.engines.statistical.arguments import Choice, domain
from faier.engines.statistical.symbolic import Branch, NoiseFree, NotSymbolic, Sym, Trace, real
from faier.mechanisms.sampled import Argument, Sampled

ROUNDS = 4
MAX_MARGIN = 1e6

UNFOLLOWABLE = (NotSymbolic, z3.Z3Exception)
"""What makes the argument generator fall back to its grid."""


def new_context() -> Any:
    """A fresh z3 context: z3's answers depend on what ran before in one."""
    return z3.Context()


def _run(
    mechanism: Sampled,
    queries: Sequence[float],
    epsilon: float,
    values: dict[str, Any],
    variables: dict[str, Any],
) -> Trace:
    context = next(iter(variables.values())).ctx
    trace = Trace(context)
    symbolic = {name: Sym(float(values[name]), variables[name], trace) for name in variables}
    assert mechanism.reference is not None
    try:
        mechanism.reference(list(queries), epsilon, NoiseFree(trace), **symbolic)
    except NotSymbolic:
        raise
    except Exception as exc:  # the definition may break on symbolic values in any way
        raise NotSymbolic(f"{type(exc).__name__}: {exc}") from exc
    return trace


def _diverged(left: Trace, right: Trace) -> int:
    return sum(a.taken != b.taken for a, b in zip(left.branches, right.branches, strict=False))


def _value(model: Any, variable: Any, integer: bool) -> Any:
    value = model.eval(variable, model_completion=True)
    if integer:
        return int(value.as_long())
    fraction = value.as_fraction()
    return float(Fraction(fraction.numerator, fraction.denominator))


def _centred(
    pairs: list[tuple[Branch, Branch]],
    model: Any,
    variables: dict[str, Any],
    arguments: Sequence[Argument],
    bounds: list[Any],
) -> dict[str, Any]:
    """The solution with the largest margin to every branch outcome the model chose.

    Branches that no longer depend on a free argument (``count ≥ N`` once N
    is fixed) carry no margin and are left out.
    """
    context = next(iter(variables.values())).ctx
    opt = z3.Optimize(ctx=context)
    opt.add(*bounds)
    margin = z3.Real("margin", context)
    opt.add(margin <= MAX_MARGIN)
    fixed = [
        (variables[a.name], model.eval(variables[a.name], True)) for a in arguments if a.integer
    ]
    for variable, value in fixed:
        opt.add(variable == value)
    for pair in pairs:
        for branch in pair:
            difference = (
                z3.simplify(z3.substitute(branch.difference, *fixed))
                if fixed
                else branch.difference
            )
            if z3.is_rational_value(difference) or z3.is_int_value(difference):
                continue
            taken = z3.is_true(model.eval(branch.formula(), model_completion=True))
            opt.add(difference >= margin if taken else difference <= -margin)
    opt.maximize(margin)
    chosen = model
    if opt.check() == z3.sat:
        candidate = opt.model()
        if candidate.eval(margin, model_completion=True).as_fraction() > 0:
            chosen = candidate
    return {a.name: _value(chosen, variables[a.name], a.integer) for a in arguments}


def _least_noise(
    mechanism: Sampled,
    queries: tuple[Sequence[float], Sequence[float]],
    epsilon: float,
    values: dict[str, Any],
    variables: dict[str, Any],
    bounds: list[Any],
) -> list[Any]:
    """Equalities fixing the noise arguments: least total noise scale, then least value."""
    noise = [a for a in mechanism.arguments if a.role == "noise"]
    if not noise:
        return []
    traces = [_run(mechanism, q, epsilon, values, variables) for q in queries]
    scales = [s.expr for t in traces for s in t.scales if isinstance(s, Sym)]
    opt = z3.Optimize(ctx=bounds[0].ctx)
    opt.add(*bounds)
    if scales:
        opt.minimize(z3.Sum([real(e) for e in scales]))
    opt.minimize(z3.Sum([real(variables[a.name]) for a in noise]))
    if opt.check() != z3.sat:
        raise NotSymbolic("the noise arguments have no value in their range")
    model = opt.model()
    return [variables[a.name] == model.eval(variables[a.name], True) for a in noise]


def symbolic_choice(
    mechanism: Sampled,
    left: Sequence[float],
    right: Sequence[float],
    epsilon: float,
    delta: int,
    context: Any = None,
) -> Choice:
    """Least noise first, then most diverging branches, by concolic execution and z3 (MaxSMT).

    z3's answers can depend on what ran before in its context: a fresh one
    per call, or one shared by a fixed sequence of calls, keeps them
    reproducible.
    """
    arguments = mechanism.arguments
    context = context or z3.Context()
    variables = {
        a.name: z3.Int(a.name, context) if a.integer else z3.Real(a.name, context)
        for a in arguments
    }
    bounds: list[Any] = []
    values: dict[str, Any] = {}
    for a in arguments:
        low, high = domain(a, left, right, delta)
        bounds += [variables[a.name] >= low, variables[a.name] <= high]
        middle = low if a.role == "noise" else (low + high) / 2
        values[a.name] = int(np.ceil(middle)) if a.integer else middle
    bounds += _least_noise(mechanism, (left, right), epsilon, values, variables, bounds)
    best: tuple[int, dict[str, Any], int] | None = None
    for _ in range(ROUNDS):
        traces = [_run(mechanism, q, epsilon, values, variables) for q in (left, right)]
        pairs = list(zip(traces[0].branches, traces[1].branches, strict=False))
        opt = z3.Optimize(ctx=context)
        opt.add(*bounds)
        for first, second in pairs:
            opt.add_soft(z3.Xor(first.formula(), second.formula()))
        if opt.check() != z3.sat:
            break
        proposal = _centred(pairs, opt.model(), variables, arguments, bounds)
        rerun = [_run(mechanism, q, epsilon, proposal, variables) for q in (left, right)]
        score = _diverged(*rerun)
        compared = min(len(rerun[0].branches), len(rerun[1].branches))
        if best is None or score > best[0]:
            best = (score, proposal, compared)
        if proposal == values or score == compared:
            break
        values = proposal
    if best is None:
        raise NotSymbolic("z3 found no argument values")
    score, chosen, compared = best
    args = tuple((a.name, chosen[a.name]) for a in arguments)
    return Choice(args, f"z3 MaxSMT: {score} of {compared} branch pairs diverge")
