"""Every DTMC and MDP property of the QVBS and the PRISM benchmark suite, read by faier and by Storm.

tests/logic/data/properties.json holds the properties (and the types of the
identifiers they use) of every DTMC and MDP property file of the Quantitative
Verification Benchmark Set and the PRISM benchmark suite, with their sources
(scripts/collect_property_corpus.py wrote it).  Storm's own parser is the
oracle: each property must give faier the tree Storm builds
(storm_trees.py compares them), or be refused by faier with a message that
names what faier does not check (rewards, filters, time operators, bounds
that are constants), never read differently.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from storm_trees import faier_tree, storm_tree

from faier.logic.parser import FormulaError, parse_formula

stormpy = pytest.importorskip("stormpy")

CORPUS = json.loads((Path(__file__).parent / "data" / "properties.json").read_text("utf-8"))
CASES = [
    pytest.param(group, text, id=f"{group['path'].split('/')[-1]}:{number}")
    for group in CORPUS["files"]
    for number, text in enumerate(group["properties"])
]
REFUSED_BY_NAME = re.compile(
    r"rewards \(R\) are read only|expected times \(T\)|filter\(…\)|step bound \S+ is a constant|"
    r"bounds on rewards|faier computes the expected reward until"
)
"""What faier does not check, named in its message."""


def storm_context(identifiers: dict[str, str], tmp_path: Path) -> Any:
    """A PRISM program declaring each identifier as an undefined constant of its type."""
    lines = ["dtmc"]
    lines += [f"const {kind} {name};" for name, kind in identifiers.items()]
    lines += ["module placeholder_", "  placeholder_ : bool;", "endmodule"]
    path = tmp_path / "context.prism"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return stormpy.parse_prism_program(str(path))


def test_the_corpus_covers_both_benchmark_sets() -> None:
    repositories = {group["repository"] for group in CORPUS["files"]}
    assert repositories == set(CORPUS["licences"])
    assert len(CASES) >= 100


@pytest.mark.parametrize(("group", "text"), CASES)
def test_faier_reads_each_property_as_storm_does(
    group: dict[str, Any], text: str, tmp_path: Path
) -> None:
    program = storm_context(group["identifiers"], tmp_path)
    try:
        (storm_property,) = stormpy.parse_properties(text, program)
    except RuntimeError:
        storm_property = None
    try:
        parsed = parse_formula(text)
    except FormulaError as exc:
        assert REFUSED_BY_NAME.search(exc.message), f"{text}: refused as {exc.message}"
        return
    assert storm_property is not None, f"{text}: Storm refuses it, faier reads {parsed.formula}"
    expected = storm_tree(str(storm_property.get_raw_formula()))
    assert faier_tree(parsed.formula) == expected, text
    assert parsed.name == storm_property.get_name()


STORM_DEPARTS = [
    ('P=? [F x=1 | y=2 & "a"]', 'x=1 | (y=2 & "a")', '(x=1 | y=2) & "a"'),
    ("P=? [F !x=1 & y=2]", "!(x=1) & y=2", "!(x=1 & y=2)"),
    ("P=? [F x=1 => y=2 | b]", "x=1 => (y=2 | b)", "(x=1 => y=2) | b"),
]


@pytest.mark.parametrize(("text", "prism", "storm"), STORM_DEPARTS)
def test_where_storm_departs_from_prism_faier_reads_prism(
    text: str, prism: str, storm: str, tmp_path: Path
) -> None:
    """docs/DISCREPANCIES.md: Storm's greedy expressions; each side checked by bracketing it."""
    program = storm_context({"x": "int", "y": "int", "b": "bool"}, tmp_path)

    def storm_reads(source: str) -> Any:
        (prop,) = stormpy.parse_properties(source, program)
        return storm_tree(str(prop.get_raw_formula()))

    faier = faier_tree(parse_formula(text).formula)
    assert faier == storm_reads(f"P=? [F ({prism})]")
    assert storm_reads(text) == storm_reads(f"P=? [F ({storm})]") != faier
