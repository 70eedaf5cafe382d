"""A formula checked against the model it is asked on: labels, variables, operators.

Labels are checked before anything is computed, so a misspelt label is a
located input error, never a silently false formula.  The checker and the
question answered in Storm on a directed build (:mod:`faier.logic.directed`)
share it; it reads only names and the model's kind.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from faier.errors import SpecError
from faier.logic.expressions import Valuations
from faier.logic.parser import ParsedFormula
from faier.logic.syntax import Atom, Diff, Expression, Prob, Query, Reward, walk

if TYPE_CHECKING:
    from faier.logic.models import LogicModel


def validate(
    parsed: ParsedFormula,
    name: str,
    labels: Collection[str],
    valuations: Valuations | None,
    *,
    nondeterministic: bool,
    has_pairs: bool,
    model: LogicModel | None = None,
    structures: Collection[str] | None = None,
) -> None:
    """Every label, variable and operator of ``parsed`` makes sense on the model ``name``:
    its ``labels``, its ``valuations`` (whose states may be any of the model's, since only
    the variables' names and types are read), its kind; for a reward question, its reward
    ``structures`` (by default those of ``model``)."""
    for path, node in walk(parsed.formula):
        if isinstance(node, Expression):
            _validate_expression(name, valuations, parsed, path, node)
        if (
            isinstance(node, Atom)
            and node.name not in labels
            and not (valuations is not None and valuations.is_boolean(node.name))
        ):
            import difflib  # for a mistake's message only

            close = difflib.get_close_matches(node.name, list(labels), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise parsed.error(
                path,
                f"unknown label {node.name!r}",
                f"{hint}labels of {name} are {', '.join(labels) or '(none)'}",
            )
        if isinstance(node, Diff) and not has_pairs:
            raise parsed.error(
                path,
                "D compares each state with its neighbours, but no neighbour relation is given",
                "give one, e.g. --neighbors 'a~b' or --neighbors '@in0~@in1'",
            )
        if isinstance(node, Reward):
            assert model is not None or structures is not None, "a reward question needs them"
            if node.optimum is None and nondeterministic:
                raise parsed.error(
                    path,
                    "on an MDP the expected reward depends on the scheduler",
                    "ask Rmin=? [...] or Rmax=? [...]",
                )
            from faier.logic.rewards import chosen_structure, structure_name

            try:
                if structures is None:
                    assert model is not None
                    structure_name(model, node)
                else:
                    chosen_structure(name, structures, node)
            except SpecError as exc:
                raise parsed.error(path, exc.message, exc.fix) from None
        if (
            isinstance(node, Prob)
            and isinstance(node.test, Query)
            and node.test.kind == "P"
            and nondeterministic
        ):
            raise parsed.error(
                path,
                "on an MDP the probability depends on the scheduler",
                "ask Pmin=? [...] or Pmax=? [...]",
            )


def _validate_expression(
    name: str,
    valuations: Valuations | None,
    parsed: ParsedFormula,
    path: tuple[int, ...],
    node: Expression,
) -> None:
    """A comparison needs states named by valuations, and only the model's variables."""
    if valuations is None:
        raise parsed.error(
            path,
            f"{node.text} compares variables, but the states of {name} are not variable valuations",
            "use labels, or a PRISM model",
        )
    known = sorted(valuations.columns)
    defined = sorted(valuations.definitions)
    for variable in sorted(node.variables()):
        if not valuations.knows(variable):
            import difflib

            close = difflib.get_close_matches(variable, known + defined, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            also = f"; its constants and formulas are {', '.join(defined)}" if defined else ""
            raise parsed.error(
                path,
                f"unknown variable {variable!r} in {node.text}",
                f"{hint}variables of {name} are {', '.join(known) or '(none)'}{also}",
            )
