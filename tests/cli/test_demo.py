"""`faier demo` (the README's first command): FAIER journal Table 2 and StatDP's suite decided."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from faier.cli.main import app

HOLDS = {"noisy-max-laplace", "noisy-max-exponential", "histogram-laplace", "svt-laplace"}
"""StatDP Table 2: the suite's private mechanisms at ε₀ = 0.7 (the rest are not)."""


def test_the_demo_recomputes_table_2_and_decides_the_statdp_suite() -> None:
    result = CliRunner().invoke(app, ["demo", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    table2 = [r for r in rows if "epsilon_star_certified" not in r]
    suite = {r["mechanism"]: r for r in rows if "epsilon_star_certified" in r}
    assert len(table2) == 11
    for row in table2:
        expected = "holds" if row["paper"].startswith("✓") else "violated"
        assert row["verdict"] == expected, row["scenario"]
    assert len(suite) == 14
    for name, row in suite.items():
        if name.endswith("gaussian"):
            continue
        assert row["verdict"] == ("holds" if name in HOLDS else "violated"), name
    assert suite["noisy-max-gaussian"]["epsilon_star_certified"]["lower"] > 1.0799676
    assert suite["noisy-max-gaussian"]["epsilon_star_certified"]["upper"] < 1.0799677
    assert suite["svt-gaussian"]["verdict"] == "holds"
    wrong = suite["histogram-laplace-wrong-scale"]["epsilon_star_certified"]
    assert wrong["closed_form"] == "10/7" and wrong["lower"] <= 10 / 7 <= wrong["upper"]
