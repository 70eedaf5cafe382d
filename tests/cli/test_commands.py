"""The ``faier`` command run in-process: real results, witnesses and exit codes.

Exit codes: 0 holds (or ε* computed), 1 violated, 2 bad input, 3 unknown.
Expected values are the papers' numbers or are recomputed here by brute force
from first principles, never with faier itself.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

import faier
from faier.cli.main import app

DATA = Path(__file__).parent / "data"
MODELS = Path(faier.__file__).parent / "examples" / "models"
HALF = Fraction(1, 2)

runner = CliRunner()


def run(*args: str) -> Result:
    """Invoke ``faier ARGS``; the command may exit, but never crash."""
    result = runner.invoke(app, list(args), env={"COLUMNS": "120"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def run_json(*args: str, code: int = 0) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def words(text: str) -> str:
    """Whitespace-normalised text, so table padding and wrapping do not matter."""
    return " ".join(text.split())


def geometric_row(alpha: Fraction, m: int, centre: int) -> list[Fraction]:
    """The truncated α-geometric distribution over {0..m} on true answer ``centre``."""
    row = [
        alpha**centre / (1 + alpha)
        if j == 0
        else alpha ** (m - centre) / (1 + alpha)
        if j == m
        else (1 - alpha) / (1 + alpha) * alpha ** abs(j - centre)
        for j in range(m + 1)
    ]
    assert sum(row) == 1
    return row


def max_ratio(rows: dict[Any, list[Fraction]], pairs: list[tuple[Any, Any]]) -> Fraction:
    """max over ordered pairs and outputs of Pr[o | x] / Pr[o | y] (all positive here)."""
    return max(p / q for x, y in pairs for p, q in zip(rows[x], rows[y], strict=True))


# --- faier examples ------------------------------------------------------------------

EXAMPLE_PARAMETERS = {
    "geometric": ["alpha", "m", "scenario", "p"],
    "randomized-response": ["truth", "heads"],
    "noisy-max": ["n", "ties", "alpha", "m", "scenario", "pA", "pB", "pC"],
    "above-threshold": ["threshold_alpha", "query_alpha", "m", "threshold"],
}


def test_examples_lists_each_example_with_its_parameters() -> None:
    result = run("examples")
    assert result.exit_code == 0
    assert result.stderr == ""
    for name, parameters in EXAMPLE_PARAMETERS.items():
        assert name in result.stdout
        for parameter in parameters:
            assert parameter in result.stdout
    text = words(result.stdout)
    assert "first | uniform | value" in text  # the choices of noisy-max's ties


def test_examples_json_lists_names_parameters_defaults_and_choices() -> None:
    data = run_json("examples")
    names = [e["name"] for e in data]
    assert len(names) == len(set(names))
    assert set(EXAMPLE_PARAMETERS) <= set(names)  # more examples may be added
    by_name = {e["name"]: e for e in data}
    for name, parameters in EXAMPLE_PARAMETERS.items():
        assert [p["name"] for p in by_name[name]["parameters"]] == parameters
        assert isinstance(by_name[name]["title"], str) and by_name[name]["title"]
        assert isinstance(by_name[name]["reference"], str) and by_name[name]["reference"]
    noisy_max = {p["name"]: p for p in by_name["noisy-max"]["parameters"]}
    assert noisy_max["n"]["default"] == "3"
    assert noisy_max["ties"]["default"] == "uniform"
    assert noisy_max["ties"]["choices"] == ["first", "uniform", "value"]
    assert "choices" not in noisy_max["n"]
    threshold = by_name["above-threshold"]["parameters"][-1]
    assert threshold["default"] == "all"


# --- built-in examples: the papers' numbers -------------------------------------------


def test_epsilon_noisy_max_five_queries_uniform_ties() -> None:
    data = run_json("epsilon", "noisy-max", "--set", "n=5", "--set", "ties=uniform")
    assert data["epsilon_star"]["ratio"] == "288/73"
    assert data["epsilon_star"]["value"] == pytest.approx(math.log(288 / 73))
    witness = data["witness"]
    assert witness["inputs"] == [[1, 1, 1, 1, 1], [0, 2, 2, 2, 2]]
    assert witness["output"] == "index 1"
    assert (witness["p"], witness["q"]) == ("1/5", "73/1440")
    assert Fraction(witness["p"]) / Fraction(witness["q"]) == Fraction(288, 73)
    assert data["verdict"] is None and data["command"] == "epsilon"


def test_verify_noisy_max_papers_budget_1372_is_violated() -> None:
    result = run(
        "verify", "noisy-max", "--set", "n=5", "--set", "ties=uniform", "--epsilon", "1.372"
    )
    assert result.exit_code == 1
    assert result.stderr == ""
    text = words(result.stdout)
    assert "verdict violated" in text
    assert "ln(288/73) ≈ 1.3725" in text
    assert "inputs: [1, 1, 1, 1, 1] vs [0, 2, 2, 2, 2]" in text
    assert "output: index 1" in text
    assert "Pr[output | [1, 1, 1, 1, 1]] = 1/5" in text
    assert "Pr[output | [0, 2, 2, 2, 2]] = 73/1440" in text
    assert "ratio = 288/73" in text


@pytest.mark.parametrize(
    ("eps", "code", "verdict"),
    [
        ("ln(2)", 0, "holds"),  # e^ε = 2 = ε*'s ratio exactly: the boundary holds
        ("log(2)", 0, "holds"),
        ("ln(4)/2", 0, "holds"),
        ("0.69", 1, "violated"),
        ("0.6931471805599453", 1, "violated"),  # ln 2 = 0.69314718055994530941…
        ("0.69314718055994531", 0, "holds"),
        ("ln(2) - 10**-30", 1, "violated"),
        ("1", 0, "holds"),
    ],
)
def test_verify_geometric_decides_the_boundary_exactly(eps: str, code: int, verdict: str) -> None:
    result = run("verify", "geometric", "--epsilon", eps)
    assert result.exit_code == code, result.output
    assert f"verdict {verdict}" in words(result.stdout)
    assert "ln(2) ≈ 0.6931" in result.stdout


def test_verify_geometric_text_names_the_witness() -> None:
    result = run("verify", "geometric", "--epsilon", "0.69")
    assert result.exit_code == 1
    text = words(result.stdout)
    assert "counterexample inputs: 0 vs 1" in text
    assert "Pr[output | 0] = 2/3" in text
    assert "Pr[output | 1] = 1/3" in text


def test_epsilon_above_threshold_per_horizon() -> None:
    data = run_json("epsilon", "above-threshold", "--horizon", "4")
    assert [h["k"] for h in data["horizons"]] == [1, 2, 3, 4]
    assert [h["ratio"] for h in data["horizons"]] == ["2", "4", "8", "16"]
    for h in data["horizons"]:
        assert h["value"] == pytest.approx(math.log(Fraction(h["ratio"])))
    assert data["epsilon_star"]["ratio"] == "16"
    witness = data["witness"]
    assert Fraction(witness["p"]) / Fraction(witness["q"]) == 16
    assert len(witness["output"]) == 4


def test_verify_noisy_max_four_queries_first_index_at_the_boundary_holds() -> None:
    data = run_json(
        "verify", "noisy-max", "--set", "n=4", "--set", "ties=first", "--epsilon", "4*ln(2)"
    )
    assert data["verdict"] == "holds"
    assert data["epsilon"] == "4*ln(2)"
    assert data["epsilon_star"]["ratio"] == "16"  # = e^ε exactly


@pytest.mark.parametrize(
    ("eps", "code"),
    [("ln(24/7)", 0), ("ln(24/7) - 10**-12", 1), ("1.2321", 1), ("1.2322", 0)],
)
def test_verify_noisy_max_three_queries_near_ln_24_7(eps: str, code: int) -> None:
    result = run("verify", "noisy-max", "--set", "n=3", "--epsilon", eps)
    assert result.exit_code == code, result.output


def test_verify_above_threshold_without_horizon_is_refuted_by_the_certificate() -> None:
    data = run_json("verify", "above-threshold", "--epsilon", "100", code=1)
    assert data["verdict"] == "violated"
    assert data["epsilon_star"] == {"ratio": "inf", "value": "inf"}
    certificate = data["certificate"]
    assert certificate["block"] == ["answers 1 vs 2 → ⊥"]
    assert (certificate["pi_rate"], certificate["tau_rate"]) == ("2/3", "1/3")
    witness = data["witness"]
    assert Fraction(witness["p"]) / Fraction(witness["q"]) > Fraction(10**43)


def test_epsilon_above_threshold_without_horizon_is_infinite() -> None:
    result = run("epsilon", "above-threshold")
    assert result.exit_code == 0
    text = words(result.stdout)
    assert "ε* ∞" in text
    assert "no finite ε" in text
    assert "repeat the block [answers 1 vs 2 → ⊥]" in text


def test_state_budget_ends_in_unknown_with_the_bounds_so_far() -> None:
    args = ("verify", "above-threshold", "--horizon", "6", "--epsilon", "100")
    data = run_json(*args, "--max-states", "20", code=3)
    assert data["verdict"] == "unknown"
    assert "budget" in data["reason"]
    assert "20" in data["reason"]
    assert data["epsilon_star"] is None
    assert Fraction(data["bounds"]["lower"]["ratio"]) >= 2
    assert data["statistics"]["explored"] <= 21
    text = run(*args, "--max-states", "20")
    assert text.exit_code == 3
    assert "state budget of 20 exhausted" in words(text.stdout)


def test_timeout_ends_in_unknown() -> None:
    data = run_json(
        "verify",
        "sparse-vector",
        "--set",
        "variant=isvt2",
        "--horizon",
        "40",
        "--epsilon",
        "100",
        "--timeout",
        "0.01",
        code=3,
    )
    assert data["verdict"] == "unknown"
    assert "timeout" in data["reason"]
    assert data["epsilon_star"] is None


def test_epsilon_with_a_state_budget_is_unknown() -> None:
    data = run_json("epsilon", "above-threshold", "--horizon", "6", "--max-states", "20", code=3)
    assert data["epsilon_star"] is None
    assert "budget" in data["reason"]
    assert "bounds" in data


# --- (ε, δ): the least e^ε with δ(ε) ≤ δ -------------------------------------------------


def least_ratio_for_delta(rows: dict[int, list[Fraction]], delta: Fraction) -> Fraction:
    """Brute force: δ(r) = max over pairs and events S of P(S) − r·Q(S) ≤ δ iff
    r ≥ (P(S) − δ)/Q(S) for every event S (all Q(S) > 0 here); and r ≥ 1 (ε ≥ 0)."""
    pairs = [(x, y) for x in rows for y in rows if abs(x - y) == 1]
    outputs = range(len(rows[0]))
    best = Fraction(1)
    for x, y in pairs:
        for size in range(1, len(outputs) + 1):
            for event in itertools.combinations(outputs, size):
                p = sum(rows[x][o] for o in event)
                q = sum(rows[y][o] for o in event)
                best = max(best, (p - delta) / q)
    return best


@pytest.mark.parametrize("delta", ["0", "0.05", "0.1", "1/6", "1/3", "0.5", "1"])
def test_epsilon_geometric_with_delta_is_exact(delta: str) -> None:
    rows = {i: geometric_row(HALF, 2, i) for i in range(3)}
    expected = least_ratio_for_delta(rows, Fraction(delta))
    data = run_json("epsilon", "geometric", "--delta", delta)
    assert Fraction(data["epsilon_star"]["ratio"]) == expected
    assert data["delta"] == str(Fraction(delta))


def test_epsilon_geometric_delta_one_tenth() -> None:
    # By hand: from input 0 vs 1, δ(r) = 2/3 − r/3 on the event {0~} for 1/2 ≤ r ≤ 2.
    data = run_json("epsilon", "geometric", "--delta", "0.1")
    assert data["epsilon_star"]["ratio"] == "17/10"
    witness = data["witness"]
    p, q = Fraction(witness["p"]), Fraction(witness["q"])
    assert p - Fraction(17, 10) * q == Fraction(1, 10)


# --- the JSON contract ------------------------------------------------------------------


def check_loss(loss: Any) -> None:
    assert set(loss) == {"ratio", "value"}
    if loss["ratio"] == "inf":
        assert loss["value"] == "inf"
    else:
        assert isinstance(loss["ratio"], str)
        assert isinstance(loss["value"], float)
        assert loss["value"] == pytest.approx(math.log(Fraction(loss["ratio"])))


def check_witness(witness: Any) -> None:
    sides = {"inputs", "initial"} & set(witness)
    assert len(sides) == 1
    assert len(witness[sides.pop()]) == 2
    assert isinstance(witness["output"], str | list)
    for key in ("p", "q"):
        assert isinstance(witness[key], str)
        assert 0 <= Fraction(witness[key]) <= 1


VERIFY_CASES = {
    "holds": ("geometric", "--epsilon", "ln(2)"),
    "violated": ("noisy-max", "--set", "n=3", "--epsilon", "1"),
    "infinite": ("randomized-response", "--set", "truth=1", "--epsilon", "5"),
    "initial": (str(MODELS / "geometric-contagious.yaml"), "--epsilon", "ln(4)"),
    "horizons": ("above-threshold", "--horizon", "3", "--epsilon", "ln(8)"),
    "unknown": ("above-threshold", "--horizon", "6", "--epsilon", "100", "--max-states", "20"),
}


@pytest.mark.parametrize("args", list(VERIFY_CASES.values()), ids=list(VERIFY_CASES))
def test_verify_json_contract(args: tuple[str, ...]) -> None:
    result = run("verify", *args, "--json")
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert {"verdict", "epsilon", "epsilon_star", "witness", "method", "seconds"} <= set(data)
    assert data["verdict"] in {"holds", "violated", "unknown"}
    assert result.exit_code == {"holds": 0, "violated": 1, "unknown": 3}[data["verdict"]]
    assert isinstance(data["epsilon"], str)
    assert isinstance(data["method"], str) and data["method"]
    assert isinstance(data["seconds"], float) and data["seconds"] >= 0
    assert set(data["statistics"]) == {"comparisons", "explored", "pruned", "merged"}
    if data["verdict"] == "unknown":
        assert data["epsilon_star"] is None
        assert isinstance(data["reason"], str) and data["reason"]
        check_loss(data["bounds"]["lower"])
    else:
        check_loss(data["epsilon_star"])
        assert "reason" not in data
    if data["witness"] is not None:
        check_witness(data["witness"])
    for row in data.get("horizons", []):
        assert isinstance(row["k"], int)
        check_loss({"ratio": row["ratio"], "value": row["value"]})
    if data["verdict"] == "violated":
        assert data["witness"] is not None


def test_json_infinite_loss() -> None:
    data = run_json("epsilon", "randomized-response", "--set", "truth=1")
    assert data["epsilon_star"] == {"ratio": "inf", "value": "inf"}
    assert data["witness"]["q"] == "0"
    assert data["witness"]["p"] != "0"


def test_json_initial_witness_for_a_pufferfish_model() -> None:
    data = run_json("verify", str(MODELS / "geometric-contagious.yaml"), "--epsilon", "ln(4)")
    assert data["verdict"] == "holds"
    assert sorted(data["witness"]["initial"]) == ["both", "none"]


# --- model files -------------------------------------------------------------------------


HUGE_RATIO = """\
states: [s, t]
observations: [x, y]
emissions:
  s: {x: 1e-400, y: 1 - 1e-400}
  t: {x: 1/2, y: 1/2}
pairs: [[s, t]]
horizon: 1
"""


def test_a_ratio_past_the_float_range_is_printed_and_serialised(tmp_path: Path) -> None:
    """e^ε* = (1/2)/10⁻⁴⁰⁰ = 5·10³⁹⁹ is finite: ε* = ln 5 + 399·ln 10 ≈ 920.34 in the text,
    the JSON and the verdicts (it used to crash converting the ratio to a float)."""
    path = tmp_path / "huge.yaml"
    path.write_text(HUGE_RATIO)
    data = run_json("epsilon", str(path))
    assert data["epsilon_star"]["ratio"] == str(5 * 10**399)
    assert data["epsilon_star"]["value"] == pytest.approx(math.log(5) + 399 * math.log(10))
    text = run("epsilon", str(path))
    assert text.exit_code == 0 and "≈ 920.3409" in text.output
    assert run_json("verify", str(path), "--epsilon", "920", code=1)["verdict"] == "violated"
    assert run_json("verify", str(path), "--epsilon", "921")["verdict"] == "holds"
    page = tmp_path / "huge.html"
    assert run("verify", str(path), "--epsilon", "1", "--report", str(page)).exit_code == 1
    assert "≈ 5e+399 = e^920.341" in page.read_text()
    pld = run("pld", str(path))
    assert pld.exit_code == 0 and "≈ 1e-400" in pld.output and "920.3409" in pld.output


def test_limits_count_loading_a_model_file(tmp_path: Path) -> None:
    """--max-states refuses a model with more states before building it, and --timeout
    covers loading: both "unknown" (exit 3) with the reason, never a long wait."""
    path = tmp_path / "many.yaml"
    states = ", ".join(f"s{i}" for i in range(40))
    rows = "".join(f"  s{i}: {{a: 1/2, b: 1/2}}\n" for i in range(40))
    path.write_text(
        f"states: [{states}]\nobservations: [a, b]\nemissions:\n{rows}pairs: [[s0, s1]]\nhorizon: 1\n"
    )
    refused = run_json("verify", str(path), "--epsilon", "1", "--max-states", "39", code=3)
    assert refused["verdict"] == "unknown"
    assert (
        refused["reason"] == f"state budget of 39 exhausted: {path} declares 40 states (not loaded)"
    )
    late = run_json("epsilon", str(path), "--timeout", "0.000001", code=3)
    assert late["reason"] == "timeout of 1e-06 s reached while loading the target"
    assert late["epsilon_star"] is None
    assert run_json("epsilon", str(path), "--max-states", "40000")["epsilon_star"]["ratio"] == "1"


def test_model_file_geometric_holds_for_ln2() -> None:
    data = run_json("verify", str(MODELS / "geometric.yaml"), "--epsilon", "ln(2)")
    assert data["verdict"] == "holds"
    assert data["epsilon_star"]["ratio"] == "2"
    assert data["target"] == "truncated-geometric"


def test_model_file_longer_horizon() -> None:
    # Absorbing states: two observations from one state, so the loss squares.
    data = run_json("epsilon", str(MODELS / "geometric.yaml"), "--horizon", "2")
    assert data["epsilon_star"]["ratio"] == "4"
    assert [h["ratio"] for h in data["horizons"]] == ["2", "4"]


def test_model_file_contagious_is_violated_for_ln2() -> None:
    result = run("verify", str(MODELS / "geometric-contagious.yaml"), "--epsilon", "ln(2)")
    assert result.exit_code == 1
    assert "ln(4) ≈ 1.3863" in result.stdout
    data = run_json(
        "verify", str(MODELS / "geometric-contagious.yaml"), "--epsilon", "ln(2)", code=1
    )
    assert data["epsilon_star"]["ratio"] == "4"
    # Pr[o | (1,1)] / Pr[o | (0,0)] = (2/3) / (1/6) on the noisy count 2 (or its mirror).
    assert {data["witness"]["p"], data["witness"]["q"]} == {"2/3", "1/6"}


def test_model_file_noisy_max_three_matches_the_builtin_example() -> None:
    model = run_json("epsilon", str(MODELS / "noisy-max-3.yaml"))
    builtin = run_json("epsilon", "noisy-max", "--set", "n=3")
    assert model["epsilon_star"]["ratio"] == "24/7"
    assert builtin["epsilon_star"]["ratio"] == "24/7"
    assert [h["k"] for h in model["horizons"]] == [1, 2]  # the file's horizon: 2
    assert {model["witness"]["p"], model["witness"]["q"]} == {"1/3", "7/72"}


GEOMETRIC_JSON = {
    "name": "truncated-geometric",
    "states": ["0", "1", "2"],
    "observations": ["0~", "1~", "2~"],
    "emissions": {
        "0": {"0~": "2/3", "1~": "1/6", "2~": "1/6"},
        "1": {"0~": "1/3", "1~": "1/3", "2~": "1/3"},
        "2": {"0~": "1/6", "1~": "1/6", "2~": "2/3"},
    },
    "initial": {"none": {"0": 1}, "both": {"2": 1}},
    "pairs": [["0", "1"], ["1", "2"]],
    "horizon": 1,
}


@pytest.mark.parametrize("eps", ["ln(2)", "0.69", "ln(3)"])
def test_json_model_file_answers_like_the_yaml_one(tmp_path: Path, eps: str) -> None:
    path = tmp_path / "geometric.json"
    path.write_text(json.dumps(GEOMETRIC_JSON, indent=2), encoding="utf-8")
    from_json = run("verify", str(path), "--epsilon", eps, "--json")
    from_yaml = run("verify", str(MODELS / "geometric.yaml"), "--epsilon", eps, "--json")
    assert from_json.exit_code == from_yaml.exit_code
    a, b = json.loads(from_json.stdout), json.loads(from_yaml.stdout)
    for key in ("verdict", "epsilon_star", "witness", "horizons", "target"):
        assert a[key] == b[key]
    assert a["epsilon_star"]["ratio"] == "2"


def test_model_file_parameter_set_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "coin.yaml"
    path.write_text(
        "parameters:\n"
        '  p: {domain: "(0, 1)"}\n'
        "states: [yes_, no_]\n"
        "observations: [Y, N]\n"
        "emissions:\n"
        "  yes_: {Y: 1-p, N: p}\n"
        "  no_: {Y: p, N: 1-p}\n"
        "pairs: [[yes_, no_]]\n"
        "horizon: 1\n",
        encoding="utf-8",
    )
    # (1 - p) / p: 3 for p = 1/4, 9 for p = 1/10.
    assert run_json("epsilon", str(path), "--set", "p=1/4")["epsilon_star"]["ratio"] == "3"
    assert run_json("epsilon", str(path), "--set", "p=0.1")["epsilon_star"]["ratio"] == "9"
    assert run("verify", str(path), "--set", "p=1/4", "--epsilon", "ln(3)").exit_code == 0
    assert run("verify", str(path), "--set", "p=1/5", "--epsilon", "ln(3)").exit_code == 1


# --- Python mechanism files -------------------------------------------------------------


def grid_rows(alpha: Fraction) -> dict[tuple[int, int], list[Fraction]]:
    """Output rows of the noisy sum: truncated α-geometric over 0..4 on x0 + x1."""
    return {x: geometric_row(alpha, 4, x[0] + x[1]) for x in itertools.product(range(3), repeat=2)}


def every_query_pairs(inputs: list[tuple[int, ...]]) -> list[tuple[Any, Any]]:
    return [
        (x, y)
        for x in inputs
        for y in inputs
        if x != y and all(abs(a - b) <= 1 for a, b in zip(x, y, strict=True))
    ]


def one_query_pairs(inputs: list[tuple[int, ...]]) -> list[tuple[Any, Any]]:
    return [
        (x, y)
        for x in inputs
        for y in inputs
        if sum(abs(a - b) for a, b in zip(x, y, strict=True)) == 1
    ]


def test_python_file_noisy_sum_is_exact() -> None:
    rows = grid_rows(HALF)
    pairs = every_query_pairs(list(rows))
    expected = max_ratio(rows, pairs)
    assert expected == 4  # both counts may move: the sum moves by 2, and α^-2 = 4
    data = run_json("verify", str(DATA / "noisy_sum.py"), "--epsilon", "0.5", code=1)
    assert data["verdict"] == "violated"  # e^0.5 < 4
    assert Fraction(data["epsilon_star"]["ratio"]) == expected
    left, right = (tuple(v) for v in data["witness"]["inputs"])
    assert (left, right) in pairs
    p, q = Fraction(data["witness"]["p"]), Fraction(data["witness"]["q"])
    output = int(data["witness"]["output"])
    assert (p, q) == (rows[left][output], rows[right][output])
    assert p / q == expected


def test_python_file_noisy_sum_holds_at_its_exact_loss() -> None:
    result = run("verify", str(DATA / "noisy_sum.py"), "--epsilon", "2*ln(2)")
    assert result.exit_code == 0
    assert "ln(4) ≈ 1.3863" in result.stdout


def test_python_file_with_other_neighbours() -> None:
    rows = grid_rows(HALF)
    expected = max_ratio(rows, one_query_pairs(list(rows)))
    assert expected == 2
    data = run_json("epsilon", str(DATA / "noisy_sum.py"), "--neighbors", "one-query")
    assert Fraction(data["epsilon_star"]["ratio"]) == expected


def test_python_file_defining_a_problem_uses_its_privacy() -> None:
    rows = grid_rows(HALF)
    expected = max_ratio(rows, one_query_pairs(list(rows)))
    data = run_json("verify", str(DATA / "sum_problem.py"), "--epsilon", "ln(2)")
    assert data["target"] == "one-query-sum"
    assert "one query ±1" in data["privacy"]
    assert data["verdict"] == "holds"
    assert Fraction(data["epsilon_star"]["ratio"]) == expected
    # --neighbors still overrides the relation the problem declares.
    wider = run_json("epsilon", str(DATA / "sum_problem.py"), "--neighbors", "every-query")
    assert wider["epsilon_star"]["ratio"] == "4"


def test_python_file_with_two_mechanisms_needs_a_name() -> None:
    path = str(DATA / "two_mechanisms.py")
    result = run("epsilon", path)
    assert result.exit_code == 2
    assert result.stdout == ""
    message = words(result.stderr)
    assert "two_mechanisms.py" in message
    assert "half, third" in message
    assert "--name" in message
    half = run_json("epsilon", path, "--name", "half")
    third = run_json("epsilon", path, "--name", "third")
    assert half["epsilon_star"]["ratio"] == "2"  # 1/α
    assert third["epsilon_star"]["ratio"] == "3"
    rows = {i: geometric_row(Fraction(1, 3), 2, i) for i in range(3)}
    assert max_ratio(rows, [(0, 1), (1, 0), (1, 2), (2, 1)]) == 3
    assert run("verify", path, "--name", "third", "--epsilon", "ln(2)").exit_code == 1
    assert run("verify", path, "--name", "half", "--epsilon", "ln(2)").exit_code == 0
