"""``faier verify/epsilon --engine smt …`` and ``faier closed-form``, run in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import z3
from typer.testing import CliRunner

from faier.cli.main import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout


def run_json(*args: str, code: int) -> Any:
    exit_code, out = run(*args, "--json")
    assert exit_code == code, out
    return json.loads(out)


def test_auto_uses_smt_with_unknowns_and_exact_with_fixed_values() -> None:
    data = run_json("verify", "count-contagious-disease", "-e", "ln(2)", "--solver", "z3", code=1)
    assert data["verdict"] == "violated" and data["method"].startswith("smt, fast encoding")
    assert data["parameters"]["region"] == "violated for every parameter value in the domain"
    assert data["witness"]["output"] in ("0~", "2~")
    fixed = run_json(
        "verify", "count-contagious-disease", "-e", "ln(2)", "--param", "p=0.3", code=1
    )
    assert fixed["method"].startswith("exact")
    smt = run_json(
        "verify", "count-contagious-disease", "-e", "ln(4)", "--param", "p=0.3",
        "--engine", "smt", "--solver", "z3", code=0,
    )  # fmt: skip
    assert smt["verdict"] == "holds" and smt["method"].startswith("smt")


def test_ranges_and_constraints_on_the_command_line() -> None:
    data = run_json(
        "verify", "most-common-disease-family", "-e", "ln(2)", "--solver", "z3",
        "--param", "pA=1/2", "--param", "pB in [1/10, 1/5]", "--param", "pC <= pB",
        code=1,
    )  # fmt: skip
    point = {v["name"]: v["value"] for v in data["parameters"]["point"]}
    from fractions import Fraction

    pb, pc = Fraction(point["pB"]), Fraction(point["pC"])
    assert Fraction(1, 10) <= pb <= Fraction(1, 5) and 0 < pc <= pb
    assert "pA" not in point
    assert "pC <= pB" in data["parameters"]["domain"]


def test_epsilon_reports_the_supremum_and_whether_it_is_attained() -> None:
    data = run_json("epsilon", "count-contagious-disease", "--solver", "z3", code=0)
    assert data["epsilon_star"]["ratio"] == "4"
    assert data["parameters"]["attained"] is True
    code, out = run("epsilon", "most-common-disease-family", "--solver", "z3")
    assert code == 0
    text = " ".join(out.split())
    assert "ln(24/7) ≈ 1.2321" in text and "no (a limit, not a value)" in text
    assert "approached at pA = 0, pB = 1, pC = 1" in text


def test_emitted_smt2_files_recheck_with_z3(tmp_path: Path) -> None:
    code, _ = run(
        "verify", "most-common-disease", "-e", "ln(2)", "--solver", "z3",
        "--emit-smt2", str(tmp_path),
    )  # fmt: skip
    assert code == 0
    files = sorted(tmp_path.glob("*.smt2"))
    assert len(files) == 6
    for path in files:
        text = path.read_text()
        assert "; faier's answer: unsat by z3" in text and "(check-sat)" in text
        solver = z3.Solver()
        solver.from_string(text)
        assert solver.check() == z3.unsat


def test_faithful_encoding_on_the_command_line() -> None:
    data = run_json(
        "verify", "count-contagious-disease", "-e", "ln(2)", "--encoding", "faithful",
        "--solver", "cvc5", code=1,
    )  # fmt: skip
    assert data["method"].startswith("smt, the FAIER papers' Algorithm 1")
    assert {data["witness"]["p"], data["witness"]["q"]} == {"2/3", "1/6"}


def test_closed_form_command_prints_table_1() -> None:
    code, out = run("closed-form", "count-independent-disease", "--set", "priors=paper")
    assert code == 0
    text = " ".join(out.split())
    for expected in ("(p^2 - 4*p + 4)/6", "(4 - 3*p)/(12 - 6*p)", "(p^2 + 2*p + 1)/6"):
        assert expected in text, text
    data = run_json(
        "closed-form", "count-independent-disease", "--output", "2~", "--solver", "z3", code=0
    )
    (pair,) = data["pairs"]
    (row,) = pair["outcomes"]
    assert row == {"outcome": "2~", "left": "(p + 1)/3", "right": "(p + 1)/6", "ratio": "2"}
    assert data["supremum"]["exact"] == "2" and data["supremum"]["attained"] is True


def test_examples_list_the_unknown_parameters() -> None:
    data = run_json("examples", code=0)
    family = next(e for e in data if e["name"] == "most-common-disease-family")
    assert [u["name"] for u in family["unknowns"]] == ["pA", "pB", "pC"]
    five = next(e for e in data if e["name"] == "most-common-of-five-diseases")
    assert {u["name"]: u["default"] for u in five["unknowns"]}["p3"] == "3/10 (fixed)"


PARAMETRIC_MODEL = """\
parameters:
  p: {domain: "(0, 1)"}
states: [a, b]
observations: [x, y]
transitions:
  a: {a: 1-p, b: p}
  b: {b: 1}
emissions:
  a: {x: 1/2, y: 1/2}
  b: {x: 1/4, y: 3/4}
initial:
  start: {a: 1}
  other: {a: 1/2, b: 1/2}
pairs: [[start, other]]
horizon: 2
"""


def test_parametric_model_files_go_to_the_smt_engine(tmp_path: Path) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(PARAMETRIC_MODEL, encoding="utf-8")
    data = run_json("verify", str(path), "-e", "ln(2)", "--solver", "z3", code=0)
    assert data["method"].startswith("smt") and data["parameters"]["domain"] == "p ∈ (0, 1)"
    star = run_json("epsilon", str(path), "--solver", "z3", code=0)
    assert star["epsilon_star"] is not None
    fixed = run_json("epsilon", str(path), "--param", "p=1/3", code=0)
    assert fixed["method"].startswith("exact")
    smt_fixed = run_json(
        "epsilon", str(path), "--param", "p=1/3", "--engine", "smt", "--solver", "z3", code=0
    )
    assert smt_fixed["epsilon_star"] == fixed["epsilon_star"]
