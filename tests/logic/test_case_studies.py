"""PRISM case studies (issue 13): Crowds and the dining cryptographers, faier against plain stormpy.

tests/logic/models/crowds-protocol.pm is Crowds (Reiter & Rubin) as a DTMC
with a counter per honest member; dining-cryptographers*.pm are Chaum's
dining cryptographers as MDPs (N = 3, 4, 5), written by
scripts/generate_dining_cryptographers.py.  Plain stormpy pins each model's
numbers (against a hand computation for Crowds, against the protocol's
anonymity for the cryptographers); faier must give the same exact values.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from itertools import product
from math import comb
from pathlib import Path
from typing import Any

import pytest

from faier.logic import check, load_model, parse_neighbour_spec
from faier.logic.models import LogicModel
from faier.results import Verdict

stormpy = pytest.importorskip("stormpy")

ROOT = Path(__file__).resolve().parents[2]
MODELS = Path(__file__).parent / "models"
CROWDS = MODELS / "crowds-protocol.pm"
DINING = MODELS / "dining-cryptographers.pm"
OUTCOMES = ["out_" + "".join(v) for v in product("ad", repeat=3)]


def crowds_settings(runs: int, size: int, pf: str = "4/5", bad: int = 1) -> dict[str, str]:
    return {"TotalRuns": str(runs), "CrowdSize": str(size), "PF": pf, "badC": str(bad)}


def storm_build(path: Path, settings: dict[str, str] | None = None) -> tuple[Any, Any]:
    """Plain stormpy: the program (constants set) and its exact model, built in full."""
    program = stormpy.parse_prism_program(str(path))
    if settings:
        values = {k: int(v) if v.isdigit() else stormpy.Rational(v) for k, v in settings.items()}
        program, _ = stormpy.instantiate_constants(program, values)
    options = stormpy.BuilderOptions(build_full=True)
    return program, stormpy.build_model[stormpy.Rational](program, options=options)


def storm_values(model: Any, program: Any, query: str, labels: list[str]) -> dict[str, Fraction]:
    """Storm's exact value of ``query`` in the one state of each label."""
    result = stormpy.model_checking(model, stormpy.parse_property(query, program))
    values = {}
    for label in labels:
        (state,) = list(model.labeling.get_states(label))
        values[label] = Fraction(str(result.get_value(state)))
    return values


def faier_values(model: LogicModel, query: str, variable: str) -> dict[int, Fraction]:
    """faier's values of ``query`` in the initial states, by the value of ``variable``."""
    result = check(model, query)
    assert result.verdict is None
    out = {}
    for state, value in result.values:
        (part,) = [p for p in state.split(",") if p.startswith(variable + "=")]
        out[int(part.split("=")[1])] = value
    return out


# --- Crowds ---------------------------------------------------------------------------------


def per_run(pf: Fraction, bad: int, size: int) -> tuple[Fraction, Fraction]:
    """Pr(one run ends with member 0 observed) when member 0 sends, and when member 1 sends.

    Member 0 holding the message (not as sender) is observed with probability
    PF·p_A and any other honest holder leads to it with PF·p_B; so
    p_A = toBad + p_B and p_B = (1/size)·PF·p_A + ((honest − 1)/size)·PF·p_B.
    """
    honest = size - bad
    to_bad = Fraction(bad, size)
    p_b = pf * to_bad / size / (1 - pf * Fraction(honest, size))
    return to_bad + p_b, p_b


def at_least(k: int, runs: int, p: Fraction) -> Fraction:
    """Pr(at least k of ``runs`` independent runs observe the member), each with probability p."""
    return sum(
        (comb(runs, j) * p**j * (1 - p) ** (runs - j) for j in range(k, runs + 1)), Fraction(0)
    )


@pytest.mark.parametrize(
    ("runs", "size", "states", "transitions"),
    [(1, 5, 36, 78), (3, 5, 616, 1498), (2, 10, 726, 2728), (3, 10, 4136, 16148)],
)
def test_crowds_state_counts_match_the_header_table(
    runs: int, size: int, states: int, transitions: int
) -> None:
    _, model = storm_build(CROWDS, crowds_settings(runs, size))
    assert (model.nr_states, model.nr_transitions) == (states, transitions)
    assert {"done", "sentA", "sentB", "seen0twice"} <= set(model.labeling.get_labels())
    assert len(list(model.initial_states)) == 2


@pytest.mark.parametrize(("runs", "size", "pf"), [(3, 10, "4/5"), (2, 5, "2/3"), (3, 6, "1/2")])
def test_crowds_observations_match_a_hand_computation_in_storm_and_faier(
    runs: int, size: int, pf: str
) -> None:
    """Pr(F observe0 > k) from each sender: binomial over the runs, by stormpy and by faier."""
    settings = crowds_settings(runs, size, pf)
    program, built = storm_build(CROWDS, settings)
    model = load_model(str(CROWDS), settings)
    p_a, p_b = per_run(Fraction(pf), 1, size)
    for label, k in (("seen0", 1), ("seen0twice", 2)):
        expected = {"sentA": at_least(k, runs, p_a), "sentB": at_least(k, runs, p_b)}
        storm = storm_values(built, program, f'P=? [F "{label}"]', ["sentA", "sentB"])
        assert storm == expected
        assert faier_values(model, f"P=? [F {label}]", "sender") == {
            0: expected["sentA"],
            1: expected["sentB"],
        }
    # member 1 is observed from sender 1 as member 0 is from sender 0; comparisons work too
    assert faier_values(model, "P=? [F observe1 > 1]", "sender") == {
        0: at_least(2, runs, p_b),
        1: at_least(2, runs, p_a),
    }
    if runs == 3 and size == 10:
        assert (p_a, p_b) == (Fraction(9, 70), Fraction(1, 35))
        assert expected == {"sentA": Fraction(1944, 42875), "sentB": Fraction(103, 42875)}


def test_crowds_d_compares_the_two_senders_exactly() -> None:
    """One run: Pr(observe0) is 9/70 against 1/35, a ratio of 9/2 > 3, so D{ln(3), 0} fails."""
    model = load_model(str(CROWDS), crowds_settings(1, 10))
    violated = check(
        model, "D{ln(3), 0}[F seen0]", neighbours=parse_neighbour_spec("@sentA~@sentB")
    )
    assert violated.verdict is Verdict.VIOLATED
    closest = violated.operators[0].rows[0].closest
    assert closest is not None
    assert {closest.p, closest.q} == {Fraction(9, 70), Fraction(1, 35)}
    holds = check(
        model,
        "D{ln(9/2), 0}[F seen0] & D{ln(9/2), 0}[F seen1]",
        neighbours=parse_neighbour_spec("@sentA~@sentB"),
    )
    assert holds.verdict is Verdict.HOLDS


# --- dining cryptographers ------------------------------------------------------------------


def paid_odd(outcome: str) -> bool:
    return outcome.count("d") % 2 == 1


@pytest.mark.parametrize(
    ("n", "size"), [(3, (380, 620, 776)), (4, (2165, 4540, 5720)), (5, (11850, 30702, 38772))]
)
def test_dining_cryptographers_are_anonymous_in_plain_stormpy(
    n: int, size: tuple[int, int, int]
) -> None:
    """From every payer each odd announcement vector has Pmin = Pmax = 1/2^(N-1), each even
    one 0; from the master the reverse (N = 3: 1/4)."""
    path = DINING if n == 3 else MODELS / f"dining-cryptographers-{n}.pm"
    program, built = storm_build(path)
    assert (built.nr_states, built.nr_choices, built.nr_transitions) == size
    starts = [f"paid{i}" for i in range(n)] + ["master"]
    assert len(list(built.initial_states)) == len(starts)
    share = Fraction(1, 2 ** (n - 1))
    for says in product("ad", repeat=n):
        outcome = "out_" + "".join(says)
        odd = share if paid_odd(outcome) else Fraction(0)
        expected = {start: odd for start in starts} | {"master": share - odd}
        for optimum in ("Pmin", "Pmax"):
            values = storm_values(built, program, f'{optimum}=? [F "{outcome}"]', starts)
            assert values == expected, (optimum, outcome)


@pytest.fixture(scope="module")
def dining() -> LogicModel:
    return load_model(str(DINING))


def test_dining_cryptographers_values_through_faier(dining: LogicModel) -> None:
    """faier's Pmin/Pmax equal stormpy's (1/4 or 0, independent of the scheduler)."""
    assert dining.kind == "MDP"
    for outcome in OUTCOMES:
        odd = Fraction(1, 4) if paid_odd(outcome) else Fraction(0)
        expected = {0: odd, 1: odd, 2: odd, 3: Fraction(1, 4) - odd}
        for optimum in ("Pmin", "Pmax"):
            assert faier_values(dining, f"{optimum}=? [F {outcome}]", "payer") == expected


def test_dining_cryptographers_p_without_min_or_max_is_refused(dining: LogicModel) -> None:
    with pytest.raises(Exception, match=r"depends on the scheduler"):
        check(dining, "P=? [F out_daa]")


def test_dining_cryptographers_anonymity_holds_by_proposition_2(dining: LogicModel) -> None:
    """D{0, 0} between any two payers: Pmin = Pmax, so Proposition 2 decides it (margin 0)."""
    pairs = "@paid0~@paid1; @paid1~@paid2; @paid0~@paid2"
    formula = " & ".join(f"D{{0, 0}}[F {outcome}]" for outcome in OUTCOMES)
    result = check(dining, formula, neighbours=parse_neighbour_spec(pairs))
    assert result.verdict is Verdict.HOLDS
    methods = {row.method for report in result.operators for row in report.rows}
    assert methods <= {"Proposition 2", "no neighbours"}


def test_dining_cryptographers_payer_against_master_is_violated(dining: LogicModel) -> None:
    """A cryptographer paid (odd parity with probability 1) against the master (0): violated.

    Today Proposition 2 fails (1 − e^ε·0 > 0) and the interleaved commands give
    no action words, so faier says unknown; every scheduler separates the two.
    """
    result = check(
        dining, "D{ln(3), 0}[F<=6 odd]", neighbours=parse_neighbour_spec("@paid0~@master")
    )
    assert result.verdict is Verdict.VIOLATED


def test_dining_cryptographer_files_match_their_generator() -> None:
    path = ROOT / "scripts" / "generate_dining_cryptographers.py"
    spec = importlib.util.spec_from_file_location("generate_dining_cryptographers", path)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    for n in generator.SIZES:
        assert generator.target(n).read_text(encoding="utf-8") == generator.model(n), n
