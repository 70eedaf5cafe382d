"""faier: exact verification, quantification and testing of privacy mechanisms.

Public modules:

* ``faier.api`` (re-exported here): :func:`epsilon`, :func:`verify`, :func:`load_problem`,
  :func:`pld` (exact privacy loss distributions, ``faier.accounting``), :func:`audit`
  (a real function run on neighbouring datasets with its noise intercepted, ``faier.auditing``).
* ``faier.model``: distributions, HMMs, Markov chains, MDPs, model files.
* ``faier.mechanisms``: writing mechanisms (:func:`program`, ``StepProgram``,
  ``Interactive``) and the built-in library.
* ``faier.privacy``: ε/δ budgets, neighbour relations, DP and Pufferfish specs,
  data models with exact Bayesian conditioning.
* ``faier.core``: ``Problem``, ``Options`` (every run setting), the ``Engine``
  protocol and its registry (``faier.core.engine.register``).
* ``faier.engines``: the exact, SMT and statistical engines.
* ``faier.results``: the ``Result`` every engine returns.
* ``faier.assert_private`` (``faier.assertions``): a privacy assertion for tests, exact
  where faier can decide the mechanism, statistical otherwise; ``faier.testing``: the
  statistical tester; ``faier.adapters``: OpenDP and diffprivlib objects as black boxes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faier import results as _results
from faier.core import builtin_engines as _engine
from faier.lazy import loader
from faier.version import VERSION

if TYPE_CHECKING:
    from faier.api import audit, epsilon, load_problem, pld, verify
    from faier.assertions import Assurance, assert_private
    from faier.core.options import Options
    from faier.core.problem import Problem
    from faier.errors import FaierError, InputError
    from faier.mechanisms import (
        Context,
        Done,
        Interactive,
        PermuteQueries,
        Program,
        StepProgram,
        grid,
        permute_queries,
        scalars,
    )
    from faier.mechanisms.continuous import exponential, gaussian, laplace
    from faier.mechanisms.discrete_noise import discrete_gaussian, discrete_laplace
    from faier.mechanisms.program import program
    from faier.model.distribution import Distribution, bernoulli, truncated_geometric
    from faier.privacy.budget import Epsilon
    from faier.results import Result, Verdict

__version__ = VERSION

_HOMES: dict[str, tuple[str, ...]] = {
    "api": ("audit", "epsilon", "load_problem", "pld", "verify"),
    "assertions": ("Assurance", "assert_private"),
    "core.options": ("Options",),
    "core.problem": ("Problem",),
    "errors": ("FaierError", "InputError"),
    "mechanisms": (
        "Context",
        "Done",
        "Interactive",
        "PermuteQueries",
        "Program",
        "StepProgram",
        "grid",
        "permute_queries",
        "scalars",
    ),
    "mechanisms.program": ("program",),
    "mechanisms.continuous": ("exponential", "gaussian", "laplace"),
    "mechanisms.discrete_noise": ("discrete_gaussian", "discrete_laplace"),
    "model.distribution": ("Distribution", "bernoulli", "truncated_geometric"),
    "privacy.budget": ("Epsilon",),
    "results": ("Result", "Verdict"),
}
"""Where each public name lives: imported on first use (PEP 562), so ``import faier``
and the ``faier`` command load numpy, the engines and the API only when they are used."""
__getattr__ = loader("faier", _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "Assurance",
    "Context",
    "Distribution",
    "Done",
    "Epsilon",
    "FaierError",
    "InputError",
    "Interactive",
    "Options",
    "PermuteQueries",
    "Problem",
    "Program",
    "Result",
    "StepProgram",
    "Verdict",
    "assert_private",
    "audit",
    "bernoulli",
    "discrete_gaussian",
    "discrete_laplace",
    "epsilon",
    "exponential",
    "gaussian",
    "grid",
    "laplace",
    "load_problem",
    "permute_queries",
    "pld",
    "program",
    "scalars",
    "truncated_geometric",
    "verify",
]


def _html_fragment(report: object) -> str:
    """A report's HTML as Jupyter shows it, from the report layer (loaded on first use): the
    results sit below that layer, so the package installs it for them."""
    from faier.report.html import fragment

    return fragment(report)


_results.use_html_renderer(_html_fragment)

# The built-in engines, in the order ``--engine auto`` asks them: the registry (core) sits
# below the engines and is told their entry modules here, each imported on first use.
_engine.declare_builtin("certified", "faier.engines.certified.entry")
_engine.declare_builtin("exact", "faier.engines.exact.entry")
_engine.declare_builtin("smt", "faier.engines.smt.entry")
_engine.declare_builtin("statistical", "faier.engines.statistical.entry")
_engine.declare_builtin("alignment", "faier.engines.alignment.entry")
_engine.declare_builtin("dpctl", "faier.logic.entry")
