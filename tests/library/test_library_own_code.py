"""Library objects are decided only when they run the library's own code; otherwise the
object itself is run and tested (issue: a patched Geometric was "holds (certified)")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import faier
from faier import adapters
from faier.adapters.own_code import check_own_code
from faier.cli.main import app
from faier.errors import SpecError
from faier.results import Verdict

mechanisms = pytest.importorskip("diffprivlib.mechanisms")
pytest.importorskip("flint")

FAST: dict[str, Any] = {"samples": 20_000, "seed": 1}
QUICK: dict[str, Any] = {"samples": 1000, "selection_samples": 500, "workers": 1}


def _leaking_twice(mechanism: Any) -> Any:
    """The object with ``randomise`` replaced by one that doubles the input: ε doubles."""
    original = mechanism.randomise
    mechanism.randomise = lambda value: original(2 * value)
    return mechanism


def test_a_patched_geometric_is_run_not_decided() -> None:
    patched = _leaking_twice(mechanisms.Geometric(epsilon=1))
    assert adapters.decidable(patched) is None
    assert "instance.randomise" in adapters.why_not_decided(patched)
    with pytest.raises(AssertionError, match="statistical evidence"):
        faier.assert_private(patched, **FAST)  # was "holds (certified)"
    with pytest.raises(SpecError, match=r"overrides diffprivlib Geometric's sampling path"):
        faier.verify(patched, "1")
    with pytest.raises(SpecError, match=r"instance\.randomise"):
        faier.assert_private(patched, method="certified")


def test_a_patched_laplace_is_tested_on_itself_not_on_a_fresh_copy() -> None:
    patched = _leaking_twice(mechanisms.Laplace(epsilon=1, sensitivity=1))
    with pytest.raises(AssertionError, match="statistical evidence"):
        faier.assert_private(patched, **FAST)
    honest = mechanisms.Laplace(epsilon=1, sensitivity=1)
    assert faier.assert_private(honest, **FAST).verdict == "no evidence against"


def test_a_subclass_that_overrides_nothing_on_the_path_is_decided() -> None:
    class Quiet(mechanisms.Geometric):  # type: ignore[misc]
        def describe(self) -> str:
            return "a geometric with a name"

    sure = faier.assert_private(Quiet(epsilon=1))
    assert (sure.verdict, sure.method) == ("holds", "certified")
    assert any(a.startswith("checked: the object runs diffprivlib") for a in sure.assumptions)
    result = faier.verify(Quiet(epsilon=1), "1")
    assert result.verdict is Verdict.HOLDS
    assert result.to_json()["assumptions"] == list(result.assumptions)
    assert "(randomise, _check_all" in result.assumptions[0]


def test_a_subclass_that_overrides_randomise_is_run() -> None:
    class Leaky(mechanisms.Geometric):  # type: ignore[misc]
        def randomise(self, value: int) -> int:
            return int(super().randomise(2 * value))

    leaky = Leaky(epsilon=1)
    assert adapters.decidable(leaky) is None
    assert "Leaky.randomise" in adapters.why_not_decided(leaky)
    with pytest.raises(AssertionError, match="statistical evidence"):
        faier.assert_private(leaky, **FAST)


def test_state_the_sampler_reads_must_match_the_parameters() -> None:
    changed = mechanisms.Geometric(epsilon=1)
    changed.epsilon = 4.0  # randomise still reads the _scale of ε = 1
    assert adapters.decidable(changed) is None
    assert "_scale" in adapters.why_not_decided(changed)
    truncated = mechanisms.GeometricTruncated(epsilon=0.5, lower=0, upper=5)
    assert adapters.decidable(truncated) is not None
    truncated._truncate = lambda value: value
    assert adapters.decidable(truncated) is None


def test_the_tester_restores_the_objects_random_source_and_replays_a_seed() -> None:
    laplace = mechanisms.Laplace(epsilon=1, sensitivity=1)
    source = laplace._rng
    first = faier.testing.statistical_test(laplace, epsilons=[1.0], seed=7, **QUICK)
    again = faier.testing.statistical_test(laplace, epsilons=[1.0], seed=7, **QUICK)
    assert laplace._rng is source
    assert first.points[0].p_value == again.points[0].p_value


def test_the_check_itself() -> None:
    plain = mechanisms.Geometric(epsilon=1)
    check = check_own_code(plain, "diffprivlib", ("randomise",))
    assert check.own and check.library_class is mechanisms.Geometric
    assert not check_own_code(object(), "diffprivlib", ("randomise",)).own
    missing = check_own_code(plain, "diffprivlib", ("no_such_method",))
    assert not missing.own and "not in this library version" in missing.overridden[0]

    class Redirecting(mechanisms.Geometric):  # type: ignore[misc]
        def __getattribute__(self, name: str) -> Any:
            return object.__getattribute__(self, name)

    hooked = check_own_code(Redirecting(epsilon=1), "diffprivlib", ("randomise",))
    assert hooked.overridden == ("Redirecting.__getattribute__",)


def test_from_the_cli_a_file_is_decided_with_its_assumptions_or_refused_by_name(
    tmp_path: Path,
) -> None:
    honest = tmp_path / "lib.py"
    honest.write_text(
        "from diffprivlib.mechanisms import Geometric\ngeometric = Geometric(epsilon=1)\n"
    )
    decided = CliRunner().invoke(app, ["verify", str(honest), "--epsilon", "1", "--json"])
    assert decided.exit_code == 0, decided.output
    data = json.loads(decided.stdout)
    assert data["verdict"] == "holds"
    assert data["assumptions"][0].startswith("checked: the object runs diffprivlib Geometric")
    patched = tmp_path / "patched.py"
    patched.write_text(
        "from diffprivlib.mechanisms import Geometric\n"
        "geometric = Geometric(epsilon=1)\n"
        "_original = geometric.randomise\n"
        "geometric.randomise = lambda value: _original(2 * value)\n"
    )
    refused = CliRunner().invoke(app, ["verify", str(patched), "--epsilon", "1"])
    assert refused.exit_code == 2
    assert "instance.randomise" in refused.output and "faier test" in refused.output
