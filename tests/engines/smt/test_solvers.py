"""Polynomials, SMT-LIB text, the solver backends and the portfolio of worker processes."""

from __future__ import annotations

import time
from fractions import Fraction

import sympy

from faier import api
from faier.engines.smt import faithful, smtlib
from faier.engines.smt.polynomial import Polynomial
from faier.engines.smt.portfolio import SolverPool
from faier.engines.smt.question import build
from faier.engines.smt.smtlib import Query
from faier.engines.smt.solvers import solve
from faier.engines.smt.supremum import simplest_between

VARIABLES = ("pA", "pB")


def test_polynomials_expand_evaluate_and_print_integer_smtlib() -> None:
    a, b = sympy.symbols("pA pB", real=True)
    poly = Polynomial.from_sympy(sympy.Rational(-13, 6) * a * b**2 + a / 4 + 1, VARIABLES)
    assert poly.evaluate({"pA": Fraction(1, 2), "pB": Fraction(1)}) == Fraction(-13, 12) + Fraction(
        9, 8
    )
    assert smtlib.polynomial(poly) == "(+ (* (- 26) pA pB pB) (* 3 pA) 12)"
    assert sympy.simplify(poly.to_sympy() - (sympy.Rational(-13, 6) * a * b**2 + a / 4 + 1)) == 0
    product = poly * Polynomial.variable(VARIABLES, "pB")
    assert product.degree() == 4 and (product - product).is_zero()
    assert smtlib.real(Fraction(-1, 6)) == "(- (/ 1 6))"
    assert smtlib.real(Fraction(2), decimal=True) == "2.0"


def test_simplest_rational_between_bounds() -> None:
    assert simplest_between(Fraction(3428, 1000), Fraction(3429, 1000)) == Fraction(24, 7)
    assert simplest_between(Fraction(19, 10), Fraction(21, 10)) == 2
    assert simplest_between(Fraction(1, 3), Fraction(1, 3)) == Fraction(1, 3)


def test_both_backends_answer_and_read_algebraic_models() -> None:
    query = Query("t", "QF_NRA", ("x",), ("(= (* x x) 2)", "(> x 0)"))
    for solver in ("z3", "cvc5"):
        answer = solve(solver, query.text(), "QF_NRA", 10.0)
        assert answer.status == "sat", answer.message
        value = answer.model["x"]
        assert value.exact is None and value.lower is not None and value.upper is not None
        assert value.lower**2 <= 2 <= value.upper**2
    unsat = Query("u", "QF_NRA", ("x",), ("(< (* x x) 0)",))
    assert solve("z3", unsat.text(), "QF_NRA", 10.0).status == "unsat"
    broken = solve("z3", "(assert (> y 0))", "QF_NRA", 10.0)
    assert broken.status == "error"


def test_the_portfolio_names_the_deciding_solver_and_times_out_cleanly() -> None:
    problem = api.load_problem("most-common-disease")
    question = build(problem)
    view = faithful.view(question)
    hard = faithful.pufferfish_check(question, view, question.comparisons[0], Fraction(2), 2)
    easy = Query("t", "QF_NRA", ("x",), ("(> x 1)",))
    with SolverPool(("z3", "cvc5")) as pool:
        answer = pool.check(easy, 10.0)
        assert answer.status == "sat" and answer.solver in ("z3", "cvc5")
        started = time.perf_counter()
        slow = pool.check(hard, 0.5)
        assert slow.status == "timeout" and not slow.definitive
        assert time.perf_counter() - started < 30  # a hang guard, not a benchmark
        assert "timeout" in slow.explain()
        again = pool.check(easy, 10.0)
        assert again.status == "sat"
        assert sum(pool.decided.values()) == 2
