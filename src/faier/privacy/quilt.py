"""The Markov Quilt Mechanism's calibration for a Markov chain, discrete version.

Song, Wang and Chaudhuri ("Pufferfish Privacy Mechanisms for Correlated
Data", SIGMOD 2017: the Markov Quilt Mechanism) protect each step X_i of a Markov chain by choosing
a Markov quilt X_Q = {X_{i−a}, X_{i+b}} (either side may be missing) that
separates the nearby steps X_N (those strictly between) from the rest.  The
quilt's max-influence

    e(X_Q | X_i) = max over secret values x, x' and quilt values x_Q of
                   ln Pr(X_Q = x_Q | X_i = x) / Pr(X_Q = x_Q | X_i = x')

bounds what the remote steps reveal; the nearby steps can move a
1-Lipschitz query by at most card(X_N), so noise of scale σ with
card(X_N)/σ ≤ ε − e(X_Q | X_i) makes the whole release ε-Pufferfish private.
The discrete counterpart releases the count of a state with truncated
α-geometric noise, which changes by at most a factor 1/α per unit of the
count, so at noise level α the calibration claims

    ε_MQM(α) = max_i min_Q  e(X_Q | X_i) + card(X_N)·ln(1/α).

Both terms are logarithms of rationals, so ε_MQM is ln of an exact rational
and can be set beside the mechanism's exact Pufferfish loss
(docs/MARKOV_QUILT.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import SpecError
from faier.model.parameters import Parameter
from faier.privacy.correlated import RecordSecret, count, pufferfish
from faier.privacy.markovdata import MarkovChainData
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish

Matrix = dict[str, dict[str, Fraction]]


@dataclass(frozen=True)
class Quilt:
    """A quilt around step i (1-based): a steps before and b after (None: no node)."""

    step: int
    before: int | None
    after: int | None
    nearby: int
    influence: Fraction | None
    """e^{e(X_Q | X_i)}; None when infinite (a quilt value possible under one secret only)."""

    def describe(self) -> str:
        nodes = []
        if self.before is not None:
            nodes.append(f"X{self.step - self.before}")
        if self.after is not None:
            nodes.append(f"X{self.step + self.after}")
        return "{" + ", ".join(nodes) + "}"

    def claim(self, alpha: Fraction) -> Fraction | None:
        """e^ε this quilt guarantees at noise level α (None: infinite)."""
        if self.influence is None:
            return None
        return self.influence * (1 / alpha) ** self.nearby


@dataclass(frozen=True)
class Calibration:
    """ε_MQM(α) = ln(ratio) and the quilt chosen for each step."""

    ratio: Fraction | None
    chosen: tuple[Quilt, ...]


def _rational(chain: MarkovChainData) -> tuple[dict[str, Fraction], Matrix]:
    initial = {}
    for s in chain.states:
        w = chain.initial.get(s, Fraction(0))
        if not isinstance(w, Fraction):
            raise SpecError(
                "the Markov quilt calibration needs every chain probability fixed",
                fix="give the chain's parameters values (--set)",
            )
        initial[s] = w
    matrix: Matrix = {}
    for s in chain.states:
        matrix[s] = {}
        for t in chain.states:
            w = chain.step(s, t)
            if not isinstance(w, Fraction):
                raise SpecError("the Markov quilt calibration needs every chain probability fixed")
            matrix[s][t] = w
    return initial, matrix


def _power(matrix: Matrix, states: tuple[str, ...], k: int) -> Matrix:
    out = {s: {t: Fraction(int(s == t)) for t in states} for s in states}
    for _ in range(k):
        out = {
            s: {t: sum((out[s][u] * matrix[u][t] for u in states), Fraction(0)) for t in states}
            for s in states
        }
    return out


def _max_ratio(rows: Mapping[str, Mapping[str, Fraction]]) -> Fraction | None:
    """max over x, x', v of rows[x][v] / rows[x'][v] (None: infinite)."""
    best = Fraction(1)
    for x, y in itertools.permutations(rows, 2):
        for v, p in rows[x].items():
            q = rows[y][v]
            if p > 0 and q == 0:
                return None
            if p > 0:
                best = max(best, p / q)
    return best


def quilts(chain: MarkovChainData, step: int) -> list[Quilt]:
    """Every quilt around ``step`` (1-based), with its nearby count and max-influence."""
    initial, matrix = _rational(chain)
    states, length = chain.states, chain.length
    marginal = [initial]
    for _ in range(length - 1):
        prev = marginal[-1]
        marginal.append(
            {t: sum((prev[s] * matrix[s][t] for s in states), Fraction(0)) for t in states}
        )
    possible = [x for x in states if marginal[step - 1][x] > 0]
    out = []
    for a in [None, *range(1, step)]:
        for b in [None, *range(1, length - step + 1)]:
            if a is None and b is None:
                out.append(Quilt(step, None, None, length, Fraction(1)))
                continue
            backward: dict[str, dict[str, Fraction]] | None = None
            forward: dict[str, dict[str, Fraction]] | None = None
            if a is not None:
                power = _power(matrix, states, a)
                earlier = marginal[step - 1 - a]
                backward = {
                    x: {u: earlier[u] * power[u][x] / marginal[step - 1][x] for u in states}
                    for x in possible
                }
            if b is not None:
                power = _power(matrix, states, b)
                forward = {x: dict(power[x]) for x in possible}
            influence: Fraction | None = Fraction(1)
            for part in (backward, forward):
                if part is None or influence is None:
                    continue
                r = _max_ratio(part)
                influence = None if r is None else influence * r
            low = step - a if a is not None else 0
            high = step + b if b is not None else length + 1
            out.append(Quilt(step, a, b, high - low - 1, influence))
    return out


def calibration(chain: MarkovChainData, alpha: Fraction) -> Calibration:
    """The ε the Markov Quilt Mechanism's calibration claims at noise level α."""
    if not 0 < alpha < 1:
        raise SpecError(f"the geometric noise level α = {alpha} must lie strictly between 0 and 1")
    chosen = []
    worst: Fraction | None = Fraction(1)
    for step in range(1, chain.length + 1):
        finite = [q for q in quilts(chain, step) if q.influence is not None]
        best = min(finite, key=lambda q: q.claim(alpha) or 0)
        chosen.append(best)
        claim = best.claim(alpha)
        assert claim is not None and worst is not None
        worst = max(worst, claim)
    return Calibration(worst, tuple(chosen))


def step_secrets(chain: MarkovChainData) -> tuple[tuple[RecordSecret, RecordSecret], ...]:
    """Every step, every ordered pair of distinct states (Song et al.'s discriminative pairs)."""
    pairs = []
    for step in chain.records:
        for x, y in itertools.combinations(chain.states, 2):
            pairs.append((RecordSecret.has(step, x), RecordSecret.has(step, y)))
    return tuple(pairs)


def quilt_privacy(
    chain: MarkovChainData,
    counted: str,
    parameters: tuple[Parameter, ...] = (),
    *,
    as_text: bool = False,
) -> Pufferfish | ParametricPufferfish:
    """Pufferfish over the chain for the count of ``counted`` (secrets of positive mass only);
    parametric while some of ``parameters`` has no value; ``as_text`` names the counts
    ``"0"``, ``"1"``, … as an HMM's states."""
    return pufferfish(
        chain,
        step_secrets(chain),
        count(counted, as_text=as_text),
        parameters,
        f"Pufferfish over {chain.describe()}, secrets: each step's state",
    )


def symmetric_chain(stay: Fraction | str, length: int) -> MarkovChainData:
    """Two states 0/1 that stay put with probability ``stay`` (a number, or a parameter's
    name such as ``"q"``), started at the stationary distribution (½, ½)."""
    move: Fraction | str = 1 - stay if isinstance(stay, Fraction) else f"1 - {stay}"
    return MarkovChainData.of(
        ("0", "1"),
        {"0": Fraction(1, 2), "1": Fraction(1, 2)},
        {"0": {"0": stay, "1": move}, "1": {"0": move, "1": stay}},
        length,
    )
