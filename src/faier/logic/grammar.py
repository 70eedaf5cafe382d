"""The grammar of dpCTL* formulas and PRISM properties, and the parser's options.

:mod:`faier.logic.parser` reads formulas with the LALR(1) parser that lark's
stand-alone tool generates from these (``_dpctl_lalr.py``, written by
``scripts/regenerate_parser.py``: ``make parser``); the parser module explains the
precedence.  The generated module keeps :func:`grammar_digest` of what it was
made from, and ``tests/logic/test_dpctl_lalr.py`` fails when the two differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

GRAMMAR = r"""
start: property_name? path SEMICOLON?
property_name: ESCAPED ":"

?path: ite
     | ite UNTIL step_bound? ite                -> until
?ite: prop
    | prop QMARK prop COLON ite                 -> ite
?prop: disj
     | prop IMPLIES disj                        -> implies
?disj: conj
     | disj OR conj                             -> or_
?conj: unary
     | conj AND unary                           -> and_
?unary: primary
      | NOT unary                               -> not_
      | NEXT ite                                -> next_
      | FINALLY step_bound? ite                 -> finally_
      | GLOBALLY step_bound? ite                -> globally
step_bound: COMPARE signed
          | COMPARE NAME                        -> named_step_bound
?primary: arith                                 -> value
        | ESCAPED                               -> quoted_atom
        | TRUE                                  -> true
        | FALSE                                 -> false
        | "(" path ")"
        | prob_kind COMPARE signed "[" path "]"          -> prob_bound
        | prob_kind EQUALS "?" "[" path "]"              -> prob_query
        | prob_kind IN interval "[" path "]"             -> prob_interval
        | DIFF "{" eps ("," delta)? "}" "[" path "]"     -> diff
        | arith comparison arith                 -> compare
delta: MINUS? NUMBER
comparison: COMPARE | EQUALS | UNEQUAL
?arith: arith_term | arith_sum
?arith_term: arith_factor | arith_product
?arith_sum: arith "+" arith_term                -> add
          | arith MINUS arith_term              -> sub
?arith_product: arith_term "*" arith_factor     -> mul
              | arith_term "/" arith_factor     -> div
?arith_factor: NAME                             -> var
             | NUMBER                           -> num
             | MINUS arith_factor               -> neg
             | NAME "(" arith ("," arith)* ")"  -> call
             | "(" arith_sum ")"
             | "(" arith_product ")"
             | "(" prop QMARK prop COLON ite ")"  -> paren_ite
prob_kind: PROB | PMIN | PMAX | PROB OPTIMUM
interval: "[" signed "," signed "]"             -> closed_closed
        | "(" signed "," signed "]"             -> open_closed
        | "[" signed "," signed ")"             -> closed_open
        | "(" signed "," signed ")"             -> open_open
signed: NUMBER | MINUS NUMBER
eps: eps_sum
?eps_sum: eps_prod | eps_sum ("+" | MINUS) eps_prod
?eps_prod: eps_unary | eps_prod ("*" | "/") eps_unary
?eps_unary: eps_power | MINUS eps_unary
?eps_power: eps_atom | eps_atom "^" eps_unary
?eps_atom: NUMBER | NAME | NAME "(" eps_sum ")" | "(" eps_sum ")"

IMPLIES: "->" | "=>" | "→"
OR: "|" | "∨"
AND: "&" | "∧"
NOT: "!" | "¬"
UNTIL: "U"
NEXT: "X"
FINALLY: "F"
GLOBALLY: "G"
TRUE: "true"
FALSE: "false"
PROB: "P"
PMIN: "Pmin"
PMAX: "Pmax"
OPTIMUM: "min" | "max"
DIFF: "D"
IN: "in"
COMPARE: "<=" | ">=" | "<" | ">"
EQUALS: "="
UNEQUAL: "!="
MINUS: "-"
NUMBER: /\d+(\.\d+)?([eE][+-]?\d+)?(\/\d+)?/ | /\.\d+([eE][+-]?\d+)?/
NAME: /[A-Za-z_][A-Za-z0-9_]*/
ESCAPED: /"(\\.|[^"\\\n])*"/
SEMICOLON: ";"
QMARK: "?"
COLON: ":"

%import common.WS
%ignore WS
"""

PARSER_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {"parser": "lalr", "propagate_positions": True, "maybe_placeholders": False}
)
"""lark's options for the parser generated from :data:`GRAMMAR`."""


def grammar_digest() -> str:
    """SHA-256 of :data:`GRAMMAR` and :data:`PARSER_OPTIONS`."""
    text = GRAMMAR + repr(sorted(PARSER_OPTIONS.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
