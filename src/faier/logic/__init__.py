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
- ``checker``    — ``check`` (verdict per state, the numbers behind each P and D) and
  ``probabilities``
- ``outcome``    — ``CheckResult`` and its rows
- ``analysis``   — ``least_delta``: the δ a D needs for a given ε (exact, or Proposition 2)

Internals (``_storm``, ``_evaluate``, ``_mdp``, ``_bounded``, ``_closeness``) talk to Storm,
evaluate satisfaction sets, enumerate action words and compare probabilities exactly.
"""

from faier.logic.checker import check, probabilities
from faier.logic.loading import load_model, load_neighbours
from faier.logic.models import LogicModel, logic_model, markov_chain, mdp
from faier.logic.neighbours import NeighbourRelation, NeighbourSpec, parse_neighbour_spec
from faier.logic.outcome import CheckResult
from faier.logic.parser import FormulaError, parse, parse_formula
from faier.logic.printer import format_formula

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
