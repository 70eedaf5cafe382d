"""The solver backends: run one SMT-LIB query with z3 or cvc5 and read the model.

This is the only module that imports a solver, and it does so inside the
worker process that runs it (see :mod:`faier.engines.smt.portfolio`).  A
missing solver is reported once, as :class:`SolverNotInstalled`.  Model values
come back as plain data: a rational, or an algebraic number with a rational
isolating interval and the solver's own text, so the engine can refine it to
rationals and recheck the witness exactly.
"""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass
from fractions import Fraction

from faier.errors import InputError

SOLVERS = ("z3", "cvc5")
INTERVAL_DIGITS = 40


class SolverNotInstalled(InputError):
    """A requested SMT solver cannot be imported."""


def available(name: str) -> bool:
    """Whether the solver's Python package is importable (without importing it)."""
    module = {"z3": "z3", "cvc5": "cvc5"}[name]
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(names: tuple[str, ...]) -> None:
    """Fail early, with the install command, when a requested solver is missing."""
    missing = [n for n in names if not available(n)]
    if missing:
        package = {"z3": "z3-solver", "cvc5": "cvc5"}
        raise SolverNotInstalled(
            f"the SMT solver{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"{'are' if len(missing) > 1 else 'is'} not installed",
            where="--solver",
            fix=f"pip install 'faier[smt]' (or {' '.join(package[m] for m in missing)}), "
            "or choose another --solver",
        )


@dataclass(frozen=True)
class ModelValue:
    """A model value: exact when rational, else an isolating interval of an algebraic number."""

    exact: Fraction | None
    lower: Fraction | None = None
    upper: Fraction | None = None
    text: str = ""

    def approximations(self) -> list[Fraction]:
        """Rationals to try for an exact recheck, best first."""
        if self.exact is not None:
            return [self.exact]
        assert self.lower is not None and self.upper is not None
        return [(self.lower + self.upper) / 2, self.lower, self.upper]


@dataclass(frozen=True)
class RawAnswer:
    """What one solver said about one query."""

    solver: str
    status: str
    seconds: float
    model: dict[str, ModelValue]
    message: str = ""


def _z3(text: str, logic: str, timeout: float) -> RawAnswer:
    import z3

    started = time.perf_counter()
    ctx = z3.Context()
    solver = z3.SolverFor(logic, ctx=ctx)
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.from_string(text)
    result = solver.check()
    seconds = time.perf_counter() - started
    if result == z3.unsat:
        return RawAnswer("z3", "unsat", seconds, {})
    if result == z3.unknown:
        reason = solver.reason_unknown()
        status = "timeout" if "timeout" in reason or "canceled" in reason else "unknown"
        return RawAnswer("z3", status, seconds, {}, reason)
    model = solver.model()
    values: dict[str, ModelValue] = {}
    for decl in model.decls():
        value = model[decl]
        if z3.is_int_value(value):
            values[decl.name()] = ModelValue(Fraction(value.as_long()), text=str(value))
        elif z3.is_rational_value(value):
            values[decl.name()] = ModelValue(value.as_fraction(), text=str(value))
        elif z3.is_algebraic_value(value):
            bounds = []
            for bound in (z3.Z3_get_algebraic_number_lower, z3.Z3_get_algebraic_number_upper):
                ast = bound(value.ctx_ref(), value.as_ast(), INTERVAL_DIGITS)
                bounds.append(z3.RatNumRef(ast, value.ctx).as_fraction())
            text = f"{value.sexpr()} ≈ {value.as_decimal(12).rstrip('?')}"
            values[decl.name()] = ModelValue(None, bounds[0], bounds[1], text)
    return RawAnswer("z3", "sat", seconds, values)


def _cvc5_value(term: object) -> ModelValue:
    if term.isIntegerValue():  # type: ignore[attr-defined]
        return ModelValue(Fraction(term.getIntegerValue()), text=str(term))  # type: ignore[attr-defined]
    if term.isRealValue():  # type: ignore[attr-defined]
        return ModelValue(Fraction(term.getRealValue()), text=str(term))  # type: ignore[attr-defined]
    if term.isRealAlgebraicNumber():  # type: ignore[attr-defined]
        lower = Fraction(term.getRealAlgebraicNumberLowerBound().getRealValue())  # type: ignore[attr-defined]
        upper = Fraction(term.getRealAlgebraicNumberUpperBound().getRealValue())  # type: ignore[attr-defined]
        return ModelValue(None, lower, upper, str(term))
    raise ValueError(f"cannot read the cvc5 value {term}")


def _cvc5(text: str, logic: str, timeout: float) -> RawAnswer:
    import cvc5

    started = time.perf_counter()
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("produce-models", "true")
    solver.setOption("tlimit-per", str(max(1, int(timeout * 1000))))
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "query")
    while not (command := parser.nextCommand()).isNull():
        command.invoke(solver, symbols)
    result = solver.checkSat()
    seconds = time.perf_counter() - started
    if result.isUnsat():
        return RawAnswer("cvc5", "unsat", seconds, {})
    if not result.isSat():
        explanation = str(result.getUnknownExplanation())
        status = "timeout" if "TIMEOUT" in explanation else "unknown"
        return RawAnswer("cvc5", status, seconds, {}, explanation)
    values: dict[str, ModelValue] = {}
    for term in symbols.getDeclaredTerms():
        values[term.getSymbol()] = _cvc5_value(solver.getValue(term))
    return RawAnswer("cvc5", "sat", seconds, values)


def warm_up(solver: str) -> None:
    """Import the solver now, so the first query does not pay for it."""
    try:
        importlib.import_module(solver)
    except ImportError:
        return


def solve(solver: str, text: str, logic: str, timeout: float) -> RawAnswer:
    """Run one query; any solver failure becomes an 'error' answer, never an exception."""
    started = time.perf_counter()
    try:
        run = _z3 if solver == "z3" else _cvc5
        return run(text, logic, timeout)
    except Exception as exc:  # a solver may raise anything on odd input
        return RawAnswer(
            solver, "error", time.perf_counter() - started, {}, f"{type(exc).__name__}: {exc}"
        )
