"""Correlated data models against an independent brute-force enumeration of the joint.

Each model's conditioned priors (variable elimination for Bayesian networks, a
forward pass over counts for Markov chains, filtering for joint tables) are
compared with the joint distribution enumerated here from the models' raw
tables, conditioned and pushed through the query by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from faier.errors import SpecError
from faier.examples.correlated import household
from faier.model.parameters import Parameter
from faier.privacy.bayesnet import BayesianNetwork, Node
from faier.privacy.correlated import ABSENT, Query, RecordSecret, count, pufferfish
from faier.privacy.joint import JointTable
from faier.privacy.markovdata import MarkovChainData
from faier.privacy.specs import Pufferfish
from faier.privacy.symbolic import ParametricPufferfish

P, C = sympy.symbols("p c", real=True)


def _value(w: object, point: Mapping[str, Fraction]) -> Fraction:
    if isinstance(w, Fraction):
        return w
    v = sympy.sympify(w).subs(
        {sympy.Symbol(k, real=True): sympy.Rational(str(x)) for k, x in point.items()}
    )
    v = sympy.nsimplify(sympy.cancel(v))
    return Fraction(int(v.p), int(v.q))


def _brute(
    joint: list[tuple[tuple[tuple[tuple[str, str], ...], ...], Fraction]],
    record: int,
    holds: Callable[[dict[str, str]], bool],
    query: Callable[[tuple[tuple[tuple[str, str], ...], ...]], Hashable],
) -> tuple[dict[Hashable, Fraction], Fraction]:
    mass = sum((w for d, w in joint if holds(dict(d[record]))), Fraction(0))
    out: dict[Hashable, Fraction] = {}
    for d, w in joint:
        if holds(dict(d[record])) and w:
            out[query(d)] = out.get(query(d), Fraction(0)) + w / mass
    return {k: v for k, v in out.items() if v}, mass


def _at(conditioned: object, point: Mapping[str, Fraction]) -> dict[Hashable, Fraction]:
    out = {x: _value(w, point) for x, w in conditioned.weights}  # type: ignore[attr-defined]
    return {k: v for k, v in out.items() if v}


# --- the household family (primary case plus contagion) ------------------------------


def _household_joint(n: int, p: Fraction, c: Fraction) -> list:
    """From the story: primaries independently with p; others catch it with c if any primary."""
    joint: dict[tuple, Fraction] = {}
    for primaries in itertools.product((True, False), repeat=n):
        w = Fraction(1)
        for b in primaries:
            w *= p if b else 1 - p
        others = [i for i in range(n) if not primaries[i]]
        for caught in itertools.product((True, False), repeat=len(others)):
            v = w
            sick = list(primaries)
            for i, b in zip(others, caught, strict=True):
                chance = c if any(primaries) else Fraction(0)
                v *= chance if b else 1 - chance
                sick[i] = b
            key = tuple((("status", "sick" if s else "healthy"),) for s in sick)
            joint[key] = joint.get(key, Fraction(0)) + v
    return list(joint.items())


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize(
    "p, c", [(Fraction(1, 2), Fraction(63, 64)), (Fraction(1, 7), Fraction(2, 5))]
)
def test_household_network_matches_the_story(n: int, p: Fraction, c: Fraction) -> None:
    model = household(n)
    query = count("sick", "status")
    for value in ("sick", "healthy"):
        secret = RecordSecret.has("John", value, "status")
        got = model.conditioned(secret, query)
        want, mass = _brute(
            _household_joint(n, p, c),
            0,
            lambda r, v=value: r["status"] == v,
            lambda d: sum(dict(r)["status"] == "sick" for r in d),
        )
        assert _at(got, {"p": p, "c": c}) == want
        assert _value(got.mass, {"p": p, "c": c}) == mass


def test_household_loss_at_the_issue_point_is_the_reported_lower_bound() -> None:
    """The issue's lower bound ln(546460/71623) is the loss at p = 1/2, c = 63/64."""
    from faier.api import epsilon

    result = epsilon("household-contagion", params=["p=1/2", "c=63/64"], engine="exact")
    assert result.epsilon_star is not None
    assert result.epsilon_star.ratio == Fraction(546460, 71623)


def test_household_spec_is_parametric_and_fixes_to_rational() -> None:
    from faier.examples.correlated import household_privacy

    spec = household_privacy(3, (Parameter("p"), Parameter("c")))
    assert isinstance(spec, ParametricPufferfish)
    fixed = household_privacy(
        3, (Parameter("p", value=Fraction(1, 2)), Parameter("c", value=Fraction(1, 3)))
    )
    assert isinstance(fixed, Pufferfish)
    (pair,) = fixed.pairs
    want, _ = _brute(
        _household_joint(3, Fraction(1, 2), Fraction(1, 3)),
        0,
        lambda r: r["status"] == "sick",
        lambda d: str(sum(dict(r)["status"] == "sick" for r in d)),
    )
    assert pair.left.as_dict() == want


# --- random Bayesian networks ----------------------------------------------------------


@st.composite
def networks(draw: st.DrawFn) -> tuple[BayesianNetwork, list]:
    records = ["r0", "r1", "r2"][: draw(st.integers(1, 3))]
    attrs = ["a", "b"][: draw(st.integers(1, 2))]
    variables = [(r, a) for r in records for a in attrs]
    values = {v: ["x", "y", ABSENT][: draw(st.integers(2, 3))] for v in variables}
    nodes = []
    cpts = {}
    for i, v in enumerate(variables):
        earlier = variables[:i]
        parents = (
            draw(st.lists(st.sampled_from(earlier), max_size=2, unique=True)) if earlier else []
        )
        table = {}
        for combo in itertools.product(*(values[p] for p in parents)):
            raw = draw(
                st.lists(st.integers(0, 4), min_size=len(values[v]), max_size=len(values[v]))
            )
            if sum(raw) == 0:
                raw[0] = 1
            table[combo] = {x: Fraction(k, sum(raw)) for x, k in zip(values[v], raw, strict=True)}
        cpts[v] = (tuple(parents), table)
        nodes.append(Node(v[0], v[1], tuple(values[v]), tuple(parents), table))
    joint = []
    for assignment in itertools.product(*(values[v] for v in variables)):
        a = dict(zip(variables, assignment, strict=True))
        w = Fraction(1)
        for v, (parents, table) in cpts.items():
            w *= table[tuple(a[p] for p in parents)][a[v]]
        dataset = tuple(tuple((x, a[(r, x)]) for x in attrs) for r in records)
        joint.append((dataset, w))
    return BayesianNetwork(tuple(nodes)), joint


@settings(max_examples=40)
@given(networks(), st.data())
def test_random_networks_match_brute_force(model_joint: tuple, data: st.DataObject) -> None:
    model, joint = model_joint
    records = list(model.records)
    r = data.draw(st.integers(0, len(records) - 1))
    kind = data.draw(st.sampled_from(["has", "absent", "predicate"]))
    if kind == "has":
        secret = RecordSecret.has(records[r], "x", "a")
        holds = lambda row: row["a"] == "x"  # noqa: E731
    elif kind == "absent":
        secret = RecordSecret.absent(records[r])
        holds = lambda row: all(v == ABSENT for v in row.values())  # noqa: E731
    else:
        secret = RecordSecret.where(records[r], lambda row: row["a"] != "y", "a is not y")
        holds = lambda row: row["a"] != "y"  # noqa: E731
    for query, reference in (
        (count("x", "a"), lambda d: sum(dict(row)["a"] == "x" for row in d)),
        (Query("the data set", lambda d: d), lambda d: d),
    ):
        got = model.conditioned(secret, query)
        want, mass = _brute(joint, r, holds, reference)
        assert got.mass == mass
        assert _at(got, {}) == want


# --- random Markov chains ----------------------------------------------------------------


@st.composite
def chains(draw: st.DrawFn) -> tuple[MarkovChainData, list]:
    states = ["s0", "s1", "s2"][: draw(st.integers(2, 3))]

    def row() -> dict[str, Fraction]:
        raw = draw(st.lists(st.integers(0, 3), min_size=len(states), max_size=len(states)))
        if sum(raw) == 0:
            raw[-1] = 1
        return {s: Fraction(k, sum(raw)) for s, k in zip(states, raw, strict=True)}

    initial = row()
    transition = {s: row() for s in states}
    length = draw(st.integers(1, 4))
    joint = []
    for seq in itertools.product(states, repeat=length):
        w = initial[seq[0]]
        for a, b in itertools.pairwise(seq):
            w *= transition[a][b]
        joint.append((tuple((("value", s),) for s in seq), w))
    return MarkovChainData(tuple(states), initial, transition, length), joint


@settings(max_examples=40)
@given(chains(), st.data())
def test_random_chains_match_brute_force(chain_joint: tuple, data: st.DataObject) -> None:
    chain, joint = chain_joint
    t = data.draw(st.integers(0, chain.length - 1))
    value = data.draw(st.sampled_from(chain.states))
    secret = RecordSecret.has(chain.records[t], value)
    for query, reference in (
        (count("s0"), lambda d: sum(dict(row)["value"] == "s0" for row in d)),
        (Query("last", lambda d: d[-1]), lambda d: d[-1]),
    ):
        got = chain.conditioned(secret, query)
        want, mass = _brute(joint, t, lambda row: row["value"] == value, reference)
        assert got.mass == mass
        assert _at(got, {}) == want


def test_parametric_chain_matches_brute_force_at_points() -> None:
    chain = MarkovChainData.of(
        ("0", "1"),
        {"0": "1/2", "1": "1/2"},
        {"0": {"0": "p", "1": "1-p"}, "1": {"0": "1-q", "1": "q"}},
        3,
    )
    assert chain.parameters() == {"p", "q"}
    got = chain.conditioned(RecordSecret.has("X2", "1"), count("1"))
    for p, q in ((Fraction(1, 3), Fraction(3, 4)), (Fraction(9, 10), Fraction(1, 5))):
        fixed = MarkovChainData.of(
            ("0", "1"),
            {"0": "1/2", "1": "1/2"},
            {"0": {"0": p, "1": 1 - p}, "1": {"0": 1 - q, "1": q}},
            3,
        )
        want, mass = _brute(
            list(fixed.joint()),
            1,
            lambda row: row["value"] == "1",
            lambda d: sum(dict(r)["value"] == "1" for r in d),
        )
        assert _at(got, {"p": p, "q": q}) == want
        assert _value(got.mass, {"p": p, "q": q}) == mass


# --- joint tables --------------------------------------------------------------------------


@settings(max_examples=40)
@given(
    st.lists(
        st.tuples(st.tuples(*[st.sampled_from(["x", "y", ABSENT])] * 3), st.integers(1, 5)),
        min_size=1,
        max_size=10,
        unique_by=lambda row: row[0],
    ),
    st.integers(0, 2),
    st.sampled_from(["has", "absent", "predicate"]),
)
def test_random_joint_tables_match_brute_force(
    rows: list[tuple[tuple[str, str, str], int]], r: int, kind: str
) -> None:
    mass = sum(w for _, w in rows)
    table = JointTable.of(("a", "b", "c"), {d: Fraction(w, mass) for d, w in rows})
    joint = [(tuple((("value", v),) for v in d), Fraction(w, mass)) for d, w in rows]
    record = ("a", "b", "c")[r]
    if kind == "has":
        secret, holds = RecordSecret.has(record, "x"), lambda row: row["value"] == "x"
    elif kind == "absent":
        secret, holds = RecordSecret.absent(record), lambda row: row["value"] == ABSENT
    else:
        secret = RecordSecret.where(record, lambda row: row["value"] != "y", "not y")
        holds = lambda row: row["value"] != "y"  # noqa: E731
    want, want_mass = _brute(joint, r, holds, lambda d: sum(dict(x)["value"] == "x" for x in d))
    got = table.conditioned(secret, count("x"))
    assert got.mass == want_mass
    assert _at(got, {}) == want


def test_joint_table_with_absent_records_and_parameters() -> None:
    table = JointTable.of(
        ("John", "Ann"),
        {
            ("sick", "sick"): "p*c",
            ("sick", ABSENT): "p*(1-c)",
            ("healthy", "healthy"): "(1-p)/2",
            (ABSENT, "healthy"): "(1-p)/2",
        },
    )
    q = count("sick")
    absent = table.conditioned(RecordSecret.absent("John"), q)
    assert absent.as_dict() == {0: 1} and sympy.simplify(absent.mass - (1 - P) / 2) == 0
    sick = table.conditioned(RecordSecret.has("John", "sick"), q)
    assert {k: sympy.simplify(v) for k, v in sick.as_dict().items()} == {2: C, 1: 1 - C}
    spec = pufferfish(
        table,
        ((RecordSecret.has("John", "sick"), RecordSecret.absent("John")),),
        q,
        (Parameter("p"), Parameter("c")),
    )
    assert isinstance(spec, ParametricPufferfish)


def test_bad_models_are_bad_input() -> None:
    with pytest.raises(SpecError, match="sum to"):
        JointTable.of(("a",), {("x",): "1/2"})
    with pytest.raises(SpecError, match="cycle"):
        BayesianNetwork(
            (
                Node.of("a", "v", ("0", "1"), (("b", "v"),), {("0",): {"0": 1}, ("1",): {"1": 1}}),
                Node.of("b", "v", ("0", "1"), (("a", "v"),), {("0",): {"0": 1}, ("1",): {"1": 1}}),
            )
        )
    with pytest.raises(SpecError, match="no row"):
        BayesianNetwork((Node.of("a", "v", ("0", "1"), (), {}),))
    with pytest.raises(SpecError, match="unknown record"):
        household(2).conditioned(
            RecordSecret.has("Jane", "sick", "status"), count("sick", "status")
        )
    with pytest.raises(SpecError, match="undeclared"):
        pufferfish(
            household(2),
            (
                (
                    RecordSecret.has("John", "sick", "status"),
                    RecordSecret.has("John", "healthy", "status"),
                ),
            ),
            count("sick", "status"),
        )


@pytest.mark.parametrize("contagious", [False, True])
def test_the_papers_attribute_models_are_special_joint_tables(contagious: bool) -> None:
    """datamodel's independent/contagious attributes and a joint table agree exactly."""
    from faier.privacy.datamodel import Attribute, Contagious, DataModel, Independent, Secret

    p = Fraction(2, 7)
    prior = Contagious(p) if contagious else Independent(p)
    old = DataModel(("John", "Ann", "Bob"), (Attribute("d", prior),))
    rows: dict[tuple[str, ...], Fraction] = {}
    for cells in itertools.product((True, False), repeat=3):
        if contagious:
            w = (p if cells[0] else 1 - p) if len(set(cells)) == 1 else Fraction(0)
        else:
            w = Fraction(1)
            for cell in cells:
                w *= p if cell else 1 - p
        if w:
            rows[tuple("d" if c else "-" for c in cells)] = w
    new = JointTable.of(("John", "Ann", "Bob"), rows)
    for value, text in ((True, "d"), (False, "-")):
        want = old.conditioned(Secret("John", "d", value), lambda d: old.counts(d)[0])
        got = new.conditioned(RecordSecret.has("John", text), count("d"))
        assert want is not None and got.as_dict() == want.as_dict()
