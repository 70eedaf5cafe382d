"""``--report FILE.html`` and ``_repr_html_``: content, self-containment, atomic writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import faier
from faier.cli.main import app
from faier.errors import InputError
from faier.report import html

runner = CliRunner()

FAST_TEST = ["--samples", "3000", "--selection-samples", "1000", "--epsilons", "0.5,1,3"]
FAST_TEST += ["--seed", "1", "--workers", "1", "--thinnings", "5"]

EXTERNAL = re.compile(r"""(src|href)\s*=\s*["']?(https?:|//)|@import|url\(\s*["']?https?:""", re.I)


def self_contained(text: str) -> None:
    assert text.startswith("<!DOCTYPE html>")
    assert "<script" not in text.lower()
    assert not EXTERNAL.search(text), EXTERNAL.search(text)


def test_verify_noisy_max_writes_the_witness_and_a_figure(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    args = ["verify", "noisy-max", "--set", "n=3", "-e", "ln(2)", "--report", str(target)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    text = target.read_text(encoding="utf-8")
    self_contained(text)
    assert "violated" in text and "ln(24/7)" in text
    assert "<code>[1, 1, 1]</code>" in text and "<code>[0, 2, 2]</code>" in text
    assert "<code>index 1</code>" in text and "7/72" in text
    assert text.count("<svg") == 1  # the pair's output distributions
    assert "faier verify noisy-max --epsilon &#x27;ln(2)&#x27; --set n=3" in text
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["epsilon", "above-threshold", "--horizon", "3"], 0, ["ε* over the horizon", "ln(8)"]),
        (["verify", "geometric", "-e", "ln(3/2)", "--delta", "0.1"], 1, ["Privacy profile δ(ε)"]),
        (["check", "survey", "-f", "D{ln(3), 0}[X out1]"], 0, ["holds", "D{ln(3), 0}"]),
        (["test", "noisy-max", "--claimed", "ln(2)", *FAST_TEST], 0, ["p-values", "seed"]),
        (["bound", "noisy-max", *FAST_TEST], 0, ["Exact ε*", "ln(24/7)"]),
        (["pld", "geometric", "--pair", "1;2", "-k", "2", "--no-accountant"], 0, ["ln(4)"]),
    ],
)
def test_every_command_writes_a_page(
    tmp_path: Path, args: list[str], code: int, expected: list[str]
) -> None:
    target = tmp_path / "page.html"
    result = runner.invoke(app, [*args, "--report", str(target)])
    assert result.exit_code == code, result.output
    assert code == 0 or isinstance(result.exception, SystemExit), result.exception
    text = target.read_text(encoding="utf-8")
    self_contained(text)
    for piece in expected:
        assert piece in text
    assert f"faier {args[0]}" in text


def test_a_bad_report_path_is_refused_before_any_work(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", "noisy-max", "-e", "1", "--report", "r.txt"])
    assert result.exit_code == 2 and "--report" in result.output
    missing = tmp_path / "no" / "r.html"
    result = runner.invoke(app, ["epsilon", "geometric", "--report", str(missing)])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_a_failing_render_leaves_the_old_file_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "r.html"
    target.write_text("old", encoding="utf-8")

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(html.os, "fsync", boom)
    with pytest.raises(OSError):
        html.write(target, "<!DOCTYPE html><p>new</p>")
    assert target.read_text(encoding="utf-8") == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_write_refuses_wrong_suffixes(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="html"):
        html.write(tmp_path / "r.png", "x")


def test_results_render_in_jupyter() -> None:
    result = faier.verify("noisy-max", "ln(2)", settings={"n": "3"})
    fragment = result._repr_html_()
    assert fragment.startswith('<div class="faier-report">')
    assert "[1, 1, 1]" in fragment and "Counterexample" in fragment
    horizon = faier.epsilon("above-threshold", horizon=3)._repr_html_()
    assert "<svg" in horizon and "ε*(k)" in horizon
    pld = faier.pld("geometric", "1;2", compose=2, accountant=False)._repr_html_()
    assert "Privacy loss distribution" in pld and "<svg" in pld


def test_the_page_extras_are_the_exact_distributions_and_profile() -> None:
    from fractions import Fraction

    from faier.cli.report import result_extras
    from faier.core.options import Options

    options = Options.parse(delta="0.1")
    result = faier.verify("geometric", "ln(3/2)", options)
    extras = result_extras("geometric", options, result)
    assert extras.notes == ()
    assert {name: (p, q) for name, p, q in extras.outputs} == {
        "0~": (Fraction(2, 3), Fraction(1, 3)),
        "1~": (Fraction(1, 6), Fraction(1, 3)),
        "2~": (Fraction(1, 6), Fraction(1, 3)),
    }
    # δ(0) is the largest total variation distance between neighbours: 2/3 − 1/3
    assert extras.profile[0] == (0.0, pytest.approx(1 / 3))
    assert extras.profile[-1][1] == 0.0  # past the largest loss ln 2
    assert "all 4 ordered comparisons" in extras.profile_note


def test_batch_writes_one_page_for_the_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "jobs:\n"
        "  - id: nm\n    target: noisy-max\n    settings: {n: 3}\n    claim: ln(2)\n"
        "  - id: geo\n    target: geometric\n",
        encoding="utf-8",
    )
    target = tmp_path / "batch.html"
    result = runner.invoke(app, ["batch", str(suite), "--workers", "1", "--report", str(target)])
    assert result.exit_code == 1, result.output
    text = target.read_text(encoding="utf-8")
    self_contained(text)
    assert "a job is violated" in text and "ε* per job" in text and "<svg" in text
    assert "<code>[1, 1, 1]</code>" in text and "<code>index 1</code>" in text and "7/72" in text


def test_an_hmm_profile_covers_every_pair_of_priors() -> None:
    import itertools
    import math
    from fractions import Fraction

    from faier.cli.report import result_extras
    from faier.core.options import Options

    model = str(Path(faier.__file__).parent / "examples" / "models" / "geometric.yaml")
    options = Options.parse(delta="0.01", horizon=3)
    result = faier.verify(model, "ln(2)", options)
    extras = result_extras(model, options, result)
    assert "all 4 ordered comparisons" in extras.profile_note
    rows = {
        "0": (Fraction(2, 3), Fraction(1, 6), Fraction(1, 6)),
        "1": (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)),
        "2": (Fraction(1, 6), Fraction(1, 6), Fraction(2, 3)),
    }

    def total_variation(a: str, b: str) -> Fraction:  # δ(0) of three observations
        return sum(
            (
                max(
                    Fraction(0), math.prod(rows[a][o] for o in w) - math.prod(rows[b][o] for o in w)
                )
                for w in itertools.product(range(3), repeat=3)
            ),
            Fraction(0),
        )

    expected = max(
        total_variation(a, b) for a, b in (("0", "1"), ("1", "0"), ("1", "2"), ("2", "1"))
    )
    assert extras.profile[0] == (0.0, pytest.approx(float(expected)))


def test_an_alignment_proof_is_in_the_report(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    example = Path(__file__).resolve().parents[2] / "examples" / "checkdp" / "sparse_vector.py"
    args = ["verify", str(example), "-e", "1", "--engine", "alignment", "--report", str(target)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    text = target.read_text(encoding="utf-8")
    self_contained(text)
    assert "Proof for all inputs" in text and "every number of queries" in text
