"""Bad input over a parameter domain: one InputError with the place and the fix, exit 2."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from typer.testing import CliRunner

from faier import api
from faier.cli.main import app
from faier.core.problem import Problem
from faier.engines import smt
from faier.engines.smt import solvers
from faier.errors import InputError, ModelError, SpecError
from faier.model.constraints import Constraint
from faier.model.hmm import HMM
from faier.model.parameters import Parameter
from faier.privacy.budget import Epsilon
from faier.privacy.symbolic import ParametricPufferfish, SymbolicComparison, SymbolicDistribution
from faier.results import Verdict

runner = CliRunner()
P, Q = sympy.symbols("p q", real=True)
LN2 = Epsilon.parse("ln(2)")


def two_state_problem(
    emission_a: tuple[object, object],
    left: dict[str, object],
    parameters: tuple[Parameter, ...],
    constraints: tuple[Constraint, ...] = (),
    hmm_parameters: tuple[Parameter, ...] = (),
) -> Problem:
    one, zero = Fraction(1), Fraction(0)
    hmm = HMM(
        ("a", "b"),
        ("x", "y"),
        ((one, zero), (zero, one)),
        (emission_a, (Fraction(1, 4), Fraction(3, 4))),  # type: ignore[arg-type]
        parameters=hmm_parameters,
    )
    pair = SymbolicComparison(
        SymbolicDistribution.of(left), SymbolicDistribution.of({"b": 1}), "left", "b"
    )
    privacy = ParametricPufferfish((pair,), parameters, constraints, "test")
    return Problem("test", hmm, privacy, 1)


def verify(problem: Problem) -> object:
    return smt.verify(problem, LN2, smt.SolverSettings(solver="z3"))


def test_a_probability_outside_0_1_for_some_parameter_value_is_found() -> None:
    problem = two_state_problem(
        (P, 1 - P), {"a": 1}, (), hmm_parameters=(Parameter("p", domain_of("(0, 2)")),)
    )
    with pytest.raises(
        ModelError, match=r"emissions\.a\.y: the probability 1 - p is negative at p = "
    ):
        verify(problem)


def domain_of(text: str) -> object:
    from faier.model.parameters import Interval

    return Interval.parse(text)


def test_an_initial_distribution_summing_to_1_only_under_a_constraint() -> None:
    parameters = (Parameter("p"), Parameter("q"))
    left = {"a": P, "b": Q}
    with pytest.raises(
        ModelError, match=r"prior 'left': probabilities sum to p \+ q, which is not 1"
    ):
        verify(two_state_problem((Fraction(1, 2),) * 2, left, parameters))
    constrained = two_state_problem(
        (Fraction(1, 2),) * 2, left, parameters, (Constraint.parse("p + q = 1", ["p", "q"]),)
    )
    assert verify(constrained).verdict in (Verdict.HOLDS, Verdict.VIOLATED)  # type: ignore[attr-defined]


def test_constraints_that_leave_no_parameter_value() -> None:
    parameters = (Parameter("p"),)
    constraints = (Constraint.parse("p < 1/4", ["p"]), Constraint.parse("p > 1/2", ["p"]))
    problem = two_state_problem((P, 1 - P), {"a": 1}, parameters, constraints, parameters)
    with pytest.raises(SpecError, match="no parameter value satisfies"):
        verify(problem)


def test_parameters_used_but_not_declared() -> None:
    with pytest.raises(ModelError, match="parameters q that are not declared"):
        verify(two_state_problem((Q, 1 - Q), {"a": 1}, (Parameter("p"),)))


def test_param_option_errors() -> None:
    with pytest.raises(SpecError, match="unbounded"):
        api.verify("count-independent-disease", "ln(2)", params=["p in (0, oo)"])
    with pytest.raises(InputError, match="empty interval"):
        api.verify("count-independent-disease", "ln(2)", params=["p in (1, 0)"])
    with pytest.raises(SpecError, match="has no parameter 'q'"):
        api.verify("count-independent-disease", "ln(2)", params=["q=1/2"])
    with pytest.raises(InputError, match="lies outside its domain"):
        api.verify("count-independent-disease", "ln(2)", params=["p=3/2"])
    with pytest.raises(SpecError, match="fixed setting of the example 'geometric'"):
        api.verify("geometric", "ln(2)", params=["p in (0, 1)"])
    with pytest.raises(SpecError, match="have no value"):
        api.verify("count-independent-disease", "ln(2)", engine="exact")
    with pytest.raises(SpecError, match="pure ε"):
        api.verify("count-independent-disease", "ln(2)", delta="0.1")


def run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.stderr


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args, expected in (
        (("--param", "p in (0, 2)"), "the probability 1 - p is negative"),
        (("--param", "p < 0"), "no parameter value satisfies"),
        (("--solver", "yices"), "unknown solver 'yices'"),
        (("--engine", "magic"), "unknown engine 'magic'"),
        (("--param", "p ="), "empty expression"),
        (("--param", "p in [0, 1"), "is not an interval"),
    ):
        code, err = run("verify", "count-independent-disease", "-e", "ln(2)", *args)
        assert code == 2, err
        assert len(err.strip().splitlines()) == 1 and expected in err, err


def test_a_missing_solver_is_reported_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(solvers, "available", lambda name: name != "cvc5")
    code, err = run("verify", "count-independent-disease", "-e", "ln(2)", "--solver", "cvc5")
    assert code == 2
    assert "the SMT solver cvc5 is not installed" in err and "pip install" in err
    # the portfolio falls back to the solvers that are installed
    code, _ = run("verify", "count-independent-disease", "-e", "ln(2)")
    assert code == 0


def test_a_timeout_is_unknown_with_the_time_spent() -> None:
    result = api.verify(
        "most-common-disease", "ln(2)", encoding="faithful", solver="z3", timeout=1.0
    )
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason is not None and "timeout" in result.reason and "after" in result.reason
    assert result.statistics.seconds < 10
