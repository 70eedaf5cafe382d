"""The models of dpCTL* (Liu, Wang, Zhang: Model Checking Differentially Private Properties).

Each builder returns a :class:`LogicModel` with the paper's states, labels,
initial states and neighbour relation; ``LOGIC_EXAMPLES`` names them for
``faier check``.  Output states lead to the paper's sink ``†`` (a self-loop,
dpCTL* §3.1).  docs/REFERENCES.md cites the paper.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.errors import SpecError
from faier.logic.models import STAY, LogicModel, logic_model, markov_chain, mdp
from faier.logic.neighbours import NeighbourRelation, NeighbourSpec
from faier.model.probability import parse_number
from faier.privacy.budget import Epsilon, parse_delta

if TYPE_CHECKING:
    pass

SINK = "†"
Rows = dict[str, dict[str, Fraction]]


def truncated_geometric(alpha: Fraction, top: int, value: int) -> dict[int, Fraction]:
    """The truncated α-geometric mechanism's output distribution over {0..top} (dpCTL* §3.2)."""
    scale = (1 - alpha) / (1 + alpha)
    out: dict[int, Fraction] = {}
    for z in range(top + 1):
        if z in (0, top):
            out[z] = alpha ** abs(z - value) / (1 + alpha)
        else:
            out[z] = scale * alpha ** abs(z - value)
    if top == 0:
        out[0] = Fraction(1)
    return out


def survey() -> LogicModel:
    """Survey mechanism (dpCTL* §3.1, Fig. 1): answer truthfully on tails, at random on heads."""
    rows: Rows = {
        "+": {"s": Fraction(3, 4), "t": Fraction(1, 4)},
        "-": {"s": Fraction(1, 4), "t": Fraction(3, 4)},
        "s": {SINK: Fraction(1)},
        "t": {SINK: Fraction(1)},
    }
    chain = markov_chain(
        rows, states=["+", "-", "s", "t", SINK], labels={"out1": ["s"], "out0": ["t"]}
    )
    return logic_model(
        "survey",
        chain,
        initial=["+", "-"],
        neighbours=NeighbourSpec((("+", "-"),), source="survey"),
        description="dpCTL* §3.1: + and − are diagnoses, s answers 1 (out1), t answers 0 (out0)",
    )


def geometric(alpha: Fraction = Fraction(1, 2), top: int = 5) -> LogicModel:
    """Truncated α-geometric mechanism over {0..top} (dpCTL* Fig. 2): inputs s_k, outputs t_l."""
    if not 0 < alpha < 1:
        raise SpecError(f"alpha = {alpha} is not in (0, 1)", fix="e.g. alpha=1/2")
    if top < 1:
        raise SpecError(f"top = {top} is below 1", fix="outputs are 0..top, e.g. top=5")
    rows: Rows = {}
    for k in range(top + 1):
        rows[f"s{k}"] = {f"t{z}": p for z, p in truncated_geometric(alpha, top, k).items() if p}
        rows[f"t{k}"] = {SINK: Fraction(1)}
    states = [f"s{k}" for k in range(top + 1)] + [f"t{k}" for k in range(top + 1)] + [SINK]
    labels = {f"in{k}": [f"s{k}"] for k in range(top + 1)}
    labels.update({f"out{k}": [f"t{k}"] for k in range(top + 1)})
    pairs = tuple((f"in{k}", f"in{k + 1}") for k in range(top))
    return logic_model(
        "geometric",
        markov_chain(rows, states=states, labels=labels),
        initial=[f"s{k}" for k in range(top + 1)],
        neighbours=NeighbourSpec(label_pairs=pairs, source="geometric"),
        description=f"dpCTL* §3.2: truncated {alpha}-geometric over {{0..{top}}}; s_k ~ s_(k±1)",
    )


def double_survey() -> LogicModel:
    """Two survey answers in a row (dpCTL* Fig. 4); the second still depends on the diagnosis."""
    first = {"+": Fraction(3, 4), "-": Fraction(1, 4)}
    rows: Rows = {}
    for sign, yes in first.items():
        rows[sign] = {f"{sign}1": yes, f"{sign}0": 1 - yes}
        for answer in "10":
            rows[f"{sign}{answer}"] = {"a1": yes, "a0": 1 - yes}
    rows["a1"] = {SINK: Fraction(1)}
    rows["a0"] = {SINK: Fraction(1)}
    states = ["+", "-", "+1", "+0", "-1", "-0", "a1", "a0", SINK]
    labels = {"out1": ["+1", "-1", "a1"], "out0": ["+0", "-0", "a0"]}
    return logic_model(
        "double-survey",
        markov_chain(rows, states=states, labels=labels),
        initial=["+", "-"],
        neighbours=NeighbourSpec((("+", "-"),), source="double-survey"),
        description="dpCTL* §6: two survey answers; ±1/±0 carry the first, a1/a0 the second",
    )


def interactive_survey() -> LogicModel:
    """Survey with low (L, 3/4) or high (H, 4/5) accuracy chosen per query (dpCTL* Fig. 5)."""
    accuracy = {"L": Fraction(3, 4), "H": Fraction(4, 5)}
    actions: dict[str, dict[str, dict[str, Fraction]]] = {}
    for sign in "+-":
        actions[sign] = {}
        for name, p in accuracy.items():
            yes = p if sign == "+" else 1 - p
            actions[sign][name] = {"s": yes, "t": 1 - yes}
    actions["s"] = {STAY: {SINK: Fraction(1)}}
    actions["t"] = {STAY: {SINK: Fraction(1)}}
    return logic_model(
        "interactive-survey",
        mdp(actions, states=["+", "-", "s", "t", SINK], labels={"out1": ["s"], "out0": ["t"]}),
        initial=["+", "-"],
        neighbours=NeighbourSpec((("+", "-"),), source="interactive-survey"),
        description="dpCTL* §7: actions L (survey, ln 3) and H (4/5 accurate, ln 4)",
    )


def above_threshold(top: int = 5) -> LogicModel:
    """Discrete Above Threshold (dpCTL* Fig. 6, Algorithm 3) over {0..top}, both computations.

    ``t3r5`` holds threshold 3 and first query answer 5; ``t3'r5`` has the
    threshold perturbed (¼-geometric), ``t3'r5'`` the answer too (½-geometric).
    There ⊤ is output (``top``) if the answer reaches the threshold; otherwise
    the state is labelled ``bot`` and the action ``m|n`` picks the next answer:
    m on this computation, n on its neighbour's (the ``_`` copy), |m − n| ≤ 1.
    """
    if top < 1:
        raise SpecError(f"top = {top} is below 1", fix="answers are 0..top, e.g. top=5")
    values = range(top + 1)
    letters = [(m, n) for m in values for n in values if abs(m - n) <= 1]
    quarter = {i: truncated_geometric(Fraction(1, 4), top, i) for i in values}
    half = {j: truncated_geometric(Fraction(1, 2), top, j) for j in values}
    actions: dict[str, dict[str, dict[str, Fraction]]] = {}
    labels: dict[str, list[str]] = {"top": [], "bot": []}
    states: list[str] = []
    pairs: list[tuple[str, str]] = []
    for copy in ("", "_"):
        halt = f"{copy}top"
        inputs = [f"{copy}t{i}r{j}" for i in values for j in values]
        noisy_t = [f"{copy}t{i}'r{j}" for i in values for j in values]
        noisy_r = [f"{copy}t{i}'r{j}'" for i in values for j in values]
        states += [*inputs, *noisy_t, *noisy_r, halt]
        labels["top"].append(halt)
        actions[halt] = {STAY: {halt: Fraction(1)}}
        for i in values:
            for j in values:
                actions[f"{copy}t{i}r{j}"] = {
                    STAY: {f"{copy}t{k}'r{j}": p for k, p in quarter[i].items() if p}
                }
                actions[f"{copy}t{i}'r{j}"] = {
                    STAY: {f"{copy}t{i}'r{k}'": p for k, p in half[j].items() if p}
                }
                here = f"{copy}t{i}'r{j}'"
                if j >= i:
                    actions[here] = {STAY: {halt: Fraction(1)}}
                    continue
                labels["bot"].append(here)
                actions[here] = {
                    f"{m}|{n}": {f"{copy}t{i}'r{n if copy else m}": Fraction(1)} for m, n in letters
                }
    for i in values:
        pairs += [(f"t{i}r{m}", f"_t{i}r{n}") for m in values for n in values if abs(m - n) <= 1]
    system = mdp(actions, states=states, labels=labels)
    initial = [s for s in states if "'" not in s and not s.endswith("top")]
    return logic_model(
        "above-threshold",
        system,
        initial=initial,
        neighbours=NeighbourRelation.from_pairs(
            states, pairs, description="t_i r_m ~ _t_i r_n, |m−n| ≤ 1"
        ),
        description=f"dpCTL* §7.1: threshold and answers in {{0..{top}}}; "
        "'_' marks the neighbour's copy",
    )


def above_threshold_path(k: int) -> str:
    """The path formula 'outputs ⊥ k times, then ⊤' on :func:`above_threshold`.

    Outputs are read every second step from step 2 on; ⊤ is entered one step
    after the answer that reached the threshold.
    """
    if k < 0:
        raise SpecError(f"k = {k} is negative", fix="k counts ⊥ outputs: 0, 1, 2, ...")
    inner = "X top"
    for _ in range(k):
        inner = f"bot & X X ({inner})"
    return f"X X ({inner})"


def subsampling_majority(
    n: int = 3,
    epsilon: str = "8*ln(2)",
    delta: str = "1/2",
    m: int | None = None,
    q: Fraction | None = None,
) -> LogicModel:
    """Subsampling majority (dpCTL* Algorithm 1, Fig. 3) on data sets of n red/blue members.

    q = ε/(64 ln(1/δ)) and m = ⌈ln(n/δ)/q²⌉ as in dpCTL* Algorithm 1 unless
    given (the paper prints log(n/δ)/q², unrounded).  The Laplace step's pass
    probability is transcendental; it is rounded to a multiple of 10⁻¹⁵ (rows
    still sum to exactly 1), so verdicts are exact for this rounded chain.  A
    tied subsample's majority is a fair coin.
    """
    import sympy

    if n < 1:
        raise SpecError(f"n = {n} is below 1", fix="n is the data set size, e.g. n=3")
    eps = Epsilon.parse(epsilon)
    dlt = parse_delta(delta)
    if not 0 < dlt < 1:
        raise SpecError(f"δ = {dlt} must lie strictly between 0 and 1 here", fix="e.g. delta=1/2")
    if q is None:
        exact = sympy.nsimplify(
            sympy.simplify(
                eps.expr / (64 * sympy.log(1 / sympy.Rational(dlt.numerator, dlt.denominator)))
            )
        )
        q = (
            Fraction(int(exact.p), int(exact.q))
            if exact.is_Rational
            else Fraction(str(sympy.N(exact, 30))).limit_denominator(10**6)
        )
    if not 0 < q <= 1:
        raise SpecError(f"q = {q} is not a probability in (0, 1]", fix="lower ε or set q")
    if m is None:
        m = math.ceil(math.log(n / float(dlt)) / float(q) ** 2)
    if not 1 <= m <= MAX_SUBSAMPLES:
        raise SpecError(
            f"m = {m} subsamples is too many for an exact model (at most {MAX_SUBSAMPLES})",
            fix="raise ε relative to ln(1/δ) (q = ε/(64 ln(1/δ))), or set m",
        )
    rows: Rows = {}
    datasets = ["r" * a + "b" * (n - a) for a in range(n, -1, -1)]
    for name in datasets:
        red = name.count("r")
        p_red = _red_majority(red, n - red, q)
        rows[name] = {
            f"c{k}": Fraction(math.comb(m, k)) * p_red**k * (1 - p_red) ** (m - k)
            for k in range(m + 1)
        }
        rows[name] = {k: v for k, v in rows[name].items() if v}
    for k in range(m + 1):
        margin = Fraction(abs(2 * k - m), 1)
        passes = _laplace_pass(margin / (4 * m * q) - 1, eps, dlt)
        answer = "one" if 2 * k >= m else "zero"
        rows[f"c{k}"] = (
            {answer: passes, "none": 1 - passes} if passes < 1 else {answer: Fraction(1)}
        )
        if not passes:
            rows[f"c{k}"] = {"none": Fraction(1)}
    for out in ("one", "zero", "none"):
        rows[out] = {SINK: Fraction(1)}
    states = [*datasets, *(f"c{k}" for k in range(m + 1)), "one", "zero", "none", SINK]
    labels = {"out1": ["one"], "out0": ["zero"], "none": ["none"]}
    neighbours = NeighbourSpec(tuple(itertools.pairwise(datasets)), source="subsampling-majority")
    return logic_model(
        "subsampling-majority",
        markov_chain(rows, states=states, labels=labels),
        initial=datasets,
        neighbours=neighbours,
        description=f"dpCTL* §3.3: n = {n}, ε = {eps}, δ = {dlt}, q = {q}, m = {m}; "
        "Laplace pass probabilities rounded to 1e-15",
    )


MAX_SUBSAMPLES = 400


def _red_majority(red: int, blue: int, q: Fraction) -> Fraction:
    """Pr[a subsample (each member kept with probability q) has a red majority]; ties: ½."""

    def binom(size: int) -> list[Fraction]:
        return [
            Fraction(math.comb(size, k)) * q**k * (1 - q) ** (size - k) for k in range(size + 1)
        ]

    reds, blues = binom(red), binom(blue)
    total = Fraction(0)
    for x, px in enumerate(reds):
        for y, py in enumerate(blues):
            if x > y:
                total += px * py
            elif x == y:
                total += px * py / 2
    return total


def _laplace_pass(r: Fraction, eps: Epsilon, delta: Fraction) -> Fraction:
    """Pr[r + Lap(1/ε) > ln(1/δ)/ε], rounded to a multiple of 1e-15."""
    import sympy

    rational = sympy.Rational(r.numerator, r.denominator)
    cut = sympy.log(1 / sympy.Rational(delta.numerator, delta.denominator)) / eps.expr - rational
    tail = sympy.exp(-eps.expr * cut) / 2 if cut >= 0 else 1 - sympy.exp(eps.expr * cut) / 2
    value = Fraction(str(sympy.N(tail, 40)))
    return Fraction(round(value * 10**15), 10**15)


@dataclass(frozen=True)
class Setting:
    """One parameter of a built-in example."""

    name: str
    default: str
    help: str


@dataclass(frozen=True)
class LogicExample:
    """A built-in model: how to build it, its parameters, and formulas worth checking."""

    name: str
    title: str
    settings: tuple[Setting, ...]
    build: Callable[[Mapping[str, str]], LogicModel]
    formulas: tuple[str, ...]


def _whole(settings: Mapping[str, str], name: str, default: int) -> int:
    text = settings.get(name)
    if text is None:
        return default
    try:
        value = parse_number(text)[0]
    except ValueError:
        value = Fraction(1, 2)
    if value.denominator != 1:
        raise SpecError(
            f"{name} = {text!r} is not a whole number",
            where=f"--set {name}",
            fix=f"e.g. --set {name}={default or 1}",
        )
    if not 0 <= value <= MAX_SIZE:
        raise SpecError(
            f"{name} = {text} is outside 0..{MAX_SIZE}",
            where=f"--set {name}",
            fix=f"a built-in model grows with it; e.g. --set {name}={default}",
        )
    return int(value)


MAX_SIZE = 1000
"""Largest size parameter of a built-in dpCTL* example (its state count grows with it)."""


def _fraction(settings: Mapping[str, str], name: str, default: Fraction | None) -> Fraction | None:
    text = settings.get(name)
    if text is None:
        return default
    try:
        return parse_number(text)[0]
    except ValueError:
        raise SpecError(
            f"{name} = {text!r} is not a number",
            where=f"--set {name}",
            fix=f"write a fraction or a decimal, e.g. --set {name}={default or '1/2'}",
        ) from None


LOGIC_EXAMPLES: dict[str, LogicExample] = {
    e.name: e
    for e in (
        LogicExample(
            "survey",
            "survey mechanism (dpCTL* §3.1)",
            (),
            lambda s: survey(),
            ("D{ln(3), 0}[X out1] & D{ln(3), 0}[X out0]",),
        ),
        LogicExample(
            "geometric",
            "truncated α-geometric mechanism over {0..top} (dpCTL* §3.2)",
            (Setting("alpha", "1/2", "α in (0, 1)"), Setting("top", "5", "largest output")),
            lambda s: geometric(
                _fraction(s, "alpha", Fraction(1, 2)) or Fraction(1, 2), _whole(s, "top", 5)
            ),
            (" & ".join(f"D{{ln(2), 0}}[X out{k}]" for k in range(6)),),
        ),
        LogicExample(
            "subsampling-majority",
            "subsampling majority (dpCTL* §3.3)",
            (
                Setting("n", "3", "data set size"),
                Setting("epsilon", "8*ln(2)", "ε of the mechanism"),
                Setting("delta", "1/2", "δ of the mechanism"),
                Setting("m", "⌈ln(n/δ)/q²⌉", "number of subsamples"),
                Setting("q", "ε/(64 ln(1/δ))", "probability of keeping a member"),
            ),
            lambda s: subsampling_majority(
                _whole(s, "n", 3),
                s.get("epsilon", "8*ln(2)"),
                s.get("delta", "1/2"),
                _whole(s, "m", 0) or None,
                _fraction(s, "q", None),
            ),
            ("D{ln(2), 0}[F out1] & D{ln(2), 0}[F out0]",),
        ),
        LogicExample(
            "double-survey",
            "two survey answers (dpCTL* §6)",
            (),
            lambda s: double_survey(),
            (
                "D{ln(9), 0}[X (out1 & X out1)]",
                "D{ln(3), 0}[X X out1]",
                "D{ln(3), 0}[X (out1 & D{ln(3), 0}[X out1])]",
                "D{0, 1/2}[X (out1 & X out1)]",
            ),
        ),
        LogicExample(
            "interactive-survey",
            "interactive survey MDP with actions L and H (dpCTL* §7)",
            (),
            lambda s: interactive_survey(),
            ("D{ln(4), 0}[X out1] & D{ln(4), 0}[X out0]", "D{ln(4), 0}[F out1]"),
        ),
        LogicExample(
            "above-threshold",
            "discrete Above Threshold MDP (dpCTL* §7.1)",
            (Setting("top", "5", "thresholds and answers are 0..top"),),
            lambda s: above_threshold(_whole(s, "top", 5)),
            (f"D{{1, 0.74}}[{above_threshold_path(1)}]",),
        ),
    )
}


def build_example(name: str, settings: Mapping[str, str] | None = None) -> LogicModel:
    """A built-in model by name, with ``--set`` parameters checked against its own."""
    example = LOGIC_EXAMPLES[name]
    given = dict(settings or {})
    allowed = {s.name for s in example.settings}
    for key in given:
        if key not in allowed:
            raise SpecError(
                f"{name} has no parameter {key!r}",
                where=f"--set {key}",
                fix=f"its parameters are {', '.join(sorted(allowed)) or '(none)'}",
            )
    try:
        return example.build(given)
    except SpecError as exc:  # the builder's refusal names no option: place it at the values
        if exc.where is not None or not given:
            raise
        shown = ", ".join(f"{key}={value}" for key, value in given.items())
        raise SpecError(exc.message, where=f"--set {shown}", fix=exc.fix) from None
