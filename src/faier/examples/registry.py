"""Named case studies: ``faier epsilon noisy-max --set n=5``.

Each example turns its parameter values into a :class:`Problem`.  Names,
parameters and defaults are listed by ``faier examples``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from faier.core.problem import Problem
from faier.errors import SpecError
from faier.examples import correlated, scenarios
from faier.examples.continuous import SPECS as CONTINUOUS
from faier.examples.discrete_noise import SPECS as DISCRETE_NOISE
from faier.examples.paper_hmms import geometric_hmm, noisy_max_hmm
from faier.examples.parameters import ParameterSpec, Unknown, fraction, resolve
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.geometric import truncated_geometric_mechanism
from faier.mechanisms.library.histogram import histogram
from faier.mechanisms.library.noisy_max import TIES, NoisyMaxState, noisy_max
from faier.mechanisms.library.randomized_response import randomized_response
from faier.mechanisms.library.sparse_vector import VARIANTS, sparse_vector
from faier.mechanisms.program import StepProgram
from faier.model.parameters import Parameter
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy, InteractiveDP, PrivacySpec


@dataclass(frozen=True)
class Example:
    """A built-in case study: parameters with defaults and a builder.

    ``reference`` cites where it comes from, by the short names of
    docs/REFERENCES.md.
    """

    name: str
    title: str
    reference: str
    parameters: tuple[ParameterSpec, ...]
    build: Callable[[dict[str, Any]], Problem]
    unknowns: tuple[Unknown, ...] = ()

    def problem(self, settings: Mapping[str, str] | None = None) -> Problem:
        """The problem for these ``--set`` values (defaults for the rest)."""
        values = resolve(self.parameters, settings or {}, self.name)
        values.update({u.name: u.parameter for u in self.unknowns})
        return self.build(values)


ALPHA = ParameterSpec("alpha", "fraction", "1/2", "geometric noise parameter α (ε = ln 1/α)")
RANGE = ParameterSpec("m", "int", 2, "answers lie in {0..m}", minimum=1)


def _geometric(v: dict[str, Any]) -> Problem:
    alpha, m, scenario = fraction(v["alpha"]), v["m"], v["scenario"]
    mechanism = truncated_geometric_mechanism(alpha, m)
    p = fraction(v["p"])
    privacy: PrivacySpec
    if scenario == "dp":
        privacy = DifferentialPrivacy(EveryQuery(1))
    elif scenario == "contagious":
        privacy = scenarios.disease_count(m, p, contagious=True)
    elif scenario == "independent":
        privacy = scenarios.disease_count(m, p, contagious=False)
    else:
        if m != 2:
            raise SpecError("the paper's verbatim distributions are for m = 2", where="--set m")
        privacy = scenarios.disease_count_paper(p)
    return Problem("geometric", mechanism, privacy, title=mechanism.name)


def _randomized_response(v: dict[str, Any]) -> Problem:
    mechanism = randomized_response(fraction(v["truth"]), fraction(v["heads"]))
    return Problem(
        "randomized-response", mechanism, DifferentialPrivacy(EveryQuery(1)), title=mechanism.name
    )


def _noisy_max(v: dict[str, Any]) -> Problem:
    n, m, scenario = v["n"], v["m"], v["scenario"]
    mechanism = noisy_max(n, v["ties"], fraction(v["alpha"]), m)
    privacy: PrivacySpec
    if scenario == "dp":
        privacy = DifferentialPrivacy(EveryQuery(1))
    else:
        if (n, m) != (3, 2):
            raise SpecError(
                f"scenario {scenario!r} models three diseases and two people",
                fix="use --set n=3 --set m=2",
            )
        pa, pb, pc = fraction(v["pA"]), fraction(v["pB"]), fraction(v["pC"])
        if scenario == "diseases":
            privacy = scenarios.three_diseases(pa, pb, pc, contagious_a=False)
        elif scenario == "family":
            privacy = scenarios.three_diseases(pa, pb, pc, contagious_a=True)
        else:
            privacy = scenarios.three_diseases_paper(pa, pb, pc)
    return Problem("noisy-max", mechanism, privacy, title=mechanism.name)


def _above_threshold(v: dict[str, Any]) -> Problem:
    mechanism = above_threshold(
        fraction(v["threshold_alpha"]), fraction(v["query_alpha"]), v["m"], v["threshold"]
    )
    return Problem("above-threshold", mechanism, InteractiveDP(1), title=mechanism.name)


def _histogram(v: dict[str, Any]) -> Problem:
    mechanism = histogram(v["bins"], fraction(v["alpha"]), v["m"])
    return Problem("histogram", mechanism, DifferentialPrivacy(OneQuery(1)), title=mechanism.name)


def _sparse_vector(v: dict[str, Any]) -> Problem:
    mechanism = sparse_vector(
        v["variant"],
        threshold_alpha=fraction(v["threshold_alpha"]),
        query_alpha=fraction(v["query_alpha"]),
        m=v["m"],
        cutoff=v["cutoff"],
        threshold=v["threshold"],
    )
    return Problem("sparse-vector", mechanism, InteractiveDP(1), title=mechanism.name)


def _markov_quilt(v: dict[str, Any]) -> Problem:
    return correlated.markov_quilt_problem(v["length"], fraction(v["stay"]), fraction(v["alpha"]))


def _household(v: dict[str, Any]) -> Problem:
    p, c = _unknowns(v, "p", "c")
    return correlated.household_problem(v["people"], p, c)


def _unknowns(v: dict[str, Any], *names: str) -> tuple[Parameter, ...]:
    return tuple(v[name] for name in names)


PRIORS = ParameterSpec(
    "priors",
    "choice",
    "secret",
    "condition on the secret itself, or take the paper's distributions verbatim",
    ("secret", "paper"),
)


def _count_independent(v: dict[str, Any]) -> Problem:
    (p,) = _unknowns(v, "p")
    if v["priors"] == "paper":
        privacy = scenarios.count_paper_with_unknown(p)
    else:
        privacy = scenarios.diseases_with_unknowns(
            (scenarios.attribute("disease", p),),
            "disease",
            (p,),
            "Pufferfish, independent disease, secret: does John have it",
            prefix="",
        )
    return Problem(
        "count-independent-disease", geometric_hmm(), privacy, 1, "truncated ½-geometric (Fig. 1c)"
    )


def _count_contagious(v: dict[str, Any]) -> Problem:
    (p,) = _unknowns(v, "p")
    privacy = scenarios.diseases_with_unknowns(
        (scenarios.attribute("disease", p, contagious=True),),
        "disease",
        (p,),
        "Pufferfish, contagious disease (both or neither), secret: does John have it",
        prefix="",
    )
    return Problem(
        "count-contagious-disease", geometric_hmm(), privacy, 1, "truncated ½-geometric (Fig. 1c)"
    )


def _most_common(v: dict[str, Any], name: str, contagious_a: bool) -> Problem:
    params = _unknowns(v, "pA", "pB", "pC")
    if v.get("priors") == "paper":
        privacy = scenarios.three_diseases_paper_with_unknowns(params)
    else:
        kind = "A contagious in the family" if contagious_a else "independent diseases"
        attributes = tuple(
            scenarios.attribute(d, p, contagious=contagious_a and d == "A")
            for d, p in zip("ABC", params, strict=True)
        )
        privacy = scenarios.diseases_with_unknowns(
            attributes, "A", params, f"Pufferfish, {kind}, secret: does John have A"
        )
    return Problem(name, noisy_max_hmm(3), privacy, 2, "discrete Noisy Max, n = 3 (Fig. 2)")


def _most_common_of_five(v: dict[str, Any]) -> Problem:
    params = _unknowns(v, "p1", "p2", "p3", "p4", "p5")
    attributes = tuple(
        scenarios.attribute(f"disease {i + 1}", p, contagious=i == 0) for i, p in enumerate(params)
    )
    privacy = scenarios.diseases_with_unknowns(
        attributes,
        "disease 1",
        params,
        "Pufferfish, disease 1 contagious in the family, secret: does John have disease 1",
        prefix=None,
    )
    mechanism = _five_queries()
    return Problem("most-common-of-five-diseases", mechanism, privacy, title=mechanism.name)


@functools.lru_cache(maxsize=1)
def _five_queries() -> StepProgram[NoisyMaxState, int]:
    """Noisy Max over five queries, shared so its memoised program states are reused."""
    return noisy_max(5)


def _most_common_secret_c(v: dict[str, Any]) -> Problem:
    p1, p2 = _unknowns(v, "p1", "p2")
    attributes = (
        scenarios.attribute("A", p1),
        scenarios.attribute("B", p2, contagious=True),
        scenarios.attribute("C", Fraction(1, 2)),
    )
    privacy = scenarios.diseases_with_unknowns(
        attributes,
        "C",
        (p1, p2),
        "Pufferfish, A independent, B contagious, no knowledge of C, secret: does John have C",
    )
    report = "value" if v["report"] == "value" else "first"
    return Problem(
        "most-common-disease-secret-c",
        noisy_max_hmm(3, report),
        privacy,
        2,
        "discrete Noisy Max, n = 3, smallest index on ties (notes Ex. 7.1)",
    )


def _probability(name: str, what: str, value: Fraction | None = None) -> Unknown:
    return Unknown(name, f"probability of {what}", value=value)


THRESHOLD_ALPHA = ParameterSpec(
    "threshold_alpha", "fraction", "1/4", "geometric α of the threshold noise"
)
QUERY_ALPHA = ParameterSpec("query_alpha", "fraction", "1/2", "geometric α of the query noise")
PUBLIC_THRESHOLD = ParameterSpec(
    "threshold", "optional-int", None, "public threshold (default: every t)"
)

EXAMPLES: tuple[Example, ...] = (
    Example(
        "geometric",
        "truncated α-geometric mechanism over {0..m}",
        "FAIER journal §4 (Fig. 1, Ex. 4.1–4.5); conference Ex. 1–4",
        (
            ALPHA,
            RANGE,
            ParameterSpec(
                "scenario",
                "choice",
                "dp",
                "privacy scenario",
                ("dp", "contagious", "independent", "independent-paper"),
            ),
            ParameterSpec("p", "fraction", "1/2", "disease probability in Pufferfish scenarios"),
        ),
        _geometric,
    ),
    Example(
        "randomized-response",
        "randomized response (the survey mechanism)",
        "dpCTL* §3.1, Fig. 1 (survey mechanism); ln 3-DP with fair coins",
        (
            ParameterSpec("truth", "fraction", "1/2", "probability of answering truthfully"),
            ParameterSpec("heads", "fraction", "1/2", "probability that the random answer is 1"),
        ),
        _randomized_response,
    ),
    Example(
        "noisy-max",
        "discrete Noisy Max over n counting queries",
        "FAIER journal §6.2 (Alg. 2, 3; Ex. 6.1–6.3); Noisy Max notes",
        (
            ParameterSpec("n", "int", 3, "number of queries", minimum=1),
            ParameterSpec(
                "ties", "choice", "uniform", "first index / uniform index / max value", TIES
            ),
            ALPHA,
            RANGE,
            ParameterSpec(
                "scenario",
                "choice",
                "dp",
                "privacy scenario",
                ("dp", "diseases", "family", "diseases-paper"),
            ),
            ParameterSpec("pA", "fraction", "1/2", "probability of disease A (Pufferfish)"),
            ParameterSpec("pB", "fraction", "1/2", "probability of disease B (Pufferfish)"),
            ParameterSpec("pC", "fraction", "1/2", "probability of disease C (Pufferfish)"),
        ),
        _noisy_max,
    ),
    Example(
        "above-threshold",
        "discrete Above Threshold (interactive; no finite ε)",
        "FAIER journal §6.3 (Alg. 4, Fig. 3)",
        (THRESHOLD_ALPHA, QUERY_ALPHA, RANGE, PUBLIC_THRESHOLD),
        _above_threshold,
    ),
    Example(
        "sparse-vector",
        "discrete sparse vector: SVT and iSVT 1–4 (interactive)",
        "StatDP §5.3 (Algs. 11–15; Lyu et al. 2017), discretised like FAIER's Above Threshold",
        (
            ParameterSpec("variant", "choice", "svt", "which variant", tuple(VARIANTS)),
            THRESHOLD_ALPHA,
            QUERY_ALPHA,
            RANGE,
            ParameterSpec("cutoff", "int", 1, "halt after this many ⊤ (N)", minimum=1),
            PUBLIC_THRESHOLD,
        ),
        _sparse_vector,
    ),
    Example(
        "histogram",
        "noisy histogram (one query ±1 neighbours)",
        "StatDP §5.2 (histogram), with truncated geometric noise",
        (
            ParameterSpec("bins", "int", 2, "number of bins", minimum=1),
            ALPHA,
            RANGE,
        ),
        _histogram,
    ),
    Example(
        "count-independent-disease",
        "noisy count of an independent disease, infection rate p unknown (Pufferfish)",
        "FAIER journal Ex. 4.5 (Table 1); conference Ex. 4 — truncated ½-geometric, Fig. 1c",
        (PRIORS,),
        _count_independent,
        (_probability("p", "the disease (each person independently)"),),
    ),
    Example(
        "count-contagious-disease",
        "noisy count of a contagious disease in a family of two, p unknown (Pufferfish)",
        "FAIER journal Ex. 4.3–4.4; conference Ex. 3 — truncated ½-geometric, Fig. 1c",
        (),
        _count_contagious,
        (_probability("p", "the disease (both or neither)"),),
    ),
    Example(
        "most-common-disease",
        "noisy max over three independent diseases, pA, pB, pC unknown (Pufferfish)",
        "FAIER journal Ex. 6.2; conference Ex. 5 — discrete Noisy Max, Fig. 2",
        (PRIORS,),
        lambda v: _most_common(v, "most-common-disease", contagious_a=False),
        (
            _probability("pA", "disease A"),
            _probability("pB", "disease B"),
            _probability("pC", "disease C"),
        ),
    ),
    Example(
        "most-common-disease-family",
        "noisy max over three diseases, A contagious between two family members (Pufferfish)",
        "FAIER journal Ex. 6.3 — discrete Noisy Max, Fig. 2",
        (),
        lambda v: _most_common(v, "most-common-disease-family", contagious_a=True),
        (
            _probability("pA", "disease A (both or neither)"),
            _probability("pB", "disease B"),
            _probability("pC", "disease C"),
        ),
    ),
    Example(
        "most-common-of-five-diseases",
        "noisy max over five diseases, disease 1 contagious in the family, p2 unknown",
        "FAIER conference Ex. 6 — discrete Noisy Max over 5 queries",
        (),
        _most_common_of_five,
        (
            _probability("p1", "disease 1 (both or neither)"),
            _probability("p2", "disease 2"),
            _probability("p3", "disease 3", Fraction(3, 10)),
            _probability("p4", "disease 4", Fraction(4, 10)),
            _probability("p5", "disease 5", Fraction(5, 10)),
        ),
    ),
    Example(
        "household-contagion",
        "noisy count of a disease in a household: primary cases (p) plus contagion (c)",
        "correlated records in a household (docs/MECHANISMS.md, Correlated data) — "
        "truncated ½-geometric on {0..n}",
        (ParameterSpec("people", "int", 3, "household size (John first)", minimum=1, maximum=6),),
        _household,
        (
            _probability("p", "being a primary case (each person independently)"),
            _probability("c", "catching it from a primary case in the household"),
        ),
    ),
    Example(
        "markov-quilt",
        "discrete Markov Quilt Mechanism: a state's count over a Markov chain, geometric noise",
        "Song et al. 2017 (the Markov Quilt Mechanism), with truncated geometric instead of "
        "Laplace noise (docs/MARKOV_QUILT.md)",
        (
            ParameterSpec("length", "int", 5, "number of steps T", minimum=1, maximum=12),
            ParameterSpec("stay", "fraction", "4/5", "probability of staying in the same state"),
            ALPHA,
        ),
        _markov_quilt,
    ),
    Example(
        "most-common-disease-secret-c",
        "noisy max (smallest index on ties), secret: does John have C (uniform prior on C)",
        "Noisy Max notes, Ex. 7.1 — discrete Noisy Max, n = 3, ties to the smallest index",
        (
            ParameterSpec(
                "report",
                "choice",
                "index",
                "report the smallest maximal index, or the maximal value (notes Ex. 7.2)",
                ("index", "value"),
            ),
        ),
        _most_common_secret_c,
        (
            _probability("p1", "disease A (each person independently)", Fraction(1, 5)),
            _probability("p2", "disease B (both or neither)", Fraction(2, 5)),
        ),
    ),
)

EXAMPLES += tuple(Example(*spec) for spec in CONTINUOUS)
"""StatDP's suite with continuous noise (``examples/continuous.py``, the certified engine)."""
EXAMPLES += tuple(Example(*spec) for spec in DISCRETE_NOISE)
"""OpenDP's integer noise (``examples/discrete_noise.py``, the certified engine)."""


def find_example(name: str) -> Example | None:
    """The built-in example of that name, if any."""
    return next((e for e in EXAMPLES if e.name == name), None)
