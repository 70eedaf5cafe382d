"""How much δ a D needs for a given ε: the exact quantity behind dpCTL*'s (ε, δ) pairs.

``least_delta`` maximises Pr(s, φ) − e^ε·Pr(t, φ) over neighbour pairs (both
orders) — over action words on an MDP (bounded φ, exact), or with dpCTL*
Proposition 2's bound max Pr(s) − e^ε·min Pr(t).  ``D{ε, δ}[φ]`` holds in all
the pairs exactly when δ is at least the (non-negative part of) this value.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from faier.errors import SpecError
from faier.logic._closeness import FLOAT_MAX, DiffBudget, scaled
from faier.logic._evaluate import Evaluator
from faier.logic._mdp import WordSearch, WordsExhausted, query_letters
from faier.logic.checker import WORD_LIMIT
from faier.logic.models import LogicModel
from faier.logic.outcome import show_word
from faier.logic.parser import parse_formula
from faier.logic.syntax import Formula, horizon
from faier.model.chains import MDP
from faier.privacy.budget import Epsilon


@dataclass(frozen=True)
class DeltaNeed:
    """Pr(left) − e^ε·Pr(right) at the worst comparison (p = Pr(left), q = Pr(right))."""

    epsilon: Epsilon
    left: str
    right: str
    p: Fraction
    q: Fraction
    method: Literal["storm", "words", "proposition 2"]
    word: tuple[str | None, ...] | None = None

    @property
    def exact(self) -> Fraction | None:
        """The value exactly, when e^ε is rational."""
        ratio = self.epsilon.exp_ratio
        return None if ratio is None else self.p - ratio * self.q

    @property
    def value(self) -> float:
        """The value as a float, −FLOAT_MAX when e^ε·q is past the float range (ε > 709)."""
        return float(self.p) - scaled(self.epsilon, self.q)

    def show(self) -> str:
        exact = self.exact
        text = str(exact) if exact is not None else f"{self.p} − e^{self.epsilon}·{self.q}"
        where = f"{self.left} vs {self.right}"
        if self.word is not None:
            where += f", actions {show_word(self.word)}"
        value = self.value
        if abs(value) < 1e6:
            shown = f"≈ {value:.6f}"
        elif value > -FLOAT_MAX:
            shown = f"≈ {value:.6g}"
        elif exact is not None:
            with decimal.localcontext() as context:
                context.prec, context.Emax = 6, decimal.MAX_EMAX
                shown = f"≈ {decimal.Decimal(exact.numerator) / exact.denominator:.6g}"
        else:
            shown = f"< {-FLOAT_MAX:.6g}"
        return f"{text} {shown} ({where})"


def least_delta(
    model: LogicModel,
    path: str | Formula,
    epsilon: str | Epsilon,
    *,
    pairs: list[tuple[str, str]] | None = None,
    method: Literal["words", "proposition 2"] = "words",
    word_limit: int = WORD_LIMIT,
) -> DeltaNeed:
    """The worst comparison over ``pairs`` (default: every neighbour pair).

    On a Markov chain both methods are the exact value.  On an MDP, "words"
    is exact over query schedulers (bounded φ only); "proposition 2" is
    dpCTL* Proposition 2's upper bound over all schedulers.
    """
    formula = parse_formula(path, path=True).formula if isinstance(path, str) else path
    eps = epsilon if isinstance(epsilon, Epsilon) else Epsilon.parse(epsilon)
    chosen = list(pairs) if pairs is not None else list(model.neighbours.unordered())
    if not chosen:
        raise SpecError("no neighbour pairs to compare", fix="give the model a neighbour relation")
    evaluator = Evaluator(model, word_limit)
    sat, undecided = evaluator.inputs(formula)
    if undecided:
        raise SpecError("a nested D is undecided", fix="simplify the path formula")
    budget = DiffBudget(eps, Fraction(0))
    candidates: list[DeltaNeed] = []
    system = model.system
    if isinstance(system, MDP) and method == "words":
        if horizon(formula) is None:
            raise SpecError(
                "action words decide only bounded path formulas",
                fix="use method='proposition 2', or bound the path formula",
            )
        search = WordSearch(system, query_letters(system), formula, sat, budget, word_limit)
        for s, t in chosen:
            try:
                worst = search.pair(s, t).closest
            except WordsExhausted:
                raise SpecError(
                    f"more than {word_limit} search nodes", fix="raise word_limit"
                ) from None
            assert worst is not None
            candidates.append(
                DeltaNeed(eps, worst.left, worst.right, worst.p, worst.q, "words", worst.word)
            )
    else:
        high = evaluator.values(formula, "max")
        low = evaluator.values(formula, "min")
        kind: Literal["storm", "proposition 2"] = (
            "proposition 2" if isinstance(system, MDP) else "storm"
        )
        for s, t in chosen:
            candidates.append(DeltaNeed(eps, s, t, high[s], low[t], kind))
            candidates.append(DeltaNeed(eps, t, s, high[t], low[s], kind))
    return max(candidates, key=_key)


def _key(need: DeltaNeed) -> Fraction | float:
    exact = need.exact
    return exact if exact is not None else need.value
