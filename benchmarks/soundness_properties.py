"""Fuzzer kind ``properties``: random PRISM property strings read by faier and by Storm's parser.

A random property tree (labels, boolean variables, comparisons with
arithmetic, PRISM's conditional ``c ? a : b`` over conditions and inside
arithmetic, ``! & |``, ``X F G U`` with and without step bounds, nested
``P`` operators, ``P=?``/``Pmin=?``/``Pmax=?`` or a reward question
``R{"time"}min=? [F Φ]``/``R=? [C<=k]`` at the top, sometimes named
``"p7": …;`` as in a property file) is written as text
with the fewest brackets PRISM's grammar needs (``PrismParser.jj``: the
temporal operators below the boolean ones, ``U`` not associative) plus
random extra ones.  Both parsers must read the text back to the tree:

- faier (:func:`faier.logic.parser.parse_formula`), compared in the
  canonical form of ``tests/logic/storm_trees.py``;
- Storm (``stormpy.parse_properties`` with the variables declared), its
  printed formula read by the same module.

Storm reads a comparison as the start of one greedy expression and departs
from PRISM's grammar on some unbracketed mixtures (docs/DISCREPANCIES.md).
Where Storm's tree differs, the same tree with every comparison, boolean
variable and ``true``/``false`` (Storm's expressions) replaced by a fresh
label is written with the same brackets; if Storm reads that one right, the
difference is that departure and is counted as a note, not a disagreement.
A fifth of the cases made of labels alone are damaged (a bracket dropped, an
operator doubled, a second ``U``): then both must refuse, or both read the
same tree.  Used by ``benchmarks/soundness.py`` (kind ``properties``).
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol

from storm_trees import Canon, faier_tree, normal, storm_tree

LABELS = ("a", "b", "c")
BOOLEANS = ("flag",)
INTEGERS = ("x", "y")
CONTEXT = (
    "dtmc\n"
    + "".join(f"const int {name};\n" for name in INTEGERS)
    + "".join(f"const bool {name};\n" for name in BOOLEANS)
    + "module placeholder_\n  placeholder_ : bool;\nendmodule\n"
)
"""The identifiers a random property may use, declared for Storm's parser."""


class Check(Protocol):
    """What the fuzzer's Checker offers a case."""

    def used(self, engine: str) -> None: ...
    def expect(self, ok: bool, message: str) -> None: ...
    def crash(self, where: str, exc: BaseException) -> None: ...


@dataclass(frozen=True)
class Node:
    """A property tree: ``kind`` as in the canonical form, ``parts`` its operands or data."""

    kind: str
    parts: tuple[Any, ...] = ()


# --- random trees ---------------------------------------------------------------------


def random_term(rng: random.Random, depth: int) -> Node:
    if depth <= 0 or rng.random() < 0.5:
        if rng.random() < 0.6:
            return Node("name", (rng.choice(INTEGERS),))
        return Node("num", (Fraction(rng.randint(0, 4)),))
    if rng.random() < 0.2:  # PRISM's (c ? t : u) inside arithmetic
        test = random_condition(rng, depth - 1)
        return Node("ite_term", (test, random_term(rng, depth - 1), random_term(rng, depth - 1)))
    return Node(rng.choice("+-*"), (random_term(rng, depth - 1), random_term(rng, depth - 1)))


def random_condition(rng: random.Random, depth: int) -> Node:
    """A condition Storm's expressions read too: comparisons, boolean variables, ! & |, ?:."""
    roll = rng.random()
    if depth <= 0 or roll < 0.5:
        if rng.random() < 0.7:
            op = rng.choice(["=", "!=", "<", "<=", ">", ">="])
            return Node(op, (random_term(rng, 0), random_term(rng, 0)))
        return Node("name", (rng.choice(BOOLEANS),))
    if roll < 0.6:
        return Node("not", (random_condition(rng, depth - 1),))
    if roll < 0.8:
        parts = (random_condition(rng, depth - 1), random_condition(rng, depth - 1))
        return Node(rng.choice(["and", "or"]), parts)
    return Node("ite", tuple(random_condition(rng, depth - 1) for _ in range(3)))


def random_state(rng: random.Random, depth: int, expressions: bool) -> Node:
    """A state formula: no temporal operator outside a P."""
    roll = rng.random()
    if depth <= 0 or roll < 0.35:
        pick = rng.random()
        if expressions and pick < 0.35:
            op = rng.choice(["=", "!=", "<", "<=", ">", ">="])
            return Node(op, (random_term(rng, 1), random_term(rng, 1)))
        if expressions and pick < 0.45:
            return Node("name", (rng.choice(BOOLEANS),))
        if pick < 0.5:
            return Node("bool", (rng.random() < 0.5,))
        return Node("label", (rng.choice(LABELS),))
    if expressions and roll < 0.42:
        return Node("ite", tuple(random_condition(rng, depth - 1) for _ in range(3)))
    if roll < 0.5:
        return Node("not", (random_state(rng, depth - 1, expressions),))
    if roll < 0.9:
        kind = rng.choice(["and", "or"])
        parts = (
            random_state(rng, depth - 1, expressions),
            random_state(rng, depth - 1, expressions),
        )
        return Node(kind, parts)
    bound = rng.choice([">=", ">", "<", "<="]), Fraction(rng.randint(0, 4), 4)
    return Node("P", (None, bound, random_path(rng, depth - 1, expressions)))


def random_path(rng: random.Random, depth: int, expressions: bool) -> Node:
    """A path formula inside P[...]: boolean combinations of state and temporal formulas."""
    roll = rng.random()
    if depth <= 0 or roll < 0.25:
        return random_state(rng, depth - 1, expressions)
    if roll < 0.55:
        op = rng.choice(["X", "F", "G", "Fk"])
        inner = random_path(rng, depth - 1, expressions)
        if op == "Fk":
            return Node("U", (Node("bool", (True,)), inner, ("<=", Fraction(rng.randint(0, 3)))))
        return Node(op, (inner,))
    if roll < 0.75:
        left = random_path(rng, depth - 1, expressions)
        right = random_path(rng, depth - 1, expressions)
        bound = None if rng.random() < 0.6 else ("<=", Fraction(rng.randint(0, 3)))
        return Node("U", (left, right, bound))
    if roll < 0.85:
        return Node("not", (random_path(rng, depth - 1, expressions),))
    kind = rng.choice(["and", "or"])
    parts = (random_path(rng, depth - 1, expressions), random_path(rng, depth - 1, expressions))
    return Node(kind, parts)


def random_property(rng: random.Random, expressions: bool) -> Node:
    if rng.random() < 0.15:  # a reward question: the expected reward until a target, or in k steps
        structure = rng.choice([None, "time"])
        optimum = rng.choice([None, "min", "max"])
        if rng.random() < 0.3:
            return Node("R", (structure, optimum, ("C", Fraction(rng.randint(0, 9)))))
        target = random_state(rng, rng.randint(0, 3), expressions)
        return Node("R", (structure, optimum, ("F", target)))
    path = random_path(rng, rng.randint(1, 4), expressions)
    kind = rng.choice([None, None, "min", "max"])
    top = Node("P", (kind, None, path))
    if kind is None and rng.random() < 0.2:
        bound = (rng.choice([">=", "<"]), Fraction(1, 2))
        top = Node("and", (Node("P", (None, bound, path)), random_state(rng, 1, expressions)))
    return top


# --- writing it as PRISM does -----------------------------------------------------------

_UNTIL, _PREFIX, _ITE, _OR, _AND, _NOT, _ATOM = range(7)


class Writer:
    """Text with PRISM's fewest brackets, plus extra ones where ``rng`` says so.

    The same seed and a tree of the same shape give the same bracket choices,
    whatever the leaves are (leaves draw nothing).
    """

    def __init__(self, rng: random.Random, extra: float) -> None:
        self.rng = rng
        self.extra = extra

    def write(self, node: Node) -> str:
        return self.show(node, _UNTIL)

    def show(self, node: Node, needed: int) -> str:
        text, level = self.render(node)
        if level >= _ATOM:
            return text
        if level < needed or self.rng.random() < self.extra:
            return f"({text})"
        return text

    def render(self, node: Node) -> tuple[str, int]:
        kind, parts = node.kind, node.parts
        if kind == "label":
            return f'"{parts[0]}"', _ATOM
        if kind == "name":
            return str(parts[0]), _ATOM
        if kind == "num":
            return str(parts[0]), _ATOM
        if kind == "bool":
            return ("true" if parts[0] else "false"), _ATOM
        if kind == "ite_term":
            test, then, other = parts
            return f"({self.show(test, _OR)} ? {self.term(then)} : {self.term(other)})", _ATOM
        if kind == "ite":  # PRISM: below =>, right-associative
            test, then, other = parts
            text = f"{self.show(test, _OR)} ? {self.show(then, _OR)} : {self.show(other, _ITE)}"
            return text, _ITE
        if kind in "+-*":
            return f"({self.term(parts[0])} {kind} {self.term(parts[1])})", _ATOM
        if kind in ("=", "!=", "<", "<=", ">", ">="):
            return f"{self.term(parts[0])} {kind} {self.term(parts[1])}", _NOT
        if kind == "not":
            return f"!{self.show(parts[0], _NOT)}", _NOT
        if kind in ("and", "or"):
            level = _AND if kind == "and" else _OR
            symbol = "&" if kind == "and" else "|"
            left = self.show(parts[0], level)
            return f"{left} {symbol} {self.show(parts[1], level + 1)}", level
        if kind in ("X", "F", "G"):
            return f"{kind} {self.show(parts[0], _PREFIX)}", _PREFIX
        if kind == "U":
            left, right, bound = parts
            if left == Node("bool", (True,)) and bound is not None:
                return f"F<={bound[1]} {self.show(right, _PREFIX)}", _PREFIX
            op = "U" if bound is None else f"U<={bound[1]}"
            return f"{self.show(left, _PREFIX)} {op} {self.show(right, _PREFIX)}", _UNTIL
        if kind == "R":
            structure, optimum, (what, inner) = parts
            name = "" if structure is None else '{"' + structure + '"}'
            body = f"C<={inner}" if what == "C" else f"F {self.show(inner, _PREFIX)}"
            return f"R{name}{optimum or ''}=? [{body}]", _ATOM
        assert kind == "P"
        optimum, bound, path = parts
        head = f"P{optimum or ''}=?" if bound is None else f"P{bound[0]}{bound[1]}"
        return f"{head} [{self.write(path)}]", _ATOM

    def term(self, node: Node) -> str:
        return self.render(node)[0]


def canonical(node: Node) -> Canon:
    """The tree in the canonical form of ``storm_trees``."""
    return normal(_raw(node))


def _raw(node: Node) -> Canon:
    kind, parts = node.kind, node.parts
    if kind == "label":
        return ("name", parts[0])
    if kind in ("name", "num", "bool"):
        return (kind, parts[0])
    if kind == "ite_term":
        return ("ite", *(_raw(p) for p in parts))
    if kind == "P":
        return ("P", parts[0], parts[1], _raw(parts[2]))
    if kind == "R":
        what, inner = parts[2]
        path = ("C", ("num", inner)) if what == "C" else ("F", _raw(inner))
        return ("R", parts[0], parts[1], path)
    if kind == "U":
        bound = None if parts[2] is None else f"{parts[2][0]}{parts[2][1]}"
        return ("U", _raw(parts[0]), _raw(parts[1]), bound)
    return (kind, *(_raw(p) for p in parts))


def labelled(node: Node, counter: list[int]) -> Node:
    """The tree with every comparison, boolean variable and constant replaced by a fresh label."""
    if node.kind in ("=", "!=", "<", "<=", ">", ">=", "bool", "ite") or (
        node.kind == "name" and node.parts[0] in BOOLEANS
    ):
        counter[0] += 1
        return Node("label", (f"e{counter[0]}",))
    if node.kind in ("P",):
        return Node("P", (node.parts[0], node.parts[1], labelled(node.parts[2], counter)))
    if node.kind == "R" and node.parts[2][0] == "F":
        target = labelled(node.parts[2][1], counter)
        return Node("R", (node.parts[0], node.parts[1], ("F", target)))
    if node.kind == "U":
        left, right = labelled(node.parts[0], counter), labelled(node.parts[1], counter)
        return Node("U", (left, right, node.parts[2]))
    if node.kind in ("not", "and", "or", "X", "F", "G"):
        return Node(node.kind, tuple(labelled(p, counter) for p in node.parts))
    return node


def damaged(text: str, rng: random.Random) -> str:
    """The text with one bracket dropped, one operator doubled, or a second U."""
    choice = rng.randrange(3)
    brackets = [i for i, c in enumerate(text) if c in "()[]"]
    if choice == 0 and brackets:
        at = rng.choice(brackets)
        return text[:at] + text[at + 1 :]
    if choice == 1:
        ops = [i for i, c in enumerate(text) if c in "&!"]  # || is Storm's conditional
        if ops:
            at = rng.choice(ops)
            return text[: at + 1] + text[at] + " " + text[at + 1 :]
    inside = text.rfind("]")
    return text[:inside] + ' U "a" U "b"' + text[inside:]


# --- one case ---------------------------------------------------------------------------

_PROGRAM: list[Any] = []


def _storm_program(stormpy: Any) -> Any:
    if not _PROGRAM:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "context.prism"
            path.write_text(CONTEXT, encoding="utf-8")
            _PROGRAM.append(stormpy.parse_prism_program(str(path)))
    return _PROGRAM[0]


def storm_reads(text: str) -> Canon | None:
    """Storm's tree for the text, or None when Storm refuses it."""
    import stormpy

    try:
        (prop,) = stormpy.parse_properties(text, _storm_program(stormpy))
    except RuntimeError:
        return None
    return storm_tree(str(prop.get_raw_formula()))


def faier_reads(text: str) -> Canon | None:
    """faier's tree for the text, or None when faier refuses it (as bad input)."""
    from faier.logic.parser import FormulaError, parse_formula

    try:
        return faier_tree(parse_formula(text).formula)
    except FormulaError:
        return None


def case_properties(seed: int, check: Check, notes: list[str]) -> str:
    rng = random.Random(seed)
    expressions = rng.random() < 0.7
    tree = random_property(rng, expressions)
    extra = rng.choice([0.0, 0.15, 0.4])
    bracket_seed = rng.randrange(2**32)
    named = rng.random() < 0.2
    text = Writer(random.Random(bracket_seed), extra).write(tree)
    if named:
        text = f'"p{seed % 100}": {text};'
    # damaged only without Storm's expressions, whose departures would muddle the comparison
    broken = rng.random() < 0.2 and labelled(tree, [0]) == tree
    if broken:
        text = damaged(text, rng)
    check.used("faier-parser")
    check.used("storm-parser")
    try:
        faier = faier_reads(text)
    except Exception as exc:
        check.crash(f"faier reading {text!r}", exc)
        return text
    storm = storm_reads(text)
    if broken:
        check.expect(
            faier == storm,
            f"damaged {text!r}: faier reads {faier}, Storm {storm}",
        )
        return text
    expected = canonical(tree)
    check.expect(faier == expected, f"faier reads {text!r} as {faier}, PRISM as {expected}")
    if named and faier is not None:
        from faier.logic.parser import parse_formula

        name = parse_formula(text).name
        check.expect(name == f"p{seed % 100}", f"faier reads the name of {text!r} as {name!r}")
    if storm != expected:
        relabelled = labelled(tree, [0])
        plain = Writer(random.Random(bracket_seed), extra).write(relabelled)
        plain = f'"p{seed % 100}": {plain};' if named else plain
        storm_plain = storm_reads(plain)
        departs = storm_plain == canonical(relabelled)
        check.expect(departs, f"Storm reads {text!r} as {storm}, PRISM as {expected}")
        if departs:
            notes.append("Storm's greedy expression departs from PRISM's grammar")
    return text
