"""The engine registry: dispatch by name, ``auto``'s order, refusals, and adding an engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.core import engine as registry
from faier.core.engine import Backend, Progress, Question, Refusal
from faier.core.options import Options
from faier.core.problem import Problem
from faier.errors import SpecError
from faier.privacy.budget import Epsilon
from faier.results import Loss, Result, Verdict

runner = CliRunner()


class CoinEngine:
    """A toy engine: answers only problems named 'coin', with a fixed ε* of ln 3.

    It writes every question it is asked to a file: the API asks it in a forked child,
    whose memory the test never sees.
    """

    name = "coin"
    summary = "answers the coin problem with ln 3"
    needs = "a problem named 'coin'"

    def __init__(self, log: Path) -> None:
        self.log = log

    @property
    def asked(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def _record(self, line: str) -> None:
        with self.log.open("a") as out:
            out.write(line + "\n")

    def backends(self) -> tuple[Backend, ...]:
        return (Backend("coin-lib", "1.0"),)

    def refusal(self, problem: Problem, options: Options, question: Question) -> Refusal | None:
        self._record(f"may I answer {question} about {problem.name}")
        if problem.name != "coin":
            return Refusal("only the coin problem", "ask about the coin")
        return None

    def epsilon(self, problem: Problem, options: Options, progress: Progress | None) -> Result:
        self._record(f"epsilon horizon={options.horizon}")
        return Result(problem.name, "toy", "coin", epsilon_star=Loss(Fraction(3)))

    def verify(
        self, problem: Problem, eps: Epsilon, options: Options, progress: Progress | None
    ) -> Result:
        self._record(f"verify {eps}")
        verdict = Verdict.VIOLATED if eps.exceeded_by(Fraction(3)) else Verdict.HOLDS
        return Result(problem.name, "toy", "coin", verdict=verdict, epsilon=str(eps))


@pytest.fixture
def coin(tmp_path: Path) -> Iterator[CoinEngine]:
    engine = CoinEngine(tmp_path / "asked.txt")
    registry.register(engine)
    yield engine
    registry.unregister("coin")


def coin_problem(example: str = "geometric") -> Problem:
    base = faier.load_problem(example)
    return Problem("coin", base.mechanism, base.privacy)


@pytest.fixture(params=["fork", "beside a thread"])
def caller(request: pytest.FixtureRequest) -> Iterator[None]:
    """The API's work runs in a fork, or (a live thread here, as in a Jupyter kernel) in a
    child of the fork server, which must know the engines registered here too."""
    if request.param != "fork":
        request.getfixturevalue("other_thread")  # (tests/conftest.py)
    yield


def test_a_registered_engine_answers_through_the_api(coin: CoinEngine, caller: None) -> None:
    result = faier.epsilon(coin_problem(), engine="coin", horizon=2)
    assert result.epsilon_star == Loss(Fraction(3)) and result.method == "coin"
    assert faier.verify(coin_problem(), "1", engine="coin").verdict is Verdict.VIOLATED
    assert faier.verify(coin_problem(), "ln(3)", engine="coin").verdict is Verdict.HOLDS
    assert coin.asked == [
        "may I answer epsilon about coin",
        "epsilon horizon=2",
        "may I answer verify about coin",
        "verify 1",
        "may I answer verify about coin",
        "verify ln(3)",
    ]


def test_auto_asks_the_builtin_engines_first(coin: CoinEngine) -> None:
    assert registry.names()[-1] == "coin"
    assert faier.epsilon(coin_problem()).method.startswith("exact")
    assert coin.asked == []  # the exact engine took the coin problem before coin was asked
    # Unknown parameters (exact) under (ε, δ) (SMT): every built-in engine refuses.
    assert faier.epsilon(coin_problem("count-independent-disease"), delta="1/10").method == "coin"
    assert coin.asked == ["may I answer epsilon about coin", "epsilon horizon=None"]


def test_a_refusal_is_bad_input_with_the_engines_reason(coin: CoinEngine) -> None:
    with pytest.raises(SpecError, match="only the coin problem") as caught:
        faier.epsilon("geometric", engine="coin")
    assert caught.value.where == "--engine coin" and caught.value.fix == "ask about the coin"


def test_names_are_taken_once(coin: CoinEngine) -> None:
    with pytest.raises(ValueError, match="already registered"):
        registry.register(CoinEngine(coin.log))
    with pytest.raises(TypeError, match="Engine protocol"):
        registry.register(object())  # type: ignore[arg-type]


def test_unknown_engine_names_the_choices() -> None:
    with pytest.raises(SpecError, match="unknown engine 'magic'") as caught:
        faier.epsilon("geometric", engine="magic")
    assert caught.value.fix is not None and "exact, smt" in caught.value.fix


def test_builtin_refusals_say_what_each_engine_needs() -> None:
    problem = faier.load_problem("count-independent-disease")
    exact = registry.get("exact").refusal(problem, Options(), "verify")
    assert exact is not None and "have no value" in exact.reason
    assert registry.get("smt").refusal(problem, Options(), "verify") is None
    smt = registry.get("smt").refusal(problem, Options(delta=Fraction(1, 10)), "verify")
    assert smt is not None and "pure ε" in smt.reason
    for name in ("statistical", "dpctl"):
        refusal = registry.get(name).refusal(problem, Options(), "epsilon")
        assert refusal is not None and "faier " in refusal.fix


def test_faier_engines_lists_every_engine_with_its_back_ends(coin: CoinEngine) -> None:
    result = runner.invoke(app, ["engines", "--json"])
    assert result.exit_code == 0
    data = {row["name"]: row for row in json.loads(result.stdout)}
    assert list(data) == ["certified", "exact", "smt", "statistical", "alignment", "dpctl", "coin"]
    assert data["smt"]["backends"]["z3-solver"] is not None
    assert data["dpctl"]["backends"]["stormpy"] is not None
    assert data["coin"]["backends"] == {"coin-lib": "1.0"}
    table = runner.invoke(app, ["engines"], env={"COLUMNS": "200"})
    assert table.exit_code == 0 and "z3-solver" in table.stdout and "stormpy" in table.stdout
