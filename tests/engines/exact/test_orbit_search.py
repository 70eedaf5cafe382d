"""The grid search over orbits of permuting the queries (engines/exact/orbit_search.py).

Three kinds of evidence:

* for n ≥ 14, where no grid search can list the 3^n inputs, Noisy Max's ε* is
  recomputed here from an independent formula (below), not from faier;
* for small grids, random mechanisms symmetric by construction give the same
  ε* and witness through the orbit search as through the plain grid search
  (and both as the pair-by-pair search, tested in test_grid_search.py);
* a wrong declaration is bad input naming the mechanism and an input.

The independent Noisy Max computation.  With uniform tie-breaking, index i wins
with noisy value v when its own noisy answer is v, every other noisy answer is
at most v, and, of the k others that also equal v, i is the one picked (1/(k+1)).
Grouping the others by answer b (c_b of them), the number equal to v is a sum of
independent binomials (each equal to v with g(b, v), below v with lt(b, v)), so

    Pr[i | x] = Σ_v g(x_i, v) · Σ_k Pr[k others equal v, the rest below v] / (k + 1),

a function of x_i and the multiset of the other answers only.  Which
neighbours can be the worst?  Pr[i | x] does not decrease when x_i grows and
does not grow when another answer grows: the truncated geometric noise is
stochastically increasing in its centre, and for fixed other noisy answers,
raising i's own noisy answer never lowers its chance (nor does lowering
another's).  So for fixed x and i the largest Pr[i | x] / Pr[i | y] over
every-query ±1 neighbours y is at y_i = max(x_i − 1, 0), y_j = min(x_j + 1, m)
for j ≠ i; for one-query neighbours it is one of the n changes x_i − 1 or
x_j + 1.  Together with the symmetry (the ratio depends on x_i and the
multiset only), ε* is the maximum over multisets x and answers a present in x
of these few ratios: a few hundred exact evaluations for n = 20.  That the
reduction is right is checked too: it gives the pinned ε* for n = 2..12, which
the full searches computed over every neighbour pair.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections import Counter
from collections.abc import Hashable
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import reference as ref
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.exact import epsilon
from faier.engines.exact.orbit_search import OrbitSearch
from faier.engines.exact.orbits import InputOrbits, pair_count, pair_orbits
from faier.errors import InternalError, MechanismError, SpecError
from faier.mechanisms import PermuteQueries, grid
from faier.mechanisms.handlers import Context
from faier.mechanisms.inputs import InputSpace
from faier.mechanisms.library.histogram import histogram
from faier.mechanisms.library.noisy_max import NoisyMax, noisy_max
from faier.mechanisms.program import Program
from faier.mechanisms.symmetry import SYMMETRY_SAMPLES, declaration_sample
from faier.model.distribution import Distribution
from faier.privacy.neighbours import EveryQuery, OneQuery, neighbour_pairs
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Loss, Result

F = Fraction
HALF = F(1, 2)
Relation = EveryQuery | OneQuery

PINNED = {
    2: F(12, 5),
    3: F(24, 7),
    4: F(432, 113),
    5: F(288, 73),
    6: F(15552, 3905),
    7: F(31104, 7787),
    8: F(559872, 140033),
    9: F(1119744, 279979),
    10: F(20155392, 5039105),
    11: F(4478976, 1119763),
    12: F(725594112, 181399553),
}
"""Noisy Max, ties uniform, α = 1/2, m = 2, every-query ±1 (test_grid_search.py)."""


# --- the independent computation ---------------------------------------------------------------


def _rows(alpha: Fraction, m: int) -> list[dict[int, Fraction]]:
    return [ref.truncated_geometric_row(alpha, m, u) for u in range(m + 1)]


def win_uniform(a: int, others: Counter[int], alpha: Fraction = HALF, m: int = 2) -> Fraction:
    """Pr[an index with answer a is reported | the others' answers], ties broken uniformly."""
    return _win(a, tuple(sorted(others.items())), alpha, m)


@functools.cache
def _win(a: int, others: tuple[tuple[int, int], ...], alpha: Fraction, m: int) -> Fraction:
    rows = _rows(alpha, m)
    total = Fraction(0)
    for v in range(m + 1):
        ties = [Fraction(1)]  # ties[k] = Pr[k others equal v, all others below or at v]
        for b, count in others:
            equal, below = rows[b][v], sum((rows[b][w] for w in range(v)), Fraction(0))
            group = [
                math.comb(count, j) * equal**j * below ** (count - j) for j in range(count + 1)
            ]
            ties = [
                sum(
                    (ties[i] * group[k - i] for i in range(len(ties)) if 0 <= k - i < len(group)),
                    Fraction(0),
                )
                for k in range(len(ties) + len(group) - 1)
            ]
        total += rows[a][v] * sum((p / (k + 1) for k, p in enumerate(ties)), Fraction(0))
    return total


def max_value(x: tuple[int, ...], v: int, alpha: Fraction = HALF, m: int = 2) -> Fraction:
    """Pr[the largest noisy answer is v | x] = Pr[all ≤ v] − Pr[all < v]."""
    rows = _rows(alpha, m)
    at_most = math.prod(sum((rows[u][w] for w in range(v + 1)), Fraction(0)) for u in x)
    below = math.prod(sum((rows[u][w] for w in range(v)), Fraction(0)) for u in x)
    return at_most - below


def independent_epsilon(n: int, one_query: bool = False, m: int = 2) -> Fraction:
    """ε* of uniform Noisy Max as a ratio, from the monotone neighbours of each orbit."""
    best = Fraction(0)
    for x in itertools.combinations_with_replacement(range(m + 1), n):
        counts = Counter(x)
        for a in counts:
            others = counts - Counter([a])
            p = win_uniform(a, others)
            changes: list[tuple[int, Counter[int]]] = []
            if one_query:
                if a > 0:
                    changes.append((a - 1, others))
                for b in others:
                    if b < m:
                        changes.append((a, others - Counter([b]) + Counter([b + 1])))
            else:
                raised: Counter[int] = Counter()
                for b, c in others.items():
                    raised[min(b + 1, m)] += c
                changes.append((max(a - 1, 0), raised))
            for own, rest in changes:
                best = max(best, p / win_uniform(own, rest))
    return best


def test_the_independent_formula_is_noisy_max() -> None:
    """Against brute force over every noise vector (tests/reference.py), n = 4."""
    for x in itertools.product(range(3), repeat=4):
        brute = ref.noisy_max_distribution(x, "uniform")
        for i, a in enumerate(x):
            assert win_uniform(a, Counter(x) - Counter([a])) == brute.get(i + 1, 0)
        value = ref.noisy_max_distribution(x, "value")
        assert [max_value(x, v) for v in range(3)] == [value.get(v, 0) for v in range(3)]


@pytest.mark.parametrize("n", range(2, 13))
def test_the_monotone_neighbours_give_the_pinned_values(n: int) -> None:
    """The reduction to a few neighbours per orbit loses nothing where every pair was searched."""
    assert independent_epsilon(n) == PINNED[n]


# --- Noisy Max beyond the grid search -----------------------------------------------------------


EVERY = EveryQuery(1)


def orbit_result(mechanism: Any, relation: Relation = EVERY) -> Result:
    result = epsilon(Problem("orbits", mechanism, DifferentialPrivacy(relation)))
    assert result.method.startswith("exact: grid search over orbits"), result.method
    return result


def ratio_of(result: Result) -> Fraction | None:
    assert result.epsilon_star is not None
    return result.epsilon_star.ratio


@pytest.mark.parametrize("n", [14, 16, 20])
def test_noisy_max_uniform_beyond_the_grid(n: int) -> None:
    result = orbit_result(noisy_max(n, "uniform"))
    expected = independent_epsilon(n)
    assert ratio_of(result) == expected
    w = result.witness
    assert w is not None
    assert (w.left_value, w.right_value, w.show_output()) == (
        [1] * n,
        [0] + [2] * (n - 1),
        "index 1",
    )
    assert w.p == F(1, n) == win_uniform(1, Counter({1: n - 1}))
    assert w.q == win_uniform(0, Counter({2: n - 1})) and w.p / w.q == expected
    orbits = math.comb(n + 2, 2)
    assert f"({orbits} input orbits of {3**n} inputs" in result.method


def test_noisy_max_uniform_one_query_beyond_the_grid() -> None:
    n = 14
    result = orbit_result(noisy_max(n, "uniform"), OneQuery(1))
    assert ratio_of(result) == independent_epsilon(n, one_query=True)
    w = result.witness
    assert w is not None and w.left_value is not None and w.right_value is not None
    x, y = tuple(w.left_value), tuple(w.right_value)
    i = int(w.show_output().removeprefix("index ")) - 1
    assert w.p == win_uniform(x[i], Counter(x) - Counter([x[i]]))
    assert w.q == win_uniform(y[i], Counter(y) - Counter([y[i]]))


@pytest.mark.parametrize(("relation", "ratio"), [(EveryQuery(1), 2**20), (OneQuery(1), 2)])
def test_noisy_max_value_at_twenty_queries(relation: Relation, ratio: int) -> None:
    """The maximal noisy value: n·ln 2 with every query moving, ln 2 with one."""
    result = orbit_result(noisy_max(20, "value"), relation)
    assert ratio_of(result) == ratio
    w = result.witness
    assert w is not None and w.left_value is not None and w.right_value is not None
    v = int(w.show_output().rstrip("~"))
    assert w.p == max_value(tuple(w.left_value), v)
    assert w.q == max_value(tuple(w.right_value), v)


def test_ties_first_is_not_searched_by_orbits() -> None:
    """The first maximal index wins: not symmetric, so no declaration and no orbit search."""
    assert noisy_max(4, "first").symmetry is None
    with pytest.raises(SpecError, match=r"3\^16 inputs is too many to enumerate"):
        epsilon(Problem("nm", noisy_max(16, "first"), DifferentialPrivacy()))


def test_a_timeout_ends_in_unknown() -> None:
    result = epsilon(
        Problem("nm", noisy_max(20, "uniform"), DifferentialPrivacy()), budget=Budget(timeout=0.01)
    )
    assert result.epsilon_star is None and result.reason is not None
    assert "timeout" in result.reason


# --- orbit search = grid search on small grids --------------------------------------------------


def seen(result: Result) -> tuple[Loss | None, tuple[Any, ...]]:
    w = result.witness
    assert w is not None
    return result.epsilon_star, (w.left_value, w.right_value, w.show_output(), w.p, w.q)


def plain_result(mechanism: Any, relation: Relation) -> Result:
    result = epsilon(
        Problem("plain", replace(mechanism, symmetry=None), DifferentialPrivacy(relation))
    )
    assert result.method.startswith("exact: grid search ("), result.method
    return result


@st.composite
def symmetric_mechanisms(draw: st.DrawFn, max_inputs: int = 81) -> Program[Any]:
    """A random mechanism that is symmetric by construction, with its declaration.

    ``index``: index i is reported with weight w(multiset, x_i); ``same``: a random
    distribution per multiset; ``vector``: every answer noised by one random matrix.
    Weights may be 0 (impossible outputs, infinite losses).
    """
    m = draw(st.integers(1, 2))
    n = draw(st.integers(2, 5 if m == 1 else 4))
    if (m + 1) ** n > max_inputs:
        n = 2
    kind = draw(st.sampled_from(["index", "same", "vector"]))
    weight = st.integers(0, 3)
    inputs = list(itertools.product(range(m + 1), repeat=n))
    dists: dict[tuple[int, ...], Distribution[Hashable]] = {}
    if kind == "vector":
        noise = [draw(st.lists(weight, min_size=m + 1, max_size=m + 1)) for _ in range(m + 1)]
        noise = [row if any(row) else [1] * (m + 1) for row in noise]
        for x in inputs:
            out: dict[Hashable, Fraction] = {}
            for z in itertools.product(range(m + 1), repeat=n):
                p = math.prod(F(noise[u][v], sum(noise[u])) for u, v in zip(x, z, strict=True))
                if p:
                    out[z] = p
            dists[x] = Distribution.of(out)
    else:
        outputs = draw(st.integers(1, 3))
        per: dict[tuple[int, ...], list[int]] = {}
        for rep in itertools.combinations_with_replacement(range(m + 1), n):
            size = m + 1 if kind == "index" else outputs
            row = draw(st.lists(weight, min_size=size, max_size=size))
            if kind == "index" and not any(row[a] for a in rep):
                row[rep[0]] = 1
            if not any(row):
                row[0] = 1
            per[rep] = row
        for x in inputs:
            row = per[tuple(sorted(x))]
            if kind == "index":
                total = sum(row[a] for a in x)
                dists[x] = Distribution.of({i + 1: F(row[a], total) for i, a in enumerate(x)})
            else:
                dists[x] = Distribution.of({k: F(w, sum(row)) for k, w in enumerate(row)})

    def body(x: Hashable, ctx: Context) -> Hashable:
        assert isinstance(x, tuple)
        return ctx.draw(dists[x])

    return Program("random symmetric", body, grid(n, m), symmetry=PermuteQueries(kind))


relations = st.sampled_from([EveryQuery(1), EveryQuery(2), OneQuery(1), OneQuery(2)])


@settings(max_examples=60, deadline=None)
@given(symmetric_mechanisms(), relations)
def test_random_symmetric_mechanisms_match_the_grid_search(
    mechanism: Program[Any], relation: Relation
) -> None:
    assert seen(orbit_result(mechanism, relation)) == seen(plain_result(mechanism, relation))


@settings(max_examples=40, deadline=None)
@given(symmetric_mechanisms(max_inputs=64), relations, st.randoms(use_true_random=False))
def test_a_broken_symmetry_is_caught(mechanism: Program[Any], relation: Relation, rng: Any) -> None:
    """One input of an orbit with several members gets another distribution: always caught."""
    values = [x for x in mechanism.inputs if len(set(x)) > 1]  # type: ignore[arg-type]
    x = rng.choice(values)
    own = mechanism.output_distribution(x)
    probabilities = [p for _, p in own.items]
    rotated = probabilities[-1:] + probabilities[:-1]
    changed = Distribution.of(dict(zip(own.support(), rotated, strict=True)))
    if changed == own:
        changed = Distribution.of({"something else": 1})
    body = mechanism.body

    def broken(y: Hashable, ctx: Context) -> Hashable:
        return ctx.draw(changed) if y == x else body(y, ctx)

    with pytest.raises(MechanismError, match=r"'random symmetric'.*fails on input \("):
        epsilon(Problem("broken", replace(mechanism, body=broken), DifferentialPrivacy(relation)))


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("ties", ["uniform", "value"])
def test_noisy_max_orbits_match_the_grid_search(n: int, ties: str) -> None:
    for relation in (EveryQuery(1), OneQuery(1)):
        mechanism = noisy_max(n, ties)
        assert seen(orbit_result(mechanism, relation)) == seen(plain_result(mechanism, relation))


@pytest.mark.parametrize("bins", [2, 3])
@pytest.mark.parametrize("relation", [EveryQuery(1), OneQuery(1)])
def test_histograms_permute_their_output_vector(bins: int, relation: Relation) -> None:
    mechanism = histogram(bins, F(1, 3), 2)
    result = orbit_result(mechanism, relation)
    assert seen(result) == seen(plain_result(mechanism, relation))
    assert ratio_of(result) == 3 ** (bins if isinstance(relation, EveryQuery) else 1)


def test_an_output_action_given_as_a_function() -> None:
    def moved_index(perm: tuple[int, ...], i: Hashable) -> Hashable:
        assert isinstance(i, int)
        return perm[i - 1] + 1

    mechanism = replace(noisy_max(4, "uniform"), symmetry=PermuteQueries(moved_index))
    result = orbit_result(mechanism)
    assert seen(result) == seen(plain_result(mechanism, EVERY))
    assert "moved_index" in PermuteQueries(moved_index).describe()


# --- wrong declarations and wrong columns -------------------------------------------------------

FIRST_MAX = '''
from fractions import Fraction
import faier


@faier.program(inputs=faier.grid(3, 2), symmetry=faier.permute_queries("index"))
def first_max(x, ctx):
    """The first maximal noisy answer: ties go to the lowest index, so not symmetric."""
    noisy = [ctx.draw(faier.truncated_geometric(Fraction(1, 2), 2, v)) for v in x]
    return noisy.index(max(noisy)) + 1
'''


def test_a_wrong_declaration_exits_2_naming_the_mechanism_and_an_input(tmp_path: Path) -> None:
    from faier.cli.main import app

    path = tmp_path / "first_max.py"
    path.write_text(FIRST_MAX)
    result = CliRunner().invoke(app, ["epsilon", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert "mechanism 'first_max'" in message
    assert "declared symmetry" in message and "fails on input (" in message
    assert "Traceback" not in result.output


def test_a_declaration_that_moves_outputs_wrongly_is_caught_on_a_sample() -> None:
    """Reports the first answer's noisy value but declares it unchanged by permutations."""
    noise = {u: Distribution.of(ref.truncated_geometric_row(HALF, 2, u)) for u in range(3)}

    def body(x: Hashable, ctx: Context) -> int:
        assert isinstance(x, tuple)
        return ctx.draw(noise[x[0]])

    mechanism = Program("first answer", body, grid(14, 2), symmetry=PermuteQueries("same"))
    with pytest.raises(MechanismError, match=r"'first answer'.*fails on input \((\d, ){13}\d\)"):
        epsilon(Problem("first", mechanism, DifferentialPrivacy()))


def leaky_same(n: int, leak: tuple[int, ...]) -> Program[Any]:
    """A sum with truncated geometric noise, declared "same", that leaks on one input."""

    noise = [Distribution.of(ref.truncated_geometric_row(HALF, 2 * n, s)) for s in range(2 * n + 1)]

    def body(x: Hashable, ctx: Context) -> object:
        assert isinstance(x, tuple)
        return "leak" if x == leak else ctx.draw(noise[sum(x)])

    return Program("leaky", body, grid(n, 2), symmetry=PermuteQueries("same"))


def test_a_leak_on_one_unsorted_input_of_a_small_grid_is_caught() -> None:
    """The issue's program: 243 inputs, a leak on (2, 0, 1, 0, 0) alone.  Six sampled inputs
    missed it and the search said ε* = ln 32; every input is checked now."""
    mechanism = leaky_same(5, (2, 0, 1, 0, 0))
    with pytest.raises(MechanismError, match=r"fails on input \(2, 0, 1, 0, 0\)"):
        epsilon(Problem("leaky", mechanism, DifferentialPrivacy()))


def test_the_sample_holds_every_orbit_permuted_and_at_least_1000_inputs() -> None:
    for n, top in [(7, 2), (14, 2), (30, 2), (12, 1)]:
        orbits = InputOrbits.of(n, top)
        reps = [orbits.rep(r) for r in range(len(orbits))]
        inputs, _ = declaration_sample(n, top, reps)
        assert len(inputs) == len(set(inputs)) == max(SYMMETRY_SAMPLES, len(reps))
        assert {tuple(sorted(x)) for x in inputs} >= set(reps)
        assert inputs == declaration_sample(n, top, reps)[0]  # seeded: the same every run
    small = InputOrbits.of(6, 2)  # 729 inputs: every one
    inputs, _ = declaration_sample(6, 2, [small.rep(r) for r in range(len(small))])
    assert sorted(inputs) == list(itertools.product(range(3), repeat=6))


def test_a_leak_on_a_sampled_input_of_a_large_grid_is_caught() -> None:
    """On 3^7 inputs the sample holds a shuffled copy of every orbit's representative: a
    leak there is caught (the 6 inputs of before held none of these)."""
    orbits = InputOrbits.of(7, 2)
    inputs, _ = declaration_sample(7, 2, [orbits.rep(r) for r in range(len(orbits))])
    shuffled = next(x for x in inputs[: len(orbits)] if list(x) != sorted(x))
    with pytest.raises(MechanismError, match="fails on input " + re.escape(repr(shuffled))):
        epsilon(Problem("leaky", leaky_same(7, shuffled), DifferentialPrivacy()))


def test_a_sampled_declaration_is_named_in_the_result_and_the_json(tmp_path: Path) -> None:
    from faier.cli.main import app

    source = tmp_path / "total.py"
    source.write_text(
        "from fractions import Fraction\n"
        "import faier\n"
        "NOISE = [faier.truncated_geometric(Fraction(1, 2), 14, s) for s in range(15)]\n"
        "@faier.program(inputs=faier.grid(7, 2), symmetry=faier.permute_queries('same'))\n"
        "def total(x, ctx):\n"
        "    return ctx.draw(NOISE[sum(x)])\n"
    )
    result = CliRunner().invoke(
        app, ["verify", str(source), "--epsilon", "ln(128)", "--json"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "holds" and data["epsilon_star"]["ratio"] == "128"
    (assumed,) = data["assumptions"]
    assert assumed.startswith("the declared symmetry (permuting the answers leaves")
    assert "checked exactly on 1000 of its 2187 inputs" in assumed
    text = CliRunner().invoke(app, ["verify", str(source), "--epsilon", "ln(128)"])
    assert "assumes" in text.stdout and "1000 of its 2187" in " ".join(text.stdout.split())


def test_the_library_declared_wrongly_is_an_internal_error() -> None:
    mechanism = replace(noisy_max(3, "first"), symmetry=PermuteQueries("index"))
    with pytest.raises(InternalError, match="declared symmetry"):
        epsilon(Problem("nm", mechanism, DifferentialPrivacy()))


def test_a_wrong_exact_column_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    right = NoisyMax.grid_column

    def column(self: NoisyMax, x: tuple[int, ...]) -> dict[int, Fraction]:
        out = right(self, x)
        if x[0] != x[-1]:  # a representative with two answers: the last and first swap
            out[1], out[len(x)] = out[len(x)], out[1]
        return out

    monkeypatch.setattr(NoisyMax, "grid_column", column)
    with pytest.raises(InternalError, match="grid_column disagrees"):
        epsilon(Problem("nm", noisy_max(6, "uniform"), DifferentialPrivacy()))


def test_a_declaration_on_inputs_that_are_no_grid_is_bad_input() -> None:
    def body(x: Hashable, ctx: Context) -> int:
        return 1

    inputs = InputSpace(((0, 0), (1, 1)), "two inputs")
    mechanism = Program("odd", body, inputs, symmetry=PermuteQueries("same"))
    with pytest.raises(MechanismError, match=r"'odd'.*not vectors of answers"):
        epsilon(Problem("odd", mechanism, DifferentialPrivacy()))


# --- the orbits themselves -----------------------------------------------------------------------


@pytest.mark.parametrize(("n", "m"), [(1, 2), (2, 2), (3, 2), (4, 1), (3, 3)])
@pytest.mark.parametrize("relation", [EveryQuery(1), EveryQuery(2), OneQuery(1), OneQuery(2)])
def test_pair_orbit_representatives_are_first_members(n: int, m: int, relation: Relation) -> None:
    """One representative per orbit of neighbour pairs: its first member in pair order."""
    values = list(itertools.product(range(m + 1), repeat=n))
    pairs = list(neighbour_pairs(relation, values))
    order = {pair: k for k, pair in enumerate(pairs)}
    firsts = {
        min(
            (
                (tuple(x[i] for i in p), tuple(y[i] for i in p))
                for p in itertools.permutations(range(n))
            ),
            key=order.__getitem__,
        )
        for x, y in pairs
    }
    orbits = InputOrbits.of(n, m)
    assert [orbits.rep(r) for r in range(len(orbits))] == sorted({tuple(sorted(x)) for x in values})
    found = []
    for r in range(len(orbits)):
        rep = orbits.rep(r)
        ys = [
            tuple(int(v) for v in row) for chunk in pair_orbits(rep, m, relation) for row in chunk
        ]
        assert len(ys) == pair_count(rep, m, relation)
        found += [(rep, y) for y in ys]
    assert found == sorted(firsts, key=order.__getitem__)
    assert list(orbits.index(orbits.reps[::-1])) == list(reversed(range(len(orbits))))
    assert sum(orbits.size(r) for r in range(len(orbits))) == len(values)


def test_large_grids_are_kept_by_their_shape() -> None:
    space = grid(30, 2)
    assert len(space) == 3**30 and (0,) * 30 in space and (3,) + (0,) * 29 not in space
    assert next(iter(space)) == (0,) * 30
    with pytest.raises(SpecError, match=r"3\^30 inputs is too many to enumerate"):
        space.values  # noqa: B018
    small = grid(2, 1)
    assert small.values == ((0, 0), (0, 1), (1, 0), (1, 1)) and small == grid(2, 1)


def test_the_method_names_the_orbits() -> None:
    result = orbit_result(noisy_max(5, "uniform"))
    assert "(21 input orbits of 243 inputs, 441 neighbour-pair orbits of 16564" in result.method
    assert "symmetry checked exactly on 243 inputs and on every orbit's" in result.method
    assert "1 candidates rechecked exactly" in result.method
    assert result.assumptions == ()  # every input checked on its own run: nothing assumed
    large = orbit_result(noisy_max(7, "uniform"))
    assert (
        "symmetry checked exactly on 1000 inputs (seeded, every orbit among them), 6 of them "
        "on its own runs and the rest on its grid_column" in large.method
    )
    (assumed,) = large.assumptions
    assert "checked exactly on 1000 of its 2187 inputs" in assumed
    assert "against the mechanism's own runs on 6 of them" in assumed
    assert OrbitSearch.prepare(noisy_max(3, "first"), EVERY) is None
