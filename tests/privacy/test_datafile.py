"""Model files with a ``data:`` section: correlated priors conditioned by faier, not by hand."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest

from faier.api import epsilon, problem_from_model_file, verify
from faier.errors import ModelError
from faier.model.files import load_hmm_file, parse_hmm_document, save_hmm_file
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish
from faier.results import Verdict

MODELS = Path(__file__).parents[2] / "src" / "faier" / "examples" / "models"
HOUSEHOLD = MODELS / "household-contagion.yaml"

GEOMETRIC = {
    "states": ["0", "1", "2"],
    "observations": ["0~", "1~", "2~"],
    "emissions": {
        "0": {"0~": "2/3", "1~": "1/6", "2~": "1/6"},
        "1": {"0~": "1/3", "1~": "1/3", "2~": "1/3"},
        "2": {"0~": "1/6", "1~": "1/6", "2~": "2/3"},
    },
    "horizon": 1,
}


def _household_counts(sick: bool, p: Fraction, c: Fraction) -> dict[str, Fraction]:
    """Brute force from the story, John's status fixed: Pr(count | John sick or healthy)."""
    out: dict[str, Fraction] = {}
    for primaries in itertools.product((True, False), repeat=3):
        w = Fraction(1)
        for b in primaries:
            w *= p if b else 1 - p
        for caught in itertools.product((True, False), repeat=3):
            v = w
            for i in range(3):
                if primaries[i]:
                    v *= 1 if caught[i] else 0
                else:
                    chance = c if any(primaries) else Fraction(0)
                    v *= chance if caught[i] else 1 - chance
            if v and caught[0] == sick:
                key = str(sum(caught))
                out[key] = out.get(key, Fraction(0)) + v
    mass = sum(out.values())
    return {k: w / mass for k, w in out.items()}


def test_household_file_priors_match_brute_force() -> None:
    model = load_hmm_file(HOUSEHOLD)
    assert isinstance(problem_from_model_file(model, {}).privacy, ParametricPufferfish)
    p, c = Fraction(1, 3), Fraction(1, 5)
    problem = problem_from_model_file(model, {"p": str(p), "c": str(c)})
    assert isinstance(problem.privacy, Pufferfish)
    (pair,) = problem.privacy.pairs
    assert pair.left.as_dict() == _household_counts(True, p, c)
    assert pair.right.as_dict() == _household_counts(False, p, c)


def test_household_file_round_trips(tmp_path: Path) -> None:
    model = load_hmm_file(HOUSEHOLD)
    save_hmm_file(model, tmp_path / "again.json")
    assert load_hmm_file(tmp_path / "again.json") == model


def test_verify_holds_and_violated_with_a_witness_point_checked_exactly() -> None:
    held = verify(str(HOUSEHOLD), "ln(8)", timeout=60)
    assert held.verdict is Verdict.HOLDS
    broken = verify(str(HOUSEHOLD), "ln(7)", timeout=60)
    assert broken.verdict is Verdict.VIOLATED and broken.witness is not None
    assert broken.parametric is not None
    point = {v.name: v.value for v in broken.parametric.point}
    ratio = broken.witness.p / broken.witness.q
    assert ratio > 7
    again = epsilon(str(HOUSEHOLD), settings={k: str(v) for k, v in point.items()})
    assert again.epsilon_star is not None and again.epsilon_star.ratio >= ratio
    model = load_hmm_file(HOUSEHOLD)
    fixed = problem_from_model_file(model, {k: str(v) for k, v in point.items()}).privacy
    assert isinstance(fixed, Pufferfish)
    left = fixed.pairs[0].left.as_dict()
    right = fixed.pairs[0].right.as_dict()
    assert left == _household_counts(True, point["p"], point["c"])
    assert right == _household_counts(False, point["p"], point["c"])


def test_markov_chain_and_joint_table_sections() -> None:
    chain = {
        **GEOMETRIC,
        "parameters": {"q": {"domain": "(0, 1)"}},
        "data": {
            "chain": {
                "states": ["0", "1"],
                "initial": {"0": "1/2", "1": "1/2"},
                "transition": {"0": {"0": "q", "1": "1-q"}, "1": {"0": "1-q", "1": "q"}},
                "length": 2,
            },
            "query": {"count": "1"},
            "pairs": [["X1 = 1", "X1 = 0"]],
        },
    }
    model = parse_hmm_document(chain, source="chain.yaml")
    problem = problem_from_model_file(model, {"q": "3/4"})
    assert isinstance(problem.privacy, Pufferfish)
    (pair,) = problem.privacy.pairs
    assert pair.left.as_dict() == {"2": Fraction(3, 4), "1": Fraction(1, 4)}
    assert pair.right.as_dict() == {"1": Fraction(1, 4), "0": Fraction(3, 4)}
    assert epsilon(problem).epsilon_star is not None
    table = {
        **GEOMETRIC,
        "data": {
            "records": ["John", "Ann"],
            "table": {"sick sick": "1/4", "sick absent": "1/4", "healthy healthy": "1/2"},
            "query": {"count": "sick"},
            "pairs": [["John = sick", "John = healthy"], ["Ann absent", "Ann present"]],
        },
    }
    problem = problem_from_model_file(parse_hmm_document(table, source="t.yaml"), {})
    assert isinstance(problem.privacy, Pufferfish)
    first, second = problem.privacy.pairs
    assert first.left.as_dict() == {"2": Fraction(1, 2), "1": Fraction(1, 2)}
    assert second.left.as_dict() == {"1": Fraction(1)}
    assert second.right.as_dict() == {"2": Fraction(1, 3), "0": Fraction(2, 3)}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"records": ["a"], "table": {"x": 1}, "query": {"count": "x"}}, "missing 'pairs'"),
        (
            {
                "records": ["a"],
                "table": {"x": 1},
                "query": {"count": "x"},
                "pairs": [["b = x", "a = x"]],
            },
            "unknown record 'b'",
        ),
        (
            {
                "records": ["a"],
                "table": {"x": "1/2"},
                "query": {"count": "x"},
                "pairs": [["a = x", "a absent"]],
            },
            "sum to 1/2",
        ),
        (
            {
                "records": ["a"],
                "network": {"a.v": {"values": ["0"], "table": {True: 1}}},
                "query": {"count": "0"},
                "pairs": [["a = 0", "a absent"]],
            },
            "boolean",
        ),
        (
            {
                "records": ["a", "b", "c"],
                "table": {"x x x": 1},
                "query": {"count": "x"},
                "pairs": [["a = x", "b = x"]],
            },
            "not a state",
        ),
        (
            {
                "records": ["a"],
                "table": {"x": 1},
                "chain": {},
                "query": {"count": "x"},
                "pairs": [["a = x", "a absent"]],
            },
            "exactly one of",
        ),
        (
            {
                "records": ["a"],
                "table": {"x": 1},
                "query": {"count": "x"},
                "pairs": [["a likes x", "a absent"]],
            },
            "not a secret",
        ),
    ],
)
def test_bad_data_sections_name_the_place(data: dict[str, object], message: str) -> None:
    model = parse_hmm_document({**GEOMETRIC, "data": data}, source="bad.yaml")
    with pytest.raises(ModelError, match=message) as info:
        problem_from_model_file(model, {})
    assert "bad.yaml: data" in (info.value.where or "")


CHAIN = MODELS / "markov-chain-count.yaml"


def test_markov_chain_file_over_its_parameter() -> None:
    """sup ε* = ln 8 as q → 1; ln 8 holds for every q; ln 4 is violated at a point
    whose loss, recomputed by brute force over the chain's sequences, exceeds 4."""
    result = epsilon(str(CHAIN), timeout=60)
    assert result.epsilon_star is not None and result.epsilon_star.ratio == 8
    assert result.parametric is not None and result.parametric.attained is False
    assert verify(str(CHAIN), "ln(8)", timeout=60).verdict is Verdict.HOLDS
    broken = verify(str(CHAIN), "ln(4)", timeout=60)
    assert broken.verdict is Verdict.VIOLATED and broken.parametric is not None
    (q,) = (v.value for v in broken.parametric.point)
    geometric = {
        0: [Fraction(2, 3), Fraction(1, 6), Fraction(1, 12), Fraction(1, 12)],
        1: [Fraction(1, 3), Fraction(1, 3), Fraction(1, 6), Fraction(1, 6)],
        2: [Fraction(1, 6), Fraction(1, 6), Fraction(1, 3), Fraction(1, 3)],
        3: [Fraction(1, 12), Fraction(1, 12), Fraction(1, 6), Fraction(2, 3)],
    }
    best = Fraction(0)
    for step in range(3):
        sides = []
        for value in (1, 0):
            kept = []
            for seq in itertools.product((0, 1), repeat=3):
                w = Fraction(1, 2)
                for a, b in itertools.pairwise(seq):
                    w *= q if a == b else 1 - q
                if seq[step] == value:
                    kept.append((sum(seq), w))
            mass = sum(w for _, w in kept)
            sides.append([sum(w / mass * geometric[c][o] for c, w in kept) for o in range(4)])
        best = max(best, *(a / b for a, b in zip(sides[0], sides[1], strict=True)))
        best = max(best, *(b / a for a, b in zip(sides[0], sides[1], strict=True)))
    assert best > 4
    assert broken.witness is not None and best >= broken.witness.p / broken.witness.q > 4
