"""Export an exact PLD to Google's ``dp_accounting`` (the ``accounting`` extra).

``dp_accounting.pld.privacy_loss_distribution.from_two_probability_mass_functions``
takes mu_upper and mu_lower as log-probability mass functions and builds the
PLD of ln(mu_upper/mu_lower) under mu_upper (the "remove" direction) and,
with ``symmetric=False``, of the other order too (the "add" direction).
faier's comparison (x, y) has P = Pr[· | x] as mu_upper and Q = Pr[· | y] as
mu_lower, so both orders of a neighbouring pair reach the accountant and its
δ(ε) is the larger of the two.  One synthetic output per exact loss value
is passed (the loss depends only on the ratio), so a k-fold composition
exported this way is as small as faier's own.  dp_accounting then rounds
each loss up (pessimistic) or down to its discretisation grid: its δ(ε) is
an upper (lower) bound on the exact one.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from faier.accounting.pld import PrivacyLossDistribution
from faier.errors import InputError
from faier.results import natural_log


def _log(p: Fraction) -> float:
    return natural_log(p)


def log_mass_functions(pld: PrivacyLossDistribution) -> tuple[dict[str, float], dict[str, float]]:
    """(mu_lower, mu_upper) as ``{output: ln probability}``: Q and P, zero masses left out."""
    lower = {name: _log(q) for name, _, q in pld.outcomes() if q > 0}
    upper = {name: _log(p) for name, p, _ in pld.outcomes() if p > 0}
    return lower, upper


def to_dp_accounting(
    pld: PrivacyLossDistribution,
    *,
    value_discretization_interval: float = 1e-4,
    pessimistic_estimate: bool = True,
) -> Any:
    """A ``dp_accounting`` ``PrivacyLossDistribution`` for both orders of the pair.

    Compose it with the accountant's other PLDs (``compose``,
    ``self_compose``) and ask ``get_delta_for_epsilon`` or
    ``get_epsilon_for_delta``.
    """
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError:
        raise InputError(
            "exporting to dp_accounting needs the dp-accounting package",
            fix="pip install 'faier[accounting]'",
        ) from None
    lower, upper = log_mass_functions(pld)
    return privacy_loss_distribution.from_two_probability_mass_functions(
        lower,
        upper,
        pessimistic_estimate=pessimistic_estimate,
        value_discretization_interval=value_discretization_interval,
        symmetric=False,
    )
