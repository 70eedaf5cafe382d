"""Correlated Pufferfish case studies: a household with a primary case and contagion.

Each person is a primary case independently with probability p (caught
outside the household); a person who is not a primary case catches the
disease with probability c when at least one member is a primary case.
The attacker asks whether John is sick; the mechanism is the truncated
½-geometric mechanism on the number of sick people (FAIER papers Fig. 1c,
extended to {0..n}).  As p → 0 and c → 1 the secret decides between "nobody
is sick" and "everybody is", so the loss tends to that of a fully contagious
disease: ln 8 for three people.  The network's primary-case nodes are hidden
from the query and summed out by variable elimination.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from faier.core.problem import Problem
from faier.errors import SpecError
from faier.examples.paper_hmms import geometric_hmm
from faier.model.parameters import Parameter
from faier.privacy.bayesnet import BayesianNetwork, Node
from faier.privacy.correlated import RecordSecret, count, pufferfish
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish

SICK, HEALTHY = "sick", "healthy"
PEOPLE = ("John", "Ann", "Bob", "Eve", "Max", "Sue")


def household(n: int = 3, p: object = "p", c: object = "c") -> BayesianNetwork:
    """The primary-case-plus-contagion prior over ``n`` people (p, c text or numbers)."""
    people = PEOPLE[:n]
    nodes = [
        Node.of(person, "primary", ("yes", "no"), (), {(): {"yes": p, "no": f"1 - ({p})"}})
        for person in people
    ]
    for person in people:
        parents = tuple((other, "primary") for other in people)
        table: dict[tuple[str, ...], dict[str, object]] = {}
        for values in itertools.product(("yes", "no"), repeat=n):
            own = values[people.index(person)]
            if own == "yes":
                table[values] = {SICK: 1, HEALTHY: 0}
            elif "yes" in values:
                table[values] = {SICK: c, HEALTHY: f"1 - ({c})"}
            else:
                table[values] = {SICK: 0, HEALTHY: 1}
        nodes.append(Node.of(person, "status", (SICK, HEALTHY), parents, table))
    return BayesianNetwork(tuple(nodes))


def household_privacy(
    n: int, parameters: tuple[Parameter, ...]
) -> Pufferfish | ParametricPufferfish:
    """Does John have the disease?  The HMM's states are the counts "0".."n"."""
    named = {q.name: q for q in parameters}
    p = _text(named["p"])
    c = _text(named["c"])
    model = household(n, p, c)
    pair = (RecordSecret.has("John", SICK, "status"), RecordSecret.has("John", HEALTHY, "status"))
    return pufferfish(
        model,
        (pair,),
        count(SICK, "status", as_text=True),
        tuple(q for q in parameters if q.value is None),
        f"Pufferfish, household of {n}: primary case (p) plus contagion (c), secret: is John sick",
    )


def _text(parameter: Parameter) -> str:
    return parameter.name if parameter.value is None else str(parameter.value)


def household_problem(n: int, p: Parameter, c: Parameter) -> Problem:
    """The built-in example ``household-contagion``."""
    privacy = household_privacy(n, (p, c))
    return Problem(
        "household-contagion",
        geometric_hmm(Fraction(1, 2), n),
        privacy,
        1,
        f"truncated ½-geometric on the count of {n} people",
    )


def markov_quilt_problem(length: int, stay: Fraction, alpha: Fraction) -> Problem:
    """The built-in example ``markov-quilt``: the discrete Markov Quilt Mechanism.

    A person's binary state over ``length`` steps (a symmetric chain that
    stays put with probability ``stay``); the count of steps in state 1 is
    released with truncated α-geometric noise.  The description carries the
    ε the quilt calibration claims, to set beside faier's exact ε*.
    """
    from faier.mechanisms.library.geometric import truncated_geometric_mechanism
    from faier.privacy.quilt import calibration, quilt_privacy, symmetric_chain
    from faier.privacy.specs import Pufferfish

    if not 0 < stay < 1:
        raise SpecError(f"stay = {stay} must lie strictly between 0 and 1", where="--set stay")
    if not 0 < alpha < 1:
        raise SpecError(f"alpha = {alpha} must lie strictly between 0 and 1", where="--set alpha")
    chain = symmetric_chain(stay, length)
    claim = calibration(chain, alpha)
    privacy = quilt_privacy(chain, "1")
    assert isinstance(privacy, Pufferfish)
    shown = f"ln({claim.ratio})" if claim.ratio is not None else "∞"
    described = Pufferfish(
        privacy.pairs,
        f"{privacy.description}; the Markov quilt calibration claims ε = {shown}",
    )
    mechanism = truncated_geometric_mechanism(alpha, length)
    return Problem("markov-quilt", mechanism, described, title=mechanism.name)
