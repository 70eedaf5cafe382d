"""The certificate of an alignment proof: what a reader checks, and cvc5's second opinion.

The certificate is the alignment itself (each draw line's shift per
selector), the largest cost per output class, and the list of proof
obligations z3 found unsatisfiable.  cvc5 re-checks every obligation from
its SMT-LIB text; a "sat" or an error from cvc5 turns the proof into
"unknown" (the two solvers disagree), a missing cvc5 is said in the proof.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from faier.engines.alignment.execute import Path
from faier.engines.alignment.synthesis import (
    Candidate,
    Obligation,
    Setting,
    cost_terms,
    shifts,
)
from faier.engines.alignment.templates import Group, site_names
from faier.results import Proof

RECHECK_SECONDS = 20.0


@dataclass(frozen=True)
class Recheck:
    """cvc5's answers on the obligations: all unsat, or the first that was not."""

    solver: str
    confirmed: int
    failure: str | None = None


def recheck(duties: Sequence[Obligation]) -> Recheck:
    """Every obligation through cvc5 (SMT-LIB text from z3)."""
    from faier.engines.smt import solvers

    if not solvers.available("cvc5"):
        return Recheck("cvc5 (not installed)", 0)
    for n, duty in enumerate(duties):
        query = z3.Solver()
        query.add(duty.formula)
        answer = solvers.solve(
            "cvc5", "(set-logic ALL)\n" + query.to_smt2(), "ALL", RECHECK_SECONDS
        )
        if answer.status != "unsat":
            detail = f": {answer.message}" if answer.message else ""
            return Recheck(
                "cvc5", n, f"cvc5 answered {answer.status} on a {duty.kind} obligation{detail}"
            )
    return Recheck("cvc5", len(duties))


def _largest_cost(setting: Setting, group: Group, candidate: Candidate) -> Fraction | None:
    sym = setting.symbols
    s = shifts(group.pattern, candidate.of, sym.x, sym.x2, sym.integer)
    cost = cost_terms(group.pattern, s)
    best = z3.Optimize()
    best.add(setting.neighbours(sym.x, sym.x2))
    handle = best.maximize(cost)
    if best.check() != z3.sat:
        return None
    value = best.upper(handle)
    if z3.is_rational_value(value):
        return value.as_fraction()  # type: ignore[no-any-return]
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    return None


def _shift_text(c: Fraction, d: Fraction) -> str:
    if d == 0:
        return str(c)
    term = "D" if d == 1 else ("−D" if d == -1 else f"{d}·D")
    if c == 0:
        return term
    return f"{c} + {term}" if d > 0 or d == 1 else f"{c} {term.replace('−', '− ', 1)}"


def build(
    setting: Setting,
    candidate: Candidate,
    all_groups: Sequence[Group],
    duties: Sequence[Obligation],
    second: Recheck,
    neighbours: str,
    epsilon_text: str,
) -> Proof:
    """The proof as lines for the terminal and as JSON."""
    paths: tuple[Path, ...] = setting.paths
    names = site_names(paths)
    kinds = {d.site: d for p in paths for d in p.draws}
    used = {(site, sel) for g in all_groups for (_, _, _, site, sel, _) in g.pattern.draws}
    shifts_json: list[dict[str, Any]] = []
    lines = [
        f"randomness alignment ({candidate.family} selectors), n = {len(setting.symbols.x)} "
        f"queries, every real input, neighbours {neighbours}:"
    ]
    for hole, c, d in candidate.values:
        if (hole.site, hole.selector) not in used:
            continue
        draw = kinds[hole.site]
        lines.append(
            f"  {names[hole.site]} {draw.describe()}, {hole.selector}: shift {_shift_text(c, d)}"
        )
        shifts_json.append(
            {
                "site": names[hole.site],
                "noise": draw.describe(),
                "selector": hole.selector,
                "constant": str(c),
                "companion": str(d),
            }
        )
    lines.append(
        "  D: the change between neighbours that the draw's companion cancels "
        "(−(x′ᵢ − xᵢ) for xᵢ + η)"
    )
    costs = []
    for group in all_groups:
        worst = _largest_cost(setting, group, candidate)
        costs.append(worst)
    finite = [c for c in costs if c is not None]
    top = max(finite) if finite else None
    lines.append(
        f"  cost Σ|shift|/b over {len(all_groups)} output classes: at most "
        f"{top if top is not None else '?'} ≤ ε = {epsilon_text}"
    )
    paths_n = sum(1 for o in duties if o.kind == "path")
    lines.append(
        f"  z3: {paths_n} path obligations (the aligned run gives the same output) and "
        f"{len(duties) - paths_n} cost obligations unsat; {second.solver}: "
        + (f"the same {second.confirmed} unsat" if second.confirmed else "not re-checked")
    )
    data: dict[str, Any] = {
        "queries": len(setting.symbols.x),
        "family": candidate.family,
        "shifts": shifts_json,
        "largest_cost": None if top is None else str(top),
        "epsilon": epsilon_text,
        "paths": len(paths),
        "output_classes": len(all_groups),
        "obligations": len(duties),
        "solvers": ["z3"] + (["cvc5"] if second.confirmed else []),
    }
    return Proof("all inputs", tuple(lines), data)
