"""Datasets from files and Python values, and their neighbours in the user's own form."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from faier.auditing import data, neighbours
from faier.errors import SpecError


def test_csv_numbers_become_a_vector_or_a_matrix(tmp_path: Path) -> None:
    one = tmp_path / "one.csv"
    one.write_text("x\n1\n2.5\n", encoding="utf-8")
    assert data.load(one).materialise().tolist() == [1.0, 2.5]
    two = tmp_path / "two.csv"
    two.write_text("a,b\n1,2\n3,4\n", encoding="utf-8")
    assert data.load(two).materialise().shape == (2, 2)


def test_csv_with_text_becomes_records(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_text("city,age\nParis,30\nLyon,41\n", encoding="utf-8")
    assert data.load(path).materialise() == [
        {"city": "Paris", "age": 30},
        {"city": "Lyon", "age": 41},
    ]


def test_json_and_npy(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_text(json.dumps([1, 2, 3]), encoding="utf-8")
    assert data.load(path).materialise().tolist() == [1, 2, 3]
    array = tmp_path / "d.npy"
    np.save(array, np.array([[1.0, 2.0]]))
    assert data.load(array).materialise().tolist() == [[1.0, 2.0]]


@pytest.mark.parametrize("name, text", [("d.txt", "1"), ("d.json", "{oops"), ("d.csv", "a,b\n1\n")])
def test_bad_files_are_bad_input_naming_the_file(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpecError) as caught:
        data.load(path)
    assert name in str(caught.value)


def test_an_integer_vector_turns_float_for_a_nan_candidate() -> None:
    dataset = data.from_value(np.array([1, 2, 3]))
    assert dataset.materialise().dtype == np.int64
    pairs = list(
        neighbours.adversarial(dataset, neighbours.read_bounds(None, dataset), "add-remove")
    )
    nan = next(p for p in pairs if p.change == "add nan")
    assert np.isnan(nan.right.materialise()[-1])


def test_adversarial_pairs_cover_the_edges() -> None:
    dataset = data.from_value([{"city": "Paris", "age": 30}, {"city": "Lyon", "age": 41}])
    bounds = neighbours.read_bounds({"age": (0.0, 120.0)}, dataset)
    changes = [p.change for p in neighbours.adversarial(dataset, bounds, "add-remove")]
    for expected in (
        "add ('Paris', 120)",
        "add ('Paris', 1e+308)",
        "add ('faier-new-category', 30)",
        "remove record 1 (('Lyon', 41))",
        "add a duplicate of record 0 (('Paris', 30))",
    ):
        assert any(expected in c for c in changes), expected
    replaced = [p for p in neighbours.adversarial(dataset, bounds, "replace-one")]
    assert all(len(p.left) == len(p.right) for p in replaced)


def test_a_large_dataset_is_summarised_in_json() -> None:
    small = data.from_value(np.arange(3.0))
    assert small.to_json() == [0, 1, 2]
    large = data.from_value(np.arange(500.0))
    summary = large.to_json()
    assert summary["records"] == 500 and len(summary["first"]) == data.JSON_RECORDS
