"""The detector end to end: reproducible, parallel, interruptible, and strict about bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import faier
from faier import api
from faier.engines.statistical.config import Config, parse_epsilons
from faier.engines.statistical.reports import EpsilonPoint
from faier.engines.statistical.subjects import from_problem, from_sampled
from faier.engines.statistical.tester import run
from faier.errors import MechanismError, SpecError
from faier.mechanisms.library.continuous import SUITE
from faier.mechanisms.sampled import Sampled, blackbox


def config(**changes: Any) -> Config:
    base: dict[str, Any] = {
        "claimed": 0.7,
        "epsilons": (0.3, 1.0),
        "samples": 20_000,
        "selection_samples": 4_000,
        "seed": 42,
    }
    return Config(**{**base, **changes})


def comparable(report: Any) -> dict[str, Any]:
    data = report.to_json()
    data.pop("seconds")
    data.pop("cpu_seconds")
    data["settings"].pop("workers")
    return dict(data)


def test_the_same_seed_gives_the_same_report() -> None:
    subject = from_sampled(SUITE["isvt3-laplace"], 0.7)
    assert comparable(run(subject, config())) == comparable(run(subject, config()))


def test_results_do_not_depend_on_the_number_of_workers() -> None:
    subject = from_sampled(SUITE["noisy-max-laplace-value"], 0.7)
    one = run(subject, config(samples=120_000))
    two = run(subject, config(samples=120_000, workers=2))
    assert two.settings.workers == 2
    assert comparable(one) == comparable(two)


def test_other_seeds_give_other_samples() -> None:
    subject = from_sampled(SUITE["noisy-max-laplace"], 0.7)
    counts = {run(subject, config(seed=s)).points[0].counts for s in (1, 2)}
    assert len(counts) == 2


def test_an_unseeded_run_reports_its_seed() -> None:
    subject = from_sampled(SUITE["noisy-max-laplace"], 0.7)
    first = run(subject, config(seed=None))
    again = run(subject, config(seed=first.settings.seed))
    assert first.points[0].counts == again.points[0].counts


def test_the_direction_is_fixed_before_testing() -> None:
    report = run(from_sampled(SUITE["noisy-max-laplace"], 0.7), config())
    low = report.points[0]
    assert low.p_value < 1e-6 and low.p_reverse > 0.5
    assert low.counts[0] > low.counts[1]


class StopAfter:
    """A progress report that presses Ctrl-C after some ε points."""

    def __init__(self, points: int) -> None:
        self.points = points
        self.seen = 0

    def stage(self, description: str, total: int) -> None:
        return None

    def advance(self) -> None:
        return None

    def point(self, point: EpsilonPoint) -> None:
        self.seen += 1
        if self.seen == self.points:
            raise KeyboardInterrupt


def test_an_interrupted_run_keeps_what_it_finished() -> None:
    subject = from_sampled(SUITE["noisy-max-laplace"], 0.7)
    report = run(subject, config(epsilons=(0.1, 0.2, 0.3, 0.4)), StopAfter(2))
    assert report.interrupted == "interrupted while testing"
    assert [p.epsilon for p in report.points] == [0.1, 0.2]
    assert report.exit_code == 130 and report.interval is None
    assert report.to_json()["interrupted"] == "interrupted while testing"


def test_discrete_mechanisms_are_sampled_from_exact_tables() -> None:
    subject = from_problem(api.load_problem("noisy-max", settings={"n": "5"}))
    assert subject.sampling == "exact output distributions of the mechanism's own definition"
    assert len(subject.pairs) == 16
    report = run(subject, config(epsilons=(1.0,)))
    assert report.space == "numeric single value"
    assert report.points[0].candidate.event.describe().startswith("ω = ")


def test_small_scalar_input_spaces_use_every_neighbour_pair() -> None:
    subject = from_problem(api.load_problem("randomized-response"))
    assert [(subject.sides[p.left].value, subject.sides[p.right].value) for p in subject.pairs] == [
        (0, 1),
        (1, 0),
    ]
    report = run(subject, config(epsilons=(1.0, 1.2)))
    assert [p.rejected(0.05) for p in report.points] == [True, False]


def test_pufferfish_scenarios_compare_their_priors() -> None:
    subject = from_problem(api.load_problem("noisy-max", settings={"scenario": "diseases"}))
    assert {p.pattern for p in subject.pairs} == {"secret pair"}
    assert run(subject, config(epsilons=(0.0,))).points[0].rejected(0.05)


def test_hmm_models_are_for_the_exact_engines() -> None:
    problem = api.load_problem(str(Path(faier.__file__).parent / "examples/models/geometric.yaml"))
    with pytest.raises(SpecError, match="HMM model; the statistical tester runs mechanisms"):
        from_problem(problem)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no ε values"),
        ("1:0:0.1", "empty range"),
        ("0:1", "START:STOP:STEP"),
        ("a,b", "cannot read 'a'"),
        ("-1,2", "negative"),
        ("0:1000:0.1", "10001 points"),
        ("inf", "not finite"),
    ],
)
def test_bad_epsilon_grids(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as error:
        parse_epsilons(text)
    assert error.value.where == "--epsilons"


def test_grids_include_their_end() -> None:
    assert parse_epsilons("0:2.2:0.1")[-1] == 2.2
    assert len(parse_epsilons("0:2.2:0.1")) == 23
    assert parse_epsilons("0.5, 1") == (0.5, 1.0)


@pytest.mark.parametrize(
    ("changes", "where"),
    [
        ({"samples": 0}, "--samples"),
        ({"selection_samples": -5}, "--selection-samples"),
        ({"selection_samples": 1}, "--selection-samples"),
        ({"thinnings": 0}, "--thinnings"),
        ({"workers": 0}, "--workers"),
        ({"alpha": 1.0}, "--alpha"),
        ({"seed": -1}, "--seed"),
        ({"claimed": float("nan")}, "--claimed"),
    ],
)
def test_bad_settings(changes: dict[str, Any], where: str) -> None:
    with pytest.raises(SpecError) as error:
        config(**changes)
    assert error.value.where == where


def test_a_mechanism_that_raises_names_the_input() -> None:
    @blackbox()
    def picky(queries: list[float], epsilon: float, rng: Any) -> float:
        if queries[0] == 2:
            raise ValueError("no twos")
        return float(rng.random())

    with pytest.raises(MechanismError, match=r"input \[2, 1, 1, 1, 1\]: mechanism 'picky' raised"):
        run(from_sampled(picky, 0.5, lengths=(5,)), config())


def test_a_mechanism_with_non_finite_outputs_is_bad_input() -> None:
    broken = Sampled("nan", vectorised=lambda q, e, n, rng: np.full(n, np.nan))
    with pytest.raises(MechanismError, match="non-finite number"):
        run(from_sampled(broken, 0.5, lengths=(2,)), config())


def test_a_mechanism_with_inconsistent_outputs_is_bad_input() -> None:
    @blackbox()
    def shifty(queries: list[float], epsilon: float, rng: Any) -> Any:
        return [1.0, 2.0] if queries[0] == 2 else 1.0

    with pytest.raises(MechanismError, match="inconsistent output types"):
        run(from_sampled(shifty, 0.5, lengths=(3,)), config())


def test_sampled_mechanisms_need_a_positive_claim() -> None:
    with pytest.raises(SpecError, match="must be positive") as error:
        from_sampled(SUITE["svt-laplace"], 0.0)
    assert error.value.where == "--claimed"


def test_given_pairs_must_be_neighbours() -> None:
    with pytest.raises(SpecError, match="not neighbours under 'every query ±1'"):
        from_sampled(SUITE["svt-laplace"], 0.7, pairs=[((1, 1), (3, 1))])
