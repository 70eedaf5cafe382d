"""Orbit tables of the certified engine against the pair-by-pair search on small grids."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import faier
from faier.engines.certified import orbits
from faier.errors import MechanismError
from faier.results import Result, Verdict

SYMMETRIC = (
    "noisy-max-laplace",
    "noisy-max-exponential",
    "noisy-max-laplace-value",
    "noisy-max-exponential-value",
    "histogram-laplace",
    "histogram-laplace-wrong-scale",
    "isvt1-laplace",
    "isvt2-laplace",
)


def _both(monkeypatch: pytest.MonkeyPatch, run: object) -> tuple[Result, Result]:
    assert callable(run)
    default = orbits.ORBIT_INPUTS
    plain = run()
    monkeypatch.setattr(orbits, "ORBIT_INPUTS", 0)
    reduced = run()
    monkeypatch.setattr(orbits, "ORBIT_INPUTS", default)
    return plain, reduced


def _same_star(plain: Result, reduced: Result) -> None:
    a, b = plain.enclosure, reduced.enclosure
    assert a is not None and b is not None
    assert (a.lower, a.upper, a.closed_form) == (b.lower, b.upper, b.closed_form)
    assert "pair orbits" in reduced.method and "pair orbits" not in plain.method
    wa, wb = plain.certified_witness, reduced.certified_witness
    assert wa is not None and wb is not None
    assert (wa.ratio.lower, wa.ratio.upper) == (wb.ratio.lower, wb.ratio.upper)


@pytest.mark.parametrize("name", SYMMETRIC)
def test_orbit_search_gives_the_plain_searchs_epsilon(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """ε* (interval, closed form, witness ratio) and verdicts at 0.7 agree on {0,1,2}³."""
    plain, reduced = _both(monkeypatch, lambda: faier.epsilon(name, settings={"n": "3"}))
    _same_star(plain, reduced)
    assert reduced.privacy == plain.privacy
    verdicts = _both(monkeypatch, lambda: faier.verify(name, "0.7", settings={"n": "3"}))
    assert verdicts[0].verdict is verdicts[1].verdict


@settings(max_examples=6, deadline=None)
@given(
    st.sampled_from(("noisy-max-laplace", "noisy-max-laplace-value")),
    st.integers(2, 4),
    st.integers(1, 2),
    st.sampled_from(("1/2", "7/10", "3/2")),
)
def test_orbit_search_agrees_on_random_grids(name: str, n: int, m: int, eps0: str) -> None:
    """Other sizes, answer ranges and noise scales: the same interval both ways."""
    run = {"n": str(n), "m": str(m), "eps0": eps0}
    with pytest.MonkeyPatch.context() as patch:
        plain, reduced = _both(patch, lambda: faier.epsilon(name, settings=run))
    _same_star(plain, reduced)


def test_a_wrong_declaration_is_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Noise that depends on the position is not symmetric: caught on the sample (bad input)."""
    source = tmp_path / "skewed.py"
    source.write_text(
        "import faier\n"
        "@faier.program(inputs=faier.grid(3, 2), symmetry=faier.permute_queries('index'))\n"
        "def skewed(x, ctx):\n"
        "    noisy = [q + i + ctx.draw(faier.laplace(0, 2)) for i, q in enumerate(x)]\n"
        "    best = 0\n"
        "    for i in range(1, len(noisy)):\n"
        "        if noisy[i] > noisy[best]:\n"
        "            best = i\n"
        "    return best + 1\n"
    )
    default = orbits.ORBIT_INPUTS
    monkeypatch.setattr(orbits, "ORBIT_INPUTS", 0)
    with pytest.raises(MechanismError, match="declared symmetry"):
        faier.epsilon(str(source))
    monkeypatch.setattr(orbits, "ORBIT_INPUTS", default)
    assert faier.epsilon(str(source)).exit_code == 0


def test_large_grid_is_searched_by_orbits() -> None:
    """n = 7 (2187 inputs, 821 356 ordered pairs) runs 36 orbit representatives."""
    result = faier.verify("noisy-max-laplace", "0.7", settings={"n": "7"})
    assert result.verdict is Verdict.HOLDS
    assert "36 input orbits" in result.method and "821356 ordered pairs" in result.method
    assert "2187 inputs" in result.privacy
