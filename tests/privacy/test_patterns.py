"""Input patterns: StatDP's Table 1 (§4.4.1), at any length and sensitivity."""

from __future__ import annotations

from faier.privacy.patterns import patterns

TABLE_1 = {
    "one above": ((1, 1, 1, 1, 1), (2, 1, 1, 1, 1)),
    "one below": ((1, 1, 1, 1, 1), (0, 1, 1, 1, 1)),
    "one above rest below": ((1, 1, 1, 1, 1), (2, 0, 0, 0, 0)),
    "one below rest above": ((1, 1, 1, 1, 1), (0, 2, 2, 2, 2)),
    "half half": ((1, 1, 1, 1, 1), (0, 0, 0, 2, 2)),
    "all above": ((1, 1, 1, 1, 1), (2, 2, 2, 2, 2)),
    "all below": ((1, 1, 1, 1, 1), (0, 0, 0, 0, 0)),
    "x shape": ((1, 1, 0, 0, 0), (0, 0, 1, 1, 1)),
}


def test_length_five_is_table_one() -> None:
    assert {p.name: (p.left, p.right) for p in patterns(5)} == TABLE_1


def test_histograms_move_one_query() -> None:
    assert [p.name for p in patterns(10, one_query=True)] == ["one above", "one below"]


def test_patterns_scale_with_the_sensitivity() -> None:
    found = {p.name: p for p in patterns(4, delta=2)}
    assert found["one below rest above"].left == (2, 2, 2, 2)
    assert found["one below rest above"].right == (0, 4, 4, 4)


def test_every_pattern_moves_each_answer_by_at_most_delta() -> None:
    for length in (1, 2, 5, 10):
        for p in patterns(length):
            assert len(p.left) == len(p.right) == length
            assert p.left != p.right
            assert all(abs(a - b) <= 1 for a, b in zip(p.left, p.right, strict=True))
