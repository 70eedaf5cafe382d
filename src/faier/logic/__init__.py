"""dpCTL*: temporal logic with a differential-privacy operator, checked on Markov chains and MDPs.

Public modules:

- ``syntax``     — formulas as frozen dataclasses (``Atom``, ``Next``, ``Until``, ``Diff``, ...)
- ``parser``     — ``parse_formula``: text → formula, errors with line and column
- ``printer``    — ``format_formula``: formula → text that parses back to the same tree
- ``neighbours`` — neighbour relations (state pairs, label pairs, predicates), closed under symmetry
- ``models``     — ``LogicModel`` and the Python builders ``markov_chain``, ``mdp``, ``logic_model``
- ``files``      — faier's YAML/JSON chain and MDP files
- ``prism``      — PRISM DTMC/MDP files, built exactly by Storm
- ``examples``   — dpCTL*'s models (survey, geometric, subsampling majority, double survey,
  interactive survey, Above Threshold)
- ``loading``    — a command-line target → model; ``--neighbors`` text → pairs
- ``directed``   — a question answered by Storm on the model it built for it (``faier check``)
- ``validation`` — a formula's labels, variables and operators checked against a model
- ``checker``    — ``check`` (verdict per state, the numbers behind each P and D) and
  ``probabilities``
- ``outcome``    — ``CheckResult`` and its rows (a D's witness, ``Closeness``, in ``_closeness``)
- ``analysis``   — ``least_delta``: the δ a D needs for a given ε (exact, or Proposition 2)

Internals (``_storm``, ``_evaluate``, ``_mdp``, ``_bounded``, ``_closeness``) talk to Storm,
evaluate satisfaction sets, enumerate action words and compare probabilities exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faier.lazy import loader

if TYPE_CHECKING:
    from faier.logic.checker import check, probabilities
    from faier.logic.loading import load_model, load_neighbours
    from faier.logic.models import LogicModel, logic_model, markov_chain, mdp
    from faier.logic.neighbours import NeighbourRelation, NeighbourSpec, parse_neighbour_spec
    from faier.logic.outcome import CheckResult
    from faier.logic.parser import FormulaError, parse, parse_formula
    from faier.logic.printer import format_formula

_HOMES: dict[str, tuple[str, ...]] = {
    "checker": ("check", "probabilities"),
    "loading": ("load_model", "load_neighbours"),
    "models": ("LogicModel", "logic_model", "markov_chain", "mdp"),
    "neighbours": ("NeighbourRelation", "NeighbourSpec", "parse_neighbour_spec"),
    "outcome": ("CheckResult",),
    "parser": ("FormulaError", "parse", "parse_formula"),
    "printer": ("format_formula",),
}
"""Where each name lives, imported on first use (PEP 562): ``faier check`` answering a
question in Storm (``directed``) never loads the checker's evaluators."""
__getattr__ = loader("faier.logic", _HOMES)


__all__ = [
    "CheckResult",
    "FormulaError",
    "LogicModel",
    "NeighbourRelation",
    "NeighbourSpec",
    "check",
    "format_formula",
    "load_model",
    "load_neighbours",
    "logic_model",
    "markov_chain",
    "mdp",
    "parse",
    "parse_formula",
    "parse_neighbour_spec",
    "probabilities",
]
