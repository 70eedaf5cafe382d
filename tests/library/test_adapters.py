"""OpenDP and diffprivlib objects as black boxes: their own ε holds, half of it is rejected,
a wrapper calibrated for the wrong sensitivity is caught (run when the libraries are installed)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

import faier
import faier.testing as t
from faier.adapters import from_diffprivlib, from_opendp, wrap
from faier.cli.main import app
from faier.engines.statistical.subjects import NOT_REPRODUCIBLE
from faier.errors import SpecError

N = 3000
"""Test runs per input: OpenDP costs about 0.2 ms a call, so this keeps each check near 1 s."""
SURE = 1e-6
"""α for claims that hold with a library whose random source cannot be seeded (OpenDP)."""


@pytest.fixture(scope="module")
def dp() -> Any:
    prelude = pytest.importorskip("opendp.prelude")
    prelude.enable_features("contrib")
    return prelude


@pytest.fixture(scope="module")
def mechanisms() -> Any:
    return pytest.importorskip("diffprivlib.mechanisms")


def opendp_cases(dp: Any) -> dict[str, Any]:
    real, whole = dp.atom_domain(T=float, nan=False), dp.atom_domain(T=int)
    return {
        "laplace": dp.m.make_laplace(real, dp.absolute_distance(T=float), scale=1.0),
        "geometric": dp.m.make_geometric(whole, dp.absolute_distance(T=int), scale=1.0),
        "discrete laplace": dp.m.make_laplace(whole, dp.absolute_distance(T=int), scale=1.0),
        "noisy max": dp.m.make_noisy_max(
            dp.vector_domain(whole), dp.linf_distance(T=int), dp.max_divergence(), scale=2.0
        ),
    }


@pytest.mark.parametrize("case", ["laplace", "geometric", "discrete laplace", "noisy max"])
def test_opendp_keeps_its_own_epsilon_and_not_a_smaller_one(dp: Any, case: str) -> None:
    measurement = opendp_cases(dp)[case]
    sizes = (3,) if case == "noisy max" else None
    mechanism = from_opendp(measurement, lengths=sizes)
    assert mechanism.stated_epsilon == float(measurement.map(1)) == 1.0
    runs = N if sizes is None else 2 * N // 3  # a vector call costs more
    held = faier.assert_private(mechanism, samples=runs, alpha=SURE)
    assert held.epsilon == "1" and held.method == "statistical"
    # A quarter of the stated ε: OpenDP's draws cannot be seeded, and at half of it the check
    # missed once in a full-suite run (the discrete Laplace; report-noisy-max's loss on the
    # tester's inputs lies near 1/2, caught there in 3 of 5 runs); a quarter was caught in
    # every run.
    wrong = "0.25"
    with pytest.raises(AssertionError, match=rf"not ε = {re.escape(wrong)} private"):
        faier.assert_private(mechanism, float(wrong), samples=runs, alpha=SURE)


def test_opendp_objects_are_wrapped_on_their_own_and_flagged_unseedable(dp: Any) -> None:
    measurement = opendp_cases(dp)["laplace"]
    report = t.statistical_test(
        measurement, epsilons=[1.0], samples=500, selection_samples=200, seed=1
    )
    assert report.claim == "1" and NOT_REPRODUCIBLE in report.notes
    assert "noise as configured (the object states ε = 1)" in report.privacy


def test_opendp_refusals(dp: Any) -> None:
    real = dp.atom_domain(T=float, nan=False)
    gaussian = dp.m.make_gaussian(real, dp.absolute_distance(T=float), scale=1.0)
    with pytest.raises(SpecError, match="ZeroConcentratedDivergence"):
        from_opendp(gaussian)
    with pytest.raises(SpecError, match="not an OpenDP Measurement"):
        from_opendp(real)


def test_diffprivlib_keeps_its_own_epsilon_and_not_half_of_it(mechanisms: Any) -> None:
    objects = [
        mechanisms.Laplace(epsilon=1, sensitivity=1),
        mechanisms.Geometric(epsilon=1, sensitivity=1),
        mechanisms.Snapping(epsilon=1, sensitivity=1, lower=0, upper=10),
        mechanisms.Exponential(epsilon=1, sensitivity=1, utility=[0, 0, 0]),
    ]
    for mechanism in objects:
        assert faier.assert_private(mechanism, samples=N, seed=3).epsilon == "1"
        with pytest.raises(AssertionError, match=r"not ε = 0\.5 private"):
            faier.assert_private(mechanism, 0.5, samples=N, seed=3)


def test_diffprivlib_runs_replay_from_the_seed(mechanisms: Any) -> None:
    wrapped = wrap(mechanisms.Laplace(epsilon=1, sensitivity=1))
    assert wrapped is not None and wrapped.stated_epsilon == 1.0
    runs = [
        t.statistical_test(wrapped, epsilons=[1.0], samples=500, selection_samples=200, seed=4)
        for _ in range(2)
    ]
    assert NOT_REPRODUCIBLE not in runs[0].notes
    assert runs[0].points[0].counts == runs[1].points[0].counts
    unseeded = from_diffprivlib(mechanisms.Laplace(epsilon=1, sensitivity=1), seeded=False)
    report = t.statistical_test(
        unseeded, epsilons=[1.0], samples=500, selection_samples=200, seed=4
    )
    assert NOT_REPRODUCIBLE in report.notes


def test_a_wrapper_calibrated_for_the_wrong_sensitivity_is_caught(mechanisms: Any, dp: Any) -> None:
    """A sum of two counts moves by 2 when each count moves by 1; the noise was set for 1."""
    broken = from_diffprivlib(
        mechanisms.Laplace(epsilon=1, sensitivity=1), query=lambda x: x[0] + x[1], lengths=(2,)
    )
    with pytest.raises(AssertionError) as failure:
        faier.assert_private(broken, samples=N, seed=3)
    assert "not ε = 1 private" in str(failure.value)
    correct = from_diffprivlib(
        mechanisms.Laplace(epsilon=1, sensitivity=2), query=lambda x: x[0] + x[1], lengths=(2,)
    )
    assert faier.assert_private(correct, samples=N, seed=3).verdict == "no evidence against"
    measurement = dp.m.make_laplace(
        dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0
    )
    opendp_broken = from_opendp(measurement, query=lambda x: x[0] + x[1], lengths=(2,))
    with pytest.raises(AssertionError, match="not ε = 1 private"):
        faier.assert_private(opendp_broken, samples=N, alpha=SURE)


def test_diffprivlib_refusals(mechanisms: Any) -> None:
    with pytest.raises(SpecError, match=r"δ = 0\.1"):
        from_diffprivlib(mechanisms.Laplace(epsilon=1, delta=0.1, sensitivity=1))
    with pytest.raises(SpecError, match="whole number"):
        from_diffprivlib(mechanisms.Laplace(epsilon=1, sensitivity=0.5))


def test_library_objects_in_a_file_are_cli_targets(mechanisms: Any, tmp_path: Any) -> None:
    source = tmp_path / "library.py"
    source.write_text(
        "from diffprivlib.mechanisms import Geometric, Laplace\n"
        "laplace = Laplace(epsilon=1, sensitivity=1)\n"
        "geometric = Geometric(epsilon=2, sensitivity=1)\n"
    )
    common = ["--samples", "3000", "--selection-samples", "1000", "--seed", "1", "--json"]
    runner = CliRunner()
    result = runner.invoke(
        app, ["test", str(source), "--name", "laplace", "--epsilons", "0.5,1", *common]
    )
    assert result.exit_code == 0, result.output
    body = json.loads(result.output)
    assert body["claim"] == "1" and body["target"] == "laplace"
    assert [p["p_value"] <= 0.05 for p in body["points"]] == [True, False]
    unnamed = runner.invoke(app, ["test", str(source), *common])
    assert unnamed.exit_code == 2 and "laplace, geometric" in unnamed.output
