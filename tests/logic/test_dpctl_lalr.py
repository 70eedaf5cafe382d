"""The generated parser (``faier.logic._dpctl_lalr``) is lark's own parser for the grammar.

``scripts/regenerate_parser.py`` writes it from ``faier.logic.grammar``; it must be
regenerated after every change to the grammar or its options, and it must read
every text exactly as lark itself does with the same grammar: the same tree (rule
names, tokens and their positions) or the same error at the same place.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lark
import pytest
from hypothesis import given
from hypothesis import strategies as st

from faier.logic import _dpctl_lalr, parser
from faier.logic.grammar import GRAMMAR, PARSER_OPTIONS, grammar_digest

CORPUS = Path(__file__).parent / "data" / "properties.json"


def test_the_generated_parser_is_made_from_the_current_grammar() -> None:
    assert grammar_digest() == _dpctl_lalr.GRAMMAR_DIGEST, "run make parser"


def _lark() -> lark.Lark:
    return lark.Lark(GRAMMAR, **PARSER_OPTIONS)


REFERENCE = _lark()


def _shape(node: Any) -> Any:
    """A tree as nested tuples: each rule's name and children, each token's type, text and
    position (the two parsers' Tree and Token classes differ)."""
    if hasattr(node, "children"):
        return (str(node.data), tuple(_shape(child) for child in node.children))
    return (node.type, str(node), node.line, node.column, node.end_line, node.end_column)


def _reading(parse: Any, text: str) -> Any:
    """The tree, or the error's kind and place."""
    try:
        return _shape(parse(text))
    except Exception as exc:  # both parsers raise lark's exception classes, each its own copy
        return (type(exc).__name__, getattr(exc, "line", None), getattr(exc, "column", None))


def _corpus() -> Iterator[str]:
    for entry in json.loads(CORPUS.read_text(encoding="utf-8"))["files"]:
        yield from entry["properties"]


def test_every_public_property_is_read_alike() -> None:
    texts = list(_corpus())
    assert len(texts) > 100
    for text in texts:
        assert _reading(parser._parser().parse, text) == _reading(REFERENCE.parse, text), text


@pytest.mark.parametrize(
    "text",
    [
        'D{ln(3), 1/10^5}[X out1] & P>=1/2 [F<=3 "a b"]',
        "Pmin=? [ F (l=4 & ip=1) ]",
        "P in [1/4, 3/4] [ !(s=5) U<=40 srep=1 ]",
        "a U b U c",
        "P=? [ F s=4 & z/N<0.1 ",
        '"p1": P=? [ (s=4 ? x : K+1) < K ];',
    ],
)
def test_hand_picked_texts_are_read_alike(text: str) -> None:
    assert _reading(parser._parser().parse, text) == _reading(REFERENCE.parse, text)


WORDS = [
    "P",
    "Pmin",
    "Pmax",
    "=?",
    ">=",
    "<",
    "D",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ",",
    ";",
    ":",
    "F",
    "G",
    "X",
    "U",
    "<=3",
    "!",
    "&",
    "|",
    "->",
    "?",
    "in",
    "true",
    "false",
    "ln(3)",
    "1/2",
    "0.25",
    "x",
    "y=1",
    "s",
    "+",
    "-",
    "*",
    "/",
    '"lab"',
    "min",
    "max",
    "e",
]


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14))
def test_random_token_strings_are_read_alike(words: list[str]) -> None:
    text = " ".join(words)
    assert _reading(parser._parser().parse, text) == _reading(REFERENCE.parse, text)
