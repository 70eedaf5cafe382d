"""``--report FILE.html``: the option, the command line that reproduces a run, the page's extras.

The page itself is :mod:`faier.report.html`; here the CLI adds what only it
knows: the command as typed (rebuilt from the parsed options, ``--report``
left out) and, for ``epsilon``/``verify``, the witness pair's exact output
distributions and the privacy profile δ(ε) for (ε, δ) questions.
"""

from __future__ import annotations

import importlib
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from faier.core.options import Options
from faier.errors import BudgetExceeded, FaierError
from faier.results import natural_log, saturated

if TYPE_CHECKING:
    from faier.report.html import Extras

ReportOption = Annotated[
    Path | None,
    typer.Option(
        "--report",
        help="also write a self-contained HTML report (verdict, witness, figures) to FILE.html",
    ),
]

MAX_PROFILE_INPUTS = 5_000
MAX_PROFILE_PRIOR_PAIRS = 50
MAX_PROFILE_COMPARISONS = 20_000


def _context() -> Any:
    """The running command's context (typer vendors its own click; older typers use click)."""
    for module in ("typer._click.globals", "click"):
        try:
            found = importlib.import_module(module)
        except ImportError:
            continue
        ctx = getattr(found, "get_current_context", lambda silent: None)(silent=True)
        if ctx is not None:
            return ctx
    return None


def command_line() -> str:
    """``faier COMMAND ARGS…`` as parsed (``--report`` left out), quoted for a shell."""
    ctx = _context()
    if ctx is None:
        return ""
    words = ["faier", ctx.info_name or ""]
    for param in ctx.command.params:
        value = ctx.params.get(param.name or "")
        opts = list(getattr(param, "opts", ()))
        if "--report" in opts or value is None or value == param.default:
            continue
        if param.param_type_name == "argument":
            words.append(str(value))
            continue
        if getattr(param, "is_flag", False):
            if value is True:
                words.append(opts[0])
            elif param.secondary_opts:
                words.append(param.secondary_opts[0])
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            words.extend([opts[0], str(item)])
    return shlex.join(words)


def result_extras(target: str, options: Options, result: Any) -> Extras:
    """The witness pair's output distributions and δ(ε) for (ε, δ); notes where they fail."""
    from faier import api
    from faier.accounting.build import comparison_of, outcomes_of, pld_of
    from faier.core.budget import Budget
    from faier.mechanisms.program import Program, StepProgram
    from faier.model.hmm import HMM
    from faier.privacy.specs import Pufferfish

    witness = getattr(result, "witness", None)
    notes: list[str] = []
    outputs: tuple[tuple[Any, Any, Any], ...] = ()
    profile: tuple[tuple[float, float], ...] = ()
    note = ""
    try:
        problem = api.load_problem(target, options)
        one_shot = isinstance(problem.mechanism, Program | StepProgram)
        budget = Budget(timeout=30)
        pair = None
        if witness is not None:
            pair = (
                (witness.left_value, witness.right_value)
                if witness.left_value is not None
                else (witness.left, witness.right)
            )
        if pair is not None and one_shot:
            outputs = tuple(outcomes_of(problem, comparison_of(problem, pair), budget))
        if options.delta is not None:
            plds: list[Any] = []
            if one_shot:
                plds = _every_comparison(problem, budget)
            elif isinstance(problem.mechanism, HMM) and isinstance(problem.privacy, Pufferfish):
                plds = _every_pair_of_priors(problem, budget)
            if plds:
                note = f"δ(ε): the largest over all {len(plds)} ordered comparisons, exact"
            if not plds and pair is not None:
                single = pld_of(problem, comparison_of(problem, pair), budget)
                plds = [single, single.reversed()]
                note = "δ(ε) of the witness pair (both orders), exact"
            profile = _profile(plds)
    except (FaierError, BudgetExceeded) as why:
        notes.append(f"Some figures were left out: {why}")
    from faier.report.html import Extras

    return Extras(outputs=outputs, profile=profile, profile_note=note, notes=tuple(notes))


def _every_pair_of_priors(problem: Any, budget: Any) -> list[Any]:
    """Each pair of an HMM's Pufferfish question at its horizon, both orders (if few)."""
    from faier.accounting.build import pld_of

    pairs = problem.privacy.pairs
    if problem.horizon is None or len(pairs) > MAX_PROFILE_PRIOR_PAIRS:
        return []
    out = []
    for comparison in pairs:
        single = pld_of(problem, comparison, budget)
        out.extend([single, single.reversed()])
    return out


def _every_comparison(problem: Any, budget: Any) -> list[Any]:
    """The PLD of every comparison of a one-shot problem (each input run once), if not too many."""
    from faier.accounting.pld import PrivacyLossDistribution
    from faier.engines.exact.distribution_mode import compare_outputs

    mechanism = problem.mechanism
    if len(mechanism.inputs) > MAX_PROFILE_INPUTS:
        return []
    comparisons = problem.privacy.comparisons(mechanism.inputs.values)
    if len(comparisons) > MAX_PROFILE_COMPARISONS:
        return []
    name = mechanism.output_name
    return [
        PrivacyLossDistribution.from_outcomes(
            ((name(o), p, q) for o, (p, q) in compared.outcomes.items()),
            compared.comparison.left_name,
            compared.comparison.right_name,
        )
        for compared in compare_outputs(mechanism, comparisons, budget)
    ]


def _profile(plds: list[Any]) -> tuple[tuple[float, float], ...]:
    """(ε, max over the PLDs of δ(ε)) on a grid up to a little past the largest finite loss."""
    import math

    import numpy as np

    if not plds:
        return ()
    tops = [a.ratio for p in plds for a in p.atoms if a.ratio is not None and a.p > 0]
    top = max([natural_log(r) for r in tops if r >= 1] or [1.0])
    grid = np.linspace(0.0, top * 1.1, 81)
    thresholds = np.exp(grid)[:, None]
    worst = np.zeros(len(grid))
    for pld in plds:
        ratio = np.array([math.inf if a.ratio is None else saturated(a.ratio) for a in pld.atoms])
        p = np.array([float(a.p) for a in pld.atoms])
        q = np.array([float(a.q) for a in pld.atoms])
        above = ratio[None, :] > thresholds
        worst = np.maximum(worst, np.where(above, p - thresholds * q, 0.0).sum(axis=1))
    return tuple(zip(grid.tolist(), np.maximum(worst, 0.0).tolist(), strict=True))
