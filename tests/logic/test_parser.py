"""dpCTL* syntax: parsing, precedence, errors that point at a column, round-tripping."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import faier.cli.main  # noqa: F401  (registers the commands on the app)
from faier.cli.common import app
from faier.errors import SpecError
from faier.logic.parser import MAX_DEPTH, FormulaError, parse, parse_formula
from faier.logic.printer import format_formula, format_label
from faier.logic.syntax import (
    And,
    Atom,
    Bound,
    Const,
    Diff,
    Finally,
    Formula,
    Globally,
    Implies,
    Interval,
    Next,
    Not,
    Or,
    Prob,
    Query,
    Until,
    horizon,
    is_state_formula,
    maximal_state_subformulas,
)
from faier.privacy.budget import Epsilon

a, b, c = Atom("a"), Atom("b"), Atom("c")
LN3 = Epsilon.parse("ln(3)")


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a & b & c", And(And(a, b), c)),
        ("a -> b -> c", Implies(Implies(a, b), c)),
        ("a | b & c", Or(a, And(b, c))),
        ("X a & b", Next(And(a, b))),
        ("(X a) & b", And(Next(a), b)),
        ("F a & G b", Finally(And(a, Globally(b)))),
        ("(F a) & (G b)", And(Finally(a), Globally(b))),
        ("a & F b | c", And(a, Finally(Or(b, c)))),
        ("!F a & b", Not(Finally(And(a, b)))),
        ("F a U b", Until(Finally(a), b)),
        ("a & b U c | d", Until(And(a, b), Or(c, Atom("d")))),
        ("a U F b & c", Until(a, Finally(And(b, c)))),
        ("a U (b U c)", Until(a, Until(b, c))),
        ("!a U<=3 b", Until(Not(a), b, 3)),
        ("X X (a & X a)", Next(Next(And(a, Next(a))))),
        ("F<=2 G<=1 a", Finally(Globally(a, 1), 2)),
        ("F a -> b", Finally(Implies(a, b))),
        ("¬a ∧ b → c ∨ true", Implies(And(Not(a), b), Or(c, Const(True)))),
        ('"F" & "my label"', And(Atom("F"), Atom("my label"))),
    ],
)
def test_precedence(text: str, tree: Formula) -> None:
    assert parse(text, path=True) == tree


def test_operators() -> None:
    d = parse("D{ln(3), 0}[X out1] & D{ln(3)}[X out0]")
    assert d == And(
        Diff(Next(Atom("out1")), LN3, Fraction(0)), Diff(Next(Atom("out0")), LN3, Fraction(0))
    )
    assert parse("P>=0.9 [F<=3 done]") == Prob(
        Finally(Atom("done"), 3), Bound(">=", Fraction(9, 10))
    )
    assert parse("P in (1/4, 3/4] [X a]") == Prob(
        Next(a), Interval(Fraction(1, 4), Fraction(3, 4), low_open=True)
    )
    assert parse("Pmax=? [G a]") == Prob(Globally(a), Query("Pmax"))
    assert parse("P min=? [G a]") == Prob(Globally(a), Query("Pmin"))  # PRISM's spaced form
    assert parse("P max =? [G a]") == Prob(Globally(a), Query("Pmax"))
    eps = parse("D{2*ln(2) + 1, 1/2}[F a]")
    assert isinstance(eps, Diff) and eps.delta == Fraction(1, 2)
    assert eps.epsilon.exp_ratio is None and abs(eps.epsilon.value - 2.386294) < 1e-6


def test_tree_helpers() -> None:
    path = parse("(X (out1 & D{ln(3), 0}[X out1])) & (a U<=2 b)", path=True)
    assert not is_state_formula(path)
    assert horizon(path) == 2
    assert horizon(parse("F a", path=True)) is None
    assert horizon(parse("X X (a & X X X b)", path=True)) == 5
    inner = Diff(Next(Atom("out1")), LN3, Fraction(0))
    assert maximal_state_subformulas(path) == (And(Atom("out1"), inner), a, b)
    assert is_state_formula(parse("P>=1/2 [X a] & !D{0, 1/2}[F a]"))


def test_positions() -> None:
    parsed = parse_formula("D{ln(3), 0}[X out1] & D{ln(3), 0}[X out0]")
    assert parsed.positions[()].column == 21
    assert parsed.positions[(1,)].column == 23
    assert parsed.positions[(1, 0)].column == 35
    assert parsed.positions[(1, 0, 0)].column == 37


@pytest.mark.parametrize(
    ("text", "column", "words"),
    [
        ("D{ln(3), 0}[X out1", 12, "'[': it is never closed"),
        ("D{ln(3), 0}[X out1]]", 20, "unbalanced ']'"),
        ("D{ln(3), 0}[X out1)]", 19, "')' closes the '[' opened at column 12"),
        ("(a & b", 1, "never closed"),
        ("D{-1, 0}[X a]", 3, "negative"),
        ("D{ln(1/2)}[X a]", 3, "negative"),
        ("D{ln(3), 2}[X a]", 10, "δ = 2 is not in [0, 1]"),
        ("D{ln(3), -0.1}[X a]", 10, "δ = -0.1 is not in [0, 1]"),
        ("D{ln(3), 1e-999999}[X a]", 10, "out of range"),
        ("P>=0.5 [a U b U c]", 15, "U is not associative"),
        ("D{foo, 0}[X a]", 3, "unknown name 'foo'"),
        ("P>=1.5 [X a]", 4, "not in [0, 1]"),
        ("P in [0.6, 0.5] [X a]", 7, "exceeds"),
        ("X a", 1, "X is a path operator outside P or D"),
        ("a & b U c", 7, "U is a path operator"),
        ("a & P=? [X a]", 5, "P=? asks for a probability"),
        ("P>=0.5 [X U]", 11, "keyword"),
        ("P>=0.5 [F<=1.5 a]", 12, "not a whole number"),
        ("P>=0.5 [F<2 a]", 10, "<=k"),
        ("a # b", 3, "unexpected character '#'"),
        ("a b", 3, "unexpected 'b'"),
        ("a &", 4, "ends too early"),
        ("Pmin>=0.3 [X a]", 1, "only asks a question"),
        ("D{ln(3), 0} X a", 13, "unexpected 'X'"),
    ],
)
def test_errors_name_the_column(text: str, column: int, words: str) -> None:
    with pytest.raises(FormulaError) as caught:
        parse(text)
    assert caught.value.where == f"formula, column {column}"
    assert words in caught.value.message
    assert isinstance(caught.value, SpecError)


def test_errors_name_the_line_in_multiline_formulas() -> None:
    with pytest.raises(FormulaError) as caught:
        parse("P>=1/2 [X a] &\n  D{ln(3), 7}[X a]")
    assert caught.value.where == "formula, line 2, column 12"


def test_empty_formula() -> None:
    with pytest.raises(FormulaError, match="empty"):
        parse("  ")


def test_nodes_validate_themselves() -> None:
    with pytest.raises(SpecError):
        Bound(">=", Fraction(3, 2))
    with pytest.raises(SpecError):
        Diff(a, LN3, Fraction(-1))
    with pytest.raises(SpecError):
        Until(a, b, -1)


def test_labels_are_quoted_only_when_needed() -> None:
    assert format_label("out1") == "out1"
    assert format_label("U") == '"U"'
    assert format_label('say "hi"') == '"say \\"hi\\""'


# --- round trip ---------------------------------------------------------------------

LABELS = st.sampled_from(["a", "b", "out1", "X", "in", "t3r5", "a b", 'q"x', "_z"])
NUMBERS = st.fractions(min_value=0, max_value=1, max_denominator=12)
EPSILONS = st.sampled_from(["0", "ln(3)", "2*ln(2)", "1.5", "ln(24/7)"]).map(Epsilon.parse)
BOUNDS = st.one_of(
    st.builds(Bound, st.sampled_from(["<", "<=", ">", ">="]), NUMBERS),
    st.tuples(NUMBERS, NUMBERS, st.booleans(), st.booleans()).map(
        lambda t: Interval(min(t[0], t[1]), max(t[0], t[1]), t[2], t[3])
    ),
)
STEPS = st.none() | st.integers(0, 4)


def _formulas(leaves: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    def extend(inner: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        return st.one_of(
            st.builds(Not, inner),
            st.builds(And, inner, inner),
            st.builds(Or, inner, inner),
            st.builds(Implies, inner, inner),
            st.builds(Next, inner),
            st.builds(Until, inner, inner, STEPS),
            st.builds(Finally, inner, STEPS),
            st.builds(Globally, inner, STEPS),
            st.builds(Prob, inner, BOUNDS),
            st.builds(Diff, inner, EPSILONS, NUMBERS),
        )

    return st.recursive(leaves, extend, max_leaves=12)


FORMULAS = _formulas(st.one_of(st.builds(Atom, LABELS), st.builds(Const, st.booleans())))


@settings(max_examples=300, deadline=None)
@given(FORMULAS)
def test_printer_round_trips(formula: Formula) -> None:
    text = format_formula(formula)
    assert parse(text, path=True) == formula
    assert format_formula(parse(text, path=True)) == text


@settings(max_examples=50, deadline=None)
@given(FORMULAS, st.sampled_from(["P", "Pmin", "Pmax"]))
def test_queries_round_trip(path: Formula, kind: str) -> None:
    query = Prob(path, Query(kind))  # type: ignore[arg-type]
    assert parse(format_formula(query)) == query


# nesting: MAX_DEPTH operators and brackets, refused past it ------------------------


def _chain(op: str, operators: int, leaf: str = "out1") -> str:
    return f" {op} ".join([leaf] * (operators + 1))


AT_LIMIT = {
    "negations": "!" * MAX_DEPTH + "true",
    "brackets": "(" * MAX_DEPTH + "true" + ")" * MAX_DEPTH,
    "conjunctions": _chain("&", MAX_DEPTH),
    "implications": _chain("->", MAX_DEPTH),
    "until": "P>=0 [" + "true U (" * (MAX_DEPTH - 2) + "true U true" + ")" * (MAX_DEPTH - 2) + "]",
    "next": "P>=0 [" + "X " * (MAX_DEPTH - 1) + "out1]",
    "D in D": "D{1, 0}[" * MAX_DEPTH + "out1" + "]" * MAX_DEPTH,
    "P in P": "P>=0 [" * MAX_DEPTH + "out1" + "]" * MAX_DEPTH,
    "ε arithmetic": "D{" + "+".join(["1"] * MAX_DEPTH) + ", 0}[out1]",
    "mixed": "!(" * 100 + "D{" + "+".join(["1/1000"] * 99) + ", 0}[out1]" + ")" * 100,
}


@pytest.mark.parametrize("text", AT_LIMIT.values(), ids=AT_LIMIT.keys())
def test_formulas_at_the_nesting_limit_parse_and_print(text: str) -> None:
    formula = parse(text)
    assert parse(format_formula(formula)) == formula


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ("!" * (MAX_DEPTH + 1) + "true", "formula, column 201", "operators are nested"),
        ("!" * 2000 + "true", "formula, column 201", "operators are nested"),
        ("(" * 2000 + "true" + ")" * 2000, "formula, column 201", "brackets are open"),
        (_chain("&", MAX_DEPTH + 1), "formula, column 6", "operators are nested"),
        (_chain("&", 3000), "formula, column 19599", "operators are nested"),
        ("D{" + "+".join(["1"] * 2000) + ", 0}[out1]", "formula, column 3603", "operators are"),
        ("!\n" * (MAX_DEPTH + 1) + "true", "formula, line 201, column 1", "operators are"),
        ("D{1, 0}[" * (MAX_DEPTH + 1) + "out1" + "]" * 201, "formula, column 1602", "brackets"),
    ],
)
def test_nesting_past_the_limit_is_a_located_error(text: str, where: str, message: str) -> None:
    """The column is the outermost operator (or bracket) past the limit, found without recursion."""
    with pytest.raises(FormulaError) as caught:
        parse(text)
    assert caught.value.where == where
    assert f"more than {MAX_DEPTH} {message}" in caught.value.message


@pytest.mark.parametrize(
    ("model", "text", "code"),
    [
        ("survey", AT_LIMIT["negations"], 0),
        ("survey", AT_LIMIT["conjunctions"], 1),
        ("survey", AT_LIMIT["next"], 0),
        ("survey", AT_LIMIT["D in D"], 0),
        ("survey", AT_LIMIT["P in P"], 0),
        ("survey", AT_LIMIT["ε arithmetic"], 0),
        ("survey", AT_LIMIT["mixed"], 0),
        ("interactive-survey", "D{ln(4), 0}[" * 199 + "out1" + "]" * 199, 0),
        ("interactive-survey", "D{ln(4), 0}[" + "X " * (MAX_DEPTH - 1) + "out1]", 0),
    ],
)
def test_formulas_at_the_nesting_limit_check(model: str, text: str, code: int) -> None:
    result = CliRunner().invoke(app, ["check", model, "-f", text, "--json"])
    assert result.exit_code == code, result.output
    assert json.loads(result.stdout)["verdict"] == ("holds" if code == 0 else "violated")


@pytest.mark.parametrize(
    "text", ["!" * 2000 + "true", "(" * 2000 + "true" + ")" * 2000, _chain("|", 2000)]
)
def test_deep_formulas_are_bad_input_in_the_cli(text: str) -> None:
    result = CliRunner().invoke(app, ["check", "survey", "-f", text])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: formula, column ")
    assert "Traceback" not in result.output and result.stdout == ""


@pytest.mark.parametrize(
    ("text", "column", "named"),
    [
        ("S=? [done]", 1, "steady-state probabilities (S)"),
        ("LRA>=1/2 [done]", 1, "long-run averages (LRA)"),
        ('T=? [F "Done"]', 1, "expected times (T)"),
    ],
)
def test_prism_operators_outside_dpctl_are_named(text: str, column: int, named: str) -> None:
    with pytest.raises(FormulaError) as caught:
        parse(text)
    assert caught.value.where == f"formula, column {column}"
    assert caught.value.message == f"{named} are not part of dpCTL*"
    assert "faier checks P and D operators" in (caught.value.fix or "")


@pytest.mark.parametrize(
    ("text", "column"),
    [("P>=1/2 [F a] & Rmax<=3 [F done]", 16), ("R>=3 [F done]", 1), ("!R=? [F done]", 2)],
)
def test_rewards_are_read_only_as_the_whole_question(text: str, column: int) -> None:
    with pytest.raises(FormulaError) as caught:
        parse(text)
    assert caught.value.where == f"formula, column {column}"
    assert caught.value.message == "rewards (R) are read only as the whole question"


def test_variables_named_like_operators_stay_variables() -> None:
    assert parse("P=? [F T>=3 & S<1 & R=2]") is not None


def test_labels_named_r_or_s_are_still_labels() -> None:
    assert parse('P>=1/2 [F R] & P>=1/2 [S U "R=1"]') is not None


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ('filter(max, P=? [F "a"], "init")', 1, "filter(…) is not part of dpCTL*"),
        (
            'Pmax=? [ F^{rew{"time"}<=9} done ]',
            10,
            "bounds on rewards (F^{rew…}) are not part of dpCTL*",
        ),
        ('Pmax=? [F<=B "success"]', 12, "step bound B is a constant, not a number"),
    ],
)
def test_other_prism_constructs_are_refused_by_name(text: str, column: int, message: str) -> None:
    with pytest.raises(FormulaError) as caught:
        parse(text)
    assert caught.value.where == f"formula, column {column}"
    assert caught.value.message == message
