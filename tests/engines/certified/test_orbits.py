"""Orbit tables of the certified engine against the pair-by-pair search on small grids."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import faier
from faier.api import load_problem
from faier.engines.certified import orbits
from faier.errors import MechanismError
from faier.mechanisms import symmetry
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


def test_large_grid_is_searched_by_orbits(monkeypatch: pytest.MonkeyPatch) -> None:
    """n = 7 (2187 inputs, 821 356 ordered pairs) runs 36 orbit representatives (the
    declaration checked on 100 inputs: the default 1000 take 9 s here)."""
    monkeypatch.setattr(symmetry, "SYMMETRY_SAMPLES", 100)
    result = faier.verify("noisy-max-laplace", "0.7", settings={"n": "7"})
    assert result.verdict is Verdict.HOLDS
    assert "36 input orbits" in result.method and "821356 ordered pairs" in result.method
    assert "2187 inputs" in result.privacy


ODD_ONE_OUT = (1, 1, 1, 1, 1, 1, 0)
"""A neighbour in Noisy Max's worst pair orbit on {0,1}⁷, outside the sampled inputs when
the sample is cut to the 8 orbits' representatives (:func:`_cut_sample`)."""


@pytest.fixture
def _cut_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """The declaration checked on one shuffled representative per orbit only (every input
    of a grid of at most 1000 is checked by default), so a wrong declaration elsewhere
    reaches the search and :func:`orbits.confirm` is what must catch it."""
    monkeypatch.setattr(symmetry, "SYMMETRY_SAMPLES", 0)


BROKEN = {
    "index": (
        "    noisy = [q + ctx.draw(faier.laplace(0, scale)) for q in x]\n"
        "    best = 0\n"
        "    for i in range(1, len(noisy)):\n"
        "        if noisy[i] > noisy[best]:\n"
        "            best = i\n"
        "    return best + 1\n"
    ),
    "same": (
        "    noisy = [q + ctx.draw(faier.laplace(0, scale)) for q in x]\n"
        "    best = noisy[0]\n"
        "    for v in noisy[1:]:\n"
        "        if v > best:\n"
        "            best = v\n"
        "    return best\n"
    ),
    "vector": "    return tuple(q + ctx.draw(faier.laplace(0, scale)) for q in x)\n",
}


def _broken(tmp_path: Path, kind: str) -> str:
    """A program whose declared symmetry fails on ODD_ONE_OUT alone (a larger noise there)."""
    source = tmp_path / f"broken_{kind}.py"
    source.write_text(
        "import faier\n"
        f"@faier.program(inputs=faier.grid(7, 1), symmetry=faier.permute_queries({kind!r}))\n"
        "def broken(x, ctx):\n"
        f"    scale = 1 if tuple(x) == {ODD_ONE_OUT!r} else 2\n" + BROKEN[kind]
    )
    return str(source)


@pytest.mark.usefixtures("_cut_sample")
def test_the_sample_does_not_see_the_broken_input() -> None:
    """The premise: the cut check never runs the program on ODD_ONE_OUT."""
    reps = [tuple([0] * (7 - k) + [1] * k) for k in range(8)]
    inputs, _ = symmetry.declaration_sample(7, 1, reps)
    assert len(inputs) == 8 and ODD_ONE_OUT not in inputs


@pytest.mark.usefixtures("_cut_sample")
def test_a_witness_on_a_moved_row_is_recomputed(tmp_path: Path) -> None:
    """Noisy Max's witness pair ends on ODD_ONE_OUT, whose row the orbit table moved along
    the declaration: recomputed on the real pair it differs, so bad input, never a verdict."""
    source = _broken(tmp_path, "index")
    runs: list[Callable[[], Result]] = [
        lambda: faier.verify(source, "1/10"),
        lambda: faier.epsilon(source),
        lambda: faier.epsilon(source, delta="1/100"),
    ]
    for run in runs:
        with pytest.raises(MechanismError, match="recomputed on the witness's pair") as caught:
            run()
        assert "(1, 1, 1, 1, 1, 1, 0)" in str(caught.value)
        assert "declared symmetry" in str(caught.value)


@pytest.mark.usefixtures("_cut_sample")
@pytest.mark.parametrize("kind", ["index", "same", "vector"])
def test_every_table_kind_confirms_its_witness_pairs(tmp_path: Path, kind: str) -> None:
    """Exact tables, density curves and separable numbers: a pair through ODD_ONE_OUT is
    bad input, the others (both rows the program's own) pass."""
    from faier.core.budget import Budget
    from faier.engines.certified import engine

    problem = load_problem(_broken(tmp_path, kind))
    budget = Budget(None, None)
    table = engine._table(problem, budget)
    assert table.reduced is not None  # type: ignore[union-attr]
    odd = table.inputs.index(ODD_ONE_OUT)
    pairs = [(int(i), int(j)) for i, j in table.reduced.pairs]  # type: ignore[union-attr]
    through = next(p for p in pairs if odd in p)
    elsewhere = [p for p in pairs if odd not in p][:5]
    with pytest.raises(MechanismError, match="recomputed on the witness's pair"):
        engine._confirm(problem, table, *through, budget)  # type: ignore[arg-type]
    for i, j in elsewhere:
        engine._confirm(problem, table, i, j, budget)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "n", "eps", "pair", "forms"),
    [
        (
            "noisy-max-laplace",
            "5",
            None,
            ([1, 1, 1, 1, 1], [0, 2, 2, 2, 2]),
            ("1/5", "49/240·e^(-7/10) − 1/240·e^(-14/5)"),
        ),
        (
            "noisy-max-laplace-value",
            "5",
            None,
            ([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]),
            ("7/128", "7/128·e^(-7/4)"),
        ),
        (
            "histogram-laplace",
            "5",
            None,
            ([0, 0, 0, 0, 0], [1, 0, 0, 0, 0]),
            ("16807/3200000", "16807/3200000·e^(-7/10)"),
        ),
        (
            "isvt2-laplace",
            "5",
            None,
            ([1, 1, 1, 1, 1], [0, 0, 0, 2, 2]),
            ("1/60", "31/1280·e^(-7/4) − 1/480·e^(-49/20)"),
        ),
        (
            "noisy-max-laplace",
            "7",
            "1/2",
            ([1, 1, 1, 1, 1, 1, 1], [0, 2, 2, 2, 2, 2, 2]),
            ("1/7", "321/2240·e^(-7/10) − 1/2240·e^(-21/5)"),
        ),
    ],
)
def test_symmetric_examples_keep_their_witnesses(
    name: str,
    n: str,
    eps: str | None,
    pair: tuple[list[int], list[int]],
    forms: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """By orbits at n = 5 and 7, every witness recomputed on its pair: the same witnesses
    (pair and both closed forms) as before the recomputation (n = 7's declaration checked
    on 100 inputs, not 1000, for time)."""
    monkeypatch.setattr(symmetry, "SYMMETRY_SAMPLES", 100)
    run = {"n": n}
    result = (
        faier.epsilon(name, settings=run) if eps is None else faier.verify(name, eps, settings=run)
    )
    assert "pair orbits" in result.method
    witness = result.certified_witness
    assert witness is not None
    assert (witness.left_value, witness.right_value) == pair
    assert (witness.p.closed_form, witness.q.closed_form) == forms


def test_delta_answers_by_orbits_describe_the_whole_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    """The least ε for δ on interval tables searches the pair orbits and says so: the
    plain search's interval and witness, over the grid's 243 inputs."""

    def run() -> Result:
        return faier.epsilon("noisy-max-laplace", delta="1/100", settings={"n": "5"})

    reduced = run()
    monkeypatch.setattr(orbits, "ORBIT_INPUTS", 10**9)
    plain = run()
    assert plain.enclosure == reduced.enclosure
    assert "pair orbits" in reduced.method and "pair orbits" not in plain.method
    assert reduced.privacy == plain.privacy and "243 inputs" in reduced.privacy
    wa, wb = plain.certified_witness, reduced.certified_witness
    assert wa is not None and wb is not None
    assert (wa.left_value, wa.right_value, wa.p, wa.q) == (
        wb.left_value,
        wb.right_value,
        wb.p,
        wb.q,
    )


LEAKY = {
    "scale": "    scale = 1 if tuple(x) == {leak!r} else 2\n"
    "    noisy = [q + ctx.draw(faier.laplace(0, scale)) for q in x]\n",
    "branch": "    noisy = [q + ctx.draw(faier.laplace(0, 2)) for q in x]\n"
    "    if tuple(x) == {leak!r}:\n"
    "        return 1\n",
}


def _leaky(tmp_path: Path, how: str, leak: tuple[int, ...]) -> str:
    """Noisy Max with Laplace noise declared "index" on {0,1,2}^5 that leaks on ``leak``
    alone: a smaller noise scale there, or a branch that reports position 1."""
    source = tmp_path / f"leaky_{how}.py"
    source.write_text(
        "import faier\n"
        "@faier.program(inputs=faier.grid(5, 2), symmetry=faier.permute_queries('index'))\n"
        "def leaky(x, ctx):\n" + LEAKY[how].format(leak=leak) + "    best = 0\n"
        "    for i in range(1, len(noisy)):\n"
        "        if noisy[i] > noisy[best]:\n"
        "            best = i\n"
        "    return best + 1\n"
    )
    return str(source)


@pytest.mark.parametrize("how", ["scale", "branch"])
def test_a_leak_on_one_unsorted_input_of_243_is_bad_input(tmp_path: Path, how: str) -> None:
    """The issue's program for continuous noise: 243 inputs, a leak on (2, 0, 1, 0, 0)
    alone.  Six sampled inputs missed it and the orbit search said "holds"; every input
    of a grid of at most 1000 is checked now, so it is bad input naming the input."""
    from faier.cli.main import app

    source = _leaky(tmp_path, how, (2, 0, 1, 0, 0))
    runs: list[Callable[[], Result]] = [
        lambda: faier.epsilon(source),
        lambda: faier.verify(source, "1"),
    ]
    for run in runs:
        with pytest.raises(MechanismError, match=r"fails on input \(2, 0, 1, 0, 0\)"):
            run()
    result = CliRunner().invoke(app, ["verify", source, "--epsilon", "1"])
    assert result.exit_code == 2, result.output


def test_a_leak_on_a_sampled_input_of_a_large_grid_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where only a sample is checked it holds a shuffled copy of every orbit's
    representative (here cut to 60 of the 243 inputs, 21 orbits): a leak on one is caught."""
    monkeypatch.setattr(symmetry, "SYMMETRY_SAMPLES", 60)
    reps = [tuple(sorted(x)) for x in itertools.combinations_with_replacement(range(3), 5)]
    inputs, _ = symmetry.declaration_sample(5, 2, reps)
    assert len(inputs) == 60 and {tuple(sorted(x)) for x in inputs} == set(reps)
    shuffled = next(x for x in inputs[: len(reps)] if list(x) != sorted(x) and x[0] != 0)
    with pytest.raises(MechanismError, match=re.escape(f"fails on input {shuffled!r}")):
        faier.epsilon(_leaky(tmp_path, "scale", shuffled))


NOISY_MAX_5 = (0.6818829515678333, 0.6818829515678335)
"""Certified ε* of noisy-max-laplace at n = 5 over {0,1,2}⁵ (every input checked or not)."""


def test_honest_noisy_max_keeps_its_epsilon_and_says_what_it_assumed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Noisy Max with Laplace noise on 5 queries: every one of the 243 inputs checked, so
    nothing assumed; with the check cut to a sample of 100 the same ε*, and the result and
    its JSON say the declaration was assumed on the other 143 inputs."""
    from faier.cli.main import app

    full = faier.epsilon("noisy-max-laplace", settings={"n": "5"})
    assert full.enclosure is not None
    assert (full.enclosure.lower, full.enclosure.upper) == NOISY_MAX_5
    assert (
        "symmetry checked exactly on 243 inputs, 243 of them on their renamed symbolic paths"
        in full.method
    )
    assert full.assumptions == ()
    monkeypatch.setattr(symmetry, "SYMMETRY_SAMPLES", 100)
    sampled = faier.epsilon("noisy-max-laplace", settings={"n": "5"})
    assert sampled.enclosure == full.enclosure
    assert "symmetry checked exactly on 100 inputs (seeded, every orbit among them)" in (
        sampled.method
    )
    (assumed,) = sampled.assumptions
    assert assumed.startswith("the declared symmetry (permuting the answers permutes")
    assert "checked exactly on 100 of its 243 inputs" in assumed
    shown = CliRunner().invoke(
        app, ["verify", "noisy-max-laplace", "--set", "n=5", "--epsilon", "0.7", "--json"]
    )
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["verdict"] == "holds" and data["assumptions"] == [assumed]
