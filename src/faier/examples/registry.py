"""Named case studies: ``faier epsilon noisy-max --set n=5``.

Each example turns its parameter values into a :class:`Problem`.  Names,
parameters and defaults are listed by ``faier examples``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from faier.engines.problem import Problem
from faier.errors import SpecError
from faier.examples import scenarios
from faier.examples.parameters import ParameterSpec, fraction, resolve
from faier.mechanisms.library.above_threshold import above_threshold
from faier.mechanisms.library.geometric import truncated_geometric_mechanism
from faier.mechanisms.library.histogram import histogram
from faier.mechanisms.library.noisy_max import TIES, noisy_max
from faier.mechanisms.library.randomized_response import randomized_response
from faier.mechanisms.library.sparse_vector import VARIANTS, sparse_vector
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy, InteractiveDP, PrivacySpec


@dataclass(frozen=True)
class Example:
    """A built-in case study: parameters with defaults and a builder."""

    name: str
    title: str
    seed: str
    parameters: tuple[ParameterSpec, ...]
    build: Callable[[dict[str, Any]], Problem]

    def problem(self, settings: Mapping[str, str] | None = None) -> Problem:
        """The problem for these ``--set`` values (defaults for the rest)."""
        return self.build(resolve(self.parameters, settings or {}, self.name))


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
        "FAIER journal §4 (Fig. 1, Ex. 4.2–4.5); conference Ex. 1–4",
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
        "dpCTL* §2 (survey); ln 3-DP with fair coins",
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
)


def find_example(name: str) -> Example | None:
    """The built-in example of that name, if any."""
    return next((e for e in EXAMPLES if e.name == name), None)
