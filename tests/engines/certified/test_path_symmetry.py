"""A declared symmetry proved on symbolic paths: it agrees with the exact rows it skips."""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from pathlib import Path

import pytest

from faier.api import load_problem
from faier.core.budget import Budget
from faier.engines.certified import engine, orbits, path_symmetry
from faier.engines.exact.symmetry_check import moved_output
from faier.mechanisms.program import Program
from faier.mechanisms.symmetry import inverse, sorting_permutation


def _rows_and_paths(
    mechanism: Program[object], inputs: list[tuple[int, ...]]
) -> tuple[orbits._Rows, list[list[object]]]:
    budget = Budget(None, None)
    on = orbits._on(mechanism, inputs)
    table = engine.build_table(on, budget)
    assert mechanism.symmetry is not None
    runs = [path_symmetry.stars(run) for run in engine._runs(on, budget)]
    return orbits._Rows(table, mechanism.symmetry, mechanism), runs  # type: ignore[return-value]


def _verdicts(mechanism: Program[object], n: int, top: int) -> list[tuple[bool, bool]]:
    """(paths match, exact rows equal) for every input of {0..top}ⁿ against its
    representative, the rows computed by the engine's integrals."""
    inputs = list(itertools.product(range(top + 1), repeat=n))
    rows, runs = _rows_and_paths(mechanism, inputs)
    assert rows.kind is not None and mechanism.symmetry is not None
    where = {x: k for k, x in enumerate(inputs)}
    out = []
    for k, x in enumerate(inputs):
        perm = sorting_permutation(x)
        rep = tuple(sorted(x))

        def move(output: Hashable, perm: tuple[int, ...] = perm, x: object = x) -> Hashable:
            assert mechanism.symmetry is not None
            return moved_output(mechanism, mechanism.symmetry, perm, output, x)

        expected = path_symmetry.structure(runs[where[rep]])  # type: ignore[arg-type]
        matched = path_symmetry.matches(runs[k], perm, move, expected)  # type: ignore[arg-type]
        moved_back = rows.moved(rows.row(where[rep]), inverse(perm), rep)
        out.append((matched, rows.row(k) == moved_back))
    return out


@pytest.mark.parametrize(
    "name",
    [
        "noisy-max-laplace",
        "noisy-max-exponential",
        "noisy-max-laplace-value",
        "histogram-laplace",
        "isvt2-laplace",
    ],
)
def test_matching_paths_mean_equal_rows(name: str) -> None:
    """On {0,1,2}⁴ every input's paths (Noisy Max's merged into stars: 8 paths and more)
    match its representative's, and its exact rows (closed forms, densities, released
    numbers) are indeed its representative's moved."""
    mechanism = load_problem(name, settings={"n": "4"}).mechanism
    assert isinstance(mechanism, Program)
    assert _verdicts(mechanism, 4, 2) == [(True, True)] * 81


def test_unmerged_paths_prove_nothing_and_the_rows_decide() -> None:
    """Noisy Max of 3 answers keeps its 4 paths (too few to merge), whose comparisons
    follow the order of the queries: permuted inputs' paths differ, their rows do not."""
    mechanism = load_problem("noisy-max-laplace", settings={"n": "3"}).mechanism
    assert isinstance(mechanism, Program)
    verdicts = _verdicts(mechanism, 3, 2)
    assert all(equal for _, equal in verdicts) and not all(m for m, _ in verdicts)


def test_a_leak_matches_nowhere_and_an_implied_comparison_falls_back(tmp_path: Path) -> None:
    """A smaller noise on (1, 0, 0, 0) alone: its paths do not match (nor do its rows),
    every other input's do.  iSVT 1 records a comparison or finds it implied by the order of the
    queries, so paths of permuted inputs differ while the rows agree: no match, no proof,
    and the exact rows decide."""
    source = tmp_path / "leaky.py"
    source.write_text(
        "import faier\n"
        "@faier.program(inputs=faier.grid(4, 1), symmetry=faier.permute_queries('index'))\n"
        "def leaky(x, ctx):\n"
        "    scale = 1 if tuple(x) == (1, 0, 0, 0) else 2\n"
        "    noisy = [q + ctx.draw(faier.laplace(0, scale)) for q in x]\n"
        "    best = 0\n"
        "    for i in range(1, len(noisy)):\n"
        "        if noisy[i] > noisy[best]:\n"
        "            best = i\n"
        "    return best + 1\n"
    )
    mechanism = load_problem(str(source)).mechanism
    assert isinstance(mechanism, Program)
    found = _verdicts(mechanism, 4, 1)
    inputs = list(itertools.product(range(2), repeat=4))
    leak = (1, 0, 0, 0)
    assert found[inputs.index(leak)] == (False, False)
    assert all(v == (True, True) for x, v in zip(inputs, found, strict=True) if x != leak)
    isvt1 = load_problem("isvt1-laplace", settings={"n": "3"}).mechanism
    assert isinstance(isvt1, Program)
    verdicts = _verdicts(isvt1, 3, 2)
    assert all(equal for _, equal in verdicts) and not all(m for m, _ in verdicts)
