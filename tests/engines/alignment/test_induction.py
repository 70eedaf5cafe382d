"""Proofs for every number of queries: the query loop's alignment as an invariant."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

import faier
from faier.core.budget import Budget
from faier.core.problem import Problem
from faier.engines.alignment import loops, states, walks
from faier.engines.alignment.values import NotAffine
from faier.mechanisms.loader import load_module
from faier.privacy.neighbours import EveryQuery, OneQuery
from faier.privacy.specs import DifferentialPrivacy
from faier.results import Verdict

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "checkdp"


def _verify(name: str, claim: str = "1") -> faier.Result:
    return faier.verify(str(EXAMPLES / f"{name}.py"), claim, engine="alignment")


@pytest.mark.parametrize(
    "name", ["sparse_vector", "gap_svt", "num_svt", "prefix_sum", "partial_sum"]
)
def test_loops_are_proved_for_every_number_of_queries(name: str) -> None:
    result = _verify(name)
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None
    assert result.proof.data["queries"] == "every n"
    assert "every number of queries" in result.privacy


def test_partial_sum_shifts_the_release_by_the_moved_query() -> None:
    proof = _verify("partial_sum").proof
    assert proof is not None
    assert [(s["selector"], s["constant"], s["companion"]) for s in proof.data["shifts"]] == [
        ("post", "0", "-1")
    ]
    assert proof.data["moved"] == {"total": ["0", "1"]}
    assert proof.data["largest_cost"] == "1"


def test_sparse_vector_alignment_is_lyu_et_al_s() -> None:
    proof = _verify("sparse_vector").proof
    assert proof is not None
    shifts = {s["selector"]: (s["constant"], s["companion"]) for s in proof.data["shifts"]}
    assert shifts["pre"] == ("1", "0") and shifts["below"] == ("0", "0")
    # above: 2, or 1 − (y − x) (CheckDP's GapSVT shift): both cost at most 2/8 a ⊤
    assert shifts["above"] in {("2", "0"), ("1", "1")}
    assert proof.data["distances"] == {"threshold": "1"}
    assert proof.data["largest_cost"] == "1"


def test_a_cost_that_grows_with_n_is_proved_at_the_declared_length_when_no_witness_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """BadSVT 4 is 1-DP at n = 3 and 4, not for every n: with no time to look at n = 5
    (where its witness is, ``test_checkdp_examples.py``) the proof at n = 3 stands, and
    says where the cost passes ε and that nothing was decided there."""
    from faier.engines.alignment import refute

    monkeypatch.setattr(refute, "SECONDS", 0.0)
    result = _verify("bad_svt4")
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None and result.proof.data["queries"] == 3
    every_n = result.proof.data["every_n"]
    assert "cost bounded" in every_n and "at n = 5" in every_n
    assert "no witness was found" in every_n and "not tried (time)" in every_n


def test_a_loop_reading_its_own_output_is_not_followed() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def reads_back(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if out:
                break
            out.append(q[i] + ctx.draw(faier.laplace(0, 1)) >= 0)
        return tuple(out)

    with pytest.raises(loops.NotALoop, match="output list"):
        states.explore(loops.split(reads_back.body), False, Budget(10, None))


def test_a_counter_branch_whose_cost_grows_gets_no_proof_for_every_n() -> None:
    """Releasing every other query is 1-DP per release: ⌈n/2⌉-DP, so not 2-DP for every n.
    The branch on ``i % 2`` is a choice; the releasing branch costs 1 and can repeat."""

    @faier.program(inputs=faier.grid(2, 1))
    def every_other(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if i % 2 == 0:
                out.append(q[i] + ctx.draw(faier.laplace(0, 1)))
        return tuple(out)

    problem = Problem("every_other", every_other, DifferentialPrivacy(EveryQuery(1)))
    result = faier.verify(problem, "2", engine="alignment")
    # the abstraction passes 2 at n = 3 (the branch is a choice there); the certified
    # engine finds the witness at n = 5, where three numbers are released
    assert result.verdict is Verdict.VIOLATED and result.proof is None
    assert "at n = 5 queries" in result.privacy and result.certified_witness is not None
    graph = states.explore(loops.split(every_other.body), False, Budget(10, None))
    assert (
        sorted(taken for step in graph.steps for _, taken in step.guards)
        == [False] * 2 + [True] * 2
    )


def test_a_counter_branch_with_bounded_cost_is_proved_for_every_n() -> None:
    """q[i] + Lap(1) released where i % 3 == 0: with one-query neighbours only the moved
    query's release can differ, at cost 1, so 1-DP for every n (and not 1/2-DP)."""

    @faier.program(inputs=faier.grid(2, 1))
    def thinned(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if i % 3 == 0:
                out.append(q[i] + ctx.draw(faier.laplace(0, 1)))
        return tuple(out)

    problem = Problem("thinned", thinned, DifferentialPrivacy(OneQuery(1)))
    result = faier.verify(problem, "1", engine="alignment")
    assert result.verdict is Verdict.HOLDS
    assert result.proof is not None and result.proof.data["queries"] == "every n"
    (branch,) = result.proof.data["counter_branches"]
    assert re.fullmatch(r"line \d+ `i % 3 == 0`", branch)
    assert faier.verify(problem, "1/2", engine="alignment").verdict is Verdict.VIOLATED


def test_each_counter_branch_decides_its_own_comparisons() -> None:
    """Both counter branches compare a fresh draw first: the exponential one always holds
    (≥ 0), the Laplace one may fail and then releases q[i] exactly (no finite ε).  The
    feasibility of the second must not be read off the first's."""

    @faier.program(inputs=faier.grid(2, 1))
    def leaky(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if i % 2 == 0:
                out.append(ctx.draw(faier.exponential(1)) >= 0)
            elif q[i] + ctx.draw(faier.laplace(0, 1)) >= 0:
                out.append(True)
            else:
                out.append(q[i])
        return tuple(out)

    graph = states.explore(loops.split(leaky.body), False, Budget(10, None))
    assert any(step.emitted for step in graph.steps)  # the exact release is a path
    problem = Problem("leaky", leaky, DifferentialPrivacy(OneQuery(1)))
    assert faier.verify(problem, "1", engine="alignment").verdict is Verdict.VIOLATED


def test_a_stored_counter_and_the_counter_s_truth_are_not_constants() -> None:
    """``last == 0`` (a counter stored earlier) and ``not i`` hold in some iteration: the
    exact release behind each must be a path of the loop, so neither is proved."""

    @faier.program(inputs=faier.grid(2, 1))
    def after_the_first(q, ctx):  # type: ignore[no-untyped-def]
        out, last = [], -1
        for i in range(len(q)):
            if last == 0:
                out.append(q[i])
            else:
                out.append(q[i] + ctx.draw(faier.laplace(0, 1)))
            last = i
        return tuple(out)

    @faier.program(inputs=faier.grid(2, 1))
    def the_first(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if not i:
                out.append(q[i])
            else:
                out.append(q[i] + ctx.draw(faier.laplace(0, 1)))
        return tuple(out)

    for program in (after_the_first, the_first):
        graph = states.explore(loops.split(program.body), False, Budget(10, None))
        assert any(not step.draws and step.emitted for step in graph.steps)
        problem = Problem(program.name, program, DifferentialPrivacy(OneQuery(1)))
        assert faier.verify(problem, "1", engine="alignment").verdict is Verdict.VIOLATED


def test_counter_branches_compare_with_any_constant_number() -> None:
    """CheckDP's T is a float: ``i > T`` for T = 2.5 or 5/2 is a branch like ``i > 2``."""

    @faier.program(inputs=faier.grid(2, 1))
    def cut(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            if i > 2.5 or i + 1 >= Fraction(7, 2):
                break
            out.append(q[i] + ctx.draw(faier.laplace(0, 1)))
        return tuple(out)

    graph = states.explore(loops.split(cut.body), False, Budget(10, None))
    assert {tuple(taken for _, taken in step.guards) for step in graph.steps} == {
        (True,),
        (False, True),
        (False, False),
    }


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("if q[i] > i:", "a symbolic number combined with Index"),
        ("if q[i + 1] > 0:", "a query read other than q[i]"),
        ("if (i + q[i]) % 2 == 0:", "combined with Sym"),
    ],
)
def test_the_counter_mixed_with_data_is_not_a_choice(line: str, why: str, tmp_path: Path) -> None:
    source = (
        "def body(q, ctx):\n"
        "    out = []\n"
        "    for i in range(len(q)):\n"
        f"        {line}\n"
        "            out.append(q[i] + ctx.draw(faier.laplace(0, 1)))\n"
        "    return tuple(out)\n"
    )
    path = tmp_path / "counter_mixed.py"
    path.write_text("import faier\n" + source)
    module = load_module(path)
    with pytest.raises((loops.NotALoop, NotAffine), match=re.escape(why)):
        states.explore(loops.split(module.body), False, Budget(10, None))


def test_the_largest_walk_and_costly_cycles() -> None:
    edges = [(0, 1, 0, Fraction(0)), (1, 1, 1, Fraction(0)), (1, 2, 2, Fraction(0))]
    top, walk = walks.walks(edges, [Fraction(1), Fraction(0), Fraction(2)], 0)
    assert top == 3 and walk == [0, 2]
    top, walk = walks.walks(edges, [Fraction(1), Fraction(1, 2), Fraction(2)], 0)
    assert top is None and walk == [1]


def test_a_loop_whose_grid_epsilon_exceeds_the_claim_is_not_proved() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def svt(q, ctx):  # type: ignore[no-untyped-def]
        threshold = 1 + ctx.draw(faier.laplace(0, 1))
        out = []
        for i in range(len(q)):
            if q[i] + ctx.draw(faier.laplace(0, 1)) >= threshold:
                out.append(True)
                break
            out.append(False)
        return tuple(out)

    problem = Problem("svt", svt, DifferentialPrivacy(EveryQuery(1)))
    grid = faier.epsilon(problem, engine="certified")
    assert grid.enclosure is not None and grid.enclosure.lower > 1.4  # 1.42457434234…
    assert faier.verify(problem, "1", engine="alignment").verdict is not Verdict.HOLDS
    proved = faier.verify(problem, "3", engine="alignment")  # 1 + 2: Lyu et al.'s cost
    assert proved.verdict is Verdict.HOLDS
    assert proved.proof is not None and proved.proof.data["queries"] == "every n"


threshold = 0
"""A module-level name that the program below shadows with its noisy threshold."""


def test_a_local_that_shadows_a_module_name_is_carried() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def shadowing(q, ctx):  # type: ignore[no-untyped-def]
        threshold = 1 + ctx.draw(faier.laplace(0, 2))
        out = []
        for i in range(len(q)):
            if q[i] + ctx.draw(faier.laplace(0, 4)) >= threshold:
                out.append(True)
                break
            out.append(False)
        return tuple(out)

    graph = states.explore(loops.split(shadowing.body), False, Budget(10, None))
    assert all(state.numbers == ("threshold",) for state in graph.states)


def test_code_after_the_loop_reading_the_counter_is_not_followed() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def last_index(q, ctx):  # type: ignore[no-untyped-def]
        out = []
        for i in range(len(q)):
            out.append(q[i] + ctx.draw(faier.laplace(0, 1)) >= 0)
        return (tuple(out), i)

    with pytest.raises(loops.NotALoop, match="alone does not run"):
        states.explore(loops.split(last_index.body), False, Budget(10, None))


@pytest.mark.parametrize("name", ["noisy_max", "noisy_max_exponential"])
def test_noisy_max_is_proved_for_every_n_by_guessing_the_winner(name: str) -> None:
    proof = _verify(name).proof
    assert proof is not None
    assert proof.data["queries"] == "every n" and proof.data["family"] == "winner"
    winner = [s for s in proof.data["shifts"] if s["selector"] == "winner"]
    # 1 − (y − x) or 2: both move the winner above every other noisy answer, at cost ≤ 1
    assert [(s["constant"], s["companion"]) for s in winner] in ([("1", "1")], [("2", "0")])
    assert proof.data["largest_cost"] == "1"


def test_noisy_max_with_half_the_noise_is_not_proved() -> None:
    assert _verify("bad_noisy_max1").verdict is Verdict.VIOLATED


def test_a_maximum_that_may_never_be_stored_is_not_guessed() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def above_zero(q, ctx):  # type: ignore[no-untyped-def]
        best = -1
        for i in range(len(q)):
            if q[i] + ctx.draw(faier.laplace(0, 2)) >= 0:
                best = i
        return best

    graph = states.explore(loops.split(above_zero.body), False, Budget(10, None))
    from faier.engines.alignment import prophecy

    assert prophecy.prove(graph, Fraction(1), Fraction(100), Budget(10, None)) is None


def test_noisy_max_loop_below_its_grid_epsilon_is_not_proved() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def noisy_max(q, ctx):  # type: ignore[no-untyped-def]
        best, top = 0, None
        for i in range(len(q)):
            noisy = q[i] + ctx.draw(faier.laplace(0, 1))
            if i == 0 or noisy > top:
                best, top = i, noisy
        return best

    problem = Problem("noisy_max", noisy_max, DifferentialPrivacy(EveryQuery(1)))
    grid = faier.epsilon(problem, engine="certified")
    assert grid.enclosure is not None and grid.enclosure.lower > 0.96  # 0.96484306634…
    assert faier.verify(problem, "9/10", engine="alignment").verdict is not Verdict.HOLDS
    proved = faier.verify(problem, "2", engine="alignment")
    assert proved.verdict is Verdict.HOLDS
    assert proved.proof is not None and proved.proof.data["queries"] == "every n"


def test_integer_noise_is_not_guessed() -> None:
    @faier.program(inputs=faier.grid(2, 1))
    def discrete_max(q, ctx):  # type: ignore[no-untyped-def]
        best, top = 0, None
        for i in range(len(q)):
            noisy = q[i] + ctx.draw(faier.discrete_laplace(0, 2))
            if i == 0 or noisy > top:
                best, top = i, noisy
        return best

    from faier.engines.alignment import prophecy

    graph = states.explore(loops.split(discrete_max.body), True, Budget(10, None))
    assert prophecy.applies(graph) == "integer noise (its shifts would have to be integers)"
