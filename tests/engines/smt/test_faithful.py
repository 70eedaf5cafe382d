"""Algorithm 1's c: never above e^ε, and moved towards it when a witness falls short.

Randomized response with loss 3/2 at "yes" (and at "no" the other way):
asked with c = 1, the solver's sequence has loss 3/2 > c, which violates no
ε with e^ε ≥ 3/2, so the query is asked again closer to e^ε.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from fractions import Fraction

import pytest

from faier.core.problem import Problem
from faier.engines.smt import faithful
from faier.engines.smt.portfolio import SolverPool
from faier.engines.smt.question import build
from faier.engines.smt.session import Session, SolverSettings
from faier.errors import InternalError
from faier.model.distribution import Distribution
from faier.model.hmm import HMM
from faier.privacy.budget import Epsilon
from faier.privacy.specs import Comparison, Pufferfish

F = Fraction


@pytest.fixture(scope="module")
def pool() -> Iterator[SolverPool]:
    with SolverPool(("z3",)) as workers:
        yield workers


def randomized_response() -> Problem:
    identity = ((F(1), F(0)), (F(0), F(1)))
    emission = ((F(3, 5), F(2, 5)), (F(2, 5), F(3, 5)))
    hmm = HMM(("a", "b"), ("yes", "no"), identity, emission)
    pair: Comparison[Hashable] = Comparison(
        Distribution.point("a"), Distribution.point("b"), "a", "b", "states"
    )
    return Problem("rr-3/2", hmm, Pufferfish((pair,), "a vs b"), 1)


def run(eps: str, c: Fraction, pool: SolverPool) -> tuple[str, Fraction | None, int]:
    """Algorithm 1 with the given c: (status, the witness's exact loss, queries asked)."""
    question = build(randomized_response())
    with Session(SolverSettings(solver="z3", encoding="faithful"), "rr", pool) as session:
        status, finding, _ = faithful.run(question, Epsilon.parse(eps), c, session)
        loss = None if finding is None else finding.checked.p / finding.checked.q
        return status, loss, session.queries


@pytest.mark.parametrize("eps", ["ln(2)", "0.5", "ln(3/2)"])
def test_a_witness_between_c_and_e_epsilon_moves_c_up(eps: str, pool: SolverPool) -> None:
    status, loss, queries = run(eps, F(1), pool)
    assert (status, loss) == ("holds", None)
    assert queries > 2


@pytest.mark.parametrize("eps", ["0.4", "ln(7/5)"])
def test_a_witness_above_e_epsilon_is_kept(eps: str, pool: SolverPool) -> None:
    status, loss, _ = run(eps, F(1), pool)
    assert status == "violated" and loss is not None and Epsilon.parse(eps).exceeded_by(loss)


@pytest.mark.parametrize(("eps", "c"), [("0.5", F(165, 100)), ("ln(2)", F(201, 100))])
def test_c_above_e_epsilon_is_refused(eps: str, c: Fraction, pool: SolverPool) -> None:
    with pytest.raises(InternalError, match="above e"):
        run(eps, c, pool)
