"""Constraints between parameters, and the three forms of ``--param``.

``--param p=0.3`` fixes a parameter, ``--param 'p in (0, 1/2]'`` sets its
domain, and ``--param 'pA <= pB'`` adds a (linear or polynomial) constraint.
A constraint is kept as sympy expressions so that every engine can read it:
the SMT engine asserts it, the exact engine checks a fixed point against it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from faier.errors import SpecError
from faier.model.expressions import ExpressionError, parse_expression
from faier.model.parameters import Interval
from faier.model.probability import parse_number

if TYPE_CHECKING:
    import sympy

_SPLIT = re.compile(r"(<=|>=|!=|==|<|>|=)")
_IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"
_FIX = re.compile(rf"^\s*({_IDENTIFIER})\s*=\s*([^=<>!]+)$")
_DOMAIN = re.compile(rf"^\s*({_IDENTIFIER})\s+in\s+(.+)$")
_UNBOUNDED = re.compile(r"(oo|inf)", re.IGNORECASE)


@dataclass(frozen=True)
class Constraint:
    """``lhs relation rhs`` over declared parameters."""

    text: str
    lhs: sympy.Expr
    relation: str
    rhs: sympy.Expr

    @classmethod
    def parse(cls, text: str, names: Iterable[str], *, where: str = "--param") -> Constraint:
        """Read ``pA <= pB``, ``pA + pB < 1``, ``pA = 2*pB``; names must be declared."""
        import sympy

        declared = tuple(names)
        parts = _SPLIT.split(text)
        if len(parts) != 3:
            raise SpecError(
                f"{text!r} is not a constraint with exactly one relation",
                where=where,
                fix="write e.g. 'pA <= pB' or 'pA + pB < 1' (relations: < <= > >= = !=)",
            )
        symbols = {n: sympy.Symbol(n, real=True) for n in declared}
        sides = []
        for side in (parts[0], parts[2]):
            try:
                sides.append(parse_expression(side, names=symbols))
            except ExpressionError as exc:
                unknown = str(exc).startswith("unknown name")
                raise SpecError(
                    f"{exc} in constraint {text!r}",
                    where=where,
                    fix=f"declared parameters: {', '.join(declared) or 'none'}"
                    if unknown
                    else "use numbers, parameters, + - * / ^ and parentheses",
                ) from exc
        relation = "==" if parts[1] in {"=", "=="} else parts[1]
        difference = sympy.simplify(sides[0] - sides[1])
        if not difference.free_symbols:
            raise SpecError(
                f"constraint {text!r} mentions no parameter",
                where=where,
                fix="a constraint relates parameters, e.g. 'pA <= pB'",
            )
        if not difference.is_rational_function(*difference.free_symbols):
            raise SpecError(
                f"constraint {text!r} is not polynomial", where=where, fix="use + - * / ^"
            )
        return cls(text.strip(), sides[0], relation, sides[1])

    def names(self) -> set[str]:
        return {str(s) for s in (self.lhs - self.rhs).free_symbols}

    def difference(self) -> sympy.Expr:
        """lhs − rhs: the constraint is ``difference relation 0``."""
        import sympy

        return sympy.together(self.lhs - self.rhs)

    def holds_at(self, values: Mapping[str, Fraction]) -> bool:
        """Whether the constraint holds at a rational point (exactly)."""
        import sympy

        subs = {s: sympy.Rational(values[str(s)]) for s in (self.lhs - self.rhs).free_symbols}
        value = sympy.cancel((self.lhs - self.rhs).subs(subs))
        if not value.is_Rational:
            raise SpecError(f"constraint {self.text!r} is not rational at {dict(values)}")
        x = Fraction(int(value.p), int(value.q))
        return {
            "<": x < 0,
            "<=": x <= 0,
            ">": x > 0,
            ">=": x >= 0,
            "==": x == 0,
            "!=": x != 0,
        }[self.relation]

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ParameterOption:
    """One ``--param``: a fixed value, a domain, or a constraint (still as text)."""

    text: str
    name: str | None = None
    value: Fraction | None = None
    domain: Interval | None = None

    @property
    def is_constraint(self) -> bool:
        return self.name is None

    @classmethod
    def parse(cls, text: str) -> ParameterOption:
        """Tell the three forms apart; constraints are parsed once names are known."""
        where = f"--param {text}"
        if match := _DOMAIN.match(text):
            interval_text = match.group(2).strip()
            if _UNBOUNDED.search(interval_text):
                raise SpecError(
                    f"the domain {interval_text} of {match.group(1)!r} is unbounded",
                    where=where,
                    fix="parameters are probabilities here: give a bounded interval such as (0, 1)",
                )
            return cls(text, match.group(1), domain=Interval.parse(interval_text, where=where))
        if match := _FIX.match(text):
            try:
                value = parse_number(match.group(2).strip())[0]
            except ValueError:
                return cls(text)
            return cls(text, match.group(1), value=value)
        if not _SPLIT.search(text):
            raise SpecError(
                f"cannot read {text!r}",
                where="--param",
                fix="write NAME=VALUE (p=0.3), 'NAME in INTERVAL' (p in (0, 1)) "
                "or a constraint ('pA <= pB')",
            )
        return cls(text)
